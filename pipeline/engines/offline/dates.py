"""Resolve time phrases ("yesterday", "last weekend", "next Saturday", "kemarin", "上周末", "เดือนหน้า") to dates.

Each rule (date_rules.py: the phrase table) is a compiled pattern and a function of (match, today, text) -> Placement. `today` is the user's
local day (see Turn.today_in). The entry's date says what the user said and no more (ledgers/entry_dates.py):
- a phrase that names a day ("yesterday", "last Friday", "May 3") dates the entry to that day, [2026-07-29];
- one that names a month ("last month", "in May") to the month, [2026-06]; a year ("last year", "in 2019")
  to the year, [2025];
- a week, a weekend or a season is no day: it dates the entry to the month that holds all of it, else the
  year (a period across New Year: the year that holds most of its days). A season's name stays in the
  entry ("last summer" -> "in summer", dated [2025]);
- a period the rules cannot place ("back in college", "a few years ago", "on Sunday" with no tense) keeps
  its words and gets no date (None): no guess.
The phrase leaves the entry (the date carries it) and nothing replaces it: never a weekday or a date in
words the user did not say. A date after today is a plan: entries mark it "(planned)".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, timedelta, timezone, tzinfo
from functools import lru_cache

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.date_rules import (
    _ANY,
    _RULES,
    _SEASON_LABEL,
    _SEASON_START,
    _TH_WEEKDAY,
    _WEEKDAYS,
    DatePhrase,
)
from pipeline.engines.offline.profile import Field


@lru_cache(maxsize=2048)
def find_phrase(text: str, today: date) -> DatePhrase | None:
    """The first time phrase in `text` (by rule priority) and what it resolves to."""
    if _ANY.search(text) is None:
        return None
    for pattern, resolve, lang in _RULES:
        for m in pattern.finditer(text):
            try:
                placed = resolve(m, today, text)
            except ValueError:  # an impossible ISO date such as 2026-02-31
                placed = None
            if placed is not None:
                return DatePhrase(m.start(), m.end(), placed.day, placed.grain, lang)
    return None


def find_date(text: str, today: date) -> tuple[date, DatePhrase] | None:
    """The absolute date a time phrase in `text` names, and the phrase (None: no phrase the rules can place)."""
    phrase = find_phrase(text, today)
    if phrase is None or phrase.day is None:
        return None
    return phrase.day, phrase


def resolve_date(text: str, today: date) -> str | None:
    """The entry date of the event `text` describes, at the precision its time phrase gives ("2026-07-29",
    "2026-06", "2025"), else today; None when the text names a period the rules cannot place ("back in
    college"): no guessed date."""
    phrase = find_phrase(text, today)
    if phrase is None:
        return today.isoformat()
    return phrase.stamp


def is_planned(text: str, today: date) -> bool:
    """True when the text's time phrase names a day after today: a plan, not an event."""
    phrase = find_phrase(text, today)
    return phrase is not None and phrase.day is not None and phrase.day > today


def has_past_marker(text: str, today: date) -> bool:
    """True when the text names a moment before today ("yesterday", "上周"), not just "today"."""
    found = find_date(text, today)
    return found is not None and found[0] < today


# -- taking the phrase out of the entry ---------------------------------------------------------------

# An evaluation of the time itself ("Last night was amazing", "Kemarin seru banget", "昨晚太棒了",
# "เมื่อคืนสนุกมาก"): it says how the time was, not what happened, so it leaves the entry with its phrase.
# Each pattern reads the text right after the phrase, up to and through the end of the clause.
_EN_EVAL_WORDS = (
    r"amazing|awesome|wild|great|fun|crazy|insane|busy|hectic|tough|rough|hard|long|intense|perfect|fantastic|"
    r"incredible|wonderful|lovely|nice|good|bad|terrible|awful|horrible|exhausting|tiring|stressful|special|"
    r"memorable|unforgettable|epic|blast|disaster|nightmare|mess|chaos|chaotic|interesting|beautiful|magical|"
    r"emotional|relaxing|productive|cool|fine|okay|ok|brutal|weird|strange|boring|quiet|calm|chill|lit|surreal|"
    r"unreal|eventful|draining|rewarding|exciting|whirlwind|nuts|hilarious|sad|best|worst|lot of fun|much fun|"
    r"roller ?coaster|blur|dream|something else|one for the books"
)
_EVALUATION = {
    "en": lazy_compile(
        r"^\s*(?:was|were|is|has been|had been|will be|'s|’s)\s+(?:(?:so+|really|very|pretty|super|absolutely|totally|"
        r"quite|just|such|incredibly|truly|kind of|kinda|a bit|a little|too|honestly|definitely|seriously|such a)\s+)*"
        rf"(?:(?:a|an|the|one)\s+)?(?:{_EN_EVAL_WORDS})(?:\s+(?:day|night|week|weekend|month|year|time|one|ride|"
        r"experience|evening|morning))?\b[\s!.?…~]*(?:[,;:—–-]|\s+(?:and|but|because|so)\b|$)",
        re.I,
    ),
    "id": lazy_compile(
        r"^\s*(?:(?:itu|tuh|sih|tu|rasanya|benar-benar|bener-bener|sungguh|sangat|amat|cukup|lumayan|agak|super|"
        r"terlalu|begitu)\s+)*(?:seru|asyik|asik|keren|capek|capai|cape|sibuk|mantap|mantul|luar biasa|menyenangkan|"
        r"melelahkan|parah|gila|berat|indah|bagus|hebat|kacau|santai|produktif|heboh|rame|ramai|menegangkan|spesial|"
        r"istimewa|berkesan|tak terlupakan|sedih|lucu|aneh|sepi|menarik|enak|panjang|hectic|chaos|wild|amazing)"
        r"(?:\s+(?:banget|bgt|bngt|sekali|bener|deh|sih|lho|loh|kok|nih|dong|juga|parah|abis|pol))*\b[\s!.?…~]*"
        r"(?:[,;:]|\s+(?:dan|tapi|karena|soalnya|jadi|terus)\b|$)",
        re.I,
    ),
    "zh": lazy_compile(
        r"^\s*(?:过得)?(?:真是|真的|真|太|好|很|超|特别|非常|挺|蛮|有点|格外|可)?(?:棒|好玩|开心|忙|累|疯狂|精彩|难忘|有意思|"
        r"有趣|不错|糟糕|热闹|充实|辛苦|紧张|刺激|美好|愉快|爽|美|惨|无聊|顺利|完美|难熬|漫长|忙碌|好)"
        r"(?:了|啊|呀|哦|哈|啦|极了|死了|得很|得不得了)*[\s!！。.?？~～…]*(?:[，,；;：:]|$)"
    ),
    "th": lazy_compile(
        r"^\s*(?:มัน|ก็|นี่|นั้น)*(?:สนุก|เหนื่อย|ยุ่ง|วุ่นวาย|ดี|เยี่ยม|สุดยอด|มันส์|ประทับใจ|เจ๋ง|แย่|หนัก|วุ่น|ชิล|สบาย|"
        r"เพลิน|น่าจดจำ|วิเศษ|เศร้า|ตื่นเต้น|ยาวนาน|โหด)(?:มาก|สุดๆ|ๆ|จัง|เลย|ที่สุด|ครับ|ค่ะ|คะ|นะ|จริงๆ|ไป|ดี|อ่ะ|อะ|555+)*"
        r"[!.?…~]*(?:\s|$)"
    ),
}
# The time phrase as the subject of a copula whose predicate says what happened ("Yesterday was my
# birthday"): the phrase and the copula leave, the predicate stays ("My birthday").
_COPULA_AFTER = {
    "en": lazy_compile(r"^\s*(?:was|were|is|will be|'s|’s)\s+", re.I),
    "id": lazy_compile(r"^\s*(?:adalah|ialah|merupakan)\s+", re.I),
    "zh": lazy_compile(r"^\s*是"),
    "th": lazy_compile(r"^\s*(?:คือ|เป็น)\s*"),
}
# The time phrase as the predicate ("the wedding is next Saturday"): the copula goes with it unless the
# user named a day, which stays in their words without its relative part ("is on Saturday").
_COPULA_BEFORE = lazy_compile(r"\s*(?:\b(?:is|was|are|were|be|'s|adalah|ialah|yaitu|jatuh)|是|在|คือ|เป็น|ตรงกับ)\s*$", re.I)
# What is left dangling once a phrase leaves a sentence: "Just , I was surfing" / "so on , we".
_ORPHAN_BEFORE = lazy_compile(r"(?:\b(?:just|only|since|until|till|from|by|for|as of|on|over|during|back|pada|sejak|sampai)|(?<=[\u4e00-\u9fff])(?:在|于|从))\s*$", re.I)
# Words before a time phrase that do not make the statement say more than when: "So last week, ...".
_LEAD_IN = lazy_compile(r"^\W*(?:(?:so|well|and|but|oh|anyway|um+|uh+|ok|okay|also|jadi|terus|nah|trus|那|所以|然后|还有|แล้วก็|แล้ว)\W*)*$", re.I)
# What an anchor may end with besides its evaluation: punctuation, emoji, laughter and particles.
_TRAILER = lazy_compile(
    r"^(?:[\W_]|\b(?:lol|haha+|hehe+|wow|omg|tbh|wkwk+|sih|deh|dong|nih|ya)\b|[啊呀哦哈啦嘛呢吧]|ครับ|ค่ะ|คะ|นะ|จ้า|555+)*$", re.I
)
# The relative part of a phrase that names a weekday ("next Saturday", "Sabtu depan", "下周六", "วันเสาร์หน้า").
_EN_WEEKDAY_IN = lazy_compile(rf"\b({'|'.join(_WEEKDAYS['en'])})\b", re.I)
_ID_WEEKDAY_IN = lazy_compile(rf"\b({'|'.join(_WEEKDAYS['id'])})\b", re.I)
_ZH_WEEKDAY_IN = lazy_compile(r"(?:周|星期|礼拜)[一二三四五六日天]")
_TH_WEEKDAY_IN = lazy_compile(rf"วัน(?:{_TH_WEEKDAY})")
_RELATIVE_WORDS = lazy_compile(
    r"\b(?:last|past|previous|this|next|coming|ago|yesterday|tomorrow|tonight|today|lalu|kemarin|kemaren|depan|ini|"
    r"besok|lusa|tadi|semalam|nanti)\b|[上下这本去今明前昨后]|ที่แล้ว|ก่อน|หน้า|นี้|เมื่อวาน|พรุ่งนี้|มะรืน|เมื่อคืน|ถัดไป",
    re.I,
)


def _weekday_said(words: str, lang: str) -> str | None:
    """The weekday a phrase names, in the user's words without "next"/"last": "on Saturday", "周六"."""
    if lang == "en":
        m = _EN_WEEKDAY_IN.search(words)
        return f"on {m.group(1).capitalize()}" if m else None
    if lang == "id":
        m = _ID_WEEKDAY_IN.search(words)
        return f"hari {m.group(1).capitalize()}" if m else None
    m = (_ZH_WEEKDAY_IN if lang == "zh" else _TH_WEEKDAY_IN).search(words)
    return m.group(0) if m else None


def _season_said(phrase: DatePhrase) -> str:
    """The season a phrase names, without "last"/"next" or its year: "in summer", "夏天"."""
    assert phrase.day is not None
    season = next(s for s, start in _SEASON_START.items() if start == phrase.day.month)
    label = _SEASON_LABEL[phrase.lang][season]
    return {"en": f"in {label}", "id": f"pada {label}"}.get(phrase.lang, label)


def strip_date_phrase(text: str, today: date, *, keep_absolute: bool = True) -> str:
    """The text without its time phrase: the entry's date says when, at the precision said, and nothing
    takes the phrase's place but the user's own words (a season, a weekday said as the predicate). An
    unplaceable period stays. What is left reads as a sentence and keeps what happened:
    "Last week was wild, I got noticed by editors" -> "I got noticed by editors".
    A date the user wrote out ("May 3", "in 2019", an ISO date) is part of a fact ("my daughter was born on
    May 3") and stays, unless `keep_absolute` is False: a memory entry, whose date says it already."""
    phrase = find_phrase(text, today)
    if phrase is None or phrase.day is None or not phrase.lang:
        return text  # an ISO date is the user's own absolute words: it stays
    head, words, tail = text[:phrase.start], text[phrase.start:phrase.end], text[phrase.end:]
    if keep_absolute and not _RELATIVE_WORDS.search(words):
        return text
    lang = phrase.lang or "en"
    if phrase.grain == "season":
        return _tidy(head + _spaced(_season_said(phrase), tail, lang) + tail)
    if not _content(head):
        evaluation = _EVALUATION[lang].match(tail)
        if evaluation is not None:  # "Last night was amazing! ..." says how, not what
            return _tidy(tail[evaluation.end():])
        copula = _COPULA_AFTER[lang].match(tail)
        if copula is not None:  # "Yesterday was my birthday" -> "my birthday"
            return _tidy(tail[copula.end():])
    if _COPULA_BEFORE.search(head) and not _content(tail):
        said = words if not _RELATIVE_WORDS.search(words) else _weekday_said(words, lang)
        if said:  # "the wedding is next Saturday" -> "the wedding is on Saturday"; "is on May 3" stays
            return _tidy(head + _spaced(said, tail, lang) + tail)
        return _tidy(_COPULA_BEFORE.sub("", head) + tail)  # "the wedding is tomorrow" -> "the wedding"
    return _tidy(_ORPHAN_BEFORE.sub("", head) + tail)  # "Just yesterday, I was" -> "I was"


def time_anchor(text: str, today: date) -> DatePhrase | None:
    """The time phrase of a statement that says only when: "Last week," split from its clause, or "Last
    night was amazing!" (how the time was, not what happened). It dates the statements after it."""
    phrase = find_phrase(text, today)
    if phrase is None or phrase.day is None or not phrase.lang:
        return None
    head, tail = text[:phrase.start], text[phrase.end:]
    if not _LEAD_IN.match(_ORPHAN_BEFORE.sub("", head)):
        return None
    evaluation = _EVALUATION[phrase.lang].match(tail)
    rest = tail[evaluation.end():] if evaluation is not None else tail
    return phrase if _TRAILER.match(rest.strip()) else None


def _content(text: str) -> bool:
    return not _LEAD_IN.match(text) and not _TRAILER.match(text.strip())


def _spaced(label: str, tail: str, lang: str) -> str:
    """Thai and Latin scripts need a space between the label and what follows; Chinese does not."""
    return label + " " if lang != "zh" and tail[:1].strip() and tail[:1] not in ",.!?;:" else label


def _tidy(text: str) -> str:
    out = re.sub(r"\s{2,}", " ", text).strip()
    out = re.sub(r"\s+([,.!?;:，。！？；])", r"\1", out)
    out = re.sub(r"([,，、])\s*([,.!?;，。！？；])", r"\2", out)
    return re.sub(r"^[,，、;:!！.。\s]+|[,，、\s]+$", "", out)



def mark_planned(entry: str, source: str, today: date) -> str:
    """An entry about a day after today says it is a plan: "Flying to Bali (planned)."."""
    if not entry or not is_planned(source, today) or "(planned)" in entry:
        return entry
    body = entry.rstrip()
    end = len(body.rstrip(".!?。！？"))
    return body[:end] + " (planned)" + body[end:]


# -- the user's local day -------------------------------------------------------------------

_OFFSET = lazy_compile(r"^(?:UTC|GMT)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?$", re.I)
_ZONE_ABBREVIATIONS = {"wib": 7, "wita": 8, "wit": 9, "ict": 7, "jst": 9, "kst": 9, "sgt": 8, "hkt": 8, "utc": 0, "gmt": 0}
TIME_ZONE_KEYS = ("time zone", "timezone", "tz")


def parse_time_zone(value: str | None) -> tzinfo | None:
    """A tzinfo from what a user writes: "Asia/Jakarta" (IANA, when zoneinfo has it), "UTC+7", "+07:00", "WIB"."""
    if not value:
        return None
    value = value.strip().split()[0].strip("()")
    m = _OFFSET.match(value)
    if m:
        minutes = int(m.group(2)) * 60 + int(m.group(3) or 0)
        if minutes > 14 * 60:
            return None
        return timezone(timedelta(minutes=minutes if m.group(1) == "+" else -minutes))
    if value.lower() in _ZONE_ABBREVIATIONS:
        return timezone(timedelta(hours=_ZONE_ABBREVIATIONS[value.lower()]))
    if "/" in value:
        try:
            from zoneinfo import ZoneInfo  # optional: a system without tz data still runs

            return ZoneInfo(value)
        except (ImportError, ValueError, KeyError, OSError):
            return None
    return None


def user_time_zone(fields: Mapping[str, Field]) -> tzinfo | None:
    """The user's time zone from USER.md ("Time zone", "Timezone" or "TZ"), when it names one we can read."""
    for key in TIME_ZONE_KEYS:
        field = fields.get(key)
        if field is not None:
            return parse_time_zone(field.value)
    return None

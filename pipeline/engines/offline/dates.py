"""Resolve time phrases ("yesterday", "last weekend", "next Saturday", "kemarin", "上周末", "เดือนหน้า") to dates.

Each rule (the language packs' phrase tables, lang/<code>/dates.py, joined here in priority order) is a compiled pattern and a function of (match, today, text) -> Placement. `today` is the user's
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
from pipeline.engines.offline.date_rules import SEASON_START, DatePhrase, iso
from pipeline.engines.offline.lang import joined, pack, packs
from pipeline.engines.offline.lang.contract import Resolver
from pipeline.engines.offline.profile import Field

# The phrase table: an ISO date, then every pack's days of a month said outright, then every pack's other
# phrases, packs by rank. A rule is (pattern, resolver, the pack's language; "" for the ISO date).
_RULES: tuple[tuple[re.Pattern[str], Resolver, str], ...] = (
    (lazy_compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), iso, ""),
    *((pattern, resolve, p.code) for p in packs() for pattern, resolve in p.dates.day_rules),
    *((pattern, resolve, p.code) for p in packs() for pattern, resolve in p.dates.rules),
)
# The most characters a time phrase and the words its resolver reads around it span ("the second weekend of
# next month", "เมื่อสัปดาห์ที่แล้ว"): a search for the phrase at a given place needs no more text than this after it.
PHRASE_REACH = 120
# One pass over all phrases first: most statements name no date, and this answers them in one search.
_ANY = lazy_compile("|".join(f"(?:{p.pattern})" for p, _, _ in _RULES), re.IGNORECASE)


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
# Each pack's pattern reads the text right after the phrase, up to and through the end of the clause
# (DateWords.evaluation); the time phrase as the subject of a copula whose predicate says what happened
# ("Yesterday was my birthday"): the phrase and the copula leave, the predicate stays (DateWords.copula_after).
# The time phrase as the predicate ("the wedding is next Saturday"): the copula goes with it unless the
# user named a day, which stays in their words without its relative part ("is on Saturday").
_COPULA_BEFORE = lazy_compile(rf"\s*(?:{joined([p.dates.copula_before for p in packs()])})\s*$", re.I)
# What is left dangling once a phrase leaves a sentence: "Just , I was surfing" / "so on , we".
_ORPHAN_BEFORE = lazy_compile(rf"(?:{joined([p.dates.orphan_before for p in packs()])})\s*$", re.I)
# Words before a time phrase that do not make the statement say more than when: "So last week, ...".
_LEAD_IN = lazy_compile(rf"^\W*(?:(?:{joined([p.dates.lead_in for p in packs()])})\W*)*$", re.I)
# What an anchor may end with besides its evaluation: punctuation, emoji, laughter and particles.
_TRAILER = lazy_compile(rf"^(?:[\W_]|{joined([p.dates.trailer for p in packs()])})*$", re.I)
# The relative part of a phrase ("next", "depan", "下", "หน้า"): a phrase without one is the user's absolute words.
_RELATIVE_WORDS = lazy_compile(joined([p.dates.relative for p in packs()]), re.I)


def _weekday_said(words: str, lang: str) -> str | None:
    """The weekday a phrase names, in the user's words without "next"/"last": "on Saturday", "周六"."""
    return pack(lang).dates.weekday_said(words)


def _season_said(phrase: DatePhrase) -> str:
    """The season a phrase names, without "last"/"next" or its year: "in summer", "夏天"."""
    assert phrase.day is not None
    season = next(s for s, start in SEASON_START.items() if start == phrase.day.month)
    words = pack(phrase.lang).dates
    return words.season_said.format(words.season_labels[season])


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
    lang = phrase.lang
    if phrase.grain == "season":
        return _tidy(head + _spaced(_season_said(phrase), tail, lang) + tail)
    if not _content(head):
        evaluation = pack(lang).dates.evaluation.match(tail)
        if evaluation is not None:  # "Last night was amazing! ..." says how, not what
            return _tidy(tail[evaluation.end():])
        copula = pack(lang).dates.copula_after.match(tail)
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
    evaluation = pack(phrase.lang).dates.evaluation.match(tail)
    rest = tail[evaluation.end():] if evaluation is not None else tail
    return phrase if _TRAILER.match(rest.strip()) else None


def _content(text: str) -> bool:
    return not _LEAD_IN.match(text) and not _TRAILER.match(text.strip())


def _spaced(label: str, tail: str, lang: str) -> str:
    """Thai and Latin scripts need a space between the label and what follows; Chinese does not (DateWords.label_space)."""
    return label + " " if pack(lang).dates.label_space and tail[:1].strip() and tail[:1] not in ",.!?;:" else label


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

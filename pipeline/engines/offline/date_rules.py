"""The time-phrase table of the offline engine (dates.py resolves with it): for each phrase in four
languages, a compiled pattern and a function of (match, today, text) -> Placement, in priority order
(`_RULES`), with the number, weekday, month and season words they read. How a placement becomes an
entry's date, and what is said to the user, is dates.py's."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from pipeline._util.lazy_re import lazy_compile
from pipeline.ledgers.entry_dates import stamp_of

Grain = Literal["day", "week", "weekend", "month", "season", "year", "unplaced"]


@dataclass(frozen=True)
class Placement:
    # A day inside the period (for "last month": this day of last month), which the routing rules measure
    # recency and plans by; None: the phrase names a period the rules cannot place. `grain` says which period.
    day: date | None
    grain: Grain = "day"


@dataclass(frozen=True)
class DatePhrase:
    """A time phrase found in a text: where it is, what it resolves to."""

    start: int
    end: int
    day: date | None
    grain: Grain
    lang: str  # "" for a language-neutral form (an ISO date)

    @property
    def period(self) -> tuple[date, date] | None:
        """The first and last day the phrase covers."""
        return None if self.day is None else period_of(self.day, self.grain)

    @property
    def stamp(self) -> str | None:
        """The entry date at the precision said: "2026-07-29", "2026-06" or "2025" (None: not placed)."""
        period = self.period
        return None if period is None else stamp_of_period(*period)


def period_of(day: date, grain: Grain) -> tuple[date, date]:
    """The days a placement covers: a week runs Monday to Sunday, a weekend is its Saturday and Sunday."""
    if grain == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=6)
    if grain == "weekend":
        saturday = day - timedelta(days=(day.weekday() - 5) % 7)
        return saturday, saturday + timedelta(days=1)
    if grain == "month":
        first = day.replace(day=1)
        return first, _months_back(first, -1) - timedelta(days=1)
    if grain == "season":
        return _season_bounds(next(s for s, m in _SEASON_START.items() if m == day.month), day.year)
    if grain == "year":
        return date(day.year, 1, 1), date(day.year, 12, 31)
    return day, day


def stamp_of_period(first: date, last: date) -> str:
    """The finest stamp that holds the whole period: its day, its month, else its year (across New Year:
    the year holding most of its days)."""
    if first == last:
        return first.isoformat()
    if (first.year, first.month) == (last.year, last.month):
        return stamp_of(first, "month")
    if first.year == last.year:
        return stamp_of(first, "year")
    in_first = (date(first.year, 12, 31) - first).days + 1
    in_last = (last - date(last.year, 1, 1)).days + 1
    return str(first.year if in_first > in_last else last.year)


_Resolver = Callable[[re.Match[str], date, str], "Placement | None"]
_Rule = tuple[re.Pattern[str], _Resolver, str]

_ZH_NUM = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
           "十一": 11, "十二": 12}
_EN_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_ID_NUM = {"satu": 1, "se": 1, "dua": 2, "tiga": 3, "empat": 4, "lima": 5, "enam": 6, "tujuh": 7, "delapan": 8, "sepuluh": 10}
_TH_NUM = {"หนึ่ง": 1, "สอง": 2, "สาม": 3, "สี่": 4, "ห้า": 5, "หก": 6, "เจ็ด": 7, "แปด": 8, "เก้า": 9, "สิบ": 10}

# Weekdays and months of the four languages, Monday = 0 and January = 1.
_WEEKDAYS = {
    "en": ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    "id": ("senin", "selasa", "rabu", "kamis", "jumat", "sabtu", "minggu"),
    "th": ("จันทร์", "อังคาร", "พุธ", "พฤหัสบดี", "ศุกร์", "เสาร์", "อาทิตย์"),
}
_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_MONTHS = {
    "en": ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"),
    "id": ("januari", "februari", "maret", "april", "mei", "juni", "juli", "agustus", "september", "oktober",
           "november", "desember"),
    "th": ("มกราคม", "กุมภาพันธ์", "มีนาคม", "เมษายน", "พฤษภาคม", "มิถุนายน", "กรกฎาคม", "สิงหาคม", "กันยายน",
           "ตุลาคม", "พฤศจิกายน", "ธันวาคม"),
}
# Meteorological seasons of the northern hemisphere: the month each starts in.
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "winter": 12}
_SEASON_WORDS = {
    "en": {"spring": "spring", "summer": "summer", "autumn": "autumn", "fall": "autumn", "winter": "winter"},
    "id": {"semi": "spring", "panas": "summer", "gugur": "autumn", "dingin": "winter"},
    "zh": {"春天": "spring", "春季": "spring", "夏天": "summer", "夏季": "summer", "秋天": "autumn", "秋季": "autumn",
           "冬天": "winter", "冬季": "winter"},
    "th": {"ใบไม้ผลิ": "spring", "ร้อน": "summer", "ใบไม้ร่วง": "autumn", "หนาว": "winter"},
}
_SEASON_LABEL = {
    "en": {"spring": "spring", "summer": "summer", "autumn": "autumn", "winter": "winter"},
    "id": {"spring": "musim semi", "summer": "musim panas", "autumn": "musim gugur", "winter": "musim dingin"},
    "zh": {"spring": "春天", "summer": "夏天", "autumn": "秋天", "winter": "冬天"},
    "th": {"spring": "ฤดูใบไม้ผลิ", "summer": "หน้าร้อน", "autumn": "ฤดูใบไม้ร่วง", "winter": "หน้าหนาว"},
}

# Tense cues decide a bare "on Sunday" / "in May": plan or past. Future is checked first ("I'm going ... on Sunday").
_FUTURE = lazy_compile(
    r"\b(?:will|shall|going to|gonna|plan(?:s|ning)? to|about to|intend to|hope to|'ll|upcoming|scheduled)\b"
    r"|\b(?:am|is|are|i'm|we're|they're|he's|she's)\s+(?:\w+ing)\b|\b(?:is|are|'s)\s+(?:on|this|next)\b"
    r"|\b(?:akan|mau|bakal|berencana|rencananya|rencana|nanti)\b|打算|准备|计划|将要|即将|(?<![重需主只不])要(?![求是])|会(?:去|在|来|有)"
    r"|จะ|วางแผน",
    re.IGNORECASE,
)
_PAST = lazy_compile(
    r"\b(?:was|were|did|had|went|got|came|saw|made|took|met|ran|ate|bought|left|found|gave|told|said|spent|won|lost|"
    r"flew|drove|wrote|began|caught|brought|felt|kept|sent|sat|slept|swam|threw|wore|(?!(?:excit|interest|tir|scar|"
    r"bor|bas|suppos|schedul|plann|need|indeed)ed\b)\w{3,}ed)\b"
    r"|\b(?:sudah|udah|sdh|telah|tadi|habis|barusan|baru saja)\b|了|过(?!年)|刚|แล้ว|ไปมา",
    re.IGNORECASE,
)


def _tense(text: str) -> Literal["future", "past", "none"]:
    if _FUTURE.search(text):
        return "future"
    if _PAST.search(text):
        return "past"
    return "none"


def _num(token: str, table: dict[str, int]) -> int:
    token = token.strip().lower()
    if token.isdigit():
        return int(token)
    return table.get(token, 1)


def _months_back(today: date, months: int) -> date:
    """The same day `months` months earlier (negative: later), clamped to the month's end."""
    month_index = today.year * 12 + (today.month - 1) - months
    year, month = divmod(month_index, 12)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    day = min(today.day, [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month])
    return date(year, month + 1, day)


def _unit_back(today: date, n: int, unit: str) -> Placement:
    unit = unit.lower()
    if unit.startswith(("day", "hari", "天", "日", "วัน")):
        return Placement(today - timedelta(days=n))
    if unit.startswith(("week", "minggu", "pekan", "周", "星期", "礼拜", "สัปดาห์", "อาทิตย์")):
        return Placement(today - timedelta(days=7 * n), "week")
    if unit.startswith(("month", "bulan", "月", "个月", "เดือน")):
        return Placement(_months_back(today, n), "month")
    if unit.startswith(("year", "tahun", "年", "ปี")):
        return Placement(_months_back(today, 12 * n), "year")
    return Placement(None, "unplaced")


# -- weekdays and weekends ----------------------------------------------------------------

def _before(today: date, weekday: int) -> date:
    """The latest `weekday` strictly before today."""
    return today - timedelta(days=(today.weekday() - weekday) % 7 or 7)


def _after(today: date, weekday: int) -> date:
    """The first `weekday` strictly after today."""
    return today + timedelta(days=(weekday - today.weekday()) % 7 or 7)


def _this_week(today: date, weekday: int, weeks: int = 0) -> date:
    """`weekday` of the current Monday-to-Sunday week, moved by `weeks`."""
    return today - timedelta(days=today.weekday()) + timedelta(days=weekday + 7 * weeks)


def _weekday(which: str, weekday: int, today: date, text: str) -> Placement:
    """which: last | next | this | bare (a bare "on Sunday" needs a tense to be placed)."""
    if which == "last":
        return Placement(_before(today, weekday))
    if which == "next":
        return Placement(_after(today, weekday))
    tense = _tense(text)
    if which == "this":
        if tense == "past":
            return Placement(today - timedelta(days=(today.weekday() - weekday) % 7))
        return Placement(today + timedelta(days=(weekday - today.weekday()) % 7))
    if tense == "past":
        return Placement(_before(today, weekday))
    if tense == "future":
        return Placement(_after(today, weekday))
    return Placement(None, "unplaced")


def _weekend(which: str, today: date, text: str) -> Placement:
    """A weekend is placed by its Saturday (and covers its Sunday)."""
    this_saturday = _this_week(today, 5)
    if which == "last":
        return Placement(this_saturday - timedelta(days=7), "weekend")  # on a Saturday or Sunday too: the weekend before
    if which == "next":
        return Placement(this_saturday + timedelta(days=7), "weekend")
    if which == "this":
        return Placement(this_saturday, "weekend")
    tense = _tense(text)  # "over the weekend"
    if tense == "past":
        return Placement(_before(today, 5), "weekend")
    if tense == "future":
        return Placement(today if today.weekday() == 5 else _after(today, 5), "weekend")
    return Placement(None, "unplaced")


# -- months, seasons, years ----------------------------------------------------------------

def _month(which: str, month: int, today: date, text: str, year: int | None = None) -> Placement:
    if year is not None:
        return Placement(date(year, month, 1), "month")
    y = today.year
    if which == "last":
        y = y if month < today.month else y - 1
    elif which == "next":
        y = y if month > today.month else y + 1
    elif which == "bare":
        tense = _tense(text)
        if tense == "past" and month > today.month:
            y -= 1
        elif tense == "future" and month < today.month:
            y += 1
    return Placement(date(y, month, 1), "month")


def _season_bounds(season: str, year: int) -> tuple[date, date]:
    start = date(year, _SEASON_START[season], 1)
    end = _months_back(start, -3) - timedelta(days=1)
    return start, end


def _season(which: str, season: str, today: date, text: str, year: int | None = None) -> Placement:
    if year is not None:
        return Placement(_season_bounds(season, year)[0], "season")
    instances = [_season_bounds(season, y) for y in range(today.year - 2, today.year + 2)]
    ongoing = next((s for s, e in instances if s <= today <= e), None)
    if which == "bare":
        tense = _tense(text)
        which = "past" if tense == "past" else "next" if tense == "future" and ongoing is None else "this"
    if which == "last":
        return Placement(max(s for s, e in instances if e < today), "season")
    if which == "past":
        return Placement(max(s for s, _ in instances if s <= today), "season")
    if which == "next":
        return Placement(min(s for s, _ in instances if s > today), "season")
    if ongoing is not None:
        return Placement(ongoing, "season")
    return Placement(_season_bounds(season, today.year)[0], "season")


def _year(offset: int, today: date) -> Placement:
    return Placement(_months_back(today, -12 * offset), "year")


# -- the rules ------------------------------------------------------------------------------

def _iso(m: re.Match[str], _today: date, _text: str) -> Placement:
    return Placement(date(int(m.group(1)), int(m.group(2)), int(m.group(3))))


def _days(n: int) -> _Resolver:
    return lambda m, t, s: Placement(t + timedelta(days=n))


def _weeks(n: int) -> _Resolver:
    """The calendar week `n` weeks from this one ("last week": the Monday-to-Sunday week before)."""
    return lambda m, t, s: Placement(t + timedelta(days=7 * n), "week")


def _day_of_month(month: int, day: int, today: date, text: str, year: int | None = None) -> Placement:
    """"May 3": that day of the given year, else of the year the tense points to (a past May 3 said in
    January is last year's; a planned one said in June is next year's). Raises ValueError for Feb 30."""
    if year is not None:
        return Placement(date(year, month, day))
    y = today.year
    tense = _tense(text)
    if tense == "past" and date(y, month, min(day, 28)) > today:
        y -= 1
    elif tense == "future" and date(y, month, min(day, 28)) < today:
        y += 1
    return Placement(date(y, month, day))


def _explicit_year(year: int, today: date) -> Placement | None:
    """"in 2019": the year, placed at this day of it so the routing rules measure its distance."""
    if not 1900 <= year <= today.year + 20:
        return None
    return Placement(_months_back(today, 12 * (today.year - year)), "year")


def _thai_year(year: int) -> int:
    """Thai years are usually Buddhist Era (2569 = 2026)."""
    return year - 543 if year > 2400 else year


def _const(grain: Grain, fn: Callable[[date], date]) -> _Resolver:
    return lambda m, t, s: Placement(fn(t), grain)


def _unplaced(m: re.Match[str], t: date, s: str) -> Placement:
    return Placement(None, "unplaced")


def _which_en(word: str | None) -> str:
    word = (word or "").lower()
    if word in ("last", "past", "previous"):
        return "last"
    if word in ("next", "coming"):
        return "next"
    return "this" if word == "this" else "bare"


def _which_suffix(word: str | None) -> str:
    """id lalu/kemarin, th ที่แล้ว/ก่อน -> last; depan/หน้า -> next; ini/นี้ -> this."""
    word = (word or "").strip().lower()
    if word in ("lalu", "kemarin", "kemaren", "ที่แล้ว", "ก่อน"):
        return "last"
    if word in ("depan", "หน้า", "ถัดไป"):
        return "next"
    return "this" if word in ("ini", "นี้") else "bare"


def _which_zh(word: str | None) -> str:
    return {"上": "last", "下": "next", "这": "this", "本": "this", "今": "this", "去": "last", "明": "next"}.get(word or "", "bare")


_EN_WEEKDAY = "|".join(_WEEKDAYS["en"])
_EN_MONTH = "|".join(_MONTHS["en"])
_ID_WEEKDAY = "|".join(_WEEKDAYS["id"])
_ID_MONTH = "|".join(_MONTHS["id"])
_TH_WEEKDAY = "|".join(_WEEKDAYS["th"]) + "|พฤหัส"
_TH_MONTH = "|".join(_MONTHS["th"])
_EN_N = r"(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
_ID_N = r"(\d+|satu|dua|tiga|empat|lima|enam|tujuh|delapan|sepuluh)"
_TH_N = r"(\d+|หนึ่ง|สอง|สาม|สี่|ห้า|หก|เจ็ด|แปด|เก้า|สิบ)"


_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_INT = r"(\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
_EN_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
# "May 3" and not "may 3 people come": the month May is written with a capital; other months in any case.
_EN_MONTH_CASED = "|".join(m for m in _MONTHS["en"] if m != "may") + "|(?-i:May)"


def _zh_int(token: str) -> int:
    """"8", "八", "十五", "二十三" -> 8, 8, 15, 23."""
    if token.isdigit():
        return int(token)
    if "十" not in token:
        return _ZH_DIGITS[token]
    tens, _, ones = token.partition("十")
    return (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0)


def _en_month(name: str) -> int:
    return _MONTHS["en"].index(name.lower()) + 1


def _th_weekday(name: str) -> int:
    return 3 if name.startswith("พฤหัส") else _WEEKDAYS["th"].index(name)


_RULES: tuple[_Rule, ...] = (
    (lazy_compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), _iso, ""),
    # A day of a month, said outright ("May 3", "3 Mei", "5月3日", "3 พฤษภาคม"): a day.
    (lazy_compile(rf"\b(?:on\s+)?(?:the\s+)?{_EN_ORDINAL}\s+(?:of\s+)?({_EN_MONTH_CASED})\b(?:,?\s+(\d{{4}})\b)?", re.I),
     lambda m, t, s: _day_of_month(_en_month(m.group(2)), int(m.group(1)), t, s, int(m.group(3)) if m.group(3) else None), "en"),
    (lazy_compile(rf"\b(?:on\s+)?({_EN_MONTH_CASED})\s+{_EN_ORDINAL}\b(?!\s*(?:%|:|\.\d|am\b|pm\b))(?:,?\s+(\d{{4}})\b)?", re.I),
     lambda m, t, s: _day_of_month(_en_month(m.group(1)), int(m.group(2)), t, s, int(m.group(3)) if m.group(3) else None), "en"),
    (lazy_compile(rf"\b(?:pada\s+)?(?:(?:tanggal|tgl\.?)\s+)?(\d{{1,2}})\s+({_ID_MONTH})\b(?:\s+(\d{{4}})\b)?", re.I),
     lambda m, t, s: _day_of_month(_MONTHS["id"].index(m.group(2).lower()) + 1, int(m.group(1)), t, s,
                                   int(m.group(3)) if m.group(3) else None), "id"),
    (lazy_compile(rf"(?:(去|今|明)年|(\d{{4}})\s*年)?\s*{_ZH_INT}\s*月\s*{_ZH_INT}\s*[日号號]"),
     lambda m, t, s: _day_of_month(_zh_int(m.group(3)), _zh_int(m.group(4)), t, s,
                                   int(m.group(2)) if m.group(2) else (t.year + {"去": -1, "今": 0, "明": 1}[m.group(1)]
                                                                       if m.group(1) else None)), "zh"),
    (lazy_compile(rf"(上|下|这|本)(?:个)?月\s*{_ZH_INT}\s*[日号號]"),
     lambda m, t, s: Placement(_months_back(t, {"上": 1, "下": -1}.get(m.group(1), 0)).replace(day=_zh_int(m.group(2)))), "zh"),
    (lazy_compile(rf"(?:วันที่\s*)?(\d{{1,2}})\s*({_TH_MONTH})(?:\s*(?:พ\.ศ\.|ค\.ศ\.)?\s*(\d{{4}}))?"),
     lambda m, t, s: _day_of_month(_MONTHS["th"].index(m.group(2)) + 1, int(m.group(1)), t, s,
                                   _thai_year(int(m.group(3))) if m.group(3) else None), "th"),
    # English: periods that cannot be placed keep their words ("two years ago" is placed first).
    (lazy_compile(rf"\b{_EN_N}\s+(days?|weeks?|months?|years?)\s+ago\b", re.I),
     lambda m, t, s: _unit_back(t, _num(m.group(1), _EN_NUM), m.group(2)), "en"),
    (lazy_compile(r"\b(?:back\s+(?:in|when|then)|when I was (?:a kid|little|young|younger|in (?:school|college|high school|"
                  r"university))|in my (?:childhood|youth|twenties|thirties|teens)|as a (?:kid|child|teenager)|years ago|"
                  r"(?:a few|a couple of|several|many|some) (?:days|weeks|months|years) ago|a while (?:ago|back)|"
                  r"long ago|once upon a time)\b", re.I), _unplaced, "en"),
    (lazy_compile(r"\b(?:the\s+)?day before yesterday\b", re.I), _days(-2), "en"),
    (lazy_compile(r"\b(?:the\s+)?day after tomorrow\b", re.I), _days(2), "en"),
    (lazy_compile(r"\b(?:yesterday|yday|yest|last night)\b(?!['’]s\b)", re.I), _days(-1), "en"),
    (lazy_compile(r"\b(?:tomorrow|tmrw|tmr)\b(?!['’]s\b)", re.I), _days(1), "en"),
    (lazy_compile(r"\b(?:(last|past|previous|this|next|coming)\s+weekend|(?:over|on|at)\s+the\s+weekend)\b", re.I),
     lambda m, t, s: _weekend(_which_en(m.group(1)), t, s), "en"),
    (lazy_compile(rf"\b(?:(last|past|previous|this|next|coming)\s+|on\s+|(?<!every )(?<!each )(?<!on ))({_EN_WEEKDAY})\b(?!s\b)", re.I),
     lambda m, t, s: _weekday(_which_en(m.group(1)), _WEEKDAYS["en"].index(m.group(2).lower()), t, s), "en"),
    (lazy_compile(r"\b(?:last|past|previous)\s+week\b", re.I), _weeks(-1), "en"),
    (lazy_compile(r"\bnext\s+week\b", re.I), _weeks(1), "en"),
    (lazy_compile(r"\b(?:last|past|previous)\s+month\b", re.I), _const("month", lambda t: _months_back(t, 1)), "en"),
    (lazy_compile(r"\bnext\s+month\b", re.I), _const("month", lambda t: _months_back(t, -1)), "en"),
    (lazy_compile(r"\blast\s+year\b", re.I), lambda m, t, s: _year(-1, t), "en"),
    (lazy_compile(r"\bnext\s+year\b", re.I), lambda m, t, s: _year(1, t), "en"),
    (lazy_compile(r"\b(?:in|during|over)\s+(?:the\s+)?(spring|summer|autumn|fall|winter)\s+(?:of\s+)?(\d{4})\b", re.I),
     lambda m, t, s: _season("bare", _SEASON_WORDS["en"][m.group(1).lower()], t, s, int(m.group(2))), "en"),
    (lazy_compile(r"\b(last|past|this|next|coming|in|during|over)\s+(?:the\s+)?(spring|summer|autumn|fall|winter)\b", re.I),
     lambda m, t, s: _season(_which_en(m.group(1)), _SEASON_WORDS["en"][m.group(2).lower()], t, s), "en"),
    (lazy_compile(rf"\b(?:(last|this|next)\s+|(?:in|since|during|early|late|mid|until)\s+)({_EN_MONTH})\b(?:,?\s+(\d{{4}}))?", re.I),
     lambda m, t, s: _month(_which_en(m.group(1)), _MONTHS["en"].index(m.group(2).lower()) + 1, t, s,
                            int(m.group(3)) if m.group(3) else None), "en"),
    (lazy_compile(r"\b(?:in|during)\s+(?:the\s+year\s+)?((?:19|20)\d{2})\b(?![-/.]?\w)", re.I),
     lambda m, t, s: _explicit_year(int(m.group(1)), t), "en"),
    (lazy_compile(r"\b(?:earlier\s+)?today\b|\bthis\s+(?:morning|afternoon|evening)\b|\btonight\b", re.I), _days(0), "en"),
    # Indonesian
    (lazy_compile(r"\b(?:dulu(?:nya)?|zaman dulu|waktu (?:kecil|kuliah|sekolah|SMA|SMP|SD|muda)|semasa (?:kecil|kuliah|sekolah)|"
                  r"beberapa (?:hari|minggu|bulan|tahun) (?:yang )?lalu|bertahun-tahun (?:yang )?lalu)\b", re.I), _unplaced, "id"),
    (lazy_compile(r"\bkemarin\s+lusa\b", re.I), _days(-2), "id"),
    (lazy_compile(r"\blusa\b", re.I), _days(2), "id"),
    (lazy_compile(r"\b(?:besok|besoknya|bsk)\b(?!-)", re.I), _days(1), "id"),
    (lazy_compile(r"\b(?:akhir\s+(?:pekan|minggu)|weekend)\s+(lalu|kemarin|kemaren|ini|depan)\b", re.I),
     lambda m, t, s: _weekend(_which_suffix(m.group(1)), t, s), "id"),
    (lazy_compile(rf"\b(?:hari\s+)?({_ID_WEEKDAY})\s+(lalu|kemarin|kemaren|ini|depan)\b", re.I),
     lambda m, t, s: (None if m.group(1).lower() == "minggu" and not m.group(0).lower().startswith("hari")
                      else _weekday(_which_suffix(m.group(2)), _WEEKDAYS["id"].index(m.group(1).lower()), t, s)), "id"),
    (lazy_compile(rf"(?<!tiap )\b(?:pada\s+)?hari\s+({_ID_WEEKDAY})\b|\b(?:pada|tiap)\s+({_ID_WEEKDAY})\b", re.I),
     lambda m, t, s: (None if m.group(0).lower().startswith("tiap") else
                      _weekday("bare", _WEEKDAYS["id"].index((m.group(1) or m.group(2)).lower()), t, s)), "id"),
    (lazy_compile(r"\b(?:minggu|pekan)\s+(?:lalu|kemarin|kemaren)\b", re.I), _weeks(-1), "id"),
    (lazy_compile(r"\b(?:minggu|pekan)\s+depan\b", re.I), _weeks(1), "id"),
    (lazy_compile(r"\bbulan\s+(?:lalu|kemarin|kemaren)\b", re.I), _const("month", lambda t: _months_back(t, 1)), "id"),
    (lazy_compile(r"\bbulan\s+depan\b", re.I), _const("month", lambda t: _months_back(t, -1)), "id"),
    (lazy_compile(r"\btahun\s+(?:lalu|kemarin|kemaren)\b", re.I), lambda m, t, s: _year(-1, t), "id"),
    (lazy_compile(r"\btahun\s+depan\b", re.I), lambda m, t, s: _year(1, t), "id"),
    (lazy_compile(r"\bmusim\s+(semi|panas|gugur|dingin)\s+(lalu|kemarin|ini|depan)\b", re.I),
     lambda m, t, s: _season(_which_suffix(m.group(2)), _SEASON_WORDS["id"][m.group(1).lower()], t, s), "id"),
    (lazy_compile(rf"\b(?:bulan\s+)?({_ID_MONTH})\s+(lalu|kemarin|ini|depan)\b|\b(?:bulan|pada|sejak)\s+({_ID_MONTH})\b(?:\s+(\d{{4}}))?", re.I),
     lambda m, t, s: _month(_which_suffix(m.group(2)), _MONTHS["id"].index((m.group(1) or m.group(3)).lower()) + 1, t, s,
                            int(m.group(4)) if m.group(4) else None), "id"),
    (lazy_compile(r"\b(?:(?:pada|di)\s+)?tahun\s+((?:19|20)\d{2})\b(?![-/.]?\w)", re.I),
     lambda m, t, s: _explicit_year(int(m.group(1)), t), "id"),
    (lazy_compile(r"\b(?:kemarin|kmrn|kemaren|semalam|tadi malam|td malem|td malam|kemarin malam)\b", re.I), _days(-1), "id"),
    (lazy_compile(rf"\b{_ID_N}\s+(hari|minggu|pekan|bulan|tahun)\s+(?:yang\s+)?lalu\b", re.I),
     lambda m, t, s: _unit_back(t, _num(m.group(1), _ID_NUM), m.group(2)), "id"),
    (lazy_compile(r"\b(?:hari\s+ini|tadi\s+(?:pagi|siang|sore|malam)|pagi\s+ini|nanti\s+malam)\b", re.I), _days(0), "id"),
    # Chinese
    (lazy_compile(r"小时候|上学(?:的)?时候|读书(?:的)?时候|大学(?:的)?时(?:候)?|年轻(?:的)?时候|以前|很久以前|几年前|好几年前|多年前"),
     _unplaced, "zh"),
    (lazy_compile(r"前天"), _days(-2), "zh"),
    (lazy_compile(r"后天"), _days(2), "zh"),
    (lazy_compile(r"昨天|昨日|昨晚"), _days(-1), "zh"),
    (lazy_compile(r"明天|明早|明晚|明日"), _days(1), "zh"),
    (lazy_compile(r"(上|下|这|本)(?:个)?(?:周末|星期末|礼拜末)|(?<![上下这本个每])周末"),
     lambda m, t, s: _weekend(_which_zh(m.group(1)), t, s), "zh"),
    (lazy_compile(r"(?<!每)(上|下|这|本)?(?:个)?(?:周|星期|礼拜)([一二三四五六日]|天(?!气))"),
     lambda m, t, s: (_weekday("bare", _ZH_WEEKDAY[m.group(2)], t, s) if not m.group(1)
                      else Placement(_this_week(t, _ZH_WEEKDAY[m.group(2)],
                                                {"上": -1, "下": 1}.get(m.group(1), 0)))), "zh"),
    (lazy_compile(r"上(?:个)?(?:周|星期|礼拜)"), _weeks(-1), "zh"),
    (lazy_compile(r"下(?:个)?(?:周|星期|礼拜)"), _weeks(1), "zh"),
    (lazy_compile(r"(去|今|明)年(春天|春季|夏天|夏季|秋天|秋季|冬天|冬季)"),
     lambda m, t, s: _season("this", _SEASON_WORDS["zh"][m.group(2)], t, s, t.year + {"去": -1, "今": 0, "明": 1}[m.group(1)]), "zh"),
    (lazy_compile(r"(去|今|明)年(\d{1,2}|十[一二]?|[一二三四五六七八九])月"),
     lambda m, t, s: _month("this", _num(m.group(2), _ZH_NUM), t, s, t.year + {"去": -1, "今": 0, "明": 1}[m.group(1)]), "zh"),
    (lazy_compile(r"上(?:个)?月"), _const("month", lambda t: _months_back(t, 1)), "zh"),
    (lazy_compile(r"下(?:个)?月"), _const("month", lambda t: _months_back(t, -1)), "zh"),
    (lazy_compile(rf"((?:19|20)\d{{2}})\s*年\s*{_ZH_INT}\s*月(?:份)?"),
     lambda m, t, s: _month("this", _zh_int(m.group(2)), t, s, int(m.group(1))), "zh"),
    (lazy_compile(r"((?:19|20)\d{2})\s*年(?![代\d])"), lambda m, t, s: _explicit_year(int(m.group(1)), t), "zh"),
    (lazy_compile(r"去年"), lambda m, t, s: _year(-1, t), "zh"),
    (lazy_compile(r"明年"), lambda m, t, s: _year(1, t), "zh"),
    (lazy_compile(r"(\d+|[一两二三四五六七八九十])\s*(天|个?星期|周|个月|年)前"),
     lambda m, t, s: _unit_back(t, _num(m.group(1), _ZH_NUM), m.group(2).lstrip("个")), "zh"),
    (lazy_compile(r"(?<![\d年])(\d{1,2}|十[一二]?|[一二三四五六七八九])月(?![\d一二三四五六七八九十]+[日号])(?:份)?"),
     lambda m, t, s: _month("bare", _num(m.group(1), _ZH_NUM), t, s) if 1 <= _num(m.group(1), _ZH_NUM) <= 12 else None, "zh"),
    (lazy_compile(r"今天|今早|今晚|今日"), _days(0), "zh"),
    # Thai
    (lazy_compile(r"ตอนเด็ก(?:ๆ)?|สมัย(?:เด็ก|เรียน|มหาลัย|มหาวิทยาลัย|ก่อน)|ตอนเรียน|หลายปีก่อน|เมื่อก่อน|นานมาแล้ว"), _unplaced, "th"),
    (lazy_compile(r"เมื่อวานซืน"), _days(-2), "th"),
    (lazy_compile(r"มะรืน(?:นี้)?"), _days(2), "th"),
    (lazy_compile(r"เมื่อวาน(?:นี้)?|เมื่อคืน(?:นี้)?"), _days(-1), "th"),
    (lazy_compile(r"พรุ่งนี้"), _days(1), "th"),
    (lazy_compile(r"(?:สุดสัปดาห์|เสาร์อาทิตย์|วันหยุดสุดสัปดาห์)\s*(ที่แล้ว|ก่อน|นี้|หน้า)"),
     lambda m, t, s: _weekend(_which_suffix(m.group(1)), t, s), "th"),
    (lazy_compile(rf"(?<!ทุก)วัน({_TH_WEEKDAY})\s*(ที่แล้ว|ก่อน|นี้|หน้า)?"),
     lambda m, t, s: _weekday(_which_suffix(m.group(2)), _th_weekday(m.group(1)), t, s), "th"),
    (lazy_compile(r"(?:สัปดาห์|อาทิตย์)(?:ที่แล้ว|ก่อน)"), _weeks(-1), "th"),
    (lazy_compile(r"(?:สัปดาห์|อาทิตย์)(?:หน้า|ถัดไป)"), _weeks(1), "th"),
    (lazy_compile(r"(?:ฤดู|หน้า)(ใบไม้ผลิ|ร้อน|ใบไม้ร่วง|หนาว)\s*(ที่แล้ว|ปีที่แล้ว|นี้|ปีนี้|หน้า|ปีหน้า)"),
     lambda m, t, s: _season(_which_suffix(m.group(2).replace("ปี", "")), _SEASON_WORDS["th"][m.group(1)], t, s), "th"),
    (lazy_compile(rf"(?:เดือน)?({_TH_MONTH})\s*(ที่แล้ว|นี้|หน้า)?"),
     lambda m, t, s: _month(_which_suffix(m.group(2)), _MONTHS["th"].index(m.group(1)) + 1, t, s), "th"),
    (lazy_compile(r"เดือน(?:ที่แล้ว|ก่อน)"), _const("month", lambda t: _months_back(t, 1)), "th"),
    (lazy_compile(r"เดือน(?:หน้า|ถัดไป)"), _const("month", lambda t: _months_back(t, -1)), "th"),
    (lazy_compile(r"ปี(?:ที่แล้ว|ก่อน)"), lambda m, t, s: _year(-1, t), "th"),
    (lazy_compile(r"ปี\s*(?:พ\.ศ\.|ค\.ศ\.)?\s*(\d{4})(?!\d)"), lambda m, t, s: _explicit_year(_thai_year(int(m.group(1))), t), "th"),
    (lazy_compile(r"ปีหน้า"), lambda m, t, s: _year(1, t), "th"),
    (lazy_compile(rf"{_TH_N}\s*(วัน|สัปดาห์|อาทิตย์|เดือน|ปี)\s*(?:ที่แล้ว|ก่อน)"),
     lambda m, t, s: _unit_back(t, _num(m.group(1), _TH_NUM), m.group(2)), "th"),
    (lazy_compile(r"วันนี้|เมื่อเช้า|คืนนี้"), _days(0), "th"),
)


# One pass over all phrases first: most statements name no date, and this answers them in one search.
_ANY = lazy_compile("|".join(f"(?:{p.pattern})" for p, _, _ in _RULES), re.IGNORECASE)

"""Resolve relative time phrases ("yesterday", "kemarin", "上周", "เมื่อวาน") to absolute dates.

Each rule is a compiled pattern and a function of (match, today) -> date. The phrase is also removed
from memory entries, because the entry carries the absolute date instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from functools import lru_cache

from pipeline.lazy_re import lazy_compile

_Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], date]]

_ZH_NUM = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_EN_NUM = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3,
}
_ID_NUM = {"satu": 1, "se": 1, "dua": 2, "tiga": 3, "empat": 4, "lima": 5, "enam": 6, "tujuh": 7, "delapan": 8, "sepuluh": 10}
_TH_NUM = {"หนึ่ง": 1, "สอง": 2, "สาม": 3, "สี่": 4, "ห้า": 5, "หก": 6, "เจ็ด": 7, "แปด": 8, "เก้า": 9, "สิบ": 10}
_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _num(token: str, table: dict[str, int]) -> int:
    token = token.strip().lower()
    if token.isdigit():
        return int(token)
    return table.get(token, 1)


def _months_back(today: date, months: int) -> date:
    month_index = today.year * 12 + (today.month - 1) - months
    year, month = divmod(month_index, 12)
    day = min(today.day, [31, 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28,
                          31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month])
    return date(year, month + 1, day)


def _unit_back(today: date, n: int, unit: str) -> date:
    unit = unit.lower()
    if unit.startswith(("day", "hari", "天", "日", "วัน")):
        return today - timedelta(days=n)
    if unit.startswith(("week", "minggu", "pekan", "周", "星期", "礼拜", "สัปดาห์", "อาทิตย์")):
        return today - timedelta(days=7 * n)
    if unit.startswith(("month", "bulan", "月", "个月", "เดือน")):
        return _months_back(today, n)
    if unit.startswith(("year", "tahun", "年", "ปี")):
        return _months_back(today, 12 * n)
    return today


def _last_weekday(today: date, name: str) -> date:
    target = _WEEKDAYS_EN.index(name.lower())
    delta = (today.weekday() - target) % 7 or 7
    return today - timedelta(days=delta)


def _iso(m: re.Match[str], _today: date) -> date:
    return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))


_EN_N = r"(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few)"
_RULES: tuple[_Rule, ...] = (
    (lazy_compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), _iso),
    # English
    (lazy_compile(r"\b(?:the\s+)?day before yesterday\b", re.I), lambda m, t: t - timedelta(days=2)),
    (lazy_compile(r"\b(?:yesterday|yday|yest|last night)\b", re.I), lambda m, t: t - timedelta(days=1)),
    (lazy_compile(r"\b(?:last|past|previous)\s+week(?:end)?\b", re.I), lambda m, t: t - timedelta(days=7)),
    (lazy_compile(r"\b(?:last|past|previous)\s+month\b", re.I), lambda m, t: _months_back(t, 1)),
    (lazy_compile(r"\blast\s+year\b", re.I), lambda m, t: _months_back(t, 12)),
    (lazy_compile(rf"\b{_EN_N}\s+(days?|weeks?|months?|years?)\s+ago\b", re.I),
     lambda m, t: _unit_back(t, _num(m.group(1), _EN_NUM), m.group(2))),
    (lazy_compile(r"\b(?:last|on)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I),
     lambda m, t: _last_weekday(t, m.group(1))),
    (lazy_compile(r"\b(?:earlier\s+)?today\b|\bthis\s+(?:morning|afternoon|evening)\b|\btonight\b", re.I), lambda m, t: t),
    # Indonesian
    (lazy_compile(r"\bkemarin\s+lusa\b", re.I), lambda m, t: t - timedelta(days=2)),
    (lazy_compile(r"\b(?:minggu|pekan)\s+(?:lalu|kemarin)\b", re.I), lambda m, t: t - timedelta(days=7)),
    (lazy_compile(r"\bbulan\s+(?:lalu|kemarin)\b", re.I), lambda m, t: _months_back(t, 1)),
    (lazy_compile(r"\btahun\s+(?:lalu|kemarin)\b", re.I), lambda m, t: _months_back(t, 12)),
    (lazy_compile(r"\b(?:kemarin|kmrn|kemaren|semalam|tadi malam|td malem|td malam|kemarin malam)\b", re.I), lambda m, t: t - timedelta(days=1)),
    (lazy_compile(r"\b(\d+|satu|dua|tiga|empat|lima|enam|tujuh|delapan|sepuluh)\s+(hari|minggu|pekan|bulan|tahun)\s+(?:yang\s+)?lalu\b", re.I),
     lambda m, t: _unit_back(t, _num(m.group(1), _ID_NUM), m.group(2))),
    (lazy_compile(r"\b(?:hari\s+ini|tadi\s+(?:pagi|siang|sore|malam)|pagi\s+ini)\b", re.I), lambda m, t: t),
    # Chinese
    (lazy_compile(r"前天"), lambda m, t: t - timedelta(days=2)),
    (lazy_compile(r"昨天|昨日|昨晚"), lambda m, t: t - timedelta(days=1)),
    (lazy_compile(r"上(?:个)?(?:周|星期|礼拜)"), lambda m, t: t - timedelta(days=7)),
    (lazy_compile(r"上(?:个)?月"), lambda m, t: _months_back(t, 1)),
    (lazy_compile(r"去年"), lambda m, t: _months_back(t, 12)),
    (lazy_compile(r"(\d+|[一两二三四五六七八九十])\s*(天|个?星期|周|个月|年)前"),
     lambda m, t: _unit_back(t, _num(m.group(1), _ZH_NUM), m.group(2).lstrip("个"))),
    (lazy_compile(r"今天|今早|今晚|今日"), lambda m, t: t),
    # Thai
    (lazy_compile(r"เมื่อวานซืน"), lambda m, t: t - timedelta(days=2)),
    (lazy_compile(r"เมื่อวาน(?:นี้)?|เมื่อคืน(?:นี้)?"), lambda m, t: t - timedelta(days=1)),
    (lazy_compile(r"(?:สัปดาห์|อาทิตย์)(?:ที่แล้ว|ก่อน)"), lambda m, t: t - timedelta(days=7)),
    (lazy_compile(r"เดือน(?:ที่แล้ว|ก่อน)"), lambda m, t: _months_back(t, 1)),
    (lazy_compile(r"ปี(?:ที่แล้ว|ก่อน)"), lambda m, t: _months_back(t, 12)),
    (lazy_compile(r"(\d+|หนึ่ง|สอง|สาม|สี่|ห้า|หก|เจ็ด|แปด|เก้า|สิบ)\s*(วัน|สัปดาห์|อาทิตย์|เดือน|ปี)\s*(?:ที่แล้ว|ก่อน)"),
     lambda m, t: _unit_back(t, _num(m.group(1), _TH_NUM), m.group(2))),
    (lazy_compile(r"วันนี้|เมื่อเช้า"), lambda m, t: t),
)


# One pass over all phrases first: most statements name no date, and this answers them in one search.
_ANY = lazy_compile("|".join(f"(?:{p.pattern})" for p, _ in _RULES), re.IGNORECASE)


@lru_cache(maxsize=2048)
def find_date(text: str, today: date) -> tuple[date, re.Match[str]] | None:
    """The first absolute date a relative phrase in `text` names, and the phrase's match."""
    if _ANY.search(text) is None:
        return None
    for pattern, resolve in _RULES:
        m = pattern.search(text)
        if m is not None:
            try:
                return resolve(m, today), m
            except ValueError:  # an impossible ISO date such as 2026-02-31
                continue
    return None


def resolve_date(text: str, today: date) -> str:
    """YYYY-MM-DD for the event `text` describes: a relative phrase resolved, else today."""
    found = find_date(text, today)
    return (found[0] if found else today).isoformat()


def has_past_marker(text: str, today: date) -> bool:
    """True when the text names a moment before today ("yesterday", "上周"), not just "today"."""
    found = find_date(text, today)
    return found is not None and found[0] < today


def strip_date_phrase(text: str, today: date) -> str:
    """The text without its relative date phrase (the entry carries the absolute date instead)."""
    found = find_date(text, today)
    if found is None or found[1].re.pattern.startswith(r"\b(\d{4})"):
        return text
    m = found[1]
    out = (text[: m.start()] + text[m.end():]).strip()
    out = re.sub(r"\s{2,}", " ", out)
    return re.sub(r"^[,，、\s]+|[,，、\s]+$", "", out)

"""The date of a MEMORY.md entry, at the precision the user gave it: a day, a month or a year.

    [2023-07-14]   a day      ("yesterday", "on Sunday", "May 3")
    [2023-07]      a month    ("last month", "in July")
    [2023]         a year     ("last year", "in 2023")

A period that cannot be placed ("back in college") has no date at all; its words stay in the entry.

Order: stamps compare as plain strings, so a month sorts at its first day, ahead of the entries
dated that first day (2023-06-30 < 2023-07 < 2023-07-01 < 2023-07-02 < 2023-08), and a year ahead
of its first month (2022-12-31 < 2023 < 2023-01 < 2023-01-01). Every ordering of entries (append
order, consolidation, pinned entries put back) relies on this and needs no other rule.
"""

from __future__ import annotations

import calendar
import re
from datetime import date
from typing import Literal

Precision = Literal["day", "month", "year"]

# A stamp anywhere in a text (cited dates of merged entries, spans "2023-05 to 2023-07"): not part of a
# longer number or date ("2023-07" inside "2023-07-15" is not a month stamp).
STAMP_IN_TEXT = re.compile(r"(?<![\d-])\d{4}(?:-\d{2}(?:-\d{2})?)?(?![\d-])")
_STAMP = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
FORMATS = "YYYY-MM-DD, YYYY-MM or YYYY"


def check_stamp(stamp: str) -> str:
    """The stamp when it names a real day, month or year; ValueError otherwise ("2023-02-30", "2023-13", "23")."""
    m = _STAMP.fullmatch(stamp)
    if m is None:
        raise ValueError(f"invalid date {stamp!r}: use {FORMATS}")
    year, month, day = m.groups()
    try:
        date(int(year), int(month or 1), int(day or 1))
    except ValueError:
        raise ValueError(f"invalid date {stamp!r}: no such {'day' if day else 'month'}") from None
    if int(year) < 1:
        raise ValueError(f"invalid date {stamp!r}: no year 0")
    return stamp


def is_stamp(stamp: str) -> bool:
    try:
        check_stamp(stamp)
    except ValueError:
        return False
    return True


def precision(stamp: str) -> Precision:
    return "day" if len(stamp) == 10 else "month" if len(stamp) == 7 else "year"


def stamp_of(day: date, at: Precision) -> str:
    """`day` written at a precision: stamp_of(date(2023, 7, 14), "month") == "2023-07"."""
    iso = day.isoformat()
    return iso if at == "day" else iso[:7] if at == "month" else iso[:4]


def bounds(stamp: str) -> tuple[date, date]:
    """The first and last day a stamp covers."""
    year, month, day = (int(p) if p else None for p in _STAMP.fullmatch(check_stamp(stamp)).groups())  # type: ignore[union-attr]
    assert year is not None
    if day is not None and month is not None:
        one = date(year, month, day)
        return one, one
    if month is not None:
        return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
    return date(year, 1, 1), date(year, 12, 31)


def covers(outer: str, inner: str) -> bool:
    """Every day of `inner` lies in `outer`: a month covers its days, a year its months."""
    (a, b), (c, d) = bounds(outer), bounds(inner)
    return a <= c and d <= b


def overlaps(a: str, b: str) -> bool:
    (a0, a1), (b0, b1) = bounds(a), bounds(b)
    return a0 <= b1 and b0 <= a1


def stamps_in(text: str) -> list[str]:
    """The valid stamps a text cites, in order."""
    return [m.group(0) for m in STAMP_IN_TEXT.finditer(text) if is_stamp(m.group(0))]

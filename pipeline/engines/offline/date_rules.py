"""The calendar arithmetic of time phrases: what a phrase's match resolves to (a Placement), for every
language alike. Each language pack's dates.py (lang/<code>/) holds its phrases as patterns with a resolver
built from these helpers, and its number, weekday, month and season words; dates.py joins the packs' rules
into one table in priority order. How a placement becomes an entry's date, and what is said to the user,
is dates.py's."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Literal

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang.contract import Grain, Placement, Resolver
from pipeline.ledgers.entry_dates import stamp_of


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
        return first, months_back(first, -1) - timedelta(days=1)
    if grain == "season":
        return _season_bounds(next(s for s, m in SEASON_START.items() if m == day.month), day.year)
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


# Meteorological seasons of the northern hemisphere: the month each starts in.
SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "winter": 12}


@lru_cache(maxsize=1)
def _tense_cues() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Every pack's future and past cues, each joined into one pattern (imported here: the packs import this module)."""
    from pipeline.engines.offline.lang import packs

    future = "|".join(p.dates.future for p in packs())
    past = "|".join(p.dates.past for p in packs())
    return lazy_compile(future, re.IGNORECASE), lazy_compile(past, re.IGNORECASE)


def tense(text: str) -> Literal["future", "past", "none"]:
    """Tense cues decide a bare "on Sunday" / "in May": plan or past. Future is checked first ("I'm going ... on Sunday")."""
    future, past = _tense_cues()
    if future.search(text):
        return "future"
    if past.search(text):
        return "past"
    return "none"


def number(token: str, table: dict[str, int]) -> int:
    """A count said in digits or in words of `table` ("two", "dua", "两"); 1 for a word it does not hold ("a")."""
    token = token.strip().lower()
    if token.isdigit():
        return int(token)
    return table.get(token, 1)


def months_back(today: date, months: int) -> date:
    """The same day `months` months earlier (negative: later), clamped to the month's end."""
    month_index = today.year * 12 + (today.month - 1) - months
    year, month = divmod(month_index, 12)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    day = min(today.day, [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month])
    return date(year, month + 1, day)


def grain_of(unit: str, prefixes: Mapping[str, tuple[str, ...]]) -> str:
    """The unit a word names ("weeks", "minggu", "个月"): the first of day/week/month/year in `prefixes` whose
    words it starts with, else ""."""
    unit = unit.lower()
    return next((grain for grain, words in prefixes.items() if unit.startswith(words)), "")


def unit_back(today: date, n: int, grain: str) -> Placement:
    """`n` days/weeks/months/years before today ("two weeks ago"); any other unit cannot be placed."""
    if grain == "day":
        return Placement(today - timedelta(days=n))
    if grain == "week":
        return Placement(today - timedelta(days=7 * n), "week")
    if grain == "month":
        return Placement(months_back(today, n), "month")
    if grain == "year":
        return Placement(months_back(today, 12 * n), "year")
    return Placement(None, "unplaced")


# -- weekdays and weekends ----------------------------------------------------------------

def _before(today: date, weekday: int) -> date:
    """The latest `weekday` strictly before today."""
    return today - timedelta(days=(today.weekday() - weekday) % 7 or 7)


def _after(today: date, weekday: int) -> date:
    """The first `weekday` strictly after today."""
    return today + timedelta(days=(weekday - today.weekday()) % 7 or 7)


def this_week(today: date, weekday: int, weeks: int = 0) -> date:
    """`weekday` of the current Monday-to-Sunday week, moved by `weeks`."""
    return today - timedelta(days=today.weekday()) + timedelta(days=weekday + 7 * weeks)


def weekday(which: str, day: int, today: date, text: str) -> Placement:
    """which: last | next | this | bare (a bare "on Sunday" needs a tense to be placed); day: Monday = 0."""
    if which == "last":
        return Placement(_before(today, day))
    if which == "next":
        return Placement(_after(today, day))
    said = tense(text)
    if which == "this":
        if said == "past":
            return Placement(today - timedelta(days=(today.weekday() - day) % 7))
        return Placement(today + timedelta(days=(day - today.weekday()) % 7))
    if said == "past":
        return Placement(_before(today, day))
    if said == "future":
        return Placement(_after(today, day))
    return Placement(None, "unplaced")


def weekend(which: str, today: date, text: str) -> Placement:
    """A weekend is placed by its Saturday (and covers its Sunday)."""
    this_saturday = this_week(today, 5)
    if which == "last":
        return Placement(this_saturday - timedelta(days=7), "weekend")  # on a Saturday or Sunday too: the weekend before
    if which == "next":
        return Placement(this_saturday + timedelta(days=7), "weekend")
    if which == "this":
        return Placement(this_saturday, "weekend")
    said = tense(text)  # "over the weekend"
    if said == "past":
        return Placement(_before(today, 5), "weekend")
    if said == "future":
        return Placement(today if today.weekday() == 5 else _after(today, 5), "weekend")
    return Placement(None, "unplaced")


# -- months, seasons, years ----------------------------------------------------------------

def month(which: str, number: int, today: date, text: str, year: int | None = None) -> Placement:
    """The month `number` (January = 1): of `year`, else of the year "last"/"next" or the tense points to."""
    if year is not None:
        return Placement(date(year, number, 1), "month")
    y = today.year
    if which == "last":
        y = y if number < today.month else y - 1
    elif which == "next":
        y = y if number > today.month else y + 1
    elif which == "bare":
        said = tense(text)
        if said == "past" and number > today.month:
            y -= 1
        elif said == "future" and number < today.month:
            y += 1
    return Placement(date(y, number, 1), "month")


def _season_bounds(season: str, year: int) -> tuple[date, date]:
    start = date(year, SEASON_START[season], 1)
    end = months_back(start, -3) - timedelta(days=1)
    return start, end


def season(which: str, name: str, today: date, text: str, year: int | None = None) -> Placement:
    """The season `name` (spring/summer/autumn/winter): of `year`, else the one "last"/"next"/"this" or the tense names."""
    if year is not None:
        return Placement(_season_bounds(name, year)[0], "season")
    instances = [_season_bounds(name, y) for y in range(today.year - 2, today.year + 2)]
    ongoing = next((s for s, e in instances if s <= today <= e), None)
    if which == "bare":
        said = tense(text)
        which = "past" if said == "past" else "next" if said == "future" and ongoing is None else "this"
    if which == "last":
        return Placement(max(s for s, e in instances if e < today), "season")
    if which == "past":
        return Placement(max(s for s, _ in instances if s <= today), "season")
    if which == "next":
        return Placement(min(s for s, _ in instances if s > today), "season")
    if ongoing is not None:
        return Placement(ongoing, "season")
    return Placement(_season_bounds(name, today.year)[0], "season")


def year(offset: int, today: date) -> Placement:
    """The year `offset` years from this one ("last year": -1)."""
    return Placement(months_back(today, -12 * offset), "year")


# -- resolvers the packs' rules are built from ---------------------------------------------------

def iso(m: re.Match[str], _today: date, _text: str) -> Placement:
    return Placement(date(int(m.group(1)), int(m.group(2)), int(m.group(3))))


def days(n: int) -> Resolver:
    return lambda m, t, s: Placement(t + timedelta(days=n))


def weeks(n: int) -> Resolver:
    """The calendar week `n` weeks from this one ("last week": the Monday-to-Sunday week before)."""
    return lambda m, t, s: Placement(t + timedelta(days=7 * n), "week")


def day_of_month(number: int, day: int, today: date, text: str, year: int | None = None) -> Placement:
    """"May 3": that day of the given year, else of the year the tense points to (a past May 3 said in
    January is last year's; a planned one said in June is next year's). Raises ValueError for Feb 30."""
    if year is not None:
        return Placement(date(year, number, day))
    y = today.year
    said = tense(text)
    if said == "past" and date(y, number, min(day, 28)) > today:
        y -= 1
    elif said == "future" and date(y, number, min(day, 28)) < today:
        y += 1
    return Placement(date(y, number, day))


def explicit_year(said: int, today: date) -> Placement | None:
    """"in 2019": the year, placed at this day of it so the routing rules measure its distance."""
    if not 1900 <= said <= today.year + 20:
        return None
    return Placement(months_back(today, 12 * (today.year - said)), "year")


def const(grain: Grain, fn: Callable[[date], date]) -> Resolver:
    return lambda m, t, s: Placement(fn(t), grain)


def unplaced(m: re.Match[str], t: date, s: str) -> Placement:
    return Placement(None, "unplaced")

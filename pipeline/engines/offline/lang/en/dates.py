"""English time phrases ("yesterday", "last weekend", "May 3", "two years ago") and the words read around them."""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.date_rules import (
    const,
    day_of_month,
    days,
    explicit_year,
    grain_of,
    month,
    months_back,
    number,
    season,
    unit_back,
    unplaced,
    weekday,
    weekend,
    weeks,
    year,
)
from pipeline.engines.offline.lang.contract import DateRule, DateWords

_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
        "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_UNITS = {"day": ("day",), "week": ("week",), "month": ("month",), "year": ("year",)}
# Monday = 0, January = 1.
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_SEASON_WORDS = {"spring": "spring", "summer": "summer", "autumn": "autumn", "fall": "autumn", "winter": "winter"}

_WEEKDAY = "|".join(WEEKDAYS)
_MONTH = "|".join(MONTHS)
_N = r"(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
# "May 3" and not "may 3 people come": the month May is written with a capital; other months in any case.
_MONTH_CASED = "|".join(m for m in MONTHS if m != "may") + "|(?-i:May)"


def _month_number(name: str) -> int:
    return MONTHS.index(name.lower()) + 1


def _which(word: str | None) -> str:
    word = (word or "").lower()
    if word in ("last", "past", "previous"):
        return "last"
    if word in ("next", "coming"):
        return "next"
    return "this" if word == "this" else "bare"


# A day of a month, said outright ("May 3", "the 3rd of May").
_DAY_RULES: tuple[DateRule, ...] = (
    (lazy_compile(rf"\b(?:on\s+)?(?:the\s+)?{_ORDINAL}\s+(?:of\s+)?({_MONTH_CASED})\b(?:,?\s+(\d{{4}})\b)?", re.I),
     lambda m, t, s: day_of_month(_month_number(m.group(2)), int(m.group(1)), t, s, int(m.group(3)) if m.group(3) else None)),
    (lazy_compile(rf"\b(?:on\s+)?({_MONTH_CASED})\s+{_ORDINAL}\b(?!\s*(?:%|:|\.\d|am\b|pm\b))(?:,?\s+(\d{{4}})\b)?", re.I),
     lambda m, t, s: day_of_month(_month_number(m.group(1)), int(m.group(2)), t, s, int(m.group(3)) if m.group(3) else None)),
)
# Periods that cannot be placed keep their words ("two years ago" is placed first).
_RULES: tuple[DateRule, ...] = (
    (lazy_compile(rf"\b{_N}\s+(days?|weeks?|months?|years?)\s+ago\b", re.I),
     lambda m, t, s: unit_back(t, number(m.group(1), _NUM), grain_of(m.group(2), _UNITS))),
    (lazy_compile(r"\b(?:back\s+(?:in|when|then)|when I was (?:a kid|little|young|younger|in (?:school|college|high school|"
                  r"university))|in my (?:childhood|youth|twenties|thirties|teens)|as a (?:kid|child|teenager)|years ago|"
                  r"(?:a few|a couple of|several|many|some) (?:days|weeks|months|years) ago|a while (?:ago|back)|"
                  r"long ago|once upon a time)\b", re.I), unplaced),
    (lazy_compile(r"\b(?:the\s+)?day before yesterday\b", re.I), days(-2)),
    (lazy_compile(r"\b(?:the\s+)?day after tomorrow\b", re.I), days(2)),
    (lazy_compile(r"\b(?:yesterday|yday|yest|last night)\b(?!['’]s\b)", re.I), days(-1)),
    (lazy_compile(r"\b(?:tomorrow|tmrw|tmr)\b(?!['’]s\b)", re.I), days(1)),
    (lazy_compile(r"\b(?:(last|past|previous|this|next|coming)\s+weekend|(?:over|on|at)\s+the\s+weekend)\b", re.I),
     lambda m, t, s: weekend(_which(m.group(1)), t, s)),
    (lazy_compile(rf"\b(?:(last|past|previous|this|next|coming)\s+|on\s+|(?<!every )(?<!each )(?<!on ))({_WEEKDAY})\b(?!s\b)", re.I),
     lambda m, t, s: weekday(_which(m.group(1)), WEEKDAYS.index(m.group(2).lower()), t, s)),
    (lazy_compile(r"\b(?:last|past|previous)\s+week\b", re.I), weeks(-1)),
    (lazy_compile(r"\bnext\s+week\b", re.I), weeks(1)),
    (lazy_compile(r"\b(?:last|past|previous)\s+month\b", re.I), const("month", lambda t: months_back(t, 1))),
    (lazy_compile(r"\bnext\s+month\b", re.I), const("month", lambda t: months_back(t, -1))),
    (lazy_compile(r"\blast\s+year\b", re.I), lambda m, t, s: year(-1, t)),
    (lazy_compile(r"\bnext\s+year\b", re.I), lambda m, t, s: year(1, t)),
    (lazy_compile(r"\b(?:in|during|over)\s+(?:the\s+)?(spring|summer|autumn|fall|winter)\s+(?:of\s+)?(\d{4})\b", re.I),
     lambda m, t, s: season("bare", _SEASON_WORDS[m.group(1).lower()], t, s, int(m.group(2)))),
    (lazy_compile(r"\b(last|past|this|next|coming|in|during|over)\s+(?:the\s+)?(spring|summer|autumn|fall|winter)\b", re.I),
     lambda m, t, s: season(_which(m.group(1)), _SEASON_WORDS[m.group(2).lower()], t, s)),
    (lazy_compile(rf"\b(?:(last|this|next)\s+|(?:in|since|during|early|late|mid|until)\s+)({_MONTH})\b(?:,?\s+(\d{{4}}))?", re.I),
     lambda m, t, s: month(_which(m.group(1)), MONTHS.index(m.group(2).lower()) + 1, t, s,
                           int(m.group(3)) if m.group(3) else None)),
    (lazy_compile(r"\b(?:in|during)\s+(?:the\s+year\s+)?((?:19|20)\d{2})\b(?![-/.]?\w)", re.I),
     lambda m, t, s: explicit_year(int(m.group(1)), t)),
    (lazy_compile(r"\b(?:earlier\s+)?today\b|\bthis\s+(?:morning|afternoon|evening)\b|\btonight\b", re.I), days(0)),
)

_EVAL_WORDS = (
    r"amazing|awesome|wild|great|fun|crazy|insane|busy|hectic|tough|rough|hard|long|intense|perfect|fantastic|"
    r"incredible|wonderful|lovely|nice|good|bad|terrible|awful|horrible|exhausting|tiring|stressful|special|"
    r"memorable|unforgettable|epic|blast|disaster|nightmare|mess|chaos|chaotic|interesting|beautiful|magical|"
    r"emotional|relaxing|productive|cool|fine|okay|ok|brutal|weird|strange|boring|quiet|calm|chill|lit|surreal|"
    r"unreal|eventful|draining|rewarding|exciting|whirlwind|nuts|hilarious|sad|best|worst|lot of fun|much fun|"
    r"roller ?coaster|blur|dream|something else|one for the books"
)
_WEEKDAY_IN = lazy_compile(rf"\b({_WEEKDAY})\b", re.I)


def _weekday_said(words: str) -> str | None:
    m = _WEEKDAY_IN.search(words)
    return f"on {m.group(1).capitalize()}" if m else None


DATES = DateWords(
    day_rules=_DAY_RULES,
    rules=_RULES,
    future=(r"\b(?:will|shall|going to|gonna|plan(?:s|ning)? to|about to|intend to|hope to|'ll|upcoming|scheduled)\b"
            r"|\b(?:am|is|are|i'm|we're|they're|he's|she's)\s+(?:\w+ing)\b|\b(?:is|are|'s)\s+(?:on|this|next)\b"),
    past=(r"\b(?:was|were|did|had|went|got|came|saw|made|took|met|ran|ate|bought|left|found|gave|told|said|spent|won|lost|"
          r"flew|drove|wrote|began|caught|brought|felt|kept|sent|sat|slept|swam|threw|wore|(?!(?:excit|interest|tir|scar|"
          r"bor|bas|suppos|schedul|plann|need|indeed)ed\b)\w{3,}ed)\b"),
    relative=r"\b(?:last|past|previous|this|next|coming|ago|yesterday|tomorrow|tonight|today)\b",
    evaluation=lazy_compile(
        r"^\s*(?:was|were|is|has been|had been|will be|'s|’s)\s+(?:(?:so+|really|very|pretty|super|absolutely|totally|"
        r"quite|just|such|incredibly|truly|kind of|kinda|a bit|a little|too|honestly|definitely|seriously|such a)\s+)*"
        rf"(?:(?:a|an|the|one)\s+)?(?:{_EVAL_WORDS})(?:\s+(?:day|night|week|weekend|month|year|time|one|ride|"
        r"experience|evening|morning))?\b[\s!.?…~]*(?:[,;:—–-]|\s+(?:and|but|because|so)\b|$)",
        re.I,
    ),
    copula_after=lazy_compile(r"^\s*(?:was|were|is|will be|'s|’s)\s+", re.I),
    copula_before=r"\b(?:is|was|are|were|be|'s)",
    orphan_before=r"\b(?:just|only|since|until|till|from|by|for|as of|on|over|during|back)",
    lead_in=r"so|well|and|but|oh|anyway|um+|uh+|ok|okay|also",
    trailer=r"\b(?:lol|haha+|hehe+|wow|omg|tbh)\b",
    weekday_said=_weekday_said,
    season_labels={"spring": "spring", "summer": "summer", "autumn": "autumn", "winter": "winter"},
    season_said="in {}",
    label_space=True,
    anchor_join=", ",
)

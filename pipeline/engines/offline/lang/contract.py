"""What a language pack provides: one typed object per module of its folder (lang/README.md).

The engine applies these the same way for every language; a pack holds data only (words, patterns, the
date phrases and how each resolves). Regex sources (`str`) are fragments the engine joins across packs into
one pattern; compiled patterns (`re.Pattern`) are read on their own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Literal

from pipeline.engines.offline.lexicon import Lexicon

Grain = Literal["day", "week", "weekend", "month", "season", "year", "unplaced"]


@dataclass(frozen=True)
class Placement:
    """What a time phrase resolves to (date_rules.py has the calendar arithmetic that builds one)."""

    # A day inside the period (for "last month": this day of last month), which the routing rules measure
    # recency and plans by; None: the phrase names a period the rules cannot place. `grain` says which period.
    day: date | None
    grain: Grain = "day"


# A match of a phrase, today and the whole text -> its placement (None: the match is no phrase after all).
Resolver = Callable[[re.Match[str], date, str], "Placement | None"]
# One time phrase: its pattern and what a match resolves to.
DateRule = tuple[re.Pattern[str], Resolver]


@dataclass(frozen=True)
class Cues:
    """Words that name a profile key, and words that put a clause in the future."""

    # Key -> the cue words (a regex) that name it: "my brother ..." is Family. Tried in this order, so the first
    # key whose cue words a clause holds names its field; the order is the same in every pack.
    key_cues: dict[str, str]
    planned: re.Pattern[str]  # "will", "akan", "打算", "จะ": a plan is MEMORY.md's, not a profile fact


@dataclass(frozen=True)
class DateWords:
    """The time phrases of one language and the words dates.py reads around them."""

    # A day of a month said outright ("May 3", "3 Mei"): tried before every pack's other rules.
    day_rules: tuple[DateRule, ...]
    rules: tuple[DateRule, ...]  # every other phrase, in priority order
    future: str  # regex: tense cues that place a bare "on Sunday" after today
    past: str  # regex: tense cues that place it before today
    relative: str  # regex: the relative words of a phrase ("last", "kemarin", "上", "ที่แล้ว")
    evaluation: re.Pattern[str]  # "was amazing" right after a phrase: how the time was, not what happened
    copula_after: re.Pattern[str]  # "was" in "Yesterday was my birthday"
    copula_before: str  # regex: "is" in "the wedding is next Saturday" (matched at the end of the text before)
    orphan_before: str  # regex: a word left dangling once the phrase leaves ("just", "since"); "" for none
    lead_in: str  # regex: words before a phrase that add nothing ("so", "well")
    trailer: str  # regex: what may end an anchor besides its evaluation (laughter, particles)
    weekday_said: Callable[[str], str | None]  # the weekday a phrase names, without "next"/"last": "on Saturday"
    season_labels: dict[str, str]  # spring/summer/autumn/winter -> the language's words
    season_said: str  # how a season is said on its own: "in {}" ({} is the label)
    label_space: bool  # a label said before the rest of a sentence needs a space (not in Chinese)
    anchor_join: str  # between a time phrase said on its own and the statement it dates: ", " / " " / ""


@dataclass(frozen=True)
class Words:
    """How the language is told apart and how a subject-less clause gets its subject."""

    script: str  # "latin", or the script split.script_of names ("zh", "th") when it is the language's own
    function_words: frozenset[str]  # Latin script: common words that tell this language from the others
    subject: str  # the first-person subject put before a clause that dropped it: "I ", "saya ", "我"
    pro_drop: bool  # the subject is often left out: a subject-less clause after "I ..." continues it
    # A first person that also means "we" (Thai เรา) when no other first person is said: about project work
    # or a dated event it is the team. None: the language's "I" is only "I".
    ambiguous_we: re.Pattern[str] | None = None


__all__ = ["Cues", "DateRule", "DateWords", "Grain", "Lexicon", "Placement", "Resolver", "Words"]

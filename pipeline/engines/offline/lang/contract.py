"""What a language pack provides: one typed object per module of its folder (lang/README.md).

The engine applies these the same way for every language; a pack holds data only (words, patterns, the
date phrases and how each resolves). Regex sources (`str`) are fragments the engine joins across packs into
one pattern; compiled patterns (`re.Pattern`) are read on their own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
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
    # A third person named in a subject-less clause (他, เขา, dia): the dropped subject is that person, not the
    # speaker, so the clause gets no "I". None: the language drops no subject.
    other_subject: re.Pattern[str] | None = None
    # Does a subject-less clause tell who the speaker is ("เป็นพยาบาลค่ะ": "[I] am a nurse")? In Chinese chat such a
    # clause ("是中国内地男歌手", "出生于台北") nearly always describes the person being talked about.
    implied_identity: bool = True


@dataclass(frozen=True)
class Phrases:
    """The words the splitter, the rules, the extractor, consolidation and the sensitive-data check read beside the
    Lexicon. Regex fragments (`str`) are joined across packs in rank order into one pattern and sets are united,
    so each applies to every text whatever its language (users mix languages); "" or empty: the language has none."""

    # -- splitting a turn into statements (split.py) --
    abbreviations: str = ""  # "e.g.", "Dr.": a period that ends no sentence (matched at the end of the text before it)
    sentence_end: str = ""  # where a sentence ends besides . ! ? and line breaks (Thai: a space after ครับ)
    clause_conjunctions: str = ""  # "and", "dan" before a new first-person subject: a new clause
    clause_leads: str = ""  # "by the way", "omong-omong" between that conjunction and the subject
    clause_subjects: str = ""  # the first-person subjects that start a clause: "i", "we", "saya"
    clause_instructions: str = ""  # "always", "please" after a comma: an instruction after a fact
    clause_questions: str = ""  # "where", "kalau kamu" after a comma, ending in "?": a question after a fact
    clause_cuts: str = ""  # the language's own clause boundaries ("..., and love ...", "，而且", "และผม")
    apposition_heads: str = ""  # "I'm", "nama saya" before a name in "I'm Jasmin, a frontend engineer"
    apposition_article: str = ""  # "a", "seorang": the article of the apposition's second fact
    apposition_subject: str = ""  # what that second fact starts with: "I'm ", "saya "
    # -- the assistant's question a bare answer replies to (answers.py) --
    # key -> words of a question for it: {"Name": "your name", "Origin": "where are you from"}
    asked: dict[str, str] = field(default_factory=dict)
    self_clause: str = ""  # a short clause that states a fact of its own ("I'm Bo" in "I'm Bo and I ...")
    plural_start: str = ""  # "we", "kami": a plural subject at the start
    fragment_subjects: tuple[tuple[re.Pattern[str], str], ...] = ()  # a subject-less fragment -> the subject it gets
    plural_subjects: dict[str, str] = field(default_factory=dict)  # a fragment subject after a plural one: "I " -> "we "
    # -- routing a statement (rules.py) --
    topic_named: str = ""  # "project X", "X 项目": one capture group holds the name
    not_names: frozenset[str] = frozenset()  # words after "project" that name none ("and", "yang")
    kebab_not_topics: frozenset[str] = frozenset()  # hyphenated words that name no project ("follow-up")
    agreement: str = ""  # "let's use ...": an agreement, memory (the match's last word is the verb kept)
    goal_hint: str = ""  # "someday", "by 2030": a request that is a goal
    contrast_tail: str = ""  # ", not a data analyst": the contrast half of a correction (to the end)
    contrast_head: str = ""  # "not", "bukan" opening a clause
    chronic: str = ""  # "always", "sering": a state that describes the person, not the moment
    participle_after: str = ""  # "never done it before": a remark with its subject dropped, not an instruction
    agreed: str = ""  # "decided", "sepakat": a decision
    habitual: str = ""  # "usually", "biasanya": a habit
    as_you_said: str = ""  # "as you said": restates the assistant
    evaluative_lead: str = ""  # "that's", "so" before an evaluative word
    evaluative: str = ""  # "cool", "keren", "不错": a small-talk opinion
    sharing: str = ""  # "too", "juga", "也": the user shares what the other speaker said
    pointer: str = ""  # "this", "ini": points at another statement
    stop_words: frozenset[str] = frozenset()  # words no comparison counts
    filler_words: frozenset[str] = frozenset()  # words that carry no fact on their own ("it", "semua")
    subjects: str = ""  # first-person subjects an adverb may follow ("I actually live in")
    subject_adverbs: str = ""  # "actually", "sekarang": an adverb between the subject and the verb
    leading_phrase: str = ""  # "these days, " before "I ...": a phrase the fact rules read past
    keep_it: str = ""  # "keep it ..." at the start of an instruction's value
    first_clause_words: str = ""  # "because", "karena": where a value's head clause ends
    correction_cues: str = ""  # "meant", "dari": a correction or a switch may be said
    showing: str = ""  # "here's a pic": a picture or link handed over
    advice: str = ""  # "don't forget to", "jangan lupa": a reminder for the other speaker
    pleasantry: str = ""  # "always great chatting with you": a pleasantry that looks like a standing instruction
    polite: str = ""  # "please " before an instruction
    negative_instruction: str = ""  # "never", "jangan", "不要": an instruction's negation is its meaning
    forget_lead: str = ""  # "my", "saya", "我的" before what to forget
    forget_tail: str = ""  # "anymore", "lagi" after it
    role_where: re.Pattern[str] | None = None  # "nurse in Lyon": groups role, prep, place
    place_keys: dict[str, str] = field(default_factory=dict)  # role_where's prep -> Location or Employer
    # -- the engine and consolidation (engine.py, consolidate.py) --
    material: str = ""  # "translate this:": what follows is material for the task
    about_before: str = ""  # "it was", "itu": says what the sentence before was about
    topic_stop_words: frozenset[str] = frozenset()  # words a topic prefix never is ("and: ...")
    change_cues: str = ""  # "switched", "ganti": an entry that supersedes an older one
    merge_stop_words: frozenset[str] = frozenset()  # words consolidation's overlap does not count
    # -- the sensitive-data check (sensitive.py) --
    identifier_words: str = ""  # "zip code", "kode pos": a digit-bearing identifier follows
    # -- the extractor (extractor.py) --
    subject_words: frozenset[str] = frozenset()  # "i", "saya", "我": the speaker
    value_lead_drop: frozenset[str] = frozenset()  # words a value never starts with
    value_tail_drop: frozenset[str] = frozenset()  # words a value never ends with
    phrase_openers: frozenset[str] = frozenset()  # "with", "di": a phrase a value may not end inside
    negations: frozenset[str] = frozenset()  # "not", "tidak", "不": kept with what they negate
    auxiliaries: frozenset[str] = frozenset()  # "do", "can": kept with a negation
    second_person_words: frozenset[str] = frozenset()  # "you", "kamu", "你"
    contentless: frozenset[str] = frozenset()  # words a value made only of says nothing (with the drop words)


__all__ = ["Cues", "DateRule", "DateWords", "Grain", "Lexicon", "Phrases", "Placement", "Resolver", "Words"]

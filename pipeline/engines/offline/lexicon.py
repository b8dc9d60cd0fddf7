"""The shape of one language's word lists and patterns; the lists themselves live in lang/<code>/lexicon.py.

A Lexicon holds only data (compiled patterns and small tables); rules.py applies it the same way for
every language, so adding a language means adding a folder (lang/README.md), not code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline._util.lazy_re import lazy_compile
from pipeline.vocabulary import MULTI, SECTION_OF

NEVER = lazy_compile(r"(?!x)x")  # a pattern that matches nothing, for slots a language does not need


def rx(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    return lazy_compile(pattern, flags)


def words(*items: str) -> str:
    """An alternation of literal-ish items, longest first so that "kind of" wins over "kind"."""
    return "(?:" + "|".join(sorted(items, key=len, reverse=True)) + ")"


@dataclass(frozen=True)
class FactRule:
    """A first-person statement shape that names a USER.md field.

    `key` is a key of the vocabulary (pipeline/vocabulary.py), which gives the field its section and says whether
    it collects several values ("Likes: sunsets; horses") or a new one replaces the old. The pattern's group `v` is
    the value (kept in the user's words). A Favorites rule may also capture the kind of favourite (group `k`): a
    kind the vocabulary's words call a colour makes the field Favorite color with `v` as its value; any other kind
    stays in the value with the thing ("season is autumn", the user's words from the kind to the thing).
    """

    name: str
    pattern: re.Pattern[str]
    key: str
    confidence: float = 0.85
    whole: bool = False  # value is the whole statement (minus the leading subject), not group `v`

    @property
    def section(self) -> str:
        return SECTION_OF[self.key]

    @property
    def multi(self) -> bool:
        return self.key in MULTI

    @property
    def rule_id(self) -> str:
        """The stable id its decisions carry (Decision.rule): "fact/role-noun"."""
        return "fact/" + self.name


@dataclass(frozen=True)
class Lexicon:
    lang: str
    first_person: re.Pattern[str]  # I / my / saya / 我 / ผม
    plural_person: re.Pattern[str]  # we / our / kami / 我们 / พวกเรา
    subject: re.Pattern[str]  # a leading first-person subject, removed to form a value
    greeting: re.Pattern[str]  # a leading greeting ("hi there,"), removed before anything else
    phatic: re.Pattern[str]  # the whole statement is a greeting, thanks or acknowledgement
    discourse: re.Pattern[str]  # leading fillers: "actually", "well", "oh"
    question: re.Pattern[str]
    request: re.Pattern[str]  # a task for right now: "change this title to X", "translate this"
    remember: re.Pattern[str]  # "remember that ..." / "note that ...": an explicit ask to keep
    standing: re.Pattern[str]  # "always ..." / "from now on ...": a standing instruction = preference
    forget: re.Pattern[str]  # group `t` = what to forget
    hedge: re.Pattern[str]  # vague attitudes: "I guess", "kind of", "mungkin", "好像", "มั้ง"
    mood_state: re.Pattern[str]  # momentary states on their own: tired, headache, hungry
    mood_emotion: re.Pattern[str]  # feelings that are momentary only with a "now" marker
    now_marker: re.Pattern[str]  # today / now / feeling / hari ini / 今天 / วันนี้ (with a feeling word: mood)
    moment: re.Pattern[str]  # strictly this moment (right now, today): any feeling with it is mood
    temporary: re.Pattern[str]  # "for a business trip": a temporary situation, not a profile fact
    project_cue: re.Pattern[str]  # words of project work: deploy, release, bug, API, proyek, 项目
    decision_cue: re.Pattern[str]  # decided / agreed / let's go with
    done: re.Pattern[str]  # finished or ongoing project work: deployed, fixed, working on, sudah, 了, แล้ว
    language_word: re.Pattern[str]  # names of languages, for "always reply in Indonesian"
    trailing: re.Pattern[str]  # trailing fillers removed from values: "now", "sekarang", ครับ
    no_longer: re.Pattern[str]  # "not ... anymore", "udah gak", "不再", "เลิก": a profile fact stops being true
    meant: re.Pattern[str]  # "I meant X, not Y": groups new/old, a correction of a stored value
    switched: re.Pattern[str]  # "switched from X to Y": groups old/new
    facts: tuple[FactRule, ...]
    # The write policy (docs/design.md, training/KEYS.md): what may become a USER.md field, and what is never the user's own fact.
    second_person: re.Pattern[str] = NEVER  # you / your / anda / 你 / คุณ: a value about the other speaker
    empty_value: re.Pattern[str] = NEVER  # a whole value that says nothing: "it", "play", "them all", "那个"
    addressed: re.Pattern[str] = NEVER  # an "always ..." that tells the assistant how to answer (reply, use, you)
    spelling: tuple[tuple[re.Pattern[str], str], ...] = ()  # chat spellings of the subject ("i m", "ive") -> canonical


def cue_words(*items: str) -> str:
    """Latin-script cue words: whole words only ("cat" is not in "category")."""
    return r"\b(?:" + "|".join(items) + r")\b"


def cue_chars(*items: str) -> str:
    """Chinese and Thai cue words: anywhere (no spaces between words)."""
    return "(?:" + "|".join(items) + ")"

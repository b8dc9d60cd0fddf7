"""The clauses of a collecting USER.md field ("Likes: hiking; chess; jazz"), and which one leaves when it is full.

A collecting field keeps at most MULTI_VALUE_CAP characters. When a new clause would take it over, clauses
leave one at a time, least valuable first, until it fits. The rule, in order:

1. junk: a clause the engines would not write today by the write policy (docs/design.md): a question, an
   exclamation, a whole sentence instead of a phrase ("I got a new lease of life"), words about the other
   speaker, a fragment that ends on a function word, or words that say nothing ("it", "so much");
2. a clause another clause already says (all its words are in the other one): the shorter copy leaves;
3. the oldest clause.
Within a step the oldest goes first. The new clause competes like the others: it is the first to go only
when it is junk itself. Every clause that leaves is named, with its reason, in the turn's outcome and
history and kept in the archive (stages/write.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MULTI_VALUE_CAP = 200  # characters a collecting field keeps
SEPARATOR = "; "

JUNK_QUESTION = "junk: a question"
JUNK_EXCLAMATION = "junk: an exclamation"
JUNK_SENTENCE = "junk: a whole sentence, not a phrase"
JUNK_OTHER_SPEAKER = "junk: about the other speaker"
JUNK_FRAGMENT = "junk: a fragment"
JUNK_EMPTY = "junk: says nothing on its own"
JUNK_POINTING = "junk: points at something in the conversation"
JUNK_ADVICE = "junk: advice to the other speaker"
REDUNDANT = "said by another clause"
OLDEST = "the oldest clause"
REPLACED = "replaced by a new value"  # a single-value field: the whole old value leaves
MOVED_OUT = "moved out to make room"  # USER.md compaction near the file's cap (engines' compact)
REASONS = (JUNK_QUESTION, JUNK_EXCLAMATION, JUNK_SENTENCE, JUNK_OTHER_SPEAKER, JUNK_FRAGMENT, JUNK_EMPTY, JUNK_POINTING,
           JUNK_ADVICE, REDUNDANT, OLDEST, REPLACED, MOVED_OUT)

_QUESTION = re.compile(
    r"[?？]|^(?:what|why|how|when|where|who|which|whose|do you|did you|are you|is it|can you|could you|would you|"
    r"apa|apakah|kenapa|mengapa|bagaimana|gimana|kapan|di ?mana|siapa)\b|(?:吗|呢|么)$|^(?:什么|为什么|怎么|哪)|"
    r"(?:ไหม|มั้ย|หรือเปล่า|หรือยัง|อะไร|ทำไม|ยังไง)$",
    re.IGNORECASE,
)
_EXCLAMATION = re.compile(
    r"[!！]|^(?:wow|omg|oh|ah|aw+|haha+|hehe+|lol|lmao|yay|ugh|whoa|yikes|damn|wah|aduh|astaga|wkwk+|哇|哈哈|天哪|ว้าว|555+)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(
    r"^(?:i|i'm|im|i've|i'd|i'll|we|we're|we've|aku|saya|gue|gw|kami|kita)\b|^我(?!们?的)|^(?:ผม|ฉัน|ดิฉัน)"
    r"|(?<![\w'])(?:i|i'm|i've|i'd|i'll)(?![\w'])",  # "kids and I just finished a painting": a clause with its own subject
    re.IGNORECASE,
)
MAX_VALUE_WORDS = 12  # a phrase says a fact in a few words; more is a sentence copied whole
# Words to or about the other speaker, in a value or an entry ("คุณแม่", "คุณครู" are the user's mother, teacher).
_OTHER_SPEAKER = re.compile(
    r"\b(?:you|your|yours|yourself|you're|kamu|anda|dirimu)\b|^你|^您|^คุณ(?!แม่|พ่อ|ยาย|ตา|ปู่|ย่า|ป้า|ลุง|น้า|อา|ครู|หมอ)",
    re.IGNORECASE,
)
# "this quote", "that first movie", "these pics": a thing the live conversation shows, not a fact to keep.
_POINTING = re.compile(r"^(?:this|that|these|those)\b(?!\s+(?:is|was|one)\b)", re.IGNORECASE)
_DANGLING = re.compile(
    r"\b(?:to|with|and|or|of|the|a|an|for|in|on|at|but|because|about|like|dan|atau|yang|di|ke|dari|untuk|dengan|"
    r"sama|karena)$|(?:的|和|跟|在|把|และ|กับ|ที่|ของ)$",
    re.IGNORECASE,
)
_FILLER = frozenset(
    "it its that this them those these one ones so too much very really all everything anything something nothing "
    "stuff thing things lot lots kind sort way more most also just well both yes no ok okay lol haha the a an is are "
    "was be to of in on for and or my me itu ini semua banget sekali juga sih deh aja hal gitu 这个 那个 一切 东西".split()
)
_WORD = re.compile(r"[\w\u0E00-\u0E7F\u4E00-\u9FFF']+")
_NON_LATIN = re.compile(r"[\u0E00-\u0E7F\u4E00-\u9FFF]")


@dataclass(frozen=True)
class Eviction:
    """A clause that left a USER.md field, and why (one of REASONS)."""

    key: str
    clause: str
    reason: str


def split_clauses(value: str) -> list[str]:
    return [p.strip() for p in value.split(";") if p.strip()]


def join_clauses(parts: list[str]) -> str:
    return SEPARATOR.join(parts)


# A MEMORY.md entry that is no event of the user's: words to the other speaker ("Believe in yourself", "Your project
# is going to be great"), a picture or link shown ("This was our tree.", "Here's what I did."), or no content
# ("Something happened.").
_ENTRY_ADVICE = re.compile(r"^(?:believe|keep (?:going|it up|at it|pushing)|remember to|try to|take care|make sure|stay|go for it|hang in|"
                           r"be (?:proud|kind|careful|sure)|good luck|congrats|congratulations)\b", re.IGNORECASE)
_ENTRY_POINTING = re.compile(r"^(?:this|that|these|those|here'?s|here (?:is|are)|check (?:it|this) out|look at)\b",
                             re.IGNORECASE)
_GENERIC = frozenset("i we me us our my something someone somewhere anything happened happen did do does done went "
                     "go got get had have has was were is are been made make thing things stuff lot today yesterday "
                     "week weekend day".split())


def entry_junk_reason(entry: str) -> str | None:
    """Why the write policy would not keep this MEMORY.md entry as an event of the user's, or None."""
    text = entry.strip()
    if _OTHER_SPEAKER.search(text):
        return JUNK_OTHER_SPEAKER
    if _ENTRY_ADVICE.search(text):
        return JUNK_ADVICE
    if _ENTRY_POINTING.search(text):
        return JUNK_POINTING
    words = [w for w in _words(text) if w not in _FILLER and w not in _GENERIC]
    if not _NON_LATIN.search(text) and len(words) < 2:
        return JUNK_EMPTY
    return None


def junk_reason(clause: str) -> str | None:
    """Why the write policy would not write this clause as a value today, or None when it is a fact."""
    text = clause.strip()
    if _QUESTION.search(text):
        return JUNK_QUESTION
    if _EXCLAMATION.search(text):
        return JUNK_EXCLAMATION
    if _OTHER_SPEAKER.search(text):
        return JUNK_OTHER_SPEAKER
    if _SENTENCE.search(text) or len(text.split()) > MAX_VALUE_WORDS:
        return JUNK_SENTENCE
    if _POINTING.search(text):
        return JUNK_POINTING
    words = _words(text)
    if not words or (all(w in _FILLER for w in words) and not _NON_LATIN.search(text)):
        return JUNK_EMPTY
    if _DANGLING.search(text.rstrip(" .,;:")):
        return JUNK_FRAGMENT
    return None


def left_out(old: str, new: str) -> list[str]:
    """The clauses of a collecting field `old` that `new` no longer has (none when `old` is a single value)."""
    old_parts = split_clauses(old)
    if len(old_parts) < 2:
        return []
    kept = {_same(p) for p in split_clauses(new)}
    return [p for p in old_parts if _same(p) not in kept]


def _same(clause: str) -> str:
    """A clause as compaction's shortening leaves it (spaces collapsed, no trailing punctuation)."""
    return " ".join(clause.split()).rstrip(" .;,").casefold()


def extends(old: str, new: str) -> bool:
    """`new` keeps every clause of `old` and adds at least one: a collecting field growing, not a new value."""
    old_parts = {p.casefold() for p in split_clauses(old)}
    new_parts = [p.casefold() for p in split_clauses(new)]
    return bool(old_parts) and old_parts <= set(new_parts) and len(set(new_parts)) > len(old_parts)


def fit(key: str, parts: list[str], cap: int = MULTI_VALUE_CAP) -> tuple[list[str], list[Eviction]]:
    """`parts` (oldest first) cut to at most `cap` characters joined, by the rule above; one clause always stays."""
    kept = list(parts)
    gone: list[Eviction] = []
    while len(join_clauses(kept)) > cap and len(kept) > 1:
        index, reason = _least_valuable(kept)
        gone.append(Eviction(key, kept.pop(index), reason))
    return kept, gone


def _least_valuable(parts: list[str]) -> tuple[int, str]:
    for i, part in enumerate(parts):
        reason = junk_reason(part)
        if reason is not None:
            return i, reason
    words = [_words(p) for p in parts]
    for i in range(len(parts)):
        if words[i] and any(j != i and words[i] <= words[j] and (words[i] != words[j] or j > i) for j in range(len(parts))):
            return i, REDUNDANT
    return 0, OLDEST


def _words(text: str) -> set[str]:
    """Latin words; for Chinese and Thai (no spaces) letter pairs, so containment still means "says the same"."""
    found = _WORD.findall(text.casefold())
    out: set[str] = set()
    for w in found:
        if _NON_LATIN.search(w):
            out |= {w[i:i + 2] for i in range(len(w) - 1)} or {w}
        else:
            out.add(w)
    return out


def evicted_note(evictions: list[Eviction]) -> str:
    """"evicted from Likes: 'x' (junk: a question), 'y' (the oldest clause)" for the turn's outcome."""
    if not evictions:
        return ""
    key = evictions[0].key
    return f"evicted from {key}: " + ", ".join(f"{e.clause!r} ({e.reason})" for e in evictions)

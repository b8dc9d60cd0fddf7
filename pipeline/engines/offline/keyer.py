"""The learned keyer: a profile fact the rules could not name, proposed from the user's own clause.

On real conversations most durable facts come in shapes no hand-written fact rule names ("my parents are still
married", "我是独生子", "aku montir mobil di bengkel keluarga"): the rules see a first-person remark and skip it. The
keyer reads each such clause of a turn the rules (and the gate) left unwritten and asks a small logistic regression
whether it is a durable fact about the speaker (over the clause's words, the assistant's line, the language pack's
shapes and the rule that skipped it); the clause's own cue words name the key (key_cues.py: Family, Pets, Work,
...). It proposes a USER.md field only when the model is sure and a key is named; a clause just under the write
threshold becomes a candidate. No catch-all key: a clause that names no key is skipped.
(A learned key model, trained on the keys the rules name, was tried: on the clauses the rules cannot name it was
rarely sure and often wrong, so the keys come from cue words.)

Trained by `training/train_keyer.py` (grouped cross-validation on labeled turns); the weights ship as JSON read
with the standard library.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

from pipeline.engines.offline import dates
from pipeline.engines.offline.gate import ASSISTANT_SHAPES, SHAPES, FeatureConfig, buckets, shapes, text_grams
from pipeline.engines.offline.key_cues import key_asked, key_for, planned
from pipeline.engines.offline.lang import phrase
from pipeline.engines.offline.lexicon import Lexicon
from pipeline.engines.offline.rules import (
    EN,
    LEXICONS,
    NO_FACT_SHAPE,
    NOT_ABOUT_USER,
    clean_value,
    merge_multi,
    strip_pattern,
)
from pipeline.engines.offline.split import script_of
from pipeline.engines.offline.text import guess_language, tokens
from pipeline.types import Decision

WEIGHTS_PATH = Path(__file__).with_name("keyer_weights.json")
FORMAT = "memroute-keyer-1"
# The rules' skips the keyer may reconsider: first-person remarks with no fact shape, and plain answers with no
# subject ("true crime mostly" after "what do you read?"). Questions, greetings, moods, hedges, repeats, requests,
# sensitive data and guard blocks stay skipped.
ELIGIBLE = (NO_FACT_SHAPE, NOT_ABOUT_USER)
MAX_VALUE_CHARS = 120  # a longer clause is a story, not a field
_TEXT = FeatureConfig(word_ngrams=2, char_min=1, char_max=3)
_REFERENCE_DAY = date(2026, 1, 15)
_FILLER_VALUE = re.compile(r"^[\W\d_]*$")
# The language pack's shapes read on the clause: beside the gate's, the ones that tell an event, a feeling of the
# moment or a remark about the other speaker from a lasting fact.
_CLAUSE_SHAPES = (*SHAPES, "second_person", "done", "temporary", "mood_emotion", "moment", "now_marker", "empty_value")


@dataclass(frozen=True)
class KeyInfo:
    section: str
    multi: bool


def _key_table() -> dict[str, KeyInfo]:
    """Section and collecting behaviour of each key, as the language packs' fact rules define them."""
    table: dict[str, KeyInfo] = {}
    for lex in LEXICONS.values():
        for rule in lex.facts:
            if "{k}" not in rule.key:
                table.setdefault(rule.key, KeyInfo(rule.section, rule.multi))
    return table


def clause_features(clause: str, detail: str, user_text: str, assistant: str, lex: Lexicon, index: int,
                    count: int) -> list[str]:
    """The fact model's view of one clause in its turn (binary feature names)."""
    out = ["bias", "lang=" + lex.lang, "d:" + detail, "n=" + buckets(count)]
    if index == 0:
        out.append("first")
    if index == count - 1:
        out.append("last")
    size = text_grams("q", clause, _TEXT, out)
    out.append("len=" + buckets(size))
    shapes("q", clause, lex, _CLAUSE_SHAPES, out)
    # A date phrase marks an event or a plan ("just got a job last week", "next Saturday we play"): MEMORY.md's, not a
    # profile fact. Only its presence is read, so any reference day will do.
    if dates.find_date(clause, _REFERENCE_DAY) is not None:
        out.append("q:dated")
    if dates.is_planned(clause, _REFERENCE_DAY):
        out.append("q:planned")
    if "?" in user_text or "？" in user_text:
        out.append("turn?")
    if assistant:
        text_grams("a", assistant, _TEXT, out)
        shapes("a", assistant, lex, ASSISTANT_SHAPES, out)
        if assistant.rstrip().endswith(("?", "？")):
            out.append("a:ends?")
    return list(dict.fromkeys(out))


def softmax(bias: Sequence[float], weights: Mapping[str, Sequence[float]], features: Sequence[str]) -> list[float]:
    scores = list(bias)
    for name in features:
        w = weights.get(name)
        if w is not None:
            scores = [s + x for s, x in zip(scores, w, strict=True)]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


_SEGMENT = re.compile(r"[,，、;；]\s*")


def _from_the_fact(text: str, lex: Lexicon) -> str:
    """The clause from its first segment that speaks of the user or names a key: "fine thanks, I live with my
    sister now" -> "I live with my sister now"."""
    start = 0
    for m in [None, *_SEGMENT.finditer(text)]:
        start = 0 if m is None else m.end()
        end = next((n.start() for n in _SEGMENT.finditer(text, start)), len(text))
        segment = text[start:end]
        if lex.first_person.search(segment) or key_for(segment, lex.lang):
            return text[start:].strip()
    return text


def fact_value(clause: str, lex: Lexicon) -> str | None:
    """The clause as a field value: greeting, discourse words and the leading subject removed, negation and tense
    kept ("I don't eat meat" -> "don't eat meat"); None when nothing concrete is left."""
    text = strip_pattern(lex.greeting.sub("", clause.strip(), count=1).strip(), lex.discourse)
    for pattern, canonical in lex.spelling:
        text = pattern.sub(canonical, text)
    text = _from_the_fact(text, lex)
    plural = lex.plural_person.match(text)  # "我们喜欢..." keeps its 我们: the subject pattern would leave "们喜欢..."
    value = clean_value(text if plural else lex.subject.sub("", text, count=1), lex)
    if not value or len(value) > MAX_VALUE_CHARS or _FILLER_VALUE.match(value):
        return None
    if lex.second_person.search(value) or EN.second_person.search(value):
        return None  # about the other speaker
    if script_of(value) == "latin":
        if len(value.split()) < 2:
            return None  # "Hobbies: play"
    elif len(value.replace(" ", "")) < 2:
        return None
    return value


class Keyer:
    """The fact model (a logistic regression) and the thresholds chosen by cross-validation."""

    def __init__(self, bias: Sequence[float], weights: Mapping[str, Sequence[float]], write_threshold: float,
                 candidate_threshold: float) -> None:
        self.bias = tuple(bias)
        self.weights = weights
        self.write_threshold = write_threshold
        self.candidate_threshold = candidate_threshold
        self.key_info = _key_table()

    def p_fact(self, features: Sequence[str]) -> float:
        return softmax(self.bias, self.weights, features)[1]

    def to_json(self, scale: int = 1000) -> dict[str, Any]:
        return {"format": FORMAT, "scale": scale, "write_threshold": self.write_threshold,
                "candidate_threshold": self.candidate_threshold, "bias": [round(b, 4) for b in self.bias],
                "weights": {k: [round(x * scale) for x in v] for k, v in sorted(self.weights.items())}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Keyer:
        if data.get("format") != FORMAT:
            raise ValueError("not a memroute keyer weights file")
        scale = float(data["scale"])
        weights = {k: [x / scale for x in v] for k, v in data["weights"].items()}
        return cls(data["bias"], weights, float(data["write_threshold"]), float(data["candidate_threshold"]))


@lru_cache(maxsize=1)
def default_keyer() -> Keyer | None:
    """The shipped keyer, or None when its weights file is absent (the engine then proposes nothing)."""
    if not WEIGHTS_PATH.is_file():
        return None
    return Keyer.from_json(json.loads(WEIGHTS_PATH.read_text(encoding="utf-8")))


@dataclass(frozen=True)
class Proposal:
    index: int  # which decision of the turn it replaces
    p_fact: float
    key: str
    value: str


def best_proposal(keyer: Keyer, decisions: Sequence[Decision], user_text: str, assistant: str, default_lang: str) -> Proposal | None:
    """The turn's most likely self-attributed fact clause, among the rules' eligible skips that name a key."""
    best: Proposal | None = None
    for i, d in enumerate(decisions):
        if d.route != "skip" or d.detail not in ELIGIBLE or d.candidate:
            continue
        lex = LEXICONS.get(guess_language(d.quote, default_lang), EN)
        value = fact_value(_joined(decisions, i, user_text), lex)
        if value is not None and (planned(d.quote, lex.lang) or dates.find_date(d.quote, _REFERENCE_DAY) is not None):
            continue  # a dated event or a plan is MEMORY.md's, never a profile field
        key = key_for(d.quote, lex.lang) if value is not None else None
        asked = key_asked(assistant, lex.lang) if value is not None and key is None else None
        if value is None or (key or asked) is None:
            continue
        features = clause_features(d.quote, d.detail or "", user_text, assistant, lex, i, len(decisions))
        p = keyer.p_fact([*features, f"k={key}" if key else f"ka={asked}"])
        if best is None or p > best.p_fact:
            best = Proposal(i, p, str(key or asked), value)
    return best


_CONJUNCTION = re.compile(rf"^(?:,?\s*(?:{phrase('conjunctions')})?\s*)$", re.IGNORECASE)


def _joined(decisions: Sequence[Decision], i: int, user_text: str) -> str:
    """Clause i with the eligible clauses the splitter cut from it at "and I" ("my sister and I share a flat")."""
    quote = decisions[i].quote
    end = user_text.find(quote)
    if end < 0:
        return quote
    start, end = end, end + len(quote)
    for d in decisions[i + 1:]:
        at = user_text.find(d.quote, end)
        if d.detail not in ELIGIBLE or at < 0 or not _CONJUNCTION.match(user_text[end:at]):
            break
        end = at + len(d.quote)
    return user_text[start:end]


def open_turn(decisions: Sequence[Decision]) -> bool:
    """A turn the keyer may add to: nothing written, nothing vetoed by the gate, no sensitive data or guard block."""
    return not any(d.route != "skip" or d.reason in ("sensitive", "blocked") or d.candidate
                   or (d.detail or "").startswith("gate:") for d in decisions)


def propose(keyer: Keyer, decisions: list[Decision], user_text: str, assistant: str, default_lang: str,
            fields: Mapping[str, tuple[str, str]]) -> list[Decision]:
    """Precision first: a turn the rules left without a write gains at most one USER.md field, from its most likely
    fact clause, when the fact model is sure and the clause names a key; just under the write threshold the field
    becomes a candidate. A proposal never overwrites a single-valued field already in USER.md. `fields` maps a
    casefolded key to (key, value) of USER.md as it stands."""
    if not open_turn(decisions):
        return decisions
    found = best_proposal(keyer, decisions, user_text, assistant, default_lang)
    if found is None or found.p_fact < keyer.candidate_threshold:
        return decisions
    info = keyer.key_info.get(found.key, KeyInfo("Identity", True))
    old = fields.get(found.key.casefold())
    value = found.value
    if old is not None:
        if value.casefold() in old[1].casefold() or _overlap(value, old[1]) >= 0.8 or not info.multi:
            return decisions  # already in USER.md, or a stated field the guess must not replace
        value = merge_multi(old[1], value)
    src = decisions[found.index]
    detail = f"keyer: a fact clause ({found.p_fact:.2f}), key named by its words"
    if found.p_fact >= keyer.write_threshold:
        new = Decision(quote=src.quote, route="user", op="upsert", section=info.section, key=found.key, value=value,
                       confidence=round(found.p_fact, 2), detail=detail)
    else:
        new = Decision(quote=src.quote, route="skip", reason=src.reason or "vague", section=info.section, key=found.key,
                       value=value, candidate=True, confidence=round(1 - found.p_fact, 2), detail="candidate: " + detail)
    return [new if i == found.index else d for i, d in enumerate(decisions)]


def _overlap(a: str, b: str) -> float:
    ta, tb = tokens(a), tokens(b)
    return len(ta & tb) / max(len(ta), 1)

"""The learned gate: per turn, should the rules' writes stand, and if not, why skip?

Hand-written rules find *where* a fact goes (section, key, value); on real conversations they also fire on
small talk, answers to the other person and passing remarks. The gate is a small multinomial logistic
regression over a turn's words and character n-grams, the assistant's line before it (answering "what do you
do?" is not small talk), a few shapes from the language pack (first person, question, hedge) and what the rules
themselves decided. It is trained by `training/train_gate.py` on labeled turns and ships as a JSON weights file
read with the standard library; no numpy at run time.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import add
from pathlib import Path
from typing import Any, cast

from pipeline.engines.offline.lexicon import Lexicon
from pipeline.engines.offline.split import script_of
from pipeline.types import SKIP_REASONS, Decision, SkipReason

WEIGHTS_PATH = Path(__file__).with_name("gate_weights.json")
WRITE_CLASSES = ("user", "memory")
_SCALE = 1000

_WORD = re.compile(r"[\w']+")
_SPACE = re.compile(r"\s+")
# Lexicon patterns read as yes/no shapes of the user's line (and of the assistant's, prefixed "a").
SHAPES = ("first_person", "plural_person", "question", "hedge", "phatic", "request", "mood_state", "remember",
           "standing", "no_longer", "greeting")
ASSISTANT_SHAPES = ("question", "first_person")


@dataclass(frozen=True)
class FeatureConfig:
    """Which n-grams the gate reads; fixed by cross-validation at training time and stored with the weights."""

    word_ngrams: int = 2  # words 1..n for Latin-script text
    char_min: int = 1  # character n-grams for Chinese and Thai text (no spaces between words)
    char_max: int = 3
    latin_chars: bool = False  # also character n-grams (3..4) for Latin text
    assistant: bool = True
    rules: bool = True
    rule_outcome: bool = True  # with rules: also the turn's overall outcome and each decision's route/confidence


@dataclass(frozen=True)
class Verdict:
    label: str  # the most likely class: user, memory or a skip reason
    p_write: float  # probability that the turn should write anything
    skip_reason: SkipReason  # the most likely skip reason, used when the turn is skipped


def buckets(n: int) -> str:
    for edge in (1, 2, 3, 5, 8, 12, 20, 35):
        if n <= edge:
            return str(edge)
    return "more"


def text_grams(prefix: str, text: str, cfg: FeatureConfig, out: list[str]) -> int:
    """Words (Latin) or character n-grams (Chinese, Thai) of one line; returns its length in units."""
    norm = _SPACE.sub(" ", text.casefold()).strip()
    if script_of(norm) == "latin":
        words = _WORD.findall(norm)
        padded = ["<s>", *words, "</s>"]
        out.extend(prefix + "w:" + w for w in words)
        for n in range(2, cfg.word_ngrams + 1):
            out.extend(prefix + "w:" + " ".join(padded[i:i + n]) for i in range(len(padded) - n + 1))
        if cfg.latin_chars:
            joined = " " + " ".join(words) + " "
            for n in (3, 4):
                out.extend(prefix + "c:" + joined[i:i + n] for i in range(len(joined) - n + 1))
        return len(words)
    compact = "^" + norm.replace(" ", "") + "$"
    for n in range(cfg.char_min, cfg.char_max + 1):
        out.extend(prefix + "c:" + compact[i:i + n] for i in range(len(compact) - n + 1))
    return len(compact) // 2


def shapes(prefix: str, text: str, lex: Lexicon, names: Iterable[str], out: list[str]) -> None:
    for name in names:
        pattern = getattr(lex, name, None)
        if isinstance(pattern, re.Pattern) and pattern.search(text):
            out.append(prefix + "s:" + name)


def _rule_features(decisions: Sequence[Decision], outcome_too: bool, out: list[str]) -> None:
    for d in decisions:
        if d.reason:
            out.append("r:reason=" + d.reason)
        if d.section:
            out.append("r:section=" + d.section)
        if d.key:
            out.append("r:key=" + d.key.casefold())
    if not outcome_too:
        return
    writes_user = any(d.route == "user" and d.op == "upsert" for d in decisions)
    writes_memory = any(d.route == "memory" and d.op == "append" for d in decisions)
    outcome = "mixed" if writes_user and writes_memory else "user" if writes_user else "memory" if writes_memory else "skip"
    out.append("r:turn=" + outcome)
    out.append("r:n=" + buckets(len(decisions)))
    for d in decisions:
        out.append(f"r:{d.route}:{d.op}")
        out.append(f"r:{d.route}:conf={d.confidence:.1f}")


def turn_features(user_text: str, assistant_line: str, lex: Lexicon, decisions: Sequence[Decision],
                  cfg: FeatureConfig) -> list[str]:
    """The gate's view of one turn, as feature names (binary; duplicates count once)."""
    out = ["bias", "lang=" + lex.lang]
    size = text_grams("", user_text, cfg, out)
    out.append("len=" + buckets(size))
    if "?" in user_text or "？" in user_text:
        out.append("has?")
    shapes("", user_text, lex, SHAPES, out)
    # No "no assistant line" feature: in the labeled data that marks a conversation's opener (a greeting), but a
    # user of the library often sends a lone statement.
    if cfg.assistant and assistant_line:
        text_grams("a", assistant_line, cfg, out)
        shapes("a", assistant_line, lex, ASSISTANT_SHAPES, out)
        if assistant_line.rstrip().endswith(("?", "？")):
            out.append("a:ends?")
    if cfg.rules:
        _rule_features(decisions, cfg.rule_outcome, out)
    return list(dict.fromkeys(out))


class Gate:
    """A multinomial logistic regression over named binary features."""

    def __init__(self, classes: Sequence[str], bias: Sequence[float], weights: Mapping[str, Sequence[float]],
                 config: FeatureConfig, write_threshold: float, candidate_threshold: float,
                 judged_keys: Iterable[str] | None = None) -> None:
        self.classes = tuple(classes)
        self.bias = tuple(bias)
        self.weights = weights
        self.config = config
        self.write_threshold = write_threshold
        self.candidate_threshold = candidate_threshold
        # USER.md keys the labeled turns hold enough of to judge (None: all). Fields of other kinds (allergies, how to
        # answer, time zone) hardly occur in chit-chat data: the gate leaves those to the rules.
        self.judged_keys = None if judged_keys is None else frozenset(k.casefold() for k in judged_keys)
        self._write = tuple(i for i, c in enumerate(self.classes) if c in WRITE_CLASSES)
        self._skip = tuple(i for i, c in enumerate(self.classes) if c not in WRITE_CLASSES)

    def probabilities(self, features: Iterable[str]) -> list[float]:
        scores = list(self.bias)
        get = self.weights.get
        for name in features:
            w = get(name)
            if w is not None:
                scores = list(map(add, scores, w))
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return [e / total for e in exps]

    def verdict(self, features: Iterable[str]) -> Verdict:
        probs = self.probabilities(features)
        label = self.classes[max(range(len(probs)), key=probs.__getitem__)]
        skip = self.classes[max(self._skip, key=probs.__getitem__)]
        reason = cast(SkipReason, skip if skip in SKIP_REASONS else "vague")
        return Verdict(label=label, p_write=sum(probs[i] for i in self._write), skip_reason=reason)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "memroute-gate-1",
            "classes": list(self.classes),
            "bias": [round(b, 4) for b in self.bias],
            "config": self.config.__dict__,
            "write_threshold": self.write_threshold,
            "candidate_threshold": self.candidate_threshold,
            "judged_keys": None if self.judged_keys is None else sorted(self.judged_keys),
            "scale": _SCALE,  # weights are stored as integers: round(w * scale)
            "weights": {k: [round(x * _SCALE) for x in v] for k, v in sorted(self.weights.items())},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Gate:
        if data.get("format") != "memroute-gate-1":
            raise ValueError("not a memroute gate weights file")
        scale = float(data["scale"])
        weights = {k: [x / scale for x in v] for k, v in data["weights"].items()}
        return cls(classes=data["classes"], bias=data["bias"], weights=weights,
                   config=FeatureConfig(**data["config"]), write_threshold=float(data["write_threshold"]),
                   candidate_threshold=float(data["candidate_threshold"]), judged_keys=data.get("judged_keys"))

    def judges(self, d: Decision) -> bool:
        return self.judged_keys is None or (d.key or "").casefold() in self.judged_keys


@lru_cache(maxsize=1)
def default_gate() -> Gate | None:
    """The shipped gate, or None when the weights file is absent (the engine then runs on rules alone)."""
    if not WEIGHTS_PATH.is_file():
        return None
    return Gate.from_json(json.loads(WEIGHTS_PATH.read_text(encoding="utf-8")))


_CONTACT_KEYS = frozenset({"email", "phone", "address"})


def _explicit(d: Decision, lexicons: Sequence[Lexicon]) -> bool:
    """What the user asked for in so many words stays: "remember that ...", forget requests, "save my email"."""
    if d.op == "remove":
        return True
    if d.route == "user" and (d.key or "").casefold() in _CONTACT_KEYS:
        return True  # the rules write a contact detail only when the user asked to save it
    quote = d.quote.strip()
    return any(lex.remember.match(quote) for lex in lexicons)


def apply_gate(decisions: Sequence[Decision], verdict: Verdict, gate: Gate, lexicons: Sequence[Lexicon]) -> list[Decision]:
    """Precision first: under the write threshold the turn's profile writes become skips (durable-looking facts in
    the band just under it become candidates). Guard blocks, sensitive skips and explicit requests are untouched,
    and so are MEMORY.md entries: the labeled turns hold too few events and plans to judge them."""
    if verdict.p_write >= gate.write_threshold:
        return list(decisions)
    candidate = verdict.p_write >= gate.candidate_threshold
    out: list[Decision] = []
    for d in decisions:
        if d.route != "user" or _explicit(d, lexicons) or not gate.judges(d):
            out.append(d)
        elif candidate and d.route == "user" and d.op == "upsert" and d.key and d.value:
            out.append(Decision(quote=d.quote, route="skip", reason=verdict.skip_reason, section=d.section, key=d.key,
                                value=d.value, candidate=True, confidence=round(1 - verdict.p_write, 2),
                                detail=f"candidate: the gate rates a write {verdict.p_write:.2f}, under its threshold"))
        else:
            out.append(Decision(quote=d.quote, route="skip", reason=verdict.skip_reason,
                                confidence=round(1 - verdict.p_write, 2),
                                detail=f"gate: {verdict.skip_reason} (write {verdict.p_write:.2f}; the rules said {d.route})"))
    return out

"""The learned extractor: which turns write, which words of the user's line are the value, under which key.

Four small models, trained by `training/train_extractor.py` on the labeled corpus (training/KEYS.md) with
cross-validation grouped by conversation (and by persona, for the shared real dialogues), ship in one weights file
(extractor_weights.json, int8) read with the standard library; no numpy at run time:

- the turn gate: a multinomial logistic regression over the turn's words (character n-grams in Chinese and Thai),
  the assistant's line before it, the language pack's shapes, the key its cue words name and what the rules
  decided; classes user, memory and the five skip reasons. Its P(write) is also hybrid's gate (engine.needs_model).
- the value tagger: per token (a word; a character in Chinese and Thai) O / B / I, over the token, its neighbours,
  the words before it (the cue: "live in", "named", "住在"), the key cues covering it, how far the subject is, the
  statement's shapes, the key the assistant asked about and what the rules decided on the statement (inside their
  value, their key). A value is a run of tokens rated inside one, so always a contiguous span of the user's words.
- the key classifier: per span, one key of the closed vocabulary or "none" (a span that holds no fact), over the
  span's words, the words around it, its statement, the key cues, the rules' key and the assistant's words.
- the stacker: P(the turn holds a profile fact) from the gate's classes, the tagger's summary, what the rules wrote
  and a few signs of the turn (`turn_signs`).

A span becomes a field when the stacker passes `user` and the span, its key and its "none" pass their bars
(thresholds chosen by cross-validation, stored with the weights); `clean_span` first cuts what a value must never
carry (a leading subject or conjunction, a dangling function word, the loss of its negation) and refuses questions,
advice to the other speaker and values made of function words. Engines produce Decisions only: the engine
(engine.py `merge`) decides how the fields replace or join the rules' own.
"""

from __future__ import annotations

import base64
import json
import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pipeline.engines.offline.extractor_inputs import (
    Clause,
    Token,
    assistant_words,
    cap_features,
    clauses_of,
    cue_marks,
    cue_matches,
    first_key,
    key_read_as,
    rule_class,
    span_features,
    token_local_features,
    tokenize,
)
from pipeline.engines.offline.features import SHAPES, FeatureConfig, shapes, text_grams
from pipeline.engines.offline.key_cues import key_asked
from pipeline.engines.offline.lang import FALLBACK, word_set
from pipeline.engines.offline.lexicon import Lexicon
from pipeline.stages.clauses import junk_reason
from pipeline.types import Decision

WEIGHTS_PATH = Path(__file__).with_name("extractor_weights.json")
FORMAT = "memroute-extractor-1"
TAGS = ("O", "B", "I")
NONE_KEY = "none"
GATE_CLASSES = ("user", "memory", "mood", "one_off", "vague", "inferable", "sensitive")
GATE_TEXT = FeatureConfig(word_ngrams=2, char_min=1, char_max=3)

# --- the models ------------------------------------------------------------------------------------------------------


class Linear:
    """A multinomial logistic regression over named binary features; weights stored as int8 times 1/scale, one
    array per class (summed with `map` over the turn's feature indexes: the fast path in pure Python)."""

    def __init__(self, classes: Sequence[str], bias: Sequence[float], names: Sequence[str], columns: Sequence[array[int]],
                 scale: float) -> None:
        self.classes = tuple(classes)
        self.k = len(self.classes)
        self.bias = [b * scale for b in bias]  # kept in the weights' integer units
        self.index = dict(zip(names, range(len(names)), strict=True))
        self.columns = list(columns)
        self.scale = scale

    def scores(self, feats: Sequence[str]) -> list[float]:
        get = self.index.get
        rows = [i for i in map(get, feats) if i is not None]
        scale = self.scale
        return [(b + sum(map(col.__getitem__, rows))) / scale for b, col in zip(self.bias, self.columns, strict=True)]

    def partial(self, feats: Sequence[str]) -> list[int]:
        """The features' summed weights per class (integer units, no bias): scores = (bias + partials) / scale."""
        get = self.index.get
        rows = [i for i in map(get, feats) if i is not None]
        return [sum(map(col.__getitem__, rows)) for col in self.columns]

    def probs_plus(self, feats: Sequence[str], extra: Sequence[int]) -> list[float]:
        """probs(feats + the features whose `partial` is `extra`)."""
        get = self.index.get
        rows = [i for i in map(get, feats) if i is not None]
        scale = self.scale
        s = [(b + e + sum(map(col.__getitem__, rows))) / scale for b, e, col in
             zip(self.bias, extra, self.columns, strict=True)]
        top = max(s)
        ex = [math.exp(x - top) for x in s]
        z = sum(ex)
        return [x / z for x in ex]

    def probs(self, feats: Sequence[str]) -> list[float]:
        s = self.scores(feats)
        top = max(s)
        e = [math.exp(x - top) for x in s]
        z = sum(e)
        return [x / z for x in e]

    def to_json(self) -> dict[str, Any]:
        names = sorted(self.index, key=self.index.__getitem__)
        packed = b"".join(col.tobytes() for col in self.columns)
        return {"classes": list(self.classes), "bias": [b / self.scale for b in self.bias], "scale": self.scale,
                "names": "\n".join(names), "layout": "by-class", "weights": base64.b64encode(packed).decode("ascii")}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Linear:
        raw = base64.b64decode(data["weights"])
        names = data["names"].split("\n") if data["names"] else []
        n = len(names)
        columns = []
        for c in range(len(data["classes"])):
            col = array("b")
            col.frombytes(raw[c * n:(c + 1) * n])
            columns.append(col)
        return cls(data["classes"], data["bias"], names, columns, float(data["scale"]))

    @classmethod
    def from_float(cls, classes: Sequence[str], bias: Sequence[float], weights: dict[str, Sequence[float]],
                   min_abs: float = 0.0) -> Linear:
        """Quantise float weights (int8, one scale for the whole model); rows under min_abs everywhere drop."""
        kept = {n: w for n, w in weights.items() if max(abs(x) for x in w) >= min_abs}
        top = max([abs(x) for w in kept.values() for x in w] + [1e-6])
        scale = 127.0 / top
        names = sorted(kept)
        columns = [array("b", [round(kept[n][c] * scale) for n in names]) for c in range(len(classes))]
        return cls(classes, bias, names, columns, scale)


@dataclass(frozen=True)
class Thresholds:
    """The operating point, chosen by cross-validation (training/train_extractor.py) and stored with the weights."""

    inside: float = 0.5  # P(B) + P(I) a token needs to be part of a value span
    user: float = 0.5  # P(the turn holds a profile fact), the stacker's, over which the turn writes USER.md ...
    span: float = 0.5  # ... every span this sure (its least sure token's P(B) + P(I)) ...
    key: float = 0.5  # ... whose key the key classifier gives this probability;
    junk: float = 0.5  # ... and that the key classifier does not rate junk (P(none)) over this;
    span_low: float = 0.2  # with no such span, its best span over these lower bars
    key_low: float = 0.2
    junk_low: float = 0.9
    veto: float = 0.5  # P(profile fact) under which even the rules' surest fact shapes (`strong_rule`) are dropped
    memory: float = 0.3  # P(memory) of the gate the rules' dated MEMORY.md entries need
    hybrid: float = 0.1  # P(write) of the gate under which --engine hybrid makes no model call
    candidate: float = 1.0  # P(profile fact) from which a turn under `user` keeps its surest guess as a candidate


class Stacker:
    """P(the turn holds a profile fact) from the three models' summaries (a logistic regression over a few numbers)."""

    def __init__(self, names: Sequence[str], weights: Sequence[float], bias: float) -> None:
        self.names = tuple(names)
        self.weights = tuple(weights)
        self.bias = bias

    def p(self, values: dict[str, float]) -> float:
        z = self.bias + sum(w * values.get(n, 0.0) for n, w in zip(self.names, self.weights, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_json(self) -> dict[str, Any]:
        return {"names": list(self.names), "weights": [round(w, 5) for w in self.weights], "bias": round(self.bias, 5)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Stacker:
        return cls(data["names"], data["weights"], float(data["bias"]))


TAG_FLOOR = 0.1  # under this gate P(user) the tagger does not run (the stacker reads zeros, as in training)


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def strong_rule(d: Decision) -> bool:
    """A USER.md write by one of the rules' explicit fact shapes ("I'm allergic to peanuts", "my time zone is CET",
    pro-drop "แพ้อาหารทะเลค่ะ")."""
    return d.route == "user" and d.op == "upsert" and d.confidence >= 0.7 and (d.rule or "").startswith("fact/")


# What the rules say of a statement that holds nothing: a greeting, thanks, an acknowledgement or a question.
NOTHING_RULES = ("skip/greeting", "skip/question")


def holds_nothing(decisions: Sequence[Decision]) -> bool:
    """Every statement of the turn is a greeting, thanks, an acknowledgement or a question (hybrid makes no call)."""
    return bool(decisions) and all(d.route == "skip" and d.rule in NOTHING_RULES for d in decisions)


def turn_signs(text: str, assistant: str, lex: Lexicon, decisions: Sequence[Decision],
               matches: Sequence[tuple[int, str, int, int]], protected: Any) -> dict[str, float]:
    """Yes/no signs of the whole turn the stacker reads besides the models' output (the same in the engine and the
    trainer, whatever the gate says): a question mark, the first person, nothing but greetings and questions, the
    other speaker asking about a key or asking at all, a key cue word, the rules' own MEMORY.md entry."""
    return {"q": float("?" in text or "？" in text), "fp": float(bool(lex.first_person.search(text))),
            "nothing": float(holds_nothing(decisions)),
            "asked": float(bool(assistant) and key_asked(assistant, lex.lang) is not None),
            "a_q": float(assistant.rstrip().endswith(("?", "？"))), "cue": float(bool(matches)),
            "rule_mem": float(any(d.route == "memory" and d.op in ("append", "remove") and not protected(d)
                                  for d in decisions))}


def stack_values(gate: Sequence[float], tag_probs: Sequence[Sequence[float]], rule_user: bool, protected_user: bool,
                 lang: str, n_tokens: int, strong: bool = False, alone: bool = False,
                 signs: dict[str, float] | None = None) -> dict[str, float]:
    v = {"pu": _logit(gate[0]), "pm": _logit(gate[1]), "pw": _logit(gate[0] + gate[1]),
         "rule": float(rule_user), "prot": float(protected_user), "lang_" + lang: 1.0, "n": min(n_tokens, 40) / 40,
         "strong": float(strong), "alone": float(alone)}
    for name, p in zip(GATE_CLASSES[2:], gate[2:], strict=True):  # why the gate would skip it
        v["g_" + name] = _logit(p)
    for edge in (3, 6, 12, 25):
        v[f"n<={edge}"] = float(n_tokens <= edge)
    if tag_probs:
        p_in = [1.0 - p[0] for p in tag_probs]
        v["maxin"] = max(p_in)
        v["sumin"] = min(sum(p_in), 5.0) / 5
        v["maxb"] = max(p[1] for p in tag_probs)
    v["pu_maxin"] = v["pu"] * v.get("maxin", 0.0)
    v.update(signs or {})
    return v


@dataclass(frozen=True)
class Span:
    first: int  # token indexes [first, last)
    last: int
    confidence: float


@dataclass(frozen=True)
class FieldGuess:
    key: str
    start: int  # char offsets in the user text
    end: int
    score: float  # min of span confidence and key probability
    p_key: float  # the key's probability among the keys (the "none" class left out)
    span_conf: float
    p_none: float = 0.0  # the key classifier's P(no fact at all: a span that is no value)


@dataclass
class Reading:
    """What the models say about one turn (kept for the engine, the trainer and `--explain`)."""

    gate: list[float]  # over GATE_CLASSES
    toks: list[Token]
    clauses: list[Clause]
    tag_probs: list[list[float]] = field(default_factory=list)
    guesses: list[FieldGuess] = field(default_factory=list)
    p_field: float = 0.0  # the stacker's P(the turn holds a profile fact)
    refine: bool = False  # under `user` but over `veto` with the rules' surest fact shapes: the guesses may only
    # give those statements cleaner values (plan_refinements)

    @property
    def p_user(self) -> float:
        return self.gate[0]

    @property
    def p_memory(self) -> float:
        return self.gate[1]

    @property
    def p_write(self) -> float:
        return self.gate[0] + self.gate[1]

    def skip_reason(self) -> str:
        i = max(range(2, len(GATE_CLASSES)), key=self.gate.__getitem__)
        return GATE_CLASSES[i]


def spans_of(probs: Sequence[Sequence[float]], inside: float, toks: Sequence[Token]) -> list[Span]:
    """Value spans: runs of tokens with P(B) + P(I) >= inside; a token the tagger rates B over I starts a new span.
    Punctuation at either end is cut; a span's confidence is its least sure token's P(B) + P(I)."""
    out: list[Span] = []
    start = -1
    low = 1.0
    n = len(probs)
    for i in range(n + 1):
        p_in = 1.0 - probs[i][0] if i < n else 0.0
        begins = i < n and p_in >= inside and probs[i][1] > probs[i][2]
        if start >= 0 and (p_in < inside or begins):
            a, b = start, i
            while a < b and toks[a].kind == "p":
                a += 1
            while b > a and toks[b - 1].kind == "p":
                b -= 1
            if b > a:
                out.append(Span(a, b, low))
            start = -1
        if i < n and p_in >= inside:
            if start < 0:
                start, low = i, p_in
            else:
                low = min(low, p_in)
    return out


class Extractor:
    def __init__(self, gate: Linear, tagger: Linear, keyer: Linear, stacker: Stacker, thresholds: Thresholds,
                 sections: dict[str, str], multi: Sequence[str], gate_config: FeatureConfig = GATE_TEXT,
                 gate_rules: bool = True) -> None:
        self.stacker = stacker
        self.gate = gate
        self.tagger = tagger
        self.keyer = keyer
        self.thresholds = thresholds
        # The keys' sections and which collect several values, as trained (the engine reads the vocabulary's,
        # pipeline/vocabulary.py; a test checks that the two agree).
        self.sections = sections
        self.multi = frozenset(multi)
        self.gate_config = gate_config
        self.gate_rules = gate_rules

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "thresholds": self.thresholds.__dict__, "sections": self.sections,
                "multi": sorted(self.multi), "gate_config": self.gate_config.__dict__, "gate_rules": self.gate_rules,
                "stacker": self.stacker.to_json(), "gate": self.gate.to_json(), "tagger": self.tagger.to_json(),
                "keyer": self.keyer.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Extractor:
        if data.get("format") != FORMAT:
            raise ValueError("not a memroute extractor weights file")
        return cls(Linear.from_json(data["gate"]), Linear.from_json(data["tagger"]), Linear.from_json(data["keyer"]),
                   Stacker.from_json(data["stacker"]), Thresholds(**data["thresholds"]), dict(data["sections"]), data["multi"],
                   _feature_config(data["gate_config"]), bool(data["gate_rules"]))


def _feature_config(stored: dict[str, Any]) -> FeatureConfig:
    """The n-gram settings a weights file was trained with (files written before features.py carry three more
    flags, always on, that the gate's features no longer read)."""
    return FeatureConfig(**{k: v for k, v in stored.items() if k in FeatureConfig.__dataclass_fields__})


@lru_cache(maxsize=1)
def default_extractor() -> Extractor | None:
    """The shipped extractor, or None when its weights file is absent (the engine then runs on its rules)."""
    if not WEIGHTS_PATH.is_file():
        return None
    return Extractor.from_json(json.loads(WEIGHTS_PATH.read_text(encoding="utf-8")))


def gate_features(user_text: str, assistant: str, lex: Lexicon, decisions: Sequence[Decision], cfg: FeatureConfig,
                  rules: bool, cue: str | None = None) -> list[str]:
    """The gate's view of a turn: its text features (features.py) plus the rules' decisions (by route and rule)."""
    out = ["bias", "lang=" + lex.lang]
    size = text_grams("", user_text, cfg, out)
    out.append("len=" + str(min(size, 40) // 4))
    if "?" in user_text or "？" in user_text:
        out.append("has?")
    shapes("", user_text, lex, SHAPES, out)
    if assistant:
        text_grams("a", assistant, cfg, out)
        if assistant.rstrip().endswith(("?", "？")):
            out.append("a:ends?")
        asked = key_asked(assistant, lex.lang)
        if asked:
            out.append("a:ka=" + asked)
    if rules:
        for d in decisions:
            out.append("r:" + d.route + ":" + (d.reason or d.op))
            out.append("r:d=" + rule_class(d))
            if d.key:
                out.append("r:key=" + key_read_as(d))
    if cue:  # the first key the turn's cue words name (key_cues.key_for, from `cue_matches`)
        out.append("kc=" + cue)
    return list(dict.fromkeys(out))


# --- clean values or nothing ------------------------------------------------------------------------------------------

# Words a value never starts with (the subject, a conjunction, a filler) or ends with (a dangling function word).
_LEAD_DROP = word_set("value_lead_drop")
_TAIL_DROP = word_set("value_tail_drop")
_PHRASE_OPENERS = word_set("phrase_openers")
NEGATIONS = word_set("negations")
_AUX = word_set("auxiliaries")
_SECOND = word_set("second_person_words")
_CONTENTLESS = _LEAD_DROP | _TAIL_DROP | word_set("contentless")


def clean_span(text: str, toks: Sequence[Token], a: int, b: int) -> tuple[int, int] | None:
    """Cut a span to a clean value, or None: no leading subject or conjunction, no dangling function word, a negation
    kept with what it negates ("I don't eat meat" is never `eat meat`), never a question, an exclamation, advice
    to the other person or a value made only of function words."""
    while a < b and (toks[a].kind == "p" or toks[a].norm in _LEAD_DROP):
        a += 1
    while b > a and (toks[b - 1].kind == "p" or toks[b - 1].norm in _TAIL_DROP):
        b -= 1
    if a >= b:
        return None
    # A span the tagger ended inside a phrase ("board games with my old | friends") loses the unfinished phrase.
    if b < len(toks) and toks[b].kind == "w" and toks[b].norm not in _TAIL_DROP and toks[b].norm not in _LEAD_DROP:
        opener = next((j for j in range(b - 1, max(a, b - 4), -1) if toks[j].norm in _PHRASE_OPENERS), None)
        if opener is not None:
            b = opener
            while b > a and (toks[b - 1].kind == "p" or toks[b - 1].norm in _TAIL_DROP):
                b -= 1
            if a >= b:
                return None
    # A negation just before the span belongs to it, with its auxiliary ("do not eat meat", "不喝咖啡").
    if a > 0 and toks[a - 1].norm in NEGATIONS:
        a -= 1
        if a > 0 and toks[a - 1].norm in _AUX and toks[a].norm in ("not", "never"):
            a -= 1
    words = toks[a:b]
    if any(t.norm in _SECOND for t in words):
        return None  # about the other speaker, or advice to them
    tail = text[toks[b - 1].end:toks[b].start + 1] if b < len(toks) else text[toks[b - 1].end:]
    if "?" in tail or "？" in tail:
        return None  # the value ends a question
    if all(t.norm in _CONTENTLESS or t.kind == "p" for t in words):
        return None
    if toks[b - 1].end - toks[a].start > 80:
        return None
    if junk_reason(text[toks[a].start:toks[b - 1].end]) is not None:
        return None  # what the write policy would never keep as a value (stages/clauses.py)
    return a, b


def value_text(text: str, toks: Sequence[Token], a: int, b: int) -> str:
    return text[toks[a].start:toks[b - 1].end]


# --- reading a turn ---------------------------------------------------------------------------------------------------


def tag(ex: Extractor, text: str, toks: Sequence[Token], clauses: Sequence[Clause],
        matches: Sequence[tuple[int, str, int, int]]) -> list[list[float]]:
    """The tagger's O/B/I probabilities per token (a statement's own features scored once for all its tokens)."""
    local, owner = token_local_features(toks, clauses, cue_marks(toks, matches))
    cap_features(text, toks, local)
    shared = [ex.tagger.partial(c.feats) for c in clauses]
    none = [0] * ex.tagger.k
    outside = [1.0, 0.0, 0.0]  # punctuation is never scored: a value never starts or ends with it
    return [outside if t.kind == "p" else ex.tagger.probs_plus(f, shared[c] if c >= 0 else none)
            for t, f, c in zip(toks, local, owner, strict=True)]


def read(ex: Extractor, text: str, assistant: str, decisions: Sequence[Decision], lexicons: dict[str, Lexicon],
         lang: str, guess: Any, protected: Any) -> Reading:
    """The models on one turn: the gate; unless it rules a profile fact out, the tagger; the stacker's P(the turn
    holds a profile fact); and on a turn over the bar, the key classifier on each value span. `protected(decision)`
    names the rules' decisions the extractor leaves alone."""
    lex = lexicons.get(lang) or lexicons[FALLBACK]
    toks = tokenize(text)
    matches = cue_matches(text, lang)
    gate = ex.gate.probs(gate_features(text, assistant, lex, decisions, ex.gate_config, ex.gate_rules,
                                       first_key(matches)))
    reading = Reading(gate=gate, toks=toks, clauses=[])
    rule_user = protected_user = strong = False
    for d in decisions:
        if d.route == "user" and d.op == "upsert":
            if protected(d):
                protected_user = True
            else:
                rule_user = True
                strong = strong or strong_rule(d)
    if all(protected(d) for d in decisions):
        return reading  # no statement the extractor may touch: nothing to tag, nothing to veto
    asked = key_asked(assistant, lang) if assistant else None
    if toks and gate[0] >= TAG_FLOOR:
        reading.clauses = clauses_of(text, toks, decisions, lexicons, lang, guess, asked, matches)
        reading.tag_probs = tag(ex, text, toks, reading.clauses, matches)
    reading.p_field = ex.stacker.p(stack_values(gate, reading.tag_probs, rule_user, protected_user, lang, len(toks),
                                                strong, not assistant,
                                                turn_signs(text, assistant, lex, decisions, matches, protected)))
    th = ex.thresholds
    reading.refine = strong and th.veto <= reading.p_field < th.user
    if (reading.p_field >= min(th.user, th.candidate) or reading.refine) and reading.tag_probs:
        a_words = assistant_words(assistant) if assistant else []
        floor = min(th.span, th.span_low)  # a span under both span bars is never planned: its key is not asked
        for inside in (th.inside, th.inside / 2):
            spans = [sp for sp in spans_of(reading.tag_probs, inside, toks) if sp.confidence >= floor]
            reading.guesses = guesses_for(ex, text, toks, reading.clauses, spans, asked, lang, a_words, matches)
            if reading.guesses:
                break
    return reading


def clause_at(clauses: Sequence[Clause], i: int) -> Clause | None:
    for c in clauses:
        if c.first <= i < c.last:
            return c
    return None


def guesses_for(ex: Extractor, text: str, toks: Sequence[Token], clauses: Sequence[Clause], spans: Sequence[Span],
                asked: str | None, lang: str, assistant: Sequence[str] = (),
                matches: Sequence[tuple[int, str, int, int]] = ()) -> list[FieldGuess]:
    out: list[FieldGuess] = []
    none_at = ex.keyer.classes.index(NONE_KEY) if NONE_KEY in ex.keyer.classes else -1
    for sp in spans:
        cut = clean_span(text, toks, sp.first, sp.last)
        if cut is None:
            continue
        a, b = cut
        clause = clause_at(clauses, a)
        probs = ex.keyer.probs(span_features(text, toks, clause, a, b, asked, lang, assistant, matches))
        best = max((i for i in range(len(probs)) if i != none_at), key=probs.__getitem__)
        p_none = probs[none_at] if none_at >= 0 else 0.0
        p_key = probs[best] / max(1.0 - p_none, 1e-9)
        out.append(FieldGuess(ex.keyer.classes[best], toks[a].start, toks[b - 1].end,
                              min(sp.confidence, p_key, 1.0 - p_none), p_key, sp.confidence, p_none))
    return out


def plan_refinements(reading: Reading, th: Thresholds, multi: frozenset[str], statements: Sequence[tuple[int, int]]
                     ) -> list[FieldGuess]:
    """On a turn the rules write by their surest fact shapes (kept over `veto`), the sure guesses inside those
    statements: they replace the rules' values there ("I'm Ana, a data engineer in Porto" gives Role "data engineer"
    and Location "Porto", not Role "data engineer in Porto"). They never add a statement the rules did not write."""
    if not reading.refine:
        return []
    return _one_per_key([g for g in _sure(reading, th) if any(a <= g.start < b for a, b in statements)], multi)


def _sure(reading: Reading, th: Thresholds) -> list[FieldGuess]:
    """The guesses whose span, key and "none" pass their bars."""
    return [g for g in reading.guesses if g.span_conf >= th.span and g.p_key >= th.key and g.p_none <= th.junk]


def _one_per_key(chosen: Sequence[FieldGuess], multi: frozenset[str]) -> list[FieldGuess]:
    out: list[FieldGuess] = []
    for g in sorted(chosen, key=lambda g: -g.score):
        if g.key not in multi and any(o.key == g.key for o in out):
            continue
        if any(o.start < g.end and g.start < o.end for o in out):
            continue
        out.append(g)
    return sorted(out, key=lambda g: g.start)


def plan_candidates(reading: Reading, th: Thresholds) -> list[FieldGuess]:
    """On a turn rated a profile fact under `user` but over `candidate`: its surest clean guess, kept as a candidate
    (stages/candidates.py: written only when the user says it again in another conversation, or confirms it)."""
    if not th.candidate <= reading.p_field < th.user:
        return []
    sure = _sure(reading, th)
    return [max(sure, key=lambda g: g.score)] if sure else []


def plan_fields(reading: Reading, th: Thresholds, multi: frozenset[str]) -> list[FieldGuess]:
    """The fields a turn writes: none unless the stacker rates a profile fact likely; then every sure guess, or the
    best guess over the lower bars. One value per single-valued key (the surest); no two values overlap."""
    if reading.p_field < th.user:
        return []
    chosen = _sure(reading, th)
    if not chosen:
        fallback = [g for g in reading.guesses
                    if g.span_conf >= th.span_low and g.p_key >= th.key_low and g.p_none <= th.junk_low]
        if fallback:
            chosen = [max(fallback, key=lambda g: g.score)]
    return _one_per_key(chosen, multi)

"""What the model must return: instructor response models, their validators, MEMORY.md line rendering.

The validators check answers against the request (the turn's date, the entries to account for, the
needed saving); a failed check is fed back to the model as a re-ask.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from pipeline.engines.llm.keys import KEY_NAMES, SECTION_OF, key_list, known_key
from pipeline.engines.llm.shortening import is_faithful_shortening
from pipeline.errors import ModelError
from pipeline.ledgers.entry_dates import check_stamp

_DATE = re.compile(r"^\d{4}(?:-\d{2}){0,2}$")  # a day, a month or a year (ledgers/entry_dates.py)
MEMORY_HEADER = "# MEMORY\n\n"

# What the validators check against (the turn's date, the entries to account for, ...). Not passed
# as instructor's `context=`: instructor renders every message as a Jinja template when it gets one,
# which would evaluate `{{ ... }}` typed by the user or stored in the files.
_VALIDATION_CONTEXT: ContextVar[dict[str, Any] | None] = ContextVar("memroute_validation_context", default=None)


def _validation_context() -> dict[str, Any]:
    return _VALIDATION_CONTEXT.get() or {}


@contextmanager
def _validating(context: dict[str, Any]) -> Iterator[None]:
    token = _VALIDATION_CONTEXT.set(context)
    try:
        yield
    finally:
        _VALIDATION_CONTEXT.reset(token)


def _compact_schema(schema: dict[str, Any]) -> None:
    """Drop field titles and `null` branches: the tool schema is sent with every call and costs tokens."""
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        branches = prop.get("anyOf")
        if isinstance(branches, list) and {"type": "null"} in branches:
            rest = [b for b in branches if b != {"type": "null"}]
            if len(rest) == 1:
                del prop["anyOf"]
                prop.update(rest[0])
            if prop.get("default", 0) is None:
                del prop["default"]


_SCHEMAS: dict[Any, str] = {}


class _Compact(BaseModel):
    model_config = ConfigDict(json_schema_extra=_compact_schema)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Cached: instructor asks for the schema on every call, and building it costs milliseconds."""
        # instructor wraps the model in a fresh subclass per call (functools.wraps sets __wrapped__).
        try:
            key = (cls.__dict__.get("__wrapped__", cls), args, tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:
            return super().model_json_schema(*args, **kwargs)
        if key not in _SCHEMAS:
            _SCHEMAS[key] = json.dumps(super().model_json_schema(*args, **kwargs))
        schema: dict[str, Any] = json.loads(_SCHEMAS[key])  # a fresh copy: callers may mutate it
        return schema


def _normalize_date(value: str | None, default: str | None) -> str | None:
    if value is None or not value.strip():
        return default
    value = value.strip()[:10]
    if not _DATE.match(value):
        raise ValueError(f"date {value!r} is not YYYY-MM-DD (or YYYY-MM, YYYY when only a month or year was said)")
    try:
        check_stamp(value)
    except ValueError as exc:
        raise ValueError(f"date {value!r} is not a real date") from exc
    return value


# Bounds of the classify answer: the schema states them (a grammar-constrained server cannot exceed
# them) and the validators hold fake or unconstrained answers to them. They also bound the answer's
# tokens (engine.answer_budget).
MAX_STATEMENTS = 8
QUOTE_CHARS = 300
VALUE_CHARS = 120  # a longer value is a story, not a field
ENTRY_CHARS = 240
TOPIC_CHARS = 40
MATCH_CHARS = 120
ROUTES = ("user", "memory", "skip", "forget")  # forget: a removal, read as op remove (never an optional flag)
SKIP_REASONS = ("mood", "one_off", "vague", "inferable", "sensitive")
# What the statement is, said before its route: a small model tells a question from a fact far
# better than it applies a write policy, and the schema lets each kind reach only its routes
# (a question can only be skipped). A skip's reason follows from its kind unless the model gives one.
KINDS = ("greeting", "thanks", "question", "request", "feeling", "opinion", "fact", "event", "plan")
KIND_ROUTES: dict[str, tuple[str, ...]] = {
    "fact": ("user", "skip"),
    "event": ("memory", "skip"),
    "plan": ("memory", "skip"),
    "request": ("forget", "skip"),
}
SkipReason = Literal["mood", "one_off", "vague", "inferable", "sensitive"]
KIND_REASON: dict[str, SkipReason] = {
    "greeting": "one_off", "thanks": "one_off", "question": "one_off", "request": "one_off",
    "feeling": "mood", "opinion": "vague", "fact": "vague", "event": "vague", "plan": "vague",
}


_UNSPACED = re.compile(r"[\u0e00-\u0eff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


_WORD = re.compile(r"\w+")


def _shares_words(value: str, said: str) -> bool:
    """Whether a value takes words from what the user said (KEYS.md: a span of the user's own
    sentence): a word of 3+ letters, or two characters in a row in scripts without spaces."""
    words = {w for w in _WORD.findall(said.casefold()) if len(w) >= 3 or _UNSPACED.search(w)}
    grams = {w[i : i + 2] for w in words if _UNSPACED.search(w) for i in range(len(w) - 1)}
    for w in _WORD.findall(value.casefold()):
        if _UNSPACED.search(w):
            if len(w) == 1 or any(w[i : i + 2] in grams for i in range(len(w) - 1)):
                return True
        elif len(w) >= 3 and any(w[:5] == s[:5] for s in words):  # a crude stem: drinks/drinking
            return True
    return not _WORD.search(value)


class _Untranslated(ModelError, ValueError):
    """A value in another script than the user's words (a translation): re-asked once, then kept."""


def _field_key(key: str | None, section: str | None) -> tuple[str, str]:
    """(section, key) of a USER.md field: a key of the vocabulary (its section follows from it; any
    spelling of it is read as the key) or a key the user's USER.md already has; else a re-ask naming
    the keys. The engine never adds a key the vocabulary does not list (pipeline/vocabulary.py)."""
    listed = known_key(key)
    if listed is not None:
        return SECTION_OF[listed], listed
    text = " ".join((key or "").split())
    if not text:
        raise ValueError(f"key is missing: use one of the keys ({key_list()})")
    existing = _validation_context().get("user_keys", {}).get(text.casefold())
    if existing is not None:
        return (str(existing[0]), str(existing[1]))
    raise ValueError(f"key {text[:60]!r} is not a key: use one of the keys ({key_list()})")


def _string(name: str, max_chars: int, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_chars, **extra}


def classify_schema() -> dict[str, Any]:
    """The JSON schema the model is held to: one object per route, each naming only its own fields,
    every closed field an enum, every string bounded. Compact (sent with every call in tools mode)."""
    quote = {"$ref": "#/$defs/quote"}

    def kinds(route: str) -> dict[str, Any]:
        return {"enum": [k for k in KINDS if route in KIND_ROUTES.get(k, ("skip",))]}

    user = {
        "type": "object",
        "properties": {
            "quote": quote,
            "kind": kinds("user"),
            "route": {"enum": ["user"]},
            "key": {"$ref": "#/$defs/key"},
            "value": _string("value", VALUE_CHARS, minLength=1),
        },
        "required": ["quote", "kind", "route", "key", "value"],
    }
    memory = {
        "type": "object",
        "properties": {
            "quote": quote,
            "kind": kinds("memory"),
            "route": {"enum": ["memory"]},
            "entry": _string("entry", ENTRY_CHARS, minLength=1),
            "date": _string("date", 10),
        },
        "required": ["quote", "kind", "route", "entry"],
    }
    skip = {
        "type": "object",
        "properties": {
            "quote": quote,
            "kind": {"$ref": "#/$defs/kind"},
            "route": {"enum": ["skip"]},
            "reason": {"enum": list(SKIP_REASONS)},
            "candidate": {"type": "boolean"},
            "key": {"$ref": "#/$defs/key"},
            "value": _string("value", VALUE_CHARS),
        },
        "required": ["quote", "kind", "route", "reason"],
    }
    # Removal is a route of its own: an optional `op` field let a small model append "remove" to an
    # ordinary fact (Qwen2.5-Coder-1.5B did), which would have deleted the field it meant to write.
    forget = {
        "type": "object",
        "properties": {
            "quote": quote,
            "kind": kinds("forget"),
            "route": {"enum": ["forget"]},
            "key": {"$ref": "#/$defs/key"},
            "entry": _string("entry", MATCH_CHARS),
        },
        "required": ["quote", "kind", "route"],
    }
    return {
        "title": "Statements",
        "description": "The turn's statements, in order.",
        "type": "object",
        "properties": {
            "statements": {
                "type": "array",
                "maxItems": MAX_STATEMENTS,
                "items": {"anyOf": [{"$ref": f"#/$defs/{route}"} for route in ROUTES]},
            }
        },
        "required": ["statements"],
        "$defs": {
            "quote": _string("quote", QUOTE_CHARS),
            "kind": {"enum": list(KINDS)},
            "key": {"enum": list(KEY_NAMES)},
            "user": user,
            "memory": memory,
            "skip": skip,
            "forget": forget,
        },
    }


_CLASSIFY_SCHEMA = json.dumps(classify_schema())


class Statement(_Compact):
    quote: str
    kind: str | None = None  # KINDS; None from answers that do not give it (fakes, older prompts)
    route: Literal["user", "memory", "skip", "forget"]
    reason: SkipReason | None = None
    section: str | None = None
    key: str | None = None
    value: str | None = None
    entry: str | None = None
    date: str | None = None
    topic: str | None = None
    op: Literal["upsert", "append", "remove", "none"] | None = None
    match: str | None = None
    confidence: float = 1.0
    candidate: bool = False  # a skip that looks durable but is stated too weakly: kept aside, not written

    @model_validator(mode="after")
    def _complete(self) -> Statement:
        try:
            return self._check()
        except _Untranslated as exc:
            if self._repeated(str(exc)):
                return self  # asked once to copy the words: the value stays as the model gave it
            raise ValueError(str(exc)) from None
        except ValueError as exc:
            if self._repeated(str(exc)):
                return self._skipped()
            raise

    @staticmethod
    def _repeated(problem: str) -> bool:
        """Whether the model repeated this problem after a re-ask that named it (and the allowed
        values): then there is no third identical re-ask. Records the problem otherwise."""
        context = _validation_context()
        seen: dict[str, int] | None = context.get("problems")  # problem -> the answer it was first seen in
        answer = int(context.get("answer", 0))
        return seen is not None and seen.setdefault(problem, answer) != answer

    def _skipped(self) -> Statement:
        self.route, self.reason, self.op, self.candidate = "skip", "vague", "none", False
        self.section = self.key = self.value = self.entry = self.date = self.topic = self.match = None
        return self

    def _check(self) -> Statement:
        today = _validation_context().get("today")
        kind = (self.kind or "").strip().casefold()
        self.kind = kind if kind in KINDS else None
        if self.kind is not None and self.route not in KIND_ROUTES.get(self.kind, ("skip",)):
            # what the schema enforces on a grammar-constrained server, applied to any answer:
            # a question, a greeting, a feeling or an opinion is never written
            self.route, self.reason = "skip", KIND_REASON[self.kind]
            self.op = self.key = self.value = self.entry = self.section = None
        if self.route == "skip" and self.reason is None and self.kind is not None:
            self.reason = KIND_REASON[self.kind]
        if self.route == "forget":  # a removal: of a USER.md field (key) or of MEMORY.md entries (entry words)
            self.route, self.op = ("user" if self.key else "memory"), "remove"
            self.match = self.match or (self.key or "").strip() or (self.entry or "").strip() or None
        self.confidence = min(1.0, max(0.0, self.confidence))
        self.quote = self.quote[:QUOTE_CHARS]
        self.topic = (self.topic or "").strip()[:TOPIC_CHARS] or None
        self.match = (self.match or "").strip()[:MATCH_CHARS] or None
        if self.route == "skip":
            if self.reason is None:
                raise ValueError(f"a skip needs a reason: {', '.join(SKIP_REASONS)}")
            self.op = "none"
            # A candidate needs a field to become; never for sensitive data. Anything less is a plain skip.
            if self.candidate:
                has_field = bool((self.key or "").strip() and (self.value or "").strip())
                try:
                    self.section, self.key = _field_key(self.key, self.section)
                except ValueError:
                    has_field = False
                self.candidate = has_field and self.reason != "sensitive" and len(self.value or "") <= VALUE_CHARS
            return self
        self.reason = None
        if self.op == "remove":
            if self.route == "user" and self.key and known_key(self.key):
                self.section, self.key = _field_key(self.key, self.section)
            self.match = self.match or (self.key or "").strip() or (self.entry or "").strip()[:MATCH_CHARS] or None
            if self.match is None:
                raise ValueError("op remove needs match: the key or a distinctive part of the entry to forget")
            return self
        if self.route == "user":
            self.op = "upsert"
            self.section, self.key = _field_key(self.key, self.section)
            value = (self.value or "").strip()
            if not value:
                raise ValueError("a user statement needs a value: the user's own shortest words")
            if len(value) > VALUE_CHARS:
                raise ValueError(f"value is {len(value)} characters, at most {VALUE_CHARS}: the user's shortest words")
            said = str(_validation_context().get("said") or "")
            if said and value.casefold() not in said.casefold():
                if _UNSPACED.search(said) and not _UNSPACED.search(value):
                    raise _Untranslated(f"value {value[:40]!r} is not in the user's words: copy them, untranslated")
                if not _shares_words(value, said):
                    raise ValueError(f"value {value[:40]!r} is not in the user's words in TURN: copy the fact's words")
        else:
            self.op = "append"
            entry = (self.entry or "").strip()
            if not entry:
                raise ValueError("a memory statement needs an entry")
            if len(entry) > ENTRY_CHARS:
                raise ValueError(f"entry is {len(entry)} characters, at most {ENTRY_CHARS}: one short sentence")
            self.date = _normalize_date(self.date, today)
        return self


class Statements(_Compact):
    """Every statement of the turn, in order, with its route."""

    statements: list[Statement]

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The hand-built schema (classify_schema): one object per route, enums, bounds."""
        schema: dict[str, Any] = json.loads(_CLASSIFY_SCHEMA)  # a fresh copy: callers may mutate it
        return schema

    @model_validator(mode="after")
    def _bounded(self) -> Statements:
        if len(self.statements) > MAX_STATEMENTS:
            raise ValueError(f"{len(self.statements)} statements, at most {MAX_STATEMENTS}: merge related ones")
        return self


class LogEntry(_Compact):
    date: str | None = None
    topic: str | None = None
    text: str
    sources: list[int]


def render_entry(entry_date: str | None, topic: str | None, text: str) -> str:
    """One MEMORY.md line, as the ledger renders it: `- [DATE] TOPIC: TEXT`."""
    return "- " + (f"[{entry_date}] " if entry_date else "") + (f"{topic}: " if topic else "") + text


def rendered_size(entries: list[tuple[str | None, str | None, str]]) -> int:
    return len(MEMORY_HEADER) + sum(len(render_entry(*e)) + 1 for e in entries)


class ConsolidatedLog(_Compact):
    """The rewritten MEMORY.md: entries naming their sources, and the numbers archived."""

    entries: list[LogEntry]
    archived: list[int] = []

    @model_validator(mode="after")
    def _check(self) -> ConsolidatedLog:
        ctx = _validation_context()
        indexes: set[int] = set(ctx.get("indexes", ()))
        target: int | None = ctx.get("target_chars")
        problems: list[str] = []
        for e in self.entries:
            e.text = " ".join(e.text.split())
            e.topic = (e.topic or "").strip() or None
            e.date = _normalize_date(e.date, None)
        if indexes and not self.entries:
            problems.append("entries is empty")
        if any(not e.text for e in self.entries):
            problems.append("every entry needs text")
        sourced = {i for e in self.entries for i in e.sources}
        unknown = (sourced | set(self.archived)) - indexes
        if indexes and unknown:
            problems.append(f"unknown entry numbers {sorted(unknown)}")
        missing = indexes - sourced - set(self.archived)
        if missing:
            problems.append(f"entries {sorted(missing)} appear in no sources and not in archived")
        self.archived = sorted(set(self.archived) - sourced)
        if target is not None:
            size = rendered_size([(e.date, e.topic, e.text) for e in self.entries])
            if size > target:
                problems.append(
                    f"the file would be {size} characters, over {target}: merge or archive more, shorten text"
                )
        if problems:
            raise ValueError("; ".join(problems))
        return self


class ProfileValue(_Compact):
    n: int
    value: str


class CompactProfile(_Compact):
    """USER.md's fields, by number, with shorter values."""

    values: list[ProfileValue]

    @model_validator(mode="after")
    def _check(self) -> CompactProfile:
        ctx = _validation_context()
        old: dict[int, str] = ctx.get("values", {})
        needed: int = ctx.get("needed", 0)
        new = {f.n: " ".join(f.value.split()) for f in self.values}
        problems: list[str] = []
        if missing := sorted(set(old) - set(new)):
            problems.append(f"fields {missing} are missing: return every field")
        if unknown := sorted(set(new) - set(old)):
            problems.append(f"unknown field numbers {unknown}")
        if any(not v for v in new.values()):
            problems.append("every value needs text")
        if cut := sorted(n for n, value in new.items() if n in old and not is_faithful_shortening(old[n], value)):
            problems.append(f"fields {cut} cut, change or add words: shorten only by dropping whole words")
        saved = sum(len(old[n]) - len(new.get(n, old[n])) for n in old)
        if saved < needed:
            problems.append(f"values shrank by {saved} characters, need {needed}: shorten more")
        if problems:
            raise ValueError("; ".join(problems))
        for f in self.values:
            f.value = new[f.n]
        return self

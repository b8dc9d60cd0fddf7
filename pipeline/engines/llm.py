"""The LLM engine: litellm for transport, instructor for structured output, tenacity for faults.

Two bounded loops, one per kind of fault:
- transport (429, timeouts, 5xx, connection errors): tenacity around each model request,
  exponential backoff with jitter, `max_retries` retries;
- validation (bad JSON, missing fields, a consolidation that breaks the rules): instructor
  feeds the error back to the model, `max_reasks` re-asks.
When both are spent the engine raises one error type, `LLMError`, carrying attempts and usage.

litellm (slow to import, and chatty on the network unless told otherwise) is imported lazily,
only when a real model is called. `openai/NAME` models (OpenAI, or any OpenAI-compatible server
at api_base) skip it: litellm only forwards them to the openai SDK, at several ms of CPU per call,
so the engine POSTs them itself (`openai_http`: pooled, no retries of its own) and prices them
from litellm's bundled cost map. Fake models (pipeline.testing) run the same path with an
OpenAI-shaped completion instead of the HTTP call. instructor clients, tenacity settings and HTTP
clients are built once per engine; the request in flight reaches the shared send functions
through `_CALL`. Under asyncio each HTTP request holds a `REQUEST_SLOTS` slot when the caller set
one (the batch runner does).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from pipeline import testing
from pipeline.engines import openai_http
from pipeline.engines.base import REQUEST_SLOTS, Engine, Result
from pipeline.errors import MemrouteError
from pipeline.llm_cache import ResponseCache, cache_key
from pipeline.prompt_inputs import compact_file, quoted, turn_time
from pipeline.prompts import Prompt, load_prompt
from pipeline.shortening import is_faithful_shortening
from pipeline.testing import CallInfo, FakeQueueEmpty, ScriptedModel
from pipeline.types import (
    USER_SECTIONS,
    Classification,
    ConsolidatedEntry,
    ConsolidationPlan,
    Decision,
    MemoryItem,
    Message,
    Turn,
    Usage,
)

log = logging.getLogger("memroute.engines.llm")

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_FIELD_LINE = re.compile(r"^- ([^:\n]+?): (.+)$")
MEMORY_HEADER = "# MEMORY\n\n"
# instructor's own parse failures (no tool call, wrong tool, ...), matched by name: it is imported lazily.
_PARSE_ERRORS = ("ResponseParsingError", "AsyncValidationError", "IncompleteOutputException")


class LLMError(MemrouteError):
    """A stage that still failed after its transport retries and validation re-asks."""

    def __init__(
        self,
        message: str,
        attempts: int = 0,
        usage: Usage | None = None,
        last_completion: str | None = None,
        *,
        kind: Literal["transport", "validation", "other"] = "other",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.attempts = attempts  # model requests sent, failed ones included
        self.usage = usage or Usage()
        # The model's last raw answer, for debugging only: it may quote the user, never persist it.
        self.last_completion = last_completion
        self.kind = kind


# --- response models (what the model must return) -------------------------------------------

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
        raise ValueError(f"date {value!r} is not YYYY-MM-DD")
    try:
        date.fromisoformat(value)
    except ValueError as exc:
        raise ValueError(f"date {value!r} is not a real date") from exc
    return value


def _section(value: str | None) -> str:
    for name in USER_SECTIONS:
        if value and value.strip().casefold() == name.casefold():
            return name
    raise ValueError(f"section must be one of {', '.join(USER_SECTIONS)}, not {value!r}")


class Statement(_Compact):
    quote: str
    route: Literal["user", "memory", "skip"]
    reason: Literal["mood", "one_off", "vague", "inferable", "sensitive"] | None = None
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
        today = _validation_context().get("today")
        self.confidence = min(1.0, max(0.0, self.confidence))
        if self.route == "skip":
            if self.reason is None:
                raise ValueError("a skip needs a reason: mood, one_off, vague, inferable or sensitive")
            self.op = "none"
            # A candidate needs a field to become; never for sensitive data. Anything less is a plain skip.
            if self.candidate:
                try:
                    self.section = _section(self.section)
                except ValueError:
                    self.candidate = False
                has_field = bool((self.key or "").strip() and (self.value or "").strip())
                self.candidate = self.candidate and has_field and self.reason != "sensitive"
            return self
        self.reason = None
        if self.op == "remove":
            self.match = (self.match or self.key or "").strip() or None
            if self.match is None:
                raise ValueError("op remove needs match: the key or a distinctive part of the entry to forget")
            return self
        if self.route == "user":
            self.op = "upsert"
            self.section = _section(self.section)
            if not (self.key or "").strip() or not (self.value or "").strip():
                raise ValueError("a user statement needs a key and a value")
        else:
            self.op = "append"
            if not (self.entry or "").strip():
                raise ValueError("a memory statement needs an entry")
            self.date = _normalize_date(self.date, today)
        return self


class Statements(_Compact):
    """Every statement of the turn, in order, with its route."""

    statements: list[Statement]


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


# --- lazy third-party imports ------------------------------------------------------------------


def _litellm() -> ModuleType:
    """Import litellm offline: bundled cost map and configs, no telemetry, no callbacks."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.success_callback = []
    litellm.failure_callback = []
    return litellm


_OWN_MODELS: set[type] = set()


def _skip_async_validator_scan() -> None:
    """instructor scans the response model for async validators up to 7 times per call (~half of
    its overhead); ours have none, so the scan is skipped for them and kept for anything else."""
    try:
        from instructor.v2.validation import async_validators
    except ImportError:
        return
    original = getattr(async_validators, "reject_async_validators", None)
    if original is None or getattr(original, "_memroute", False):
        return

    def reject_async_validators(response_model: Any) -> None:
        if (
            isinstance(response_model, type)
            and response_model.__dict__.get("__wrapped__", response_model) in _OWN_MODELS
        ):
            return
        original(response_model)

    reject_async_validators._memroute = True  # type: ignore[attr-defined]
    async_validators.reject_async_validators = reject_async_validators


def _instructor() -> ModuleType:
    import instructor

    if not _OWN_MODELS:
        _OWN_MODELS.update((Statements, ConsolidatedLog, CompactProfile))
        _skip_async_validator_scan()

    # instructor logs each failed attempt at ERROR, with the model's text; we report through LLMError.
    quiet = logging.getLogger("instructor")
    if quiet.level == logging.NOTSET:
        quiet.setLevel(logging.CRITICAL)
    return instructor


_PREPARED: dict[type[BaseModel], type[BaseModel]] = {}


def _prepared(model: type[BaseModel]) -> type[BaseModel]:
    """The response model as instructor wraps it (a ResponseSchema subclass), built once: given a
    plain model, instructor builds a new pydantic class per call, which also defeats its own
    tool-schema cache (milliseconds per call)."""
    wrapped = _PREPARED.get(model)
    if wrapped is None:
        try:
            from instructor.v2.core.function_calls import response_schema
        except ImportError:  # another instructor layout: let it wrap per call
            return model
        wrapped = _PREPARED[model] = response_schema(model)
    return wrapped


def is_transient(exc: BaseException) -> bool:
    """Faults worth a retry: rate limits, timeouts, 5xx, broken connections."""
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    import openai  # litellm's exceptions subclass openai's; instructor already imports openai

    if isinstance(exc, (openai.RateLimitError, openai.APIConnectionError, openai.InternalServerError)):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 429) or status >= 500)


# --- the engine --------------------------------------------------------------------------------


# OpenAI reasoning models reject temperature 0; litellm drops it for them (drop_params), with rules
# that change per model. They stay on litellm; every other `openai/` model takes the direct path.
_OPENAI_REASONING = re.compile(r"^(o\d|gpt-5)")


@dataclass(frozen=True)
class _Target:
    model: str
    fake: ScriptedModel | None
    # The name POSTed directly (`openai/NAME`, see openai_http); None: through litellm.
    openai_model: str | None = None

    @property
    def transport(self) -> Literal["fake", "openai", "litellm"]:
        return "fake" if self.fake is not None else "openai" if self.openai_model is not None else "litellm"


def _target(spec: str | ScriptedModel) -> _Target:
    if isinstance(spec, ScriptedModel):
        return _Target(spec.name, spec)
    return _Target(spec, None, _openai_model(spec))


def _openai_model(model: str) -> str | None:
    """`openai/NAME` is litellm's plain OpenAI chat provider (api.openai.com, or any OpenAI-compatible
    server at api_base): litellm only forwards it to the openai SDK, at several ms of CPU per call.
    Such models are POSTed directly (openai_http); everything else goes through litellm."""
    name = model[len("openai/") :] if model.startswith("openai/") else ""
    if not name or _OPENAI_REASONING.match(name):
        return None
    return name


@dataclass
class _Request:
    stage: str
    target: _Target
    prompt: Prompt
    messages: list[dict[str, str]]
    response_model: type[BaseModel]
    context: dict[str, Any]


@dataclass
class _Meter:
    """Usage across every request of one stage call, failed ones included."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    latency_s: float = 0.0  # time spent waiting for the model, backoff sleeps excluded

    @contextmanager
    def request(self) -> Iterator[None]:
        """One model request: counted, and timed whether it answers or fails."""
        self.calls += 1
        started = time.perf_counter()
        try:
            yield
        finally:
            self.latency_s += time.perf_counter() - started

    def usage(self) -> Usage:
        return Usage(
            calls=self.calls,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=self.cost_usd,
            latency_s=round(self.latency_s, 6),
        )


@dataclass
class _Call:
    """The stage call in flight, read by the send functions the (shared) instructor client calls."""

    req: _Request
    meter: _Meter


_CALL: ContextVar[_Call | None] = ContextVar("memroute_llm_call", default=None)


def _current_call() -> _Call:
    call = _CALL.get()
    if call is None:
        raise RuntimeError("a model request outside LLMEngine._run/_arun")
    return call


class LLMEngine(Engine):
    """An Engine backed by any litellm model (or a pipeline.testing fake)."""

    name = "llm"

    def __init__(
        self,
        model: str | ScriptedModel,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        classify_model: str | ScriptedModel | None = None,
        consolidate_model: str | ScriptedModel | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_reasks: int = 2,
        cache_dir: Path | str | None = None,
        backoff: float = 0.5,
        backoff_max: float = 8.0,
        history_messages: int = 4,
        history_chars: int = 400,
    ) -> None:
        self._default = _target(model)
        self.model: str | None = self._default.model
        self._classify = _target(classify_model) if classify_model is not None else self._default
        self._consolidate = _target(consolidate_model) if consolidate_model is not None else self._default
        self.api_base = api_base
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.max_reasks = max(0, max_reasks)
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.history_messages = history_messages
        self.history_chars = history_chars
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        # Built on first use, then reused: instructor clients (sync/async), tenacity settings, and
        # the HTTP clients of `openai/...` models (their connection pools).
        self._instructors: dict[bool, Any] = {}
        self._retry_kwargs: dict[str, Any] | None = None
        self._http = openai_http.Clients(api_key=api_key, api_base=api_base, timeout=timeout)

    # -- classify --

    def classify_messages(self, turn: Turn, user_md: str, memory_md: str) -> list[dict[str, str]]:
        """The exact chat messages the classify call sends (the tool schema comes on top)."""
        blocks = {
            "user_md": compact_file(user_md) or "(empty)",
            "memory_md": compact_file(memory_md) or "(empty)",
            "history": self._history(turn.history),
            "turn": _transcript(turn.messages) or "(empty)",
        }
        return load_prompt("classify").render(now=turn_time(turn.timestamp), **quoted(blocks))

    def _classify_request(self, turn: Turn, user_md: str, memory_md: str) -> _Request:
        return _Request(
            "classify",
            self._classify,
            load_prompt("classify"),
            self.classify_messages(turn, user_md, memory_md),
            Statements,
            {"today": turn.today.isoformat()},
        )

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        if not turn.user_text.strip():
            return self._classification(load_prompt("classify"), self._classify, [], Usage())
        req = self._classify_request(turn, user_md, memory_md)
        result, usage = self._run(req)
        return self._classification(req.prompt, req.target, _decisions(result), usage)

    async def aclassify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        if not turn.user_text.strip():
            return self._classification(load_prompt("classify"), self._classify, [], Usage())
        req = self._classify_request(turn, user_md, memory_md)
        result, usage = await self._arun(req)
        return self._classification(req.prompt, req.target, _decisions(result), usage)

    def _classification(
        self, prompt: Prompt, target: _Target, decisions: list[Decision], usage: Usage
    ) -> Classification:
        return Classification(
            decisions=decisions, usage=usage, engine=self.name, model=target.model, prompt_version=prompt.version
        )

    def _history(self, history: list[Message]) -> str:
        """The last few messages, newest kept first when the character budget runs out."""
        lines: list[str] = []
        budget = self.history_chars
        for m in reversed(history[-self.history_messages :] if self.history_messages else []):
            line = f"{m.role}: {' '.join(m.content.split())}"
            if len(line) > budget:
                if budget > 40:
                    lines.append(line[: budget - 1] + "…")
                break
            lines.append(line)
            budget -= len(line) + 1
        return "\n".join(reversed(lines)) or "(none)"

    # -- consolidate --

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        prompt = load_prompt("consolidate")
        if not items:
            return ConsolidationPlan(
                entries=[], engine=self.name, model=self._consolidate.model, prompt_version=prompt.version
            )
        listing = "\n".join(
            f"[{it.index}] " + render_entry(it.date, it.topic, " ".join(it.text.split()))[2:] for it in items
        )
        current = rendered_size([(it.date, it.topic, it.text) for it in items])
        req = _Request(
            "consolidate",
            self._consolidate,
            prompt,
            prompt.render(
                today=today.isoformat(), target_chars=str(target_chars), current_chars=str(current), entries=listing
            ),
            ConsolidatedLog,
            {"indexes": [it.index for it in items], "target_chars": target_chars},
        )
        result, usage = self._run(req)
        assert isinstance(result, ConsolidatedLog)
        return ConsolidationPlan(
            entries=[
                ConsolidatedEntry(date=e.date, topic=e.topic, text=e.text, sources=sorted(set(e.sources)))
                for e in result.entries
            ],
            archived=result.archived,
            usage=usage,
            engine=self.name,
            model=self._consolidate.model,
            prompt_version=prompt.version,
        )

    # -- compact USER.md --

    def compact(
        self, user_md: str, needed_chars: int, *, protected: frozenset[str] = frozenset(), goal_chars: int | None = None
    ) -> Result[str | None]:
        """USER.md rewritten at least `needed_chars` shorter, every field kept; None if the model cannot
        (with the usage of its attempts). The model shortens values only, so `protected` keys stay.

        Only `- Key: value` lines change; headings and lines the parser does not know stay verbatim.
        Transport failures raise LLMError (the turn fails and can be retried).
        """
        lines = user_md.split("\n")
        found = [(i, m.group(1), m.group(2)) for i, line in enumerate(lines) if (m := _FIELD_LINE.match(line))]
        if not found or needed_chars <= 0:
            return Result(user_md if needed_chars <= 0 else None)
        prompt = load_prompt("compact_user")
        values = {n: value for n, (_, _, value) in enumerate(found, 1)}
        listing = "\n".join(f"[{n}] {key}: {value}" for n, (_, key, value) in enumerate(found, 1))
        req = _Request(
            "compact_user",
            self._consolidate,
            prompt,
            prompt.render(needed_chars=str(needed_chars), current_chars=str(len(user_md)), fields=listing),
            CompactProfile,
            {"values": values, "needed": needed_chars},
        )
        try:
            result, usage = self._run(req)
        except LLMError as exc:
            if exc.kind == "validation":
                log.info("compact_user: the model could not shorten USER.md enough (%d calls)", exc.attempts)
                return Result(None, exc.usage)
            raise
        assert isinstance(result, CompactProfile)
        new = {f.n: f.value for f in result.values}
        for n, (line_no, key, _) in enumerate(found, 1):
            lines[line_no] = f"- {key}: {new[n]}"
        text = "\n".join(lines)
        return Result(text if len(text) <= len(user_md) - needed_chars else None, usage)

    # -- the one call path --

    def _cached(self, req: _Request) -> tuple[BaseModel, Usage] | None:
        if self.cache is None:
            return None
        hit = self.cache.get(self._cache_key(req))
        if hit is None:
            return None
        try:
            with _validating(req.context):
                return req.response_model.model_validate(hit["response"]), Usage(cost_usd=0.0)
        except ValidationError:
            return None

    def _cache_key(self, req: _Request) -> str:
        return cache_key(
            stage=req.stage,
            model=req.target.model,
            prompt_version=req.prompt.version,
            response_model=req.response_model.__name__,
            messages=req.messages,
        )

    def _store(self, req: _Request, result: BaseModel, usage: Usage) -> None:
        # Sensitive text must not reach the disk, not even in the cache: such answers are not cached.
        if self.cache is None:
            return
        if isinstance(result, Statements) and any(s.reason == "sensitive" for s in result.statements):
            return
        data = result.model_dump(mode="json")
        if _looks_sensitive(json.dumps(data, ensure_ascii=False)):
            return
        self.cache.put(self._cache_key(req), data, usage.model_dump())

    def _run(self, req: _Request) -> tuple[BaseModel, Usage]:
        cached = self._cached(req)
        if cached is not None:
            return cached
        with self._calling(req) as meter:
            result = self._instructor_client(async_client=False).create(**_create_args(req, self.max_reasks))
        return self._finished(req, result, meter)

    async def _arun(self, req: _Request) -> tuple[BaseModel, Usage]:
        cached = self._cached(req)
        if cached is not None:
            return cached
        with self._calling(req) as meter:
            result = await self._instructor_client(async_client=True).create(**_create_args(req, self.max_reasks))
        return self._finished(req, result, meter)

    @contextmanager
    def _calling(self, req: _Request) -> Iterator[_Meter]:
        """The scope of one stage call (sync or async): its meter, the request in flight for the
        send functions, and any failure turned into LLMError."""
        if req.target.fake is None:
            testing.check_model_request(req.target.model, self.api_base)
        meter = _Meter()
        token = _CALL.set(_Call(req, meter))
        try:
            with _validating(req.context):
                yield meter
        except Exception as exc:
            raise self._failure(req, exc, meter) from exc
        finally:
            _CALL.reset(token)

    def _finished(self, req: _Request, result: BaseModel, meter: _Meter) -> tuple[BaseModel, Usage]:
        usage = meter.usage()
        self._store(req, result, usage)
        return result, usage

    # -- clients, built once per engine (per process) and reused --

    def _instructor_client(self, *, async_client: bool) -> Any:
        """instructor over our send functions, which read the request in flight from `_CALL`.

        Built once: `from_litellm(fn)` is instructor's OpenAI provider in TOOLS mode over any
        callable (exactly what `from_openai(client)` builds over `client.chat.completions.create`);
        a callable of ours keeps tenacity and usage metering around every HTTP request.
        """
        client = self._instructors.get(async_client)
        if client is None:
            send = self._async_send if async_client else self._sync_send
            client = _instructor().from_litellm(send, async_client=async_client)
            self._instructors[async_client] = client
        return client

    def preload(self) -> None:
        """Import now what the first model request would (instructor, the openai SDK's types, the
        HTTP client): ~1.5 s of CPU that a batch worker spends before it takes users, and can then
        exempt from garbage collection."""
        _instructor()
        for model in (Statements, ConsolidatedLog, CompactProfile):
            _prepared(model)
        self._instructor_client(async_client=True)
        if any(t.transport == "openai" for t in (self._default, self._classify, self._consolidate)):
            openai_http.preload()

    async def aclose(self) -> None:
        """Close the running loop's pooled connections. Under asyncio.run they close by themselves
        when the loop shuts down; a loop you close yourself needs this first."""
        await self._http.aclose()

    def close(self) -> None:
        """Close the sync client's pooled connections (optional: they close with the process)."""
        self._http.close()

    def _retrying(self) -> dict[str, Any]:
        """tenacity's settings, built once; the request in flight comes from `_CALL`."""
        if self._retry_kwargs is not None:
            return self._retry_kwargs
        from tenacity import retry_if_exception, stop_after_attempt, wait_exponential_jitter

        def before_sleep(state: Any) -> None:
            exc = state.outcome.exception() if state.outcome else None
            call = _CALL.get()
            log.warning(
                "%s: %s from %s, retry %d/%d",
                call.req.stage if call else "?",
                type(exc).__name__,
                call.req.target.model if call else "?",
                state.attempt_number,
                self.max_retries,
            )

        backoff = wait_exponential_jitter(multiplier=self.backoff, max=self.backoff_max, jitter=self.backoff)

        def wait(state: Any) -> float:
            # A server's Retry-After (429/503) is honoured, within backoff_max.
            delay = float(backoff(state))
            hinted = _retry_after(state.outcome.exception() if state.outcome else None)
            return max(delay, min(hinted, self.backoff_max)) if hinted is not None else delay

        self._retry_kwargs = {
            "stop": stop_after_attempt(self.max_retries + 1),
            "wait": wait,
            "retry": retry_if_exception(is_transient),
            "reraise": True,
            "before_sleep": before_sleep,
        }
        return self._retry_kwargs

    # -- one model request (instructor calls these; tenacity retries inside) --

    def _litellm_kwargs(self, target: _Target, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {
            **kwargs,
            "model": target.model,
            "api_base": self.api_base,
            "api_key": self.api_key,
            "timeout": self.timeout,
            "temperature": 0,
            "max_retries": 0,  # the openai client's own retries; ours are the only loop
            "drop_params": True,
        }

    def _sync_send(self, **kwargs: Any) -> Any:
        from tenacity import Retrying

        call = _current_call()
        req, meter, target = call.req, call.meter, call.req.target
        response: Any = None
        for attempt in Retrying(**self._retrying()):
            with attempt:
                with meter.request():
                    response = self._sync_request(req, target, kwargs)
                self._account(target, meter, response)
        return response

    async def _async_send(self, **kwargs: Any) -> Any:
        from tenacity import AsyncRetrying

        call = _current_call()
        req, meter, target = call.req, call.meter, call.req.target
        response: Any = None
        async for attempt in AsyncRetrying(**self._retrying()):
            with attempt:
                with meter.request():
                    async with REQUEST_SLOTS.get() or contextlib.nullcontext():
                        response = await self._async_request(req, target, kwargs)
                self._account(target, meter, response)
        return response

    def _sync_request(self, req: _Request, target: _Target, kwargs: dict[str, Any]) -> Any:
        if target.fake is not None:
            return target.fake.complete(kwargs["messages"], _call_info(req, kwargs))
        if target.openai_model is not None:
            return self._http.sync().post(kwargs, target.openai_model)
        return _litellm().completion(**self._litellm_kwargs(target, kwargs))

    async def _async_request(self, req: _Request, target: _Target, kwargs: dict[str, Any]) -> Any:
        if target.fake is not None:
            return target.fake.complete(kwargs["messages"], _call_info(req, kwargs))
        if target.openai_model is not None:
            return await self._http.current().post(kwargs, target.openai_model)
        return await _litellm().acompletion(**self._litellm_kwargs(target, kwargs))

    def _account(self, target: _Target, meter: _Meter, response: Any) -> None:
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        meter.input_tokens += prompt_tokens
        meter.output_tokens += completion_tokens
        if target.fake is not None:
            cost = target.fake.cost(prompt_tokens, completion_tokens)
        elif target.openai_model is not None:
            cost = _openai_price(target.openai_model, prompt_tokens, completion_tokens)
        else:
            cost = _price(target.model, prompt_tokens, completion_tokens)
        meter.cost_usd = None if cost is None or meter.cost_usd is None else meter.cost_usd + cost

    def _failure(self, req: _Request, exc: Exception, meter: _Meter) -> BaseException:
        cause: BaseException = exc
        while cause.__cause__ is not None and type(cause).__module__.startswith("instructor"):
            cause = cause.__cause__
        if isinstance(cause, (FakeQueueEmpty, testing.ModelRequestsDisabled)):
            return cause  # a test-setup mistake, not a model failure: show it as is
        if isinstance(cause, (ValidationError, json.JSONDecodeError)) or type(cause).__name__ in _PARSE_ERRORS:
            kind: Literal["transport", "validation", "other"] = "validation"
        elif is_transient(cause):
            kind = "transport"
        else:
            kind = "other"
        message = f"{req.stage} with {req.target.model} failed after {meter.calls} model call(s): {_describe(cause)}"
        log.info("%s", message)  # the caller records the failure; no user text in the message
        return LLMError(
            message, meter.calls, meter.usage(), _completion_text(getattr(exc, "last_completion", None)), kind=kind
        )


# --- helpers ---------------------------------------------------------------------------------


def _create_args(req: _Request, max_reasks: int) -> dict[str, Any]:
    """instructor's create() arguments for a request; re-asks are instructor's loop."""
    return {
        "messages": req.messages,
        "response_model": _prepared(req.response_model),
        "max_retries": max_reasks,
        "strict": False,
    }


def _retry_after(exc: BaseException | None) -> float | None:
    response = getattr(exc, "response", None)
    headers = (
        getattr(exc, "headers", None)  # openai_http.ModelHTTPError
        or getattr(response, "headers", None)
        or getattr(exc, "litellm_response_headers", None)
    )
    if not headers:
        return None
    try:
        value = headers.get("retry-after")
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError, AttributeError):
        return None


def _looks_sensitive(text: str) -> bool:
    from pipeline import guards  # the same detector the write path uses

    return bool(guards.find_sensitive(text))


def _call_info(req: _Request, kwargs: dict[str, Any]) -> CallInfo:
    tools = kwargs.get("tools") or []
    tool_name = tools[0]["function"]["name"] if tools else None
    return CallInfo(stage=req.stage, model=req.target.model, response_model=req.response_model, tool_name=tool_name)


def _price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Cost from litellm's local cost map; None (unknown), never 0, for models it does not price."""
    try:
        prompt_cost, completion_cost = _litellm().cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:
        return None
    return float(prompt_cost) + float(completion_cost)


_COST_MAP: dict[str, Any] | None = None


def _local_cost_map() -> dict[str, Any]:
    """litellm's bundled cost map (what LITELLM_LOCAL_MODEL_COST_MAP=True makes litellm use), read
    from its package without importing litellm (seconds of CPU per process); read once."""
    global _COST_MAP
    if _COST_MAP is None:
        import importlib.util

        spec = importlib.util.find_spec("litellm")
        path = (
            Path(spec.origin).parent / "model_prices_and_context_window_backup.json" if spec and spec.origin else None
        )
        try:
            _COST_MAP = json.loads(path.read_text(encoding="utf-8")) if path else {}
        except (OSError, ValueError):
            _COST_MAP = {}
    return _COST_MAP


def _openai_price(name: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The price litellm gives `openai/NAME`, from its local map: plain per-token prices. Entries it
    prices by other rules (tiers above N tokens, fine-tunes, no token prices) and a map the user
    asked litellm to fetch are left to litellm itself; a model the map lacks costs None."""
    rates = _openai_rates(name, os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP", "true").strip().lower() == "true")
    if rates == "litellm":
        return _price("openai/" + name, prompt_tokens, completion_tokens)
    if rates is None:
        return None
    return prompt_tokens * rates[0] + completion_tokens * rates[1]


@functools.lru_cache(maxsize=64)
def _openai_rates(name: str, local_map: bool) -> tuple[float, float] | Literal["litellm"] | None:
    """(input, output) cost per token, "litellm" to ask litellm, None when unpriced; once per model."""
    if not local_map or name.startswith("ft:"):
        return "litellm"
    cost_map = _local_cost_map()
    entry = cost_map.get(name) or cost_map.get("openai/" + name)
    if not isinstance(entry, dict) or entry.get("litellm_provider") != "openai":
        return "litellm" if not cost_map else None
    input_cost, output_cost = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if not isinstance(input_cost, (int, float)) or not isinstance(output_cost, (int, float)):
        return "litellm"
    if any("_above_" in key for key in entry):
        return "litellm"
    return float(input_cost), float(output_cost)


def _describe(exc: BaseException) -> str:
    """A short reason without user text (pydantic errors are listed without their input values)."""
    if isinstance(exc, ValidationError):
        parts = [
            f"{'.'.join(str(p) for p in e['loc']) or 'response'}: {e['msg']}" for e in exc.errors(include_input=False)
        ]
        return "invalid response: " + "; ".join(parts)[:400]
    if isinstance(exc, json.JSONDecodeError):
        return "invalid JSON in the response"
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}"


def _completion_text(completion: Any) -> str | None:
    try:
        message = completion.choices[0].message
    except (AttributeError, IndexError, TypeError):
        return None
    tool_calls = getattr(message, "tool_calls", None)
    if tool_calls:
        return str(tool_calls[0].function.arguments)
    content = getattr(message, "content", None)
    return None if content is None else str(content)


def _transcript(messages: list[Message]) -> str:
    return "\n".join(f"{m.role}: {m.content.strip()}" for m in messages if m.content.strip())


def _decisions(result: BaseModel) -> list[Decision]:
    assert isinstance(result, Statements)
    out: list[Decision] = []
    for s in result.statements:
        has_field = s.route == "user" or s.candidate
        out.append(
            Decision(
                quote=s.quote,
                route=s.route,
                op=s.op or "none",
                reason=s.reason,
                candidate=s.candidate,
                section=s.section if has_field else None,
                key=s.key.strip() if has_field and s.key else None,
                value=s.value.strip() if has_field and s.value else None,
                entry=" ".join(s.entry.split()) if s.route == "memory" and s.entry else None,
                date=s.date if s.route == "memory" else None,
                topic=(s.topic or "").strip() or None if s.route == "memory" else None,
                match=s.match,
                confidence=s.confidence,
            )
        )
    return out

"""LLMEngine: classify, consolidate and compact USER.md with a model; instructor for structured
output, tenacity for faults, a Transport for the wire.

Two bounded loops, one per kind of fault:
- transport (429, timeouts, 5xx, connection errors): tenacity around each model request,
  exponential backoff with jitter, `max_retries` retries;
- validation (bad JSON, missing fields, a consolidation that breaks the rules): instructor
  feeds the error back to the model, `max_reasks` re-asks.
When both are spent the engine raises one error type, `LLMError`, carrying attempts and usage.

instructor clients and tenacity settings are built once per engine; the request in flight
reaches the shared send functions through `_CALL`. Under asyncio each HTTP request holds a
`REQUEST_SLOTS` slot when the caller set one (the batch runner does).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from pipeline import observe
from pipeline.engines.base import (
    DEFAULT_DEADLINE_S,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT_S,
    REQUEST_SLOTS,
    Engine,
    Result,
)
from pipeline.engines.llm.cache import ResponseCache, cache_key
from pipeline.engines.llm.calls import (
    _CALL,
    _PARSE_ERRORS,
    _cached_tokens,
    _Call,
    _call_info,
    _completion_text,
    _create_args,
    _current_call,
    _decisions,
    _describe,
    _looks_sensitive,
    _Meter,
    _mode_errors,
    _own_server,
    _provider,
    _Request,
    _retry_after,
    _server_of,
    _time_left,
    _user_keys,
)
from pipeline.engines.llm.messages import ClassifyMessages
from pipeline.engines.llm.patches import _instructor, _prepared
from pipeline.engines.llm.prompts import Prompt, load_prompt
from pipeline.engines.llm.schemas import (
    CompactProfile,
    ConsolidatedLog,
    Statements,
    _validating,
    render_entry,
    rendered_size,
)
from pipeline.engines.llm.structured import (
    CHOSEN,
    check_structured,
    classify_budget,
    default_mode,
    instructor_mode,
    on_the_wire,
    rewrite_budget,
    unfenced,
)
from pipeline.engines.llm.transports import Transport, is_transient, transport_for
from pipeline.errors import DeadlinePassed, LLMError, TransportSetupError, WrongMode
from pipeline.types import (
    Classification,
    ConsolidatedEntry,
    ConsolidationPlan,
    Decision,
    MemoryItem,
    Turn,
    Usage,
)

log = logging.getLogger("memroute.engines.llm")

_FIELD_LINE = re.compile(r"^- ([^:\n]+?): (.+)$")


class LLMEngine(ClassifyMessages, Engine):
    """An Engine backed by any model a transport reaches: a model name (`openai/NAME` is POSTed
    directly, every other name goes through litellm) or a Transport object (tests plug in fakes)."""

    name = "llm"
    free_compaction = False  # compact() asks the model

    def __init__(
        self,
        model: str | Transport,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        classify_model: str | Transport | None = None,
        consolidate_model: str | Transport | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        deadline: float | None = DEFAULT_DEADLINE_S,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_reasks: int = 2,
        cache_dir: Path | str | None = None,
        backoff: float = 0.5,
        backoff_max: float = 8.0,
        history_messages: int = 4,
        history_chars: int = 400,
        structured: str = "auto",
    ) -> None:
        def route(spec: str | Transport) -> Transport:
            return transport_for(spec, api_base=api_base, api_key=api_key, timeout=timeout)

        self._default = route(model)
        self.model: str | None = self._default.name
        self._classify = route(classify_model) if classify_model is not None else self._default
        self._consolidate = route(consolidate_model) if consolidate_model is not None else self._default
        self.api_base = api_base
        self.api_key = api_key
        self.timeout = timeout
        # Seconds a turn may spend on model calls in all (retries, re-asks, backoff, consolidation
        # included), counted from the turn's start (engines.base.TURN_STARTED) or the stage call's.
        self.deadline = deadline
        self.max_retries = max(0, max_retries)
        self.max_reasks = max(0, max_reasks)
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.history_messages = history_messages
        self.history_chars = history_chars
        # How structured output is asked for: auto, tools, json_schema or json (structured.py).
        self.structured = check_structured(structured)
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        # Built on first use, then reused: instructor clients (sync/async) and tenacity settings.
        self._instructors: dict[tuple[bool, str], Any] = {}
        self._retry_kwargs: dict[str, Any] | None = None

    def _transports(self) -> list[Transport]:
        return list({id(t): t for t in (self._default, self._classify, self._consolidate)}.values())

    # -- classify --

    def _classify_request(self, turn: Turn, user_md: str, memory_md: str) -> _Request:
        return _Request(
            "classify",
            self._classify,
            load_prompt("classify"),
            self.classify_messages(turn, user_md, memory_md),
            Statements,
            {"today": turn.today.isoformat(), "user_keys": _user_keys(user_md), "said": turn.user_text},
            classify_budget(turn.user_text),
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
        self, prompt: Prompt, target: Transport, decisions: list[Decision], usage: Usage
    ) -> Classification:
        return Classification(
            decisions=decisions, usage=usage, engine=self.name, model=target.name, prompt_version=prompt.version
        )

    # -- consolidate --

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        prompt = load_prompt("consolidate")
        if not items:
            return ConsolidationPlan(
                entries=[], engine=self.name, model=self._consolidate.name, prompt_version=prompt.version
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
            rewrite_budget("consolidate", listing, len(items)),
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
            model=self._consolidate.name,
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
            rewrite_budget("compact_user", listing, len(found)),
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
            model=req.target.name,
            prompt_version=req.prompt.version,
            response_model=req.response_model.__name__,
            messages=req.messages,
            # Another server (a different --api-base) or other re-asks may answer otherwise.
            settings={
                "server": _server_of(req.target),
                "transport": req.target.kind,
                "max_reasks": self.max_reasks,
                "structured": self.structured,
            },
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
        call = self._new_call(req)
        while True:
            try:
                with self._calling(req, call):
                    client = self._instructor_client(async_client=False, mode=call.mode)
                    result = client.create(**_create_args(req, self.max_reasks))
                return self._finished(req, result, call.meter)
            except WrongMode as exc:
                call = self._fallen_back(req, call, exc)

    async def _arun(self, req: _Request) -> tuple[BaseModel, Usage]:
        cached = self._cached(req)
        if cached is not None:
            return cached
        call = self._new_call(req)
        while True:
            try:
                with self._calling(req, call):
                    client = self._instructor_client(async_client=True, mode=call.mode)
                    result = await client.create(**_create_args(req, self.max_reasks))
                return self._finished(req, result, call.meter)
            except WrongMode as exc:
                call = self._fallen_back(req, call, exc)

    def _mode_key(self, target: Transport) -> tuple[str, str, str | None]:
        return (target.kind, target.name, _server_of(target))

    def mode_for(self, target: Transport | None = None) -> str:
        """The structured-output mode the next request to `target` (the classify model) uses."""
        target = target or self._classify
        if self.structured != "auto":
            return self.structured
        return CHOSEN.get(self._mode_key(target)) or default_mode(target.kind, target.name, _server_of(target))

    def _new_call(self, req: _Request) -> _Call:
        return _Call(req, _Meter(), self.deadline, mode=self.mode_for(req.target), auto=self.structured == "auto")

    def _fallen_back(self, req: _Request, call: _Call, exc: WrongMode) -> _Call:
        """`auto` met an answer in the wrong form: the next mode, kept for the process; the same
        meter and deadline (the failed request is counted). No mode left: the stage fails."""
        nxt = CHOSEN.fall_back(self._mode_key(req.target), exc.mode)
        if nxt is None or nxt == call.mode:
            raise self._failure(req, exc, call.meter) from exc
        log.warning(
            "%s: %s with --structured %s (%s); using %s from now on (set --structured to skip this probe)",
            req.stage, req.target.name, exc.mode, exc.what, nxt,
        )
        req.context.pop("problems", None)
        return _Call(req, call.meter, call.budget, call.deadline, mode=nxt, auto=True)

    @contextmanager
    def _calling(self, req: _Request, call: _Call) -> Iterator[_Meter]:
        """The scope of one stage call (sync or async): its meter, the request in flight for the
        send functions, and any failure turned into LLMError (a WrongMode under `auto` passes)."""
        req.target.check()
        req.context.setdefault("problems", {})
        req.context["answer"] = 0
        token = _CALL.set(call)
        try:
            with _validating(req.context):
                yield call.meter
        except Exception as exc:
            raise self._failure(req, exc, call.meter) from exc
        finally:
            _CALL.reset(token)

    def _finished(self, req: _Request, result: BaseModel, meter: _Meter) -> tuple[BaseModel, Usage]:
        usage = meter.usage()
        self._store(req, result, usage)
        return result, usage

    # -- clients, built once per engine (per process) and reused --

    def _instructor_client(self, *, async_client: bool, mode: str = "tools") -> Any:
        """instructor over our send functions, which read the request in flight from `_CALL`.

        Built once per mode: `from_litellm(fn, mode)` is instructor's OpenAI provider over any
        callable (exactly what `from_openai(client)` builds over `client.chat.completions.create`);
        a callable of ours keeps tenacity and usage metering around every HTTP request.
        """
        client = self._instructors.get((async_client, mode))
        if client is None:
            send = self._async_send if async_client else self._sync_send
            client = _instructor().from_litellm(send, instructor_mode(mode), async_client=async_client)
            self._instructors[(async_client, mode)] = client
        return client

    def preload(self) -> None:
        """Import now what the first model request would (instructor, the openai SDK's types, the
        HTTP client): ~1.5 s of CPU that a batch worker spends before it takes users, and can then
        exempt from garbage collection."""
        _instructor()
        for model in (Statements, ConsolidatedLog, CompactProfile):
            _prepared(model)
        self._instructor_client(async_client=True, mode=self.mode_for())
        for transport in self._transports():
            transport.preload()

    async def aclose(self) -> None:
        """Close the running loop's pooled connections. Under asyncio.run they close by themselves
        when the loop shuts down; a loop you close yourself needs this first."""
        for transport in self._transports():
            await transport.aclose()

    def close(self) -> None:
        """Close the sync client's pooled connections (optional: they close with the process)."""
        for transport in self._transports():
            transport.close()

    def _retrying(self) -> dict[str, Any]:
        """tenacity's settings, built once; the request in flight comes from `_CALL`."""
        if self._retry_kwargs is not None:
            return self._retry_kwargs
        from tenacity import retry_if_exception, stop_after_attempt, stop_any, wait_exponential_jitter
        from tenacity.stop import stop_base

        def before_sleep(state: Any) -> None:
            exc = state.outcome.exception() if state.outcome else None
            call = _CALL.get()
            log.warning(
                "%s: %s from %s, retry %d/%d",
                call.req.stage if call else "?",
                type(exc).__name__,
                call.req.target.name if call else "?",
                state.attempt_number,
                self.max_retries,
            )

        backoff = wait_exponential_jitter(multiplier=self.backoff, max=self.backoff_max, jitter=self.backoff)

        def wait(state: Any) -> float:
            # A server's Retry-After (429/503) is honoured, within backoff_max.
            delay = float(backoff(state))
            hinted = _retry_after(state.outcome.exception() if state.outcome else None)
            delay = max(delay, min(hinted, self.backoff_max)) if hinted is not None else delay
            left = _time_left()
            return delay if left is None else max(0.0, min(delay, left))

        class out_of_time(stop_base):  # noqa: N801 - reads like tenacity's own stop_* names
            def __call__(self, state: Any) -> bool:
                left = _time_left()
                return left is not None and left <= 0

        self._retry_kwargs = {
            "stop": stop_any(stop_after_attempt(self.max_retries + 1), out_of_time()),
            "wait": wait,
            "retry": retry_if_exception(is_transient),
            "reraise": True,
            "before_sleep": before_sleep,
        }
        return self._retry_kwargs

    # -- one model request (instructor calls these; tenacity retries inside) --

    def _sync_send(self, **kwargs: Any) -> Any:
        from tenacity import Retrying

        call = _current_call()
        req, meter, target = call.req, call.meter, call.req.target
        response: Any = None
        meter.sends += 1
        req.context["answer"] = meter.sends
        wire = on_the_wire(kwargs, call.mode, local=_own_server(target))
        for attempt in Retrying(**self._retrying()):
            with attempt:
                info = _call_info(req, wire, self.deadline)  # raises once the deadline passed: nothing sent
                with observe.model_call(req.stage, target.name, _provider(target)) as seen:
                    with meter.request(), _mode_errors(call):
                        response = target.send(wire, info)
                    self._account(target, meter, response, seen)
        return unfenced(response, call.mode, auto=call.auto)

    async def _async_send(self, **kwargs: Any) -> Any:
        from tenacity import AsyncRetrying

        call = _current_call()
        req, meter, target = call.req, call.meter, call.req.target
        response: Any = None
        meter.sends += 1
        req.context["answer"] = meter.sends
        wire = on_the_wire(kwargs, call.mode, local=_own_server(target))
        async for attempt in AsyncRetrying(**self._retrying()):
            with attempt:
                info = _call_info(req, wire, self.deadline)
                with observe.model_call(req.stage, target.name, _provider(target)) as seen:
                    with meter.request(), _mode_errors(call):
                        async with REQUEST_SLOTS.get() or contextlib.nullcontext():
                            response = await target.asend(wire, info)
                    self._account(target, meter, response, seen)
        return unfenced(response, call.mode, auto=call.auto)

    def _account(self, target: Transport, meter: _Meter, response: Any, seen: observe.ModelCall | None) -> None:
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        meter.input_tokens += prompt_tokens
        meter.output_tokens += completion_tokens
        meter.cached_tokens += _cached_tokens(response, usage)
        cost = target.cost(prompt_tokens, completion_tokens)
        meter.cost_usd = None if cost is None or meter.cost_usd is None else meter.cost_usd + cost
        if seen is not None:
            seen.finish(response, cost)

    def _failure(self, req: _Request, exc: Exception, meter: _Meter) -> BaseException:
        cause: BaseException = exc
        while cause.__cause__ is not None and type(cause).__module__.startswith("instructor"):
            cause = cause.__cause__
        if isinstance(cause, TransportSetupError):
            return cause  # a setup mistake (requests disabled, a fake out of answers): show it as is
        call = _CALL.get()
        if isinstance(cause, WrongMode) and call is not None and call.auto and call.req is req:
            return cause  # `auto`: the caller tries the next mode
        if (
            isinstance(cause, (ValidationError, json.JSONDecodeError, WrongMode))
            or type(cause).__name__ in _PARSE_ERRORS
        ):
            kind: Literal["transport", "validation", "other"] = "validation"
        elif is_transient(cause):
            kind = "transport"
        else:
            kind = "other"
        mode = call.mode if call is not None and call.req is req else self.mode_for(req.target)
        message = (
            f"{req.stage} with {req.target.name} failed after {meter.calls} model call(s): {_describe(cause)}"
            + _hint(cause, req, mode, self)
        )
        log.info("%s", message)  # the caller records the failure; no user text in the message
        return LLMError(
            message, meter.calls, meter.usage(), _completion_text(getattr(exc, "last_completion", None)), kind=kind
        )


# --- helpers ---------------------------------------------------------------------------------


# What to change, by what went wrong (appended to LLMError's message).
SLOW_MODEL_HINT = "--slow-model (120 s per request, 300 s per turn, 1 retry) or a larger --timeout/--deadline"


def _hint(cause: BaseException, req: _Request, mode: str, engine: LLMEngine) -> str:
    name = type(cause).__name__
    if isinstance(cause, DeadlinePassed):
        return f". The turn's model calls took longer than --deadline {engine.deadline:g} s: a model on CPU needs {SLOW_MODEL_HINT}"
    if isinstance(cause, TimeoutError):
        return f". A model on CPU can need 30-120 s for one answer: {SLOW_MODEL_HINT}"
    if name == "IncompleteOutputException":
        return (
            f". The answer reached the {req.stage} bound of {req.max_tokens} tokens (max_tokens) without closing: "
            "the model ran away; --structured json_schema holds a model to the schema on servers that support it"
        )
    if isinstance(cause, WrongMode) or (name == "ResponseParsingError" and mode == "tools"):
        return ". The server does not answer forced tool calls: use --structured json_schema (or json)"
    if isinstance(cause, (ValidationError, json.JSONDecodeError)) and mode == "json":
        return ". In json mode nothing holds the model to the schema: --structured json_schema does, where the server supports it"
    return ""



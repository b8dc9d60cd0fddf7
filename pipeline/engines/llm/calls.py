"""One stage call to a model, as LLMEngine runs it: the request, its meter (every request counted,
failed ones too), the call in flight and the turn's deadline, and what a failure or an answer says
(its usage, cached tokens, a readable cause, the decisions in it)."""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from pipeline.engines.base import (
    TURN_STARTED,
)
from pipeline.engines.llm.patches import _prepared
from pipeline.engines.llm.prompts import Prompt
from pipeline.engines.llm.schemas import (
    Statements,
)
from pipeline.engines.llm.structured import rejected_mode
from pipeline.engines.llm.transports import CallInfo, Transport
from pipeline.errors import DeadlinePassed, WrongMode
from pipeline.types import (
    Decision,
    Usage,
)

log = logging.getLogger("memroute.engines.llm")


# instructor's own parse failures (no tool call, wrong tool, ...), matched by name: it is imported lazily.
_PARSE_ERRORS = ("ResponseParsingError", "AsyncValidationError", "IncompleteOutputException")


@dataclass
class _Request:
    stage: str
    target: Transport
    prompt: Prompt
    messages: list[dict[str, str]]
    response_model: type[BaseModel]
    context: dict[str, Any]
    max_tokens: int | None = None  # the stage's bound on generated tokens (structured.py)


@dataclass
class _Meter:
    """Usage across every request of one stage call, failed ones included."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # of input_tokens: read from the server's prompt cache
    cost_usd: float | None = 0.0
    latency_s: float = 0.0  # time spent waiting for the model, backoff sleeps excluded
    sends: int = 0  # instructor's attempts: the first answer and each re-ask (each may be retried)

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
            cached_tokens=self.cached_tokens,
            cost_usd=self.cost_usd,
            latency_s=round(self.latency_s, 6),
            reasks=max(0, self.sends - 1),
            retries=max(0, self.calls - self.sends),
        )


@dataclass
class _Call:
    """The stage call in flight, read by the send functions the (shared) instructor client calls."""

    req: _Request
    meter: _Meter
    budget: float | None = None  # LLMEngine.deadline: seconds for the turn's model calls
    deadline: float | None = None  # time.monotonic() by which they must end, set at the first request
    mode: str = "tools"  # the structured-output mode of this call (structured.py)
    auto: bool = False  # `auto`: a wrong form raises WrongMode instead of a re-ask


_CALL: ContextVar[_Call | None] = ContextVar("memroute_llm_call", default=None)


def _current_call() -> _Call:
    call = _CALL.get()
    if call is None:
        raise RuntimeError("a model request outside LLMEngine._run/_arun")
    return call


def _provider(target: Transport) -> str:
    """gen_ai.provider.name: "openai" for the direct path, litellm's provider prefix otherwise."""
    if target.kind == "openai":
        return "openai"
    prefix, _, rest = target.name.partition("/")
    return prefix if rest else target.kind


def _create_args(req: _Request, max_reasks: int) -> dict[str, Any]:
    """instructor's create() arguments for a request; re-asks are instructor's loop. Every request
    is bounded by its stage's max_tokens, except on reasoning models (their hidden reasoning counts
    against the same limit; litellm sends it as max_completion_tokens)."""
    args: dict[str, Any] = {
        "messages": req.messages,
        "response_model": _prepared(req.response_model),
        "max_retries": max_reasks,
        "strict": False,
    }
    if req.max_tokens is not None and not _reasoning_model(req.target.name):
        args["max_tokens"] = req.max_tokens
    return args


def _reasoning_model(name: str) -> bool:
    from pipeline.engines.llm.transports import _OPENAI_REASONING

    bare = name.rsplit("/", 1)[-1]
    return bool(_OPENAI_REASONING.match(bare)) or "reasoner" in bare or bare.startswith("deepseek-r1")


@contextmanager
def _mode_errors(call: _Call) -> Iterator[None]:
    """Under `auto`, a 400 that rejects the mode's parameters is a wrong mode, not a failure."""
    try:
        yield
    except Exception as exc:
        if call.auto and rejected_mode(exc, call.mode):
            raise WrongMode(call.mode, f"the server rejected it: {_describe(exc)[:160]}") from exc
        raise


def _cached_tokens(response: Any, usage: Any) -> int:
    """Prompt tokens the server read from its cache: usage.prompt_tokens_details.cached_tokens
    (OpenAI, litellm, llama.cpp), else llama.cpp's timings.cache_n."""
    details = getattr(usage, "prompt_tokens_details", None)
    if isinstance(details, dict):
        cached = details.get("cached_tokens")
    else:
        cached = getattr(details, "cached_tokens", None)
    if cached is None:
        timings = getattr(response, "timings", None)
        if timings is None:
            extra = getattr(response, "model_extra", None) or {}
            timings = extra.get("timings")
        cached = timings.get("cache_n") if isinstance(timings, dict) else getattr(timings, "cache_n", None)
    try:
        return max(0, int(cached or 0))
    except (TypeError, ValueError):
        return 0


_FIELD = re.compile(r"^- ([^:\n]+?): ", re.M)


def _user_keys(user_md: str) -> dict[str, tuple[str, str]]:
    """The keys USER.md already has (casefolded -> (section, key)): a model may reuse them."""
    found: dict[str, tuple[str, str]] = {}
    section = ""
    for line in user_md.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        elif (m := _FIELD.match(line)) and section:
            found.setdefault(m.group(1).strip().casefold(), (section, m.group(1).strip()))
    return found


def _own_server(target: Transport) -> bool:
    """An OpenAI-compatible server of the caller's own (llama.cpp, vLLM, LM Studio), not OpenAI's API."""
    openai_compatible = target.kind == "openai" or (target.kind == "litellm" and target.name.startswith("openai/"))
    server = _server_of(target) if openai_compatible else None
    return server is not None and "api.openai.com" not in server


def _server_of(target: Transport) -> str | None:
    """The server a transport sends to, as the openai SDK and litellm resolve it (argument, then env)."""
    base = getattr(target, "api_base", None)
    if base:
        return str(base).rstrip("/")
    if target.kind in ("openai", "litellm"):
        return os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or None
    return None


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


def _time_left() -> float | None:
    """Seconds the call in flight has left before its deadline; None without one."""
    call = _CALL.get()
    if call is None or call.deadline is None:
        return None
    return call.deadline - time.monotonic()


def _start_clock(call: _Call) -> None:
    """At the call's first request: its deadline, from the turn's first request (or this one)."""
    if call.budget is None or call.deadline is not None:
        return
    now = time.monotonic()
    turn = TURN_STARTED.get()
    if turn is not None and not turn:
        turn.append(now)
    call.deadline = (turn[0] if turn else now) + call.budget


def _call_info(req: _Request, kwargs: dict[str, Any], deadline: float | None) -> CallInfo:
    call = _CALL.get()
    if call is not None:
        _start_clock(call)
    tools = kwargs.get("tools") or []
    tool_name = tools[0]["function"]["name"] if tools else None
    left = _time_left()
    if left is not None and left <= 0:
        raise DeadlinePassed(f"the turn's deadline of {deadline:g} s passed")
    return CallInfo(stage=req.stage, model=req.target.name, response_model=req.response_model, tool_name=tool_name,
                    timeout=left)


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


def _decisions(result: BaseModel) -> list[Decision]:
    assert isinstance(result, Statements)
    out: list[Decision] = []
    for s in result.statements:
        has_field = s.route == "user" or s.candidate
        out.append(
            Decision(
                quote=s.quote,
                route="user" if s.route == "forget" else s.route,  # the validator maps forget already
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
                rule="model/llm",
            )
        )
    return out

"""Fake models for tests, shipped with the package (in the spirit of pydantic-ai's TestModel).

Give an `LLMEngine` a `FakeModel` (scripted answers) or a `FunctionModel` (computed answers)
instead of a model name: both are transports (pipeline.engines.llm.transports), so the engine
runs its normal path (prompt building, instructor validation and re-asks, transport retries,
usage accounting); only the HTTP call is replaced by an OpenAI-shaped completion built here.

`allow_model_requests(False)` (or env MEMROUTE_ALLOW_MODEL_REQUESTS=0) makes every real
model request raise `ModelRequestsDisabled`, so a test suite cannot reach a network by mistake;
requests to a loopback api_base (a local scripted server) stay allowed.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from pipeline.engines.base import Engine
from pipeline.engines.llm.network import (  # re-exported: the switch tests use
    ModelRequestsDisabled as ModelRequestsDisabled,
)
from pipeline.engines.llm.network import allow_model_requests as allow_model_requests
from pipeline.engines.llm.network import check_model_request as check_model_request
from pipeline.engines.llm.network import model_requests_allowed as model_requests_allowed
from pipeline.engines.llm.transports import CallInfo, Transport, TransportSetupError
from pipeline.errors import MemrouteError

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion


class FakeQueueEmpty(TransportSetupError, MemrouteError, AssertionError):
    """The engine asked a FakeModel for more answers than the test enqueued."""


@dataclass
class ModelCall:
    """One request a fake model received (re-asks and retries are calls of their own)."""

    stage: str
    model: str
    response_model: str
    messages: list[dict[str, Any]]


class ScriptedModel(Transport):
    """Base of the fakes: a transport that turns an answer into an OpenAI-shaped completion with
    token counts, so the engine runs its whole path (instructor, re-asks, retries, usage) offline."""

    kind = "fake"

    def __init__(
        self,
        *,
        name: str = "fake",
        input_cost_per_token: float | None = 0.0,
        output_cost_per_token: float | None = 0.0,
        latency_s: float = 0.0,
    ) -> None:
        self.name = name
        # Prices per token; the fake is free by default. None means "unknown price" (cost_usd None).
        self.input_cost_per_token = input_cost_per_token
        self.output_cost_per_token = output_cost_per_token
        self.latency_s = latency_s  # simulated model time, slept per call
        self.history: list[ModelCall] = []

    def respond(self, messages: list[dict[str, Any]], info: CallInfo) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def complete(self, messages: list[dict[str, Any]], info: CallInfo) -> ChatCompletion:
        self.history.append(ModelCall(info.stage, info.model, info.response_model.__name__, _plain(messages)))
        if self.latency_s:
            time.sleep(self.latency_s)
        answer = self.respond(messages, info)
        if isinstance(answer, BaseException):
            raise answer
        return build_completion(answer, info, messages)

    def send(self, request: dict[str, Any], info: CallInfo) -> Any:
        return self.complete(request["messages"], info)

    def cost(self, input_tokens: int, output_tokens: int) -> float | None:
        if self.input_cost_per_token is None or self.output_cost_per_token is None:
            return None
        return input_tokens * self.input_cost_per_token + output_tokens * self.output_cost_per_token


class FakeModel(ScriptedModel):
    """Answers from a queue: `enqueue()` pydantic objects, dicts, lists, raw JSON text or exceptions.

    A list is wrapped into the response model's single list field, so
    `fake.enqueue([Decision(...), ...])` answers a classify call.
    """

    def __init__(self, *answers: Any, name: str = "fake", **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        self.queue: deque[Any] = deque(answers)

    def enqueue(self, *answers: Any) -> FakeModel:
        self.queue.extend(answers)
        return self

    @property
    def pending(self) -> int:
        return len(self.queue)

    def respond(self, messages: list[dict[str, Any]], info: CallInfo) -> Any:
        if not self.queue:
            raise FakeQueueEmpty(
                f"FakeModel {self.name!r} has no answer queued for call #{len(self.history)} "
                f"({info.stage}, {info.response_model.__name__}); enqueue() one more"
            )
        return self.queue.popleft()


class FunctionModel(ScriptedModel):
    """Answers computed by `fn(messages, info)`: return an answer like FakeModel's, or raise."""

    def __init__(
        self, fn: Callable[[list[dict[str, Any]], CallInfo], Any], *, name: str = "function", **kwargs: Any
    ) -> None:
        super().__init__(name=name, **kwargs)
        self.fn = fn

    def respond(self, messages: list[dict[str, Any]], info: CallInfo) -> Any:
        return self.fn(messages, info)


def estimate_tokens(text: str) -> int:
    """Fake token count: about four characters per token, at least one."""
    return max(1, (len(text) + 3) // 4)


def answer_text(answer: Any, response_model: type[BaseModel]) -> str:
    """The JSON text a model would send for this answer; a str is sent as is (garbage allowed)."""
    if isinstance(answer, str):
        return answer
    if isinstance(answer, (list, tuple)):
        list_fields = [name for name, f in response_model.model_fields.items() if _is_list(f.annotation)]
        if len(list_fields) != 1:
            raise TypeError(f"a list answer needs a response model with one list field, not {response_model.__name__}")
        answer = {list_fields[0]: list(answer)}
    return json.dumps(_jsonable(answer), ensure_ascii=False)


def build_completion(answer: Any, info: CallInfo, messages: list[dict[str, Any]]) -> ChatCompletion:
    """An OpenAI ChatCompletion carrying the answer as the forced tool call (or as JSON content)."""
    from openai.types.chat import ChatCompletion

    text = answer_text(answer, info.response_model)
    body = completion_body(
        model=info.model,
        arguments=text,
        tool=info.tool_name,
        prompt_tokens=estimate_tokens(json.dumps(_plain(messages), ensure_ascii=False)),
        completion_tokens=estimate_tokens(text),
    )
    return ChatCompletion.model_validate(body)


def completion_body(
    *,
    model: str,
    arguments: str,
    tool: str | None,
    prompt_tokens: int,
    completion_tokens: int,
    completion_id: str = "fake-completion",
    created: int = 0,
) -> dict[str, Any]:
    """The JSON an OpenAI-compatible server returns for one answer: the forced tool call named
    `tool` with `arguments`, or `arguments` as plain content when there is no tool. Shared by the
    fake models, the scripted test server and the batch benchmark's server."""
    message: dict[str, Any] = {"role": "assistant", "content": arguments}
    finish = "stop"
    if tool:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_fake", "type": "function", "function": {"name": tool, "arguments": arguments}}],
        }
        finish = "tool_calls"
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _is_list(annotation: Any) -> bool:
    return getattr(annotation, "__origin__", None) is list or annotation is list


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _plain(messages: list[Any]) -> list[dict[str, Any]]:
    """Messages as plain dicts (instructor may pass pydantic message objects on re-asks)."""
    out = []
    for m in messages:
        out.append(m.model_dump(exclude_none=True) if isinstance(m, BaseModel) else dict(m))
    return out


class UnreachableEngine(Engine):
    """An engine whose model cannot be reached: every call raises ConnectionError. Tests of outages
    (failed turns kept for retry, what a failure leaves at rest) install it instead of a real model."""

    def __init__(self, name: str = "llm", model: str | None = "down") -> None:
        self.name = name
        self.model = model

    def classify(self, *args: object, **kwargs: object) -> Any:
        raise ConnectionError("model unreachable")

    def consolidate(self, *args: object, **kwargs: object) -> Any:
        raise ConnectionError("model unreachable")

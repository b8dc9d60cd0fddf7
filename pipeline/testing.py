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
from pipeline.engines.llm.network import allow_model_requests as allow_model_requests
from pipeline.engines.llm.network import check_model_request as check_model_request
from pipeline.engines.llm.network import model_requests_allowed as model_requests_allowed
from pipeline.engines.llm.transports import CallInfo, Transport
from pipeline.errors import FakeQueueEmpty
from pipeline.errors import ModelRequestsDisabled as ModelRequestsDisabled

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion


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


# --- local chat servers that behave like real ones --------------------------------------------------

SERVER_KINDS = ("openai", "llamacpp", "ollama")


class ChatServer:
    """A chat server on 127.0.0.1 (a thread; no network) that behaves like one kind of real server,
    for tests and benchmarks of the structured-output modes. The model's answer comes from
    `answer(request_body)` (a dict, or JSON text, like FunctionModel's answers); the server decides
    how it is wrapped, as the real one would:

    - `openai`: OpenAI's API. A forced tool call (object `tool_choice`) is answered with that call;
      `response_format` (json_schema or json_object) with the JSON as content.
    - `llamacpp`: llama.cpp's `llama-server`. An object `tool_choice` is ignored (its log: "type must
      be string, but is object") and a small model answers in text, inside a ```json fence;
      `response_format` json_schema or json_object is a grammar: raw JSON from the first token.
      With `runaway=True` a text answer goes on with newlines until `max_tokens` (or a stop
      sequence), as Qwen2.5-Coder-1.5B did under `"tool_choice": "required"`.
    - `ollama`: Ollama's native `/api/chat` (what litellm's `ollama_chat/` sends): `format` (a JSON
      schema or "json") constrains the answer; without it, the fence.

    Every kind keeps a one-slot prompt cache like llama.cpp's `-np 1`: the prompt (a chat template's
    rendering: system, the tool schemas, then the other messages) shares a prefix with the previous
    request's, and those tokens (four characters each) are reported as cached, in
    `usage.prompt_tokens_details.cached_tokens` (and llama.cpp's `timings.cache_n`). `requests`
    keeps every chat request's body (`paths` their paths), `prompts` every rendered prompt.
    """

    def __init__(
        self,
        kind: str,
        answer: Callable[[dict[str, Any]], Any],
        *,
        runaway: bool = False,
        delay: float = 0.0,
        model: str = "local-model",
    ) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        if kind not in SERVER_KINDS:
            raise ValueError(f"kind must be one of {', '.join(SERVER_KINDS)}, not {kind!r}")
        self.kind, self.answer, self.runaway, self.delay, self.model = kind, answer, runaway, delay, model
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []  # each chat request's headers (names lower-cased)
        self.prompts: list[str] = []
        self.completions: list[dict[str, Any]] = []  # what each answer generated: tokens, finish
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with server._lock:
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                status, payload = server.reply(self.path, body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def api_base(self) -> str:
        """What to pass as api_base: `/v1` for the OpenAI-compatible kinds, the root for Ollama."""
        return self.url if self.kind == "ollama" else self.url + "/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> ChatServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one request --

    def reply(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.kind == "ollama" and path.rstrip("/").endswith("/api/show"):  # litellm asks for model details
            return 200, {"modelfile": "", "parameters": "", "template": "", "details": {}, "model_info": {}}
        with self._lock:
            self.requests.append(body)
            self.paths.append(path)
            prompt = render_prompt(body.get("messages", []), body.get("tools"))
            cached = _common_prefix(self.prompts[-1], prompt) // 4 if self.prompts else 0
            self.prompts.append(prompt)
        if self.delay:
            time.sleep(self.delay)  # a slow model: the request is seen at once, answered later
        prompt_tokens = max(1, len(prompt) // 4)
        cached = min(cached, prompt_tokens - 1)
        constrained, tool = self._constraint(path, body)
        text = answer_text(self.answer(body), _AnyList)
        limit = body.get("max_tokens") or (body.get("options") or {}).get("num_predict")
        stops = body.get("stop") or (body.get("options") or {}).get("stop") or []
        if tool is not None:
            content, finish, generated = text, "tool_calls", estimate_tokens(text)
        elif constrained:
            content, finish, generated = text, "stop", estimate_tokens(text)
        else:  # a small model without a grammar: a fenced answer, perhaps running away
            content = f"```json\n{text}\n```" + ("\n" * 10_000 if self.runaway else "")
            content, finish, generated = _generate(content, limit, stops)
        if limit is not None and generated > int(limit):  # the server stops at max_tokens
            content, finish, generated = _cut(content, int(limit))
        with self._lock:
            self.completions.append({"tokens": generated, "finish": finish, "limit": limit})
        if self.kind == "ollama":
            return 200, {
                "model": body.get("model", self.model),
                "created_at": "2026-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": content},
                "done": True,
                "done_reason": "length" if finish == "length" else "stop",
                "prompt_eval_count": prompt_tokens - cached,
                "eval_count": generated,
            }
        out = completion_body(
            model=body.get("model", self.model),
            arguments=content,
            tool=tool,
            prompt_tokens=prompt_tokens,
            completion_tokens=generated,
            completion_id=f"chatcmpl-{len(self.requests)}",
        )
        out["choices"][0]["finish_reason"] = finish
        out["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
        if self.kind == "llamacpp":
            out["timings"] = {"cache_n": cached, "prompt_n": prompt_tokens - cached, "predicted_n": generated}
        return 200, out

    def _constraint(self, path: str, body: dict[str, Any]) -> tuple[bool, str | None]:
        """(is the answer held to JSON, the tool call to answer with)."""
        if self.kind == "ollama":
            return body.get("format") not in (None, ""), None
        fmt = body.get("response_format") or {}
        if isinstance(fmt, dict) and fmt.get("type") in ("json_schema", "json_object"):
            return True, None
        choice = body.get("tool_choice")
        if self.kind == "openai" and isinstance(choice, dict):
            return True, choice.get("function", {}).get("name")
        return False, None


class _AnyList(BaseModel):
    """answer_text's response model for a server: a list answer becomes {"statements": [...]}."""

    statements: list[Any]


def render_prompt(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> str:
    """A chat template's rendering (as Qwen2.5's puts it): the system message, the tool schemas
    after it, then every other message."""
    parts: list[str] = []
    rest = list(messages)
    if rest and rest[0].get("role") == "system":
        parts.append(f"<|system|>\n{rest.pop(0).get('content') or ''}")
    if tools:
        parts.append("<|tools|>\n" + json.dumps(tools, ensure_ascii=False, sort_keys=True))
    for m in rest:
        content = m.get("content")
        parts.append(f"<|{m.get('role')}|>\n{content if isinstance(content, str) else json.dumps(content)}")
    return "\n".join(parts) + "\n<|assistant|>\n"


def _common_prefix(a: str, b: str) -> int:
    import os.path

    return len(os.path.commonprefix([a, b]))


def _generate(content: str, limit: Any, stops: list[str]) -> tuple[str, str, int]:
    """A text answer as a server generates it: cut at the first stop sequence, or at max_tokens."""
    cut = min((i for s in stops if (i := content.find(s)) >= 0), default=-1)
    if cut >= 0:
        return content[:cut], "stop", estimate_tokens(content[:cut]) + 1
    if limit is None and len(content) > 12_000:  # no bound: it generates on (we stop it at 3,000)
        return _cut(content, 3000)
    return content, "stop", estimate_tokens(content)


def _cut(content: str, tokens: int) -> tuple[str, str, int]:
    return content[: tokens * 4], "length", tokens

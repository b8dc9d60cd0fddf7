"""One interface for sending a chat request to a model: a `Transport` takes the request instructor
built (OpenAI chat-completions arguments) and returns an OpenAI-shaped `ChatCompletion`.

- `OpenAIHTTPTransport`: `openai/NAME` models, POSTed directly to an OpenAI-compatible server
  (openai_http.py: pooled, no retries of its own; priced from litellm's bundled cost map).
- `LiteLLMTransport`: every other model, through litellm (imported only when it sends or prices).
- Tests plug in their own: pipeline.testing's FakeModel and FunctionModel are transports.

Transports never retry: the engine's one tenacity loop does, using `is_transient`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from pipeline.engines.base import DEFAULT_TIMEOUT_S
from pipeline.engines.llm.network import check_model_request
from pipeline.errors import ModelConfigError


@dataclass(frozen=True)
class CallInfo:
    """What a transport is told about the call it sends (fakes answer from it)."""

    stage: str  # classify | consolidate | compact_user
    model: str  # the transport's model name
    response_model: type[BaseModel]
    tool_name: str | None  # the tool the engine forces (instructor TOOLS mode), else None
    timeout: float | None = None  # seconds this request may take (the turn's deadline left), else the transport's


class Transport:
    """Sends one chat request. Subclasses implement `send` (and `asend` when they have native async)."""

    name: str = "model"  # the model name results and caches report
    kind: str = "custom"  # "openai", "litellm", "fake", ...

    def check(self) -> None:
        """Raise before a stage's first request when this transport may not send now."""

    def send(self, request: dict[str, Any], info: CallInfo) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.send")

    async def asend(self, request: dict[str, Any], info: CallInfo) -> Any:
        return self.send(request, info)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """USD for these tokens; None when the price is unknown (never a made-up 0)."""
        return None

    def preload(self) -> None:
        """Import now what the first request would."""

    def close(self) -> None:
        """Close pooled connections (sync)."""

    async def aclose(self) -> None:
        """Close the running loop's pooled connections."""


def is_transient(exc: BaseException) -> bool:
    """Faults worth a retry: rate limits, timeouts, 5xx, broken connections."""
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    import openai  # litellm's exceptions subclass openai's; instructor already imports openai

    if isinstance(exc, (openai.RateLimitError, openai.APIConnectionError, openai.InternalServerError)):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 429) or status >= 500)


class _Networked(Transport):
    def __init__(self, model: str, *, api_base: str | None, api_key: str | None, timeout: float) -> None:
        self.name = model
        self.api_base = api_base
        self.api_key = api_key
        self.timeout = timeout

    def check(self) -> None:
        check_model_request(self.name, self.api_base)


class OpenAIHTTPTransport(_Networked):
    """`openai/NAME`: one POST per request over a keep-alive pool (httpx sync, aiohttp async)."""

    kind = "openai"

    def __init__(self, model: str, *, api_base: str | None, api_key: str | None, timeout: float) -> None:
        from pipeline.engines.llm import openai_http

        super().__init__(model, api_base=api_base, api_key=api_key, timeout=timeout)
        self.openai_model = model[len("openai/") :]
        self._http = openai_http.Clients(api_key=api_key, api_base=api_base, timeout=timeout)

    def check(self) -> None:
        """Also: a missing API key is the caller's mistake (ModelConfigError), found before any request."""
        from pipeline.engines.llm import openai_http

        super().check()  # the tests-offline switch first
        openai_http.Endpoint.resolve(self.api_key, self.api_base, self.timeout)

    def send(self, request: dict[str, Any], info: CallInfo) -> Any:
        return self._http.sync().post(request, self.openai_model, timeout=info.timeout)

    async def asend(self, request: dict[str, Any], info: CallInfo) -> Any:
        return await self._http.current().post(request, self.openai_model, timeout=info.timeout)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        from pipeline.engines.llm.pricing import openai_price

        return openai_price(self.openai_model, prompt_tokens, completion_tokens)

    def preload(self) -> None:
        from pipeline.engines.llm import openai_http

        openai_http.preload()

    def close(self) -> None:
        self._http.close()

    async def aclose(self) -> None:
        await self._http.aclose()


class LiteLLMTransport(_Networked):
    """Any provider litellm knows; litellm is imported on the first request, offline (see pricing)."""

    kind = "litellm"
    _keys_checked = False

    def check(self) -> None:
        """Also: litellm must be installed (memroute[litellm]), and the provider's API key set
        (litellm says which) unless a key or a server of the caller's own is given. Asked once."""
        super().check()
        from pipeline.engines.llm.pricing import litellm_installed, load_litellm

        if not litellm_installed():
            load_litellm(self.name)  # LiteLLMMissing: one line naming the extra
        if self._keys_checked or self.api_key or self.api_base:
            return
        from pipeline.engines.llm.pricing import load_litellm

        missing = load_litellm(self.name).validate_environment(model=self.name).get("missing_keys") or []
        if missing:
            raise ModelConfigError(f"no API key for {self.name}: set {', '.join(missing)}")
        self._keys_checked = True

    def _kwargs(self, request: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        return {
            **request,
            "model": self.name,
            "api_base": self.api_base,
            "api_key": self.api_key,
            "timeout": min(self.timeout, timeout) if timeout is not None else self.timeout,
            "temperature": 0,
            "max_retries": 0,  # the openai client's own retries; ours are the only loop
            "drop_params": True,
        }

    def send(self, request: dict[str, Any], info: CallInfo) -> Any:
        from pipeline.engines.llm.pricing import load_litellm

        return load_litellm(self.name).completion(**self._kwargs(request, info.timeout))

    async def asend(self, request: dict[str, Any], info: CallInfo) -> Any:
        from pipeline.engines.llm.pricing import load_litellm

        return await load_litellm(self.name).acompletion(**self._kwargs(request, info.timeout))

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        from pipeline.engines.llm.pricing import _price

        return _price(self.name, prompt_tokens, completion_tokens)


# OpenAI reasoning models reject temperature 0; litellm drops it for them (drop_params), with rules
# that change per model. They stay on litellm; every other `openai/` model takes the direct path.
_OPENAI_REASONING = re.compile(r"^(o\d|gpt-5)")


def transport_for(
    model: str | Transport, *, api_base: str | None = None, api_key: str | None = None, timeout: float = DEFAULT_TIMEOUT_S
) -> Transport:
    """A model name's transport: `openai/NAME` is litellm's plain OpenAI chat provider, which litellm
    only forwards to the openai SDK at several ms of CPU per call, so it is POSTed directly; every
    other name goes through litellm. A Transport (a test fake, a custom client) is used as is."""
    if isinstance(model, Transport):
        return model
    name = model[len("openai/") :] if model.startswith("openai/") else ""
    if name and not _OPENAI_REASONING.match(name):
        return OpenAIHTTPTransport(model, api_base=api_base, api_key=api_key, timeout=timeout)
    return LiteLLMTransport(model, api_base=api_base, api_key=api_key, timeout=timeout)

"""The direct path for `openai/NAME` models: one POST to an OpenAI-compatible /chat/completions.

litellm only forwards these models to the openai SDK, and the SDK itself spends ~2.5 ms of CPU
per call (request building, a scan of every pooled connection per request, a recursive build of
the answer); a batch at concurrency 64 is CPU-bound on it. Here a request is one JSON body and
one POST over a keep-alive pool (aiohttp for asyncio, httpx for sync code), and the answer is
validated once into the SDK's `ChatCompletion`, the type instructor reads.

Faults come back as `ModelHTTPError` (an HTTP status, with the server's message and headers),
`TimeoutError` or `ModelConnectionError`: the engine's one tenacity loop decides what to retry.
"""

from __future__ import annotations

import asyncio
import json
import os
import weakref
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pipeline.errors import ModelAnswerError, ModelConfigError, ModelConnectionError, ModelHTTPError

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Enough for any concurrency we run; a safety net against an unbounded caller, not a throttle.
MAX_CONNECTIONS = 256


@dataclass(frozen=True)
class Endpoint:
    url: str
    headers: dict[str, str]
    timeout: float

    @classmethod
    def resolve(cls, api_key: str | None, api_base: str | None, timeout: float) -> Endpoint:
        """The openai SDK's precedence: argument, then OPENAI_API_KEY / OPENAI_BASE_URL (litellm
        also reads OPENAI_API_BASE), then api.openai.com; org and project headers from the env."""
        key = api_key or os.environ.get("OPENAI_API_KEY")
        base = base_url(api_base)
        if not key and not on_this_machine(base):
            raise ModelConfigError("no API key for the openai/ model: set OPENAI_API_KEY "
                                   "(a server on this machine, e.g. --api-base http://127.0.0.1:8080/v1, needs none)")
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "memroute",
        }
        if key:  # a server of your own started without a key gets no Authorization header
            headers["Authorization"] = f"Bearer {key}"
        for env, header in (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project")):
            if os.environ.get(env):
                headers[header] = os.environ[env]
        return cls(url=base.rstrip("/") + "/chat/completions", headers=headers, timeout=timeout)


def base_url(api_base: str | None) -> str:
    """Where openai/ requests go: the argument, else OPENAI_BASE_URL (or litellm's OPENAI_API_BASE), else OpenAI."""
    return api_base or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or DEFAULT_BASE_URL


def on_this_machine(url: str) -> bool:
    """A server on this machine (localhost or a loopback address): a local OpenAI-compatible server (llama.cpp,
    vLLM, Ollama, LM Studio) needs no API key unless it was started with one. Any other host needs a key."""
    import ipaddress
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def request_body(kwargs: dict[str, Any], model: str) -> bytes:
    """What instructor built, as is (plain JSON already), with our model name and temperature 0."""
    return json.dumps({**kwargs, "model": model, "temperature": 0}).encode("utf-8")


def parse_response(status: int, headers: Mapping[str, str], data: bytes) -> Any:
    """A 2xx answer as an openai ChatCompletion; anything else as ModelHTTPError."""
    from openai.types.chat import ChatCompletion  # instructor imports the SDK's types anyway
    from pydantic import ValidationError

    if not 200 <= status < 300:
        raise ModelHTTPError(status, _error_message(data), headers)
    try:
        return _with_choices(ChatCompletion.model_validate_json(data), data)
    except ValidationError:
        pass
    # A server that bends the schema (a missing id, an unusual finish_reason): build it leniently,
    # as the SDK itself always does; a body that is not JSON at all is a server fault.
    try:
        payload = json.loads(data)
    except ValueError:
        raise ModelHTTPError(502, "the answer is not JSON", headers) from None
    if not isinstance(payload, dict):
        raise ModelHTTPError(502, "the answer is not a JSON object", headers)
    return _with_choices(ChatCompletion.construct(**payload), data)


def _with_choices(completion: Any, data: bytes) -> Any:
    """An answer without choices would fail deep inside the parser (IndexError): say what came."""
    if not getattr(completion, "choices", None):
        sent = " ".join(data[:300].decode("utf-8", "replace").split())
        raise ModelAnswerError(f"the server answered without choices: {sent}")
    return completion


def _error_message(data: bytes) -> str:
    try:
        payload = json.loads(data)
        message = payload["error"]["message"] if isinstance(payload.get("error"), dict) else payload.get("error")
    except (ValueError, AttributeError, KeyError, TypeError):
        message = None
    text = str(message) if message else data[:200].decode("utf-8", "replace")
    return " ".join(text.split())[:300] or "(no message)"


def preload() -> None:
    """Import the answer type and both HTTP clients ahead of the first request."""
    import aiohttp  # noqa: F401
    import httpx  # noqa: F401
    from openai.types.chat import ChatCompletion  # noqa: F401


def env_proxy(url: str) -> str | None:
    """The proxy the environment asks for to reach `url` (HTTP(S)_PROXY unless NO_PROXY matches)."""
    from urllib.parse import urlsplit
    from urllib.request import getproxies, proxy_bypass

    parts = urlsplit(url)
    if not parts.hostname or proxy_bypass(parts.hostname):
        return None
    return getproxies().get(parts.scheme)


class SyncClient:
    """httpx, one pooled client per engine and process."""

    def __init__(self, endpoint: Endpoint) -> None:
        import httpx

        self.endpoint = endpoint
        self._httpx = httpx
        self._client = httpx.Client(timeout=httpx.Timeout(endpoint.timeout), headers=endpoint.headers)

    def post(self, kwargs: dict[str, Any], model: str, timeout: float | None = None) -> Any:
        """`timeout`: a shorter limit for this request (what the turn's deadline leaves)."""
        httpx = self._httpx
        limit = min(self.endpoint.timeout, timeout) if timeout is not None else self.endpoint.timeout
        try:
            r = self._client.post(self.endpoint.url, content=request_body(kwargs, model), timeout=httpx.Timeout(limit))
        except httpx.TimeoutException as e:
            raise TimeoutError(f"no answer within {limit:.3g} s") from e
        except httpx.TransportError as e:
            raise ModelConnectionError(f"{type(e).__name__}: {e}") from e
        return parse_response(r.status_code, r.headers, r.content)

    def close(self) -> None:
        self._client.close()


class AsyncClient:
    """aiohttp, one session per event loop (its connections belong to the loop that opened them).

    The session closes itself when the loop shuts down (asyncio.run and asyncio.Runner finalize
    live async generators, and one of them guards the session), so an app that never calls
    aclose() gets no "Unclosed client session" noise. A loop closed without that step (a
    hand-made loop) needs `await engine.aclose()` (or MemoryPipeline.aclose) first.
    """

    def __init__(self, endpoint: Endpoint, on_close: Callable[[], None]) -> None:
        import aiohttp

        self.endpoint = endpoint
        self._on_close = on_close
        self._aiohttp = aiohttp
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=MAX_CONNECTIONS),
            headers=endpoint.headers,
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=endpoint.timeout, sock_read=endpoint.timeout),
        )
        # HTTPS_PROXY / NO_PROXY, as the SDK honours them; looked up once (aiohttp's trust_env
        # looks them up in a thread on every request).
        self._proxy = env_proxy(endpoint.url)
        self._guard = self._close_at_shutdown()
        self._started = False

    async def _close_at_shutdown(self) -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            self._on_close()  # forget this loop: the client holds it, and loops come and go
            await self._session.close()

    async def post(self, kwargs: dict[str, Any], model: str, timeout: float | None = None) -> Any:
        """`timeout`: a limit on this whole request (what the turn's deadline leaves)."""
        if not self._started:  # register the guard with the running loop's async-generator hooks
            self._started = True
            await self._guard.__anext__()
        aiohttp = self._aiohttp
        extra = {} if timeout is None else {"timeout": aiohttp.ClientTimeout(
            total=timeout, sock_connect=self.endpoint.timeout, sock_read=self.endpoint.timeout)}
        limit = self.endpoint.timeout if timeout is None else min(self.endpoint.timeout, timeout)
        try:
            async with self._session.post(
                self.endpoint.url, data=request_body(kwargs, model), proxy=self._proxy, **extra
            ) as r:
                data = await r.read()
        except TimeoutError as e:  # aiohttp's timeouts subclass it
            raise TimeoutError(f"no answer within {limit:.3g} s") from e
        except aiohttp.ClientError as e:
            raise ModelConnectionError(f"{type(e).__name__}: {e}") from e
        return parse_response(r.status, r.headers, data)

    async def close(self) -> None:
        await self._guard.aclose()
        if not self._session.closed:
            await self._session.close()


class Clients:
    """The clients of one engine: a sync one, and an async one per running event loop; a forked
    child (an app that forks after using the engine) builds its own instead of sharing the
    parent's sockets."""

    def __init__(self, *, api_key: str | None, api_base: str | None, timeout: float) -> None:
        self._settings = (api_key, api_base, timeout)  # resolved against the env on first use
        self._pid = os.getpid()
        self._sync: SyncClient | None = None
        self._async: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncClient] = weakref.WeakKeyDictionary()

    def _own_process(self) -> None:
        if self._pid != os.getpid():
            self._pid = os.getpid()
            self._sync = None
            self._async = weakref.WeakKeyDictionary()

    def _endpoint(self) -> Endpoint:
        return Endpoint.resolve(*self._settings)

    def sync(self) -> SyncClient:
        self._own_process()
        if self._sync is None:
            self._sync = SyncClient(self._endpoint())
        return self._sync

    def current(self) -> AsyncClient:
        self._own_process()
        loop = asyncio.get_running_loop()
        client = self._async.get(loop)
        if client is None:
            client = self._async[loop] = AsyncClient(self._endpoint(), lambda: self._forget(loop))
        return client

    def _forget(self, loop: asyncio.AbstractEventLoop) -> None:
        self._async.pop(loop, None)

    async def aclose(self) -> None:
        client = self._async.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    def close(self) -> None:
        client, self._sync = self._sync, None
        if client is not None:
            client.close()

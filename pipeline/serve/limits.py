"""Request limits: the body size (413, checked before the body is parsed, also for bodies sent
without a Content-Length) and, for turns, messages per turn and characters per message (422);
and no redirect of a request that changes something (NoWriteRedirects)."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from pipeline.errors import MemrouteError
from pipeline.serve.config import Limits
from pipeline.serve.errors import ApiError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _TooLarge(MemrouteError):
    """Raised into the app when a body outgrows the limit while it is read (the 413 is already out)."""


class BodyLimit:
    """ASGI middleware: a body over `max_bytes` is answered 413 body_too_large, never read whole."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.max_bytes:
                    await self._reject(send)
                    return
        seen = 0
        started = rejected = False

        async def counted_receive() -> Message:
            nonlocal seen, started, rejected
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    # Answer now: the framework turns an error while reading into its own 400.
                    if not started:
                        await self._reject(send)
                    started = rejected = True
                    raise _TooLarge
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if rejected:
                return  # the 413 is out; what the app answers after it goes nowhere
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except _TooLarge:
            pass

    async def _reject(self, send: Send) -> None:
        body = json.dumps({"error": {"code": "body_too_large",
                                     "message": f"the request body is over {self.max_bytes:,} bytes"}}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


SAFE_METHODS = ("GET", "HEAD")
_REDIRECTS = (301, 302, 307, 308)


class NoWriteRedirects:
    """ASGI middleware: a DELETE, POST, PUT or PATCH is never redirected. The router would answer
    `DELETE /v1/users/tess/` with 307 to `DELETE /v1/users/tess` (one slash less: the whole user),
    and a client that follows redirects would erase what it never named. Such an answer becomes
    404 not_found; a 303 (after a form: "now GET this page") is kept, it never repeats the method."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        refused = False

        async def checked_send(message: Message) -> None:
            nonlocal refused
            if message["type"] == "http.response.start" and message["status"] in _REDIRECTS:
                refused = True
                body = json.dumps({"error": {"code": "not_found", "message": (
                    f"no route {scope['method']} {scope.get('path', '')} (a request that changes "
                    "something is never redirected)")}}).encode()
                await send({"type": "http.response.start", "status": 404,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
            if not refused:
                await send(message)

        await self.app(scope, receive, checked_send)


def message_chars(message: Any) -> int:
    """Characters of a chat message's text (a string, or the text of OpenAI content parts)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(len(p.get("text") or "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return 0


def check_turn(messages: list[Any], limits: Limits) -> None:
    if len(messages) > limits.max_messages:
        raise ApiError(422, "too_many_messages",
                       f"{len(messages)} messages in one turn: at most {limits.max_messages} are accepted")
    for i, message in enumerate(messages):
        chars = message_chars(message)
        if chars > limits.max_message_chars:
            raise ApiError(422, "message_too_long",
                           f"messages[{i}] has {chars:,} characters: at most {limits.max_message_chars:,} are accepted")


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _surrogate_path(value: Any, path: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """Where in a parsed JSON value a string holds a lone surrogate (None: nowhere)."""
    if isinstance(value, str):
        return path if _SURROGATE_RE.search(value) else None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _surrogate_path(k, (*path, "<key>")) or _surrogate_path(v, (*path, k))
            if found is not None:
                return found
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _surrogate_path(v, (*path, i))
            if found is not None:
                return found
    return None


class NoLoneSurrogates:
    """ASGI middleware: a JSON body whose strings hold a lone surrogate ("\\ud800", which no UTF-8
    text can carry) is answered 422 invalid_request on every route, as the hot path's parser does,
    before anything is stored (not a 500 from the database or the file write)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        content_type = dict(scope.get("headers", ())).get(b"content-type", b"").split(b";")[0].strip().lower()
        if content_type != b"application/json":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            more = bool(message.get("more_body"))
        body = b"".join(chunks)
        if b"\\u" in body.lower():  # a surrogate reaches a JSON string only as an escape
            try:
                where = _surrogate_path(json.loads(body))
            except ValueError:
                where = None  # not JSON: the route answers that itself
            if where is not None:
                from pipeline.serve.errors import invalid_request

                errors = [{"loc": ("body", *where), "msg": "text holds a lone surrogate (not valid Unicode)",
                           "type": "unicode_surrogate"}]
                await invalid_request(errors)(scope, receive, send)
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

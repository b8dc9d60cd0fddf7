"""Request limits: the body size (413, checked before the body is parsed, also for bodies sent
without a Content-Length) and, for turns, messages per turn and characters per message (422)."""

from __future__ import annotations

import json
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

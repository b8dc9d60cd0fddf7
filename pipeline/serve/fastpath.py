"""The hot path, POST /v1/users/{user}/turns (202), answered below the framework's routing and
dependency machinery, which cost about half of the server's CPU a turn. Tokens and tenancy, the
body's schema, then the one accept path the route takes too (serve/turns.py: the turn limits, the
hook's validation), with the same answers; `?wait=...`, another content type or any other request
goes on to the app unchanged."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from starlette.responses import JSONResponse

from pipeline.serve.auth import bearer_token
from pipeline.serve.errors import ApiError, error_response, invalid_request, library_error_response
from pipeline.serve.models import TurnIn
from pipeline.serve.turns import submit_turn

if TYPE_CHECKING:
    from fastapi import FastAPI

TURNS = re.compile(r"/v1/users/([^/]+)/turns")


class FastTurns:
    def __init__(self, app: Any, api: FastAPI) -> None:
        self.app = app
        self.api = api

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        match = TURNS.fullmatch(scope["path"]) if scope["type"] == "http" and scope["method"] == "POST" else None
        headers = dict(scope["headers"]) if match else {}
        content_type = headers.get(b"content-type", b"application/json").split(b";")[0].strip().lower()
        if match is None or scope.get("query_string") or content_type != b"application/json":
            await self.app(scope, receive, send)
            return
        await self._accept(match.group(1), headers, scope, receive, send)

    async def _accept(self, user: str, headers: dict[bytes, bytes], scope: Any, receive: Any, send: Any) -> None:
        state = self.api.state
        response: JSONResponse
        try:
            token = bearer_token(headers.get(b"authorization", b"").decode("latin-1"))
            user = state.tenancy.check_user(state.tenancy.grant(token), user)
            body = await _body(receive)
            turn_id = await submit_turn(state.hook, state.config, user, TurnIn.model_validate_json(body))
            response = JSONResponse({"turn_id": turn_id, "status": "queued"}, status_code=202)
        except ApiError as e:
            response = error_response(e.status, e.code, e.message, headers=e.headers, details=e.details)
        except ValidationError as e:
            response = invalid_request(e.errors(), prefix=("body",))
        except Exception as e:
            mapped = library_error_response(e)
            if mapped is None:
                raise
            response = mapped
        await response(scope, receive, send)


async def _body(receive: Any) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)

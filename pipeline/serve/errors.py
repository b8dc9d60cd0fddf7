"""Every error the API answers is JSON `{"error": {"code": ..., "message": ...}}` with a stable
code a client can branch on (the codes are listed in CODES and in the docs page). memroute's own
errors answer with the status and code their family gives (pipeline/errors.py: http_status,
error_code), the one mapping the CLI's exit codes come from too."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from pipeline.errors import MemrouteError, error_code, http_status

log = logging.getLogger("memroute.serve")

CODES = {
    "invalid_host": "a server without tokens answers loopback host names only (400)",
    "unauthorized": "no bearer token, or one the server does not know (401)",
    "user_not_found": "no such user, or one outside the token's users (404: the two are not told apart)",
    "forbidden": "the token may not read this: /metrics needs an admin token (403)",
    "not_found": "no such route or item (404)",
    "method_not_allowed": "the route exists, the method does not (405)",
    "body_too_large": "the request body is over the server's limit (413)",
    "too_many_messages": "more messages in one turn than the server accepts (422)",
    "message_too_long": "a message has more characters than the server accepts (422)",
    "invalid_request": "the body or the query does not match the schema (422)",
    "invalid_user_id": "the user id cannot be a folder name under the root (422)",
    "invalid_turn": "the messages or the timestamp cannot be a turn (422)",
    "invalid_tool_call": "a memory tool call whose words are off: action, target, content, old_text (422)",
    "nothing_to_forget": "a forget request that is empty or too short to match safely (422)",
    "blocked": "the guards refused the content (422)",
    "model_not_configured": "the model cannot be called as configured, e.g. no API key (422)",
    "over_cap": "the file would go over its cap; nothing was changed (409)",
    "conflict": "the file cannot be rewritten as it is, or the change matched several items (409)",
    "model_error": "the model failed (down, too slow, or its answers never validated) (502)",
    "queue_full": "too many turns waiting; nothing was stored: retry after Retry-After seconds (503)",
    "shutting_down": "the server is stopping; nothing was stored (503)",
    "busy": "turns are still being applied; nothing was done: retry after Retry-After seconds (503)",
    "store_error": "the store failed or cannot be reached; nothing was done (503)",
    "internal_error": "the server failed; the turn or change was not acknowledged (500)",
}


class ErrorDetail(BaseModel):
    code: str
    message: str
    details: Any = None


class ErrorBody(BaseModel):
    error: ErrorDetail


class ApiError(Exception):
    """An answer the API gives as an error: status, stable code, message (the HTTP layer's own; the
    library's errors are MemrouteError, answered by family)."""

    def __init__(self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None,
                 details: Any = None) -> None:
        assert code in CODES, code
        super().__init__(message)
        self.status, self.code, self.message, self.headers, self.details = status, code, message, headers, details


def error_response(status: int, code: str, message: str, *, headers: dict[str, str] | None = None,
                   details: Any = None) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        body["details"] = details
    return JSONResponse({"error": body}, status_code=status, headers=headers)


def first_line(e: BaseException) -> str:
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def invalid_request(errors: Sequence[Any], prefix: tuple[str, ...] = ()) -> JSONResponse:
    """422 invalid_request for schema errors, without the offending input (an error answer should not
    echo a user's text back)."""
    details = [{"loc": [*prefix, *err.get("loc", ())], "msg": err.get("msg"), "type": err.get("type")} for err in errors]
    first = details[0] if details else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(p) for p in first["loc"])
    return error_response(422, "invalid_request", f"{where}: {first['msg']}", details=details)


def library_error_response(e: Exception) -> JSONResponse | None:
    """The answer to one of memroute's own exceptions: the status and code of its family
    (pipeline/errors.py); a server fault's message is not echoed (it can quote a turn). None: not
    memroute's (the CatchAll answers 500)."""
    if not isinstance(e, MemrouteError):
        return None
    status, code = http_status(e), error_code(e)
    if status >= 500 and status != 503:
        log.error("request failed: %s", type(e).__name__)
        return error_response(status, code, f"the server failed ({type(e).__name__})")
    return error_response(status, code, first_line(e), headers={"Retry-After": "1"} if status == 503 else None)


class CatchAll:
    """ASGI middleware: an unexpected exception becomes a 500 internal_error, logged by its type only
    (its text can quote a turn, and logs are at rest too); the server's own handler would print it whole."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        started = False

        async def tracked_send(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked_send)
        except Exception as e:
            log.error("%s %s failed: %s", scope.get("method"), scope.get("path"), type(e).__name__)
            if scope["type"] == "http" and not started:
                await error_response(500, "internal_error", f"the server failed ({type(e).__name__})")(scope, receive, send)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, e: ApiError) -> JSONResponse:
        return error_response(e.status, e.code, e.message, headers=e.headers, details=e.details)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        return invalid_request(e.errors())

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, e: StarletteHTTPException) -> JSONResponse:
        code = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}.get(
            e.status_code, "invalid_request" if e.status_code < 500 else "internal_error")
        return error_response(e.status_code, code, str(e.detail), headers=getattr(e, "headers", None))

    @app.exception_handler(MemrouteError)
    async def library_error(request: Request, e: MemrouteError) -> JSONResponse:
        response = library_error_response(e)
        assert response is not None
        return response

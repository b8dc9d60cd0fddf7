"""Bearer tokens, each bound to a set of users (or to every user: an admin token).

A request for a user outside the token's set answers 404 user_not_found, exactly as for a user
that does not exist: a token cannot be used to learn who else has memory here."""

from __future__ import annotations

import hashlib
import re
from typing import Annotated, Any

from fastapi import Depends, Request

from pipeline.serve.config import Grant
from pipeline.serve.errors import ApiError
from pipeline.store.files import validate_user_id

OPEN = Grant(users=None)  # no tokens configured (loopback only): every user


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


class Tenancy:
    def __init__(self, tokens: dict[str, Grant]) -> None:
        # Looked up by digest: the time a lookup takes says nothing about the token's characters.
        self._grants = {_digest(token): grant for token, grant in tokens.items()}

    @property
    def open(self) -> bool:
        return not self._grants

    def grant(self, token: str | None) -> Grant:
        if self.open:
            return OPEN
        grant = self._grants.get(_digest(token)) if token else None
        if grant is None:
            raise ApiError(401, "unauthorized", "a valid bearer token is required (Authorization: Bearer TOKEN)",
                           headers={"WWW-Authenticate": "Bearer"})
        return grant

    def check_user(self, grant: Grant, user_id: str) -> str:
        if not grant.allows(user_id):
            raise ApiError(404, "user_not_found", f"no user {user_id!r}")
        return validate_user_id(user_id)


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


# The header is read here rather than through fastapi.security.HTTPBearer: each level of dependency
# costs the hot path (POST .../turns) measurable CPU. The schema names the scheme (app.py).
async def caller(request: Request) -> Grant:
    """The grant of the request's token (401 when tokens are configured and it has none that is known)."""
    tenancy: Tenancy = request.app.state.tenancy
    return tenancy.grant(bearer_token(request.headers.get("authorization")))


async def tenant(user: str, request: Request) -> str:
    """The path's user, when the token may touch it (else 404, as for a user that does not exist)."""
    tenancy: Tenancy = request.app.state.tenancy
    return tenancy.check_user(tenancy.grant(bearer_token(request.headers.get("authorization"))), user)


Caller = Annotated[Grant, Depends(caller)]
Tenant = Annotated[str, Depends(tenant)]


def add_security_scheme(schema: dict[str, Any]) -> dict[str, Any]:
    """Bearer auth in the OpenAPI schema, on every /v1 operation (client generators read it)."""
    schema.setdefault("components", {}).setdefault("securitySchemes", {})["bearer"] = {
        "type": "http", "scheme": "bearer", "description": "a token from the server's token file"}
    for path, operations in schema.get("paths", {}).items():
        if path.startswith("/v1/"):
            for operation in operations.values():
                operation["security"] = [{"bearer": []}]
    return schema


LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})


# A Host header as RFC 9110 has it: a name or an IPv4 address, or an IPv6 address in brackets, then
# an optional port. Nothing else ("localhost:80@evil.example", "localhost.evil.example").
_HOST_RE = re.compile(r"(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(?P<port>[0-9]{1,5}))?")


def loopback_host(host: str) -> str | None:
    """The loopback name `host` (a Host header value) is, else None: the whole header must be a
    host and port, and the host one of LOOPBACK_NAMES."""
    m = _HOST_RE.fullmatch(host.strip())
    if m is None:
        return None
    name = m.group("name").lower()
    return name if name in LOOPBACK_NAMES else None


class LoopbackHostOnly:
    """ASGI middleware for a server without tokens (loopback only): a request whose Host header is
    not a loopback name is refused (400 invalid_host). Without it a web page could rebind its own
    domain to 127.0.0.1 and read the memory of whoever opened it (DNS rebinding)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            host = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"), "")
            if loopback_host(host) is None:
                from pipeline.serve.errors import error_response

                response = error_response(400, "invalid_host", "this server answers loopback host names only")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

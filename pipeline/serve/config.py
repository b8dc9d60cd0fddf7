"""What a server is started with. No fastapi here: the CLI checks a configuration (and refuses
to start, exit 2) before any web machinery is imported."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import InvalidUserId, ServeConfigError
from pipeline.store.files import validate_user_id

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8750
# A bearer token shorter than this is guessable; refuse it rather than serve behind it.
MIN_TOKEN_CHARS = 16
ALL_USERS = "*"


@dataclass(frozen=True)
class Limits:
    """Per-request limits: over max_body_bytes is 413, over the others 422."""

    max_body_bytes: int = 1_048_576
    max_messages: int = 200
    max_message_chars: int = 32_000


@dataclass(frozen=True)
class Grant:
    """What one token may touch: a set of users, or every user (an admin token)."""

    users: frozenset[str] | None  # None: every user

    def allows(self, user_id: str) -> bool:
        return self.users is None or user_id in self.users

    @property
    def admin(self) -> bool:
        return self.users is None


@dataclass
class ServeConfig:
    root: Path
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    tokens: dict[str, Grant] = field(default_factory=dict)  # token -> grant; empty: no auth (loopback only)
    limits: Limits = field(default_factory=Limits)
    mcp: bool = False  # also serve MCP over streamable HTTP at /v1/users/{user}/mcp
    review: bool = True  # the review page at /review/ (pipeline/review/)
    mcp_servers_kept: int = 256  # per-user MCP servers kept running; the least recently used idle one goes
    hook_workers: int = 2
    hook_processes: int = 0  # > 0: turns run in worker processes (the server keeps its GIL)
    max_queued: int = 10_000  # turns waiting or running before POST .../turns answers 503
    wait_timeout_s: float = 30.0  # ?wait=true gives up after this long and answers 202
    review_secret: str | None = None  # the review page's CSRF key (else one kept in the root): share it across hosts
    otlp_endpoint: str | None = None  # send traces to this OTLP/HTTP collector (memroute[otel]); None: no traces

    def check(self) -> None:
        """Refuse to serve beyond this machine without tokens."""
        if not self.tokens and not is_loopback(self.host):
            raise ServeConfigError(
                f"--host {self.host} is reachable from other machines: configure tokens first "
                "(--tokens FILE or MEMROUTE_SERVE_TOKENS), or serve on 127.0.0.1"
            )
        if not 0 <= self.port <= 65535:
            raise ServeConfigError(f"--port {self.port} is not a TCP port")
        if self.otlp_endpoint is not None:
            from pipeline.observe.tracing import traces_url

            try:
                traces_url(self.otlp_endpoint)
            except ValueError as e:
                raise ServeConfigError(str(e)) from None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve anywhere


def parse_tokens(text: str, source: str = "tokens") -> dict[str, Grant]:
    """One token per line: `TOKEN user1,user2` or `TOKEN *` (every user); `#` starts a comment."""
    grants: dict[str, Grant] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        where = f"{source} line {number}"
        if len(parts) != 2:
            raise ServeConfigError(f"{where}: expected 'TOKEN USER[,USER...]' or 'TOKEN *'")
        token, users_text = parts[0], parts[1].strip()
        if len(token) < MIN_TOKEN_CHARS:
            raise ServeConfigError(f"{where}: a token needs at least {MIN_TOKEN_CHARS} characters")
        if token in grants:
            raise ServeConfigError(f"{where}: the same token appears twice")
        if users_text == ALL_USERS:
            grants[token] = Grant(users=None)
            continue
        users = [u.strip() for u in users_text.split(",") if u.strip()]
        try:
            grants[token] = Grant(users=frozenset(validate_user_id(u) for u in users))
        except InvalidUserId as e:
            raise ServeConfigError(f"{where}: {e}") from None
    return grants


def read_tokens(path: str | Path) -> dict[str, Grant]:
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ServeConfigError(f"cannot read tokens from {path}: {getattr(e, 'strerror', None) or e}") from None
    grants = parse_tokens(text, source=str(path))
    if not grants:
        raise ServeConfigError(f"{path} holds no token")
    return grants

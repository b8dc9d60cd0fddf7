"""The MCP server (official `mcp` SDK): tools `remember` (free text, routed like a chat turn),
`memory` (the Hermes Agent memory tool), `recall`, `profile` and `forget`, and the two files as
resources, for one user. A tool whose answer is a refusal (blocked by a guard, over a cap, a bad
argument, nothing to forget) answers `isError: true`, with the same JSON in structured content.

`memroute mcp --user U` runs it over stdio; `memroute serve --mcp` serves it over streamable HTTP
at /v1/users/{user}/mcp, one server per user, behind the same tokens and tenancy as the API."""

from __future__ import annotations

import asyncio
import json
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from pydantic import Field

from pipeline.errors import MemrouteError, http_status
from pipeline.serve.config import Limits
from pipeline.serve.errors import ApiError
from pipeline.serve.limits import check_turn
from pipeline.serve.profile import profile_view

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from pipeline.core import MemoryPipeline

INSTRUCTIONS = (
    "Long-term memory about the user, kept in two small files: USER.md (a stable profile: who they are, "
    "preferences, constraints) and MEMORY.md (a dated log of events and projects). Read them at the start "
    "(resources memroute://USER.md and memroute://MEMORY.md, or the profile tool). To save what the user said, "
    "call remember with their words: memroute decides what is durable and where it goes. To edit an entry "
    "exactly, use the memory tool (add/replace/remove, target user or memory); never save passwords, health or "
    "financial data, or one-off moods. When a file is full the answer lists current_entries: replace or remove "
    "some, then retry."
)
Action = Literal["add", "replace", "remove"]
Target = Literal["user", "memory"]
Section = Literal["Identity", "Preferences", "Constraints", "Working style", "Goals"]


def _answer(payload: dict[str, Any]) -> CallToolResult:
    """A tool's JSON answer; `isError` when it says the call did not do what was asked."""
    refused = payload.get("success") is False
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(payload, ensure_ascii=False, default=str))],
        structured_content=payload,
        is_error=bool(refused),
    )


Answer = Annotated[CallToolResult, dict[str, Any]]


def _refusal(e: Exception) -> dict[str, Any]:
    """A client mistake as a tool answer the agent can read (the Hermes shape), not a protocol error."""
    message = str(e).splitlines()[0] if str(e) else type(e).__name__
    return {"success": False, "error": message}


def _file_for_model(pipe: MemoryPipeline, user_id: str, name: str) -> str:
    """A file as a resource: as `context()` shows it, each line the load scan flags replaced by a marker."""
    text: str = pipe.for_model(pipe.show(user_id)[name])
    return text


def build_mcp(pipe_of: Callable[[], MemoryPipeline], user_id: str, limits: Limits | None = None) -> MCPServer:
    """An MCP server bound to one user; `pipe_of` returns the (shared) pipeline when a call arrives.
    `limits`: the server's request limits (`remember` obeys the characters per message of POST /turns)."""
    limits = limits or Limits()
    from pipeline import __version__
    from pipeline.integrations.remember import DESCRIPTION as REMEMBER_DESCRIPTION
    server: MCPServer = MCPServer("memroute", instructions=INSTRUCTIONS, version=__version__)

    async def call(fn: Callable[[], Any]) -> Any:
        """Every tool's answer reaches the agent through the load scan (pipe.for_model, as context() does)."""
        try:
            return await anyio.to_thread.run_sync(lambda: pipe_of().for_model(fn()))
        except MemrouteError as e:
            if http_status(e) >= 500:  # the server's fault, not the agent's: a protocol error
                raise
            return _refusal(e)  # usage, not found, conflict: the agent can read it and act

    @server.tool(description=REMEMBER_DESCRIPTION)
    async def remember(
        text: Annotated[str, Field(description="what the user said, in their words", min_length=1)],
        timestamp: Annotated[str | None, Field(
            description="when they said it, ISO 8601 (default: now); dates like 'yesterday' count from it")] = None,
    ) -> Answer:
        from pipeline.integrations.remember import remember as route

        try:  # the same check as POST /turns: a text over the server's limit is refused, not routed
            check_turn([{"role": "user", "content": text}], limits)
        except ApiError as e:
            return _answer({"success": False, "error": e.message, "code": e.code})
        result: dict[str, Any] = await call(lambda: route(pipe_of(), user_id, text, timestamp=timestamp))
        return _answer(result)

    @server.tool(description=(
        "Edit the user's memory exactly (same as the Hermes Agent memory tool). action: add | replace | remove. "
        "target: user (USER.md profile; content 'Key: value') or memory (MEMORY.md log; content "
        "'[YYYY-MM-DD] text', or [YYYY-MM] / [YYYY] when only a month or year is known; date optional). replace and remove take old_text, a unique part of the entry."))
    async def memory(
        action: Action,
        target: Target,
        content: str | None = None,
        old_text: str | None = None,
        section: Annotated[Section | None, Field(description="USER.md section for add (default: Identity)")] = None,
    ) -> Answer:
        result: dict[str, Any] = await call(
            lambda: pipe_of().tool(user_id, action, target, content, old_text, section))
        return _answer(result)

    @server.tool(description="Search the user's memory: both files, facts waiting for confirmation and the archive "
                             "of what left them. All words must appear (any case).")
    async def recall(query: str, k: Annotated[int, Field(ge=1, le=100)] = 5) -> Answer:
        hits = await call(lambda: pipe_of().recall(user_id, query, k=k))
        return _answer(hits if isinstance(hits, dict) else {"hits": hits})

    @server.tool(description="The user's profile: both files with their usage against the caps, and each field "
                             "and entry with where it came from.")
    async def profile() -> Answer:
        def view_of() -> dict[str, Any]:
            pipe = pipe_of()
            pipe.wait_for_turns(user_id)  # the turns this server accepted for the user are in the answer
            return profile_view(pipe, user_id).model_dump()

        view = await call(view_of)
        return _answer(dict(view))

    @server.tool(description="Forget a USER.md key (e.g. 'Email') or any text in USER.md and MEMORY.md. "
                             "purge=true also erases every stored copy (history, archive, logs).")
    async def forget(key_or_text: str, purge: bool = False) -> Answer:
        result: dict[str, Any] = await call(lambda: pipe_of().forget(user_id, key_or_text, purge=purge))
        return _answer(result)

    @server.resource("memroute://USER.md", name="USER.md", mime_type="text/markdown",
                     description="The user's profile (stable facts and preferences)")
    async def user_md() -> str:
        return await anyio.to_thread.run_sync(lambda: _file_for_model(pipe_of(), user_id, "user_md"))

    @server.resource("memroute://MEMORY.md", name="MEMORY.md", mime_type="text/markdown",
                     description="The user's dated log (events, projects, decisions)")
    async def memory_md() -> str:
        return await anyio.to_thread.run_sync(lambda: _file_for_model(pipe_of(), user_id, "memory_md"))

    return server


def run_stdio(pipe: MemoryPipeline, user_id: str) -> None:
    """Serve one user over stdin/stdout until the client closes them."""
    build_mcp(lambda: pipe, user_id).run("stdio")


class McpServers:
    """One streamable-HTTP MCP server per user, made on first use; each one's session manager runs
    in the app's task group. At most `keep` of them stay: the least recently used idle one is
    stopped to make room (it is made again when its user comes back)."""

    def __init__(self, pipe_of: Callable[[], MemoryPipeline], host: str, keep: int = 256,
                 limits: Limits | None = None) -> None:
        self._pipe_of = pipe_of
        self._host = host
        self._limits = limits or Limits()
        self._keep = keep
        self._servers: OrderedDict[str, tuple[MCPServer, anyio.CancelScope]] = OrderedDict()
        self._busy: Counter[str] = Counter()  # requests in flight per user: a busy server is never stopped
        self._lock = asyncio.Lock()
        self._tg: TaskGroup | None = None

    def start(self, tg: TaskGroup) -> None:
        self._tg = tg

    def __len__(self) -> int:
        return len(self._servers)

    async def handle(self, user_id: str, scope: Any, receive: Any, send: Any) -> None:
        """Answer one MCP request of `user_id` with that user's server."""
        self._busy[user_id] += 1
        try:
            server = await self._for_user(user_id)
            await server.session_manager.handle_request(scope, receive, send)
        finally:
            self._busy[user_id] -= 1
            if not self._busy[user_id]:
                del self._busy[user_id]

    async def _for_user(self, user_id: str) -> MCPServer:
        async with self._lock:
            if user_id in self._servers:
                self._servers.move_to_end(user_id)
                return self._servers[user_id][0]
            assert self._tg is not None, "McpServers used before the app started"
            for old in list(self._servers):
                if len(self._servers) < self._keep:
                    break
                if not self._busy[old]:
                    self._servers.pop(old)[1].cancel()
            server = build_mcp(self._pipe_of, user_id, self._limits)
            # Loopback: the SDK turns on its DNS-rebinding protection for this host.
            server.streamable_http_app(stateless_http=True, host=self._host)
            scope = anyio.CancelScope()
            started = anyio.Event()

            async def run(srv: MCPServer = server) -> None:
                with scope:
                    async with srv.session_manager.run():
                        started.set()
                        await anyio.sleep_forever()

            self._tg.start_soon(run)
            await started.wait()
            self._servers[user_id] = (server, scope)
            return server

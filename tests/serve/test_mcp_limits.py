"""MCP `remember` over HTTP obeys the server's characters-per-message limit, as POST /turns does
(422 message_too_long there; here a refusal the agent reads, isError with the same code), and
writes nothing; a text at the limit is routed. Both call the one check (serve/limits.check_turn)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from servers import free_port, running, serve_argv

pytest.importorskip("mcp")
pytest.importorskip("fastapi")

from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp_types import CallToolResult  # noqa: E402

from pipeline import MemoryPipeline  # noqa: E402
from pipeline.serve import limits as serve_limits  # noqa: E402
from pipeline.serve import mcp_server  # noqa: E402
from pipeline.serve.config import Limits  # noqa: E402

TS = "2026-07-30T10:00:00Z"


def call(server: Any, name: str, args: dict[str, Any]) -> CallToolResult:
    answer = asyncio.run(server.call_tool(name, args))
    assert isinstance(answer, CallToolResult)
    return answer


def long_text(chars: int) -> str:
    base = "I'm a nurse in Lyon. "
    return (base * (chars // len(base) + 1))[:chars]


def test_remember_over_http_is_refused_over_the_servers_limit_like_post_turns(tmp_path: Path) -> None:
    import httpx2

    root, port = tmp_path / "root", free_port()
    with running(serve_argv(root, port, "--mcp", "--max-message-chars", "500"), tmp_path / "home", port) as url:
        turn = httpx.post(f"{url}/v1/users/ivy/turns", json={"messages": [{"role": "user", "content": long_text(501)}]})
        assert turn.status_code == 422 and turn.json()["error"]["code"] == "message_too_long"
        answers: list[Any] = []

        async def main() -> None:
            async with httpx2.AsyncClient(timeout=60) as http, \
                    streamable_http_client(f"{url}/v1/users/ivy/mcp", http_client=http) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                answers.append(await session.call_tool("remember", {"text": long_text(501), "timestamp": TS}))
                answers.append(await session.call_tool("remember", {"text": long_text(500), "timestamp": TS}))

        asyncio.run(main())
        over, at = answers
        data = over.structured_content or json.loads(over.content[0].text)
        assert over.is_error is True and data["success"] is False and data["code"] == "message_too_long"
        assert "501" in data["error"] and "500" in data["error"]
        assert at.is_error is False, at
        assert json.loads(at.content[0].text)["stored"]
    with MemoryPipeline(root=root) as pipe:
        assert len(pipe.store.turns("ivy")) == 1  # only the text at the limit was routed


def test_the_default_limit_is_the_servers_32000_characters(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path) as pipe:
        server = mcp_server.build_mcp(lambda: pipe, "ivy")
        over = call(server, "remember", {"text": long_text(32_001)})
        assert over.is_error and (over.structured_content or {})["code"] == "message_too_long"
        assert pipe.store.turns("ivy") == [] and not (tmp_path / "ivy").exists()


def test_remember_and_post_turns_call_the_one_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = serve_limits.check_turn

    def spy(messages: list[Any], limits: Limits) -> None:
        seen.append(limits.max_message_chars)
        real(messages, limits)

    monkeypatch.setattr(mcp_server, "check_turn", spy)
    with MemoryPipeline(root=tmp_path) as pipe:
        server = mcp_server.build_mcp(lambda: pipe, "ivy", Limits(max_message_chars=50))
        assert call(server, "remember", {"text": long_text(51)}).is_error
    assert seen == [50]  # over HTTP the server's own limits are the ones given (the test above)

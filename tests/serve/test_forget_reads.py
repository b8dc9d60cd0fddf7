"""After a forget, the value never comes back through a read: `recall` (CLI, HTTP, MCP), `context`, the
profile. A forget without --purge keeps the change in history; --purge still erases every copy."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from servers import MEMROUTE, bytes_under, env, free_port, running, serve_argv

mcp = pytest.importorskip("mcp")

from tests.serve.test_mcp import result, stdio_session  # noqa: E402


def cli(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MEMROUTE, *argv], env=env(home), capture_output=True, text=True, timeout=120)


def recall(home: Path, root: Path, user: str, query: str) -> list[dict[str, Any]]:
    done = cli(home, "recall", user, query, "--root", str(root), "--json")
    assert done.returncode == 0, done.stderr
    hits: list[dict[str, Any]] = json.loads(done.stdout)
    return hits


def say(home: Path, root: Path, user: str, text: str, day: str) -> None:
    done = cli(home, "turn", user, "--text", text, "--root", str(root), "--timestamp", f"{day}T09:00:00Z")
    assert done.returncode == 0, done.stderr


def test_forget_then_recall_returns_nothing_through_the_cli_http_and_mcp(tmp_path: Path) -> None:
    root, home = tmp_path / "root", tmp_path / "home"
    say(home, root, "ana", "I live in Lyon.", "2026-07-01")
    assert [h["text"] for h in recall(home, root, "ana", "Lyon")] == ["Location: Lyon"]
    forgot = cli(home, "forget", "ana", "Lyon", "--root", str(root))
    assert forgot.returncode == 0, forgot.stderr
    assert recall(home, root, "ana", "Lyon") == []
    assert cli(home, "history", "ana", "--root", str(root)).stdout.count("Lyon") >= 1  # the change is on record

    port = free_port()
    with running(serve_argv(root, port), home, port) as url, httpx.Client(base_url=url, timeout=30) as http:
        assert http.get("/v1/users/ana/recall", params={"q": "Lyon"}).json()["hits"] == []
        assert "Lyon" not in http.get("/v1/users/ana/context").json()["context"]
        assert "Lyon" not in http.get("/v1/users/ana/profile").text

    async def over_mcp() -> None:
        async with stdio_session(root, home, "ana") as session:
            assert result(await session.call_tool("recall", {"query": "Lyon"}))["hits"] == []
            assert "Lyon" not in json.dumps(result(await session.call_tool("profile", {})))

    anyio.run(over_mcp)


def test_a_forget_through_mcp_hides_an_older_archived_value_too(tmp_path: Path) -> None:
    """Lyon was replaced by Paris (archived), then the user asks to forget Lyon: recall finds no Lyon, Paris stays."""
    root, home = tmp_path / "root", tmp_path / "home"
    say(home, root, "ben", "I live in Lyon.", "2026-07-01")
    say(home, root, "ben", "I live in Paris now.", "2026-07-08")
    assert any("Lyon" in h["text"] for h in recall(home, root, "ben", "Lyon"))  # the archived old value

    async def over_mcp() -> None:
        async with stdio_session(root, home, "ben") as session:
            forgot = result(await session.call_tool("forget", {"key_or_text": "Lyon"}))
            assert forgot["success"] is True and "no longer recalled" in forgot["message"], forgot
            assert result(await session.call_tool("recall", {"query": "Lyon"}))["hits"] == []

    anyio.run(over_mcp)
    assert recall(home, root, "ben", "Lyon") == []
    assert [h["text"] for h in recall(home, root, "ben", "Paris")] == ["Location: Paris"]
    # --purge still erases every copy: no byte of the value is left under the root
    purged = cli(home, "forget", "ben", "Lyon", "--purge", "--yes", "--root", str(root))
    assert purged.returncode == 0, purged.stderr
    assert not bytes_under(root, "Lyon")


def test_the_library_recall_skips_what_was_forgotten_and_keeps_what_was_not(mem: Any) -> None:
    """On both stores (files + SQLite, PostgreSQL)."""
    with mem.pipeline() as pipe:
        pipe.process_turn("cy", [{"role": "user", "content": "I'm a nurse and I live in Lyon."}],
                          timestamp="2026-07-01T09:00:00Z")
        pipe.process_turn("cy", [{"role": "user", "content": "I'm a teacher now."}], timestamp="2026-07-02T09:00:00Z")
        assert [h["source"] for h in pipe.recall("cy", "nurse")] == ["archive"]  # replaced: still recalled
        pipe.forget("cy", "Location")
        assert pipe.recall("cy", "Lyon") == [] and "Lyon" not in pipe.context("cy")
        assert [h["source"] for h in pipe.recall("cy", "nurse")] == ["archive"]  # not forgotten: still there
        assert any(c["old_value"] == "Lyon" for c in pipe.history("cy"))  # the change is on record

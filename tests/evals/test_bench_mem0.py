"""Mem0 OSS (the real `mem0ai` package) under the write benchmark, on the fake model server: its
embedded vector store and history database are searched for planted values, its calls and
tokens are counted, and `memroute eval --system mem0` runs end to end. Nothing leaves the machine."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mem0", reason="needs the mem0ai package: pip install 'memroute[bench-mem0]'")

from pipeline.evals import load_cases  # noqa: E402
from pipeline.evals.bench import run_turn  # noqa: E402
from pipeline.evals.systems import SystemSpec, system_factory  # noqa: E402
from tests.evals.bench_helpers import (  # noqa: E402
    PLANTED,
    PLANTED_CASE,
    default_elsewhere,
    unreported,
    watched,
    write_suite,
)
from tests.servers import MEMROUTE, Reply, ScriptedServer  # noqa: E402


def extract_user_lines(body: dict[str, Any]) -> Reply:
    """Mem0's extraction call answered like a model that keeps every user line as a fact."""
    prompt = body["messages"][-1]["content"]
    new = prompt.split("## New Messages\n", 1)[-1].split("\n\n## ", 1)[0]
    facts = [{"text": "User said: " + line.split(":", 1)[1].strip()}
             for line in new.splitlines() if line.startswith("user:")]
    return Reply(arguments={"memory": facts}, prompt_tokens=len(prompt) // 4, completion_tokens=25)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer(answer=extract_user_lines, embed_dims=64) as srv:
        yield srv


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp_path


def _spec(server: ScriptedServer) -> SystemSpec:
    return SystemSpec("mem0", model="openai/fake-model", api_base=server.api_base, options={"embed_dims": 64})


def test_mem0_storage_is_searched_everywhere_it_keeps_the_planted_value(sandbox: Path, server: ScriptedServer) -> None:
    case = load_cases([write_suite(sandbox / "p.jsonl", [PLANTED_CASE])])[0]
    seen: dict[str, Any] = {}
    from mem0.memory.setup import mem0_dir

    elsewhere = [*default_elsewhere(), Path(mem0_dir), Path("/tmp/qdrant")]  # Mem0's own defaults too
    record = run_turn(case, _spec(server), watched(system_factory("mem0"), elsewhere, seen))
    assert record.error is None, record.error
    files = {str(f) for f in seen.get("files", set())}
    # Mem0 keeps the turn in its vector store and, raw, in its history database's message table
    assert "history.db" in files and any(f.startswith("qdrant/") for f in files), files
    assert unreported(record, seen) == []
    wheres = {leak["where"] for leak in record.leaks}
    assert "table messages of history.db" in wheres and "the items it reports" in wheres
    assert [i.turn for i in record.made] == ["planted"]  # attributed by the metadata the adapter passes
    assert record.made[0].text == f"User said: My name is {PLANTED} and I work as a lighthouse keeper."


def test_mem0_usage_counts_chat_and_embedding_calls(sandbox: Path, server: ScriptedServer) -> None:
    case = load_cases([write_suite(sandbox / "p.jsonl", [PLANTED_CASE])])[0]
    record = run_turn(case, _spec(server), system_factory("mem0"))
    chats = server.chat_requests()
    embeds = [r for r in server.requests if r["path"].endswith("/embeddings")]
    assert (record.usage.calls, record.usage.embed_calls) == (len(chats), len(embeds)) == (1, 2)
    assert record.usage.prompt_tokens == len(chats[0]["body"]["messages"][-1]["content"]) // 4
    assert record.usage.completion_tokens == 25
    assert chats[0]["body"]["model"] == "fake-model"  # the openai/ prefix is ours, not the server's
    assert embeds[0]["body"]["dimensions"] == 64


def test_memroute_eval_system_mem0_end_to_end(sandbox: Path, server: ScriptedServer) -> None:
    suite = write_suite(sandbox / "suite.jsonl")
    out, page = sandbox / "r.json", sandbox / "r.html"
    env = {**os.environ, "HOME": str(sandbox / "home"), "TMPDIR": str(sandbox / "tmp"),
           "MEMROUTE_ALLOW_MODEL_REQUESTS": "0", "MEM0_DIR": str(sandbox / "home" / ".mem0")}
    env.pop("MEMROUTE_MODEL", None)
    proc = subprocess.run(
        [MEMROUTE, "eval", str(suite), "--system", "mem0", "--system", "memroute-offline",
         "--model", "openai/fake-model", "--api-base", server.api_base, "--embed-dims", "64",
         "--json", str(out), "--report", str(page)],
        capture_output=True, text=True, env=env, timeout=240, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    mem0, offline = report["systems"]
    assert mem0["label"] == "mem0:openai/fake-model" and offline["label"] == "memroute-offline"
    t = mem0["totals"]
    assert t["failed"] == 0 and t["calls"] == 4 and t["embed_calls"] >= 4
    assert (t["false_writes"], t["skip_turns"]) == (2, 2)  # it keeps what the label skips
    assert t["examples"]["leaks"] == ["b-secret"] and offline["totals"]["leaks"] == 0
    assert any("timestamp" in n for n in mem0["notes"])
    assert "mem0:openai/fake-model" in page.read_text(encoding="utf-8")
    # only the fake server was asked, and Mem0's own folder holds nothing of the turns
    assert all(r["path"].startswith("/v1/") for r in server.requests)
    leftovers = [p for p in (sandbox / "home").rglob("*") if p.is_file() and b"4471-0093" in p.read_bytes()]
    assert leftovers == []

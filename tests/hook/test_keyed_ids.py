"""Ids made from what a user wrote are keyed: a turn id (process_turn, the hook, the HTTP API, the
shared PostgreSQL queue) and an imported Mem0 memory's id and turn id are HMACs under the store's own
key (`store_keys` row "ids", in the 0600 database), made on first use. Trying the 10,000 PINs
against the unkeyed sha256 finds nothing; the same turn on the same store keeps its id (a replay
is still a duplicate), another store gives another id."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memory_fixture import Memory

from pipeline import MemoryPipeline, PostTurnHook
from pipeline._util import keyed
from pipeline.integrations.imports import import_mem0

TS = "2026-07-30T10:00:00+00:00"


def said(pin: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"the code for the bike shed is {pin}"}]


def unkeyed_turn_id(pin: str, conversation_id: str | None = None) -> str:
    """How turn ids were made before: a plain sha256 anyone can recompute."""
    material = json.dumps([conversation_id, TS, [(m["role"], m["content"]) for m in said(pin)]], ensure_ascii=False)
    return "t-" + hashlib.sha256(material.encode("utf-8")).hexdigest()[:20]


def keyed_turn_id(key: bytes, pin: str, conversation_id: str | None = None) -> str:
    material = json.dumps([conversation_id, TS, [(m["role"], m["content"]) for m in said(pin)]], ensure_ascii=False)
    return "t-" + keyed.keyed_id(key, material)


def test_a_turn_id_does_not_give_a_short_secret_back(mem: Memory) -> None:
    with mem.pipeline() as pipe:
        result = pipe.process_turn("ivy", said("4417"), timestamp=TS)
        key = pipe.store.secret_key(keyed.ID_KEY)
    guesses = {unkeyed_turn_id(f"{n:04d}"): f"{n:04d}" for n in range(10_000)}
    assert result.turn_id not in guesses  # the 10,000 guesses find nothing
    assert result.turn_id == keyed_turn_id(key, "4417")  # the store's key is what makes it
    assert len(key) == 32


def test_the_same_turn_keeps_its_id_on_a_store_and_not_across_stores(mem: Memory, tmp_path: Path) -> None:
    with mem.pipeline() as pipe:
        first = pipe.process_turn("ivy", said("4417"), timestamp=TS)
        again = pipe.process_turn("ivy", said("4417"), timestamp=TS)
    with mem.pipeline() as pipe:  # a restart: the key is read back, not made anew
        later = pipe.process_turn("ivy", said("4417"), timestamp=TS)
    assert first.turn_id == again.turn_id == later.turn_id
    assert again.status == later.status == "duplicate_turn"
    with MemoryPipeline(root=tmp_path / "elsewhere") as other:
        assert other.process_turn("ivy", said("4417"), timestamp=TS).turn_id != first.turn_id


def test_the_key_is_made_on_first_use_in_the_private_database(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path) as pipe:
        pipe.show("ivy")
        assert not (tmp_path / "memroute.db").exists() or not _key_rows(tmp_path)  # reads make no key
        pipe.process_turn("ivy", said("4417"), timestamp=TS)
    rows = _key_rows(tmp_path)
    assert [len(k) for n, k in rows if n == keyed.ID_KEY] == [32]
    assert os.stat(tmp_path / "memroute.db").st_mode & 0o777 == 0o600


def _key_rows(root: Path) -> list[tuple[str, bytes]]:
    import sqlite3

    with sqlite3.connect(root / "memroute.db") as conn:
        return [(str(n), bytes(k)) for n, k in conn.execute("SELECT name, key FROM store_keys")]


def test_the_hook_and_the_pipeline_give_one_turn_the_same_keyed_id(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path) as pipe:
        hook = PostTurnHook(pipe)
        queued = hook.submit("ivy", said("4417"), timestamp=TS)
        assert hook.submit("ivy", said("4417"), timestamp=TS) == queued  # a resubmission is recognised
        assert hook.close(timeout=30)
        assert queued == keyed_turn_id(pipe.store.secret_key(keyed.ID_KEY), "4417")
        assert queued != unkeyed_turn_id("4417")
        assert pipe.process_turn("ivy", said("4417"), timestamp=TS).status == "duplicate_turn"


def test_the_http_api_answers_the_keyed_id(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from pipeline.serve.app import create_app
    from pipeline.serve.config import ServeConfig

    with TestClient(create_app(ServeConfig(root=tmp_path)), base_url="http://127.0.0.1") as client:
        answer = client.post("/v1/users/ivy/turns", json={"messages": said("4417"), "timestamp": TS})
        assert answer.status_code == 202
        turn_id = answer.json()["turn_id"]
    with MemoryPipeline(root=tmp_path) as pipe:
        assert turn_id == keyed_turn_id(pipe.store.secret_key(keyed.ID_KEY), "4417") != unkeyed_turn_id("4417")


def test_the_shared_postgresql_queue_keys_with_the_databases_key(pg_dsn: str) -> None:
    from pipeline.hook.worker import submit
    from pipeline.store.postgres.store import PostgresStore

    with PostgresStore(pg_dsn) as store:
        turn_id = submit(store.queue(), "ivy", said("4417"), timestamp=TS)
        assert turn_id == keyed_turn_id(store.secret_key(keyed.ID_KEY), "4417") != unkeyed_turn_id("4417")
    with PostgresStore(pg_dsn) as again:  # another process or host on the same database: the same id
        assert submit(again.queue(), "ivy", said("4417"), timestamp=TS) == turn_id


def test_imported_memories_without_an_id_get_keyed_ids_and_import_once(tmp_path: Path) -> None:
    export = [{"memory": "Locker code is 4417", "user_id": "ivy"},
              {"memory": "Works as a pharmacist", "user_id": "ivy", "created_at": "2026-01-10T10:00:00Z"},
              {"id": "m-3", "memory": "Lives in Hobart", "user_id": "ivy"}]
    with MemoryPipeline(root=tmp_path) as pipe:
        first = import_mem0(pipe, export)
        again = import_mem0(pipe, export)
        turn_ids = [str(r["turn_id"]) for r in pipe.store.turns("ivy")]
    ids = [r["id"] for r in first["report"]]
    assert ids[2] == "m-3" and all(i.startswith("k-") for i in ids[:2])
    for row in export[:2]:
        unkeyed = hashlib.sha256(str(row["memory"]).encode()).hexdigest()[:16]
        assert unkeyed not in json.dumps(first) and not any(unkeyed in t for t in turn_ids)
    assert [r["id"] for r in again["report"]] == ids  # stable: the second import changes nothing
    assert all(r.get("already_imported") for r in again["report"] if r.get("said_as"))
    assert all(t.startswith("import-mem0-") for t in turn_ids if t.startswith("import-"))


@pytest.mark.parametrize("door", ["process_turn", "hook", "import"])
def test_every_door_makes_its_ids_with_the_one_keyed_helper(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, door: str) -> None:
    seen: list[str] = []
    real = keyed.keyed_id

    def spy(key: bytes, material: str, length: int = 20) -> str:
        seen.append(material)
        return real(key, material, length)

    import pipeline.integrations.imports as imports
    import pipeline.turns as turns

    monkeypatch.setattr(turns, "keyed_id", spy)
    monkeypatch.setattr(imports, "keyed_id", spy)
    def through_hook(p: MemoryPipeline) -> None:
        hook = PostTurnHook(p)
        hook.submit("ivy", said("4417"), timestamp=TS)
        assert hook.close(timeout=30)

    runs: dict[str, Callable[[MemoryPipeline], Any]] = {
        "process_turn": lambda p: p.process_turn("ivy", said("4417"), timestamp=TS),
        "hook": through_hook,
        "import": lambda p: import_mem0(p, [{"memory": "Locker code is 4417", "user_id": "ivy"}]),
    }
    with MemoryPipeline(root=tmp_path) as pipe:
        runs[door](pipe)
    assert any("4417" in m for m in seen)


def test_batch_ids_made_from_a_line_are_keyed_and_a_rerun_still_finds_them(tmp_path: Path) -> None:
    import subprocess

    from servers import MEMROUTE, env

    lines = [json.dumps({"user_id": "ivy", "messages": said(f"{pin}")}) for pin in ("4417", "0071")]
    batch = tmp_path / "chats.jsonl"
    batch.write_text("\n".join(lines) + "\n", "utf-8")
    root = tmp_path / "root"
    argv = [MEMROUTE, "batch", str(batch), "--out", str(root), "--json"]
    first = subprocess.run(argv, env=env(tmp_path / "home"), capture_output=True, text=True, timeout=180)
    assert first.returncode == 0, first.stderr
    again = subprocess.run(argv, env=env(tmp_path / "home"), capture_output=True, text=True, timeout=180)
    assert json.loads(again.stdout)["conversations"]["skipped_already_done"] == 2  # resumed: both found done
    with MemoryPipeline(root=root) as pipe:
        key = pipe.store.secret_key(keyed.ID_KEY)
        rows = pipe.store.turns("ivy")
    unkeyed = {"line-" + hashlib.sha256(line.encode()).hexdigest()[:16] for line in lines}
    conversations = {str(r["conversation_id"]) for r in rows}
    assert conversations and not conversations & unkeyed
    assert conversations == {"line-" + keyed.keyed_id(key, u, 16) for u in unkeyed}
    assert all(str(r["turn_id"]).startswith("b-") for r in rows)

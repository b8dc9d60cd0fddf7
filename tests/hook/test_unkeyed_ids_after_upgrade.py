"""Turns an older version applied under its plain (unkeyed sha256) ids are still recognised after the
upgrade to keyed ids, at every door and on both stores: a turn sent again is a duplicate, a batch run
again skips the conversations it finished and does not re-run the turns of one it had begun, a
re-import imports nothing twice. The plain ids are only looked up (on a store that recorded turns
before the upgrade, `store_facts` 'unkeyed_ids'); nothing is written or returned under one anew,
and a store made after the upgrade never looks them up."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from memory_fixture import Memory

import pipeline.batch.runner as runner
import pipeline.turns as turns
from pipeline.cli import main
from pipeline.core import MemoryPipeline
from pipeline.integrations.imports import first_person, import_mem0

TS = "2026-07-30T10:00:00Z"


def plain(key: bytes, material: str, length: int = 20) -> str:
    """How ids were made before they were keyed."""
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:length]


@contextmanager
def older_version(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """memroute as it was before ids were keyed: turn ids, a batch line's conversation id and key and
    batch turn ids are plain sha256s of the words."""
    with monkeypatch.context() as m:
        m.setattr(turns, "keyed_id", plain)
        m.setattr(runner, "keyed_id", plain)
        m.setattr(runner, "keyed_conversation", lambda key, conv: conv)
        yield


def upgrade(mem: Memory) -> None:
    """The store as an older version left it (no id key, no store_facts); the next open migrates it."""
    statements = ["DELETE FROM store_keys WHERE name = 'ids'", "DROP TABLE store_facts",
                  "DELETE FROM migrations WHERE name IN ('m011_store_facts', 'p008_store_facts')"]
    if mem.dsn is None:
        with sqlite3.connect(mem.root / "memroute.db") as conn:
            for sql in statements:
                conn.execute(sql)
        return
    from pipeline.store.postgres.store import PostgresStore

    with PostgresStore(mem.dsn) as store, store.transaction() as conn:
        for sql in statements:
            conn.execute(sql)


def cli(capsys: pytest.CaptureFixture[str], mem: Memory, *argv: str, exit_code: int = 0) -> Any:
    code = main([*argv, "--json", *mem.store_args()])
    out, err = capsys.readouterr()
    assert code == exit_code, err
    return json.loads(out)


def turn_ids(mem: Memory) -> list[str]:
    return sorted(str(r["turn_id"]) for r in mem.rows("turns"))


SAYS = {  # one per language
    "ivy": "I'm Ivy, a pharmacist in Hobart.",
    "kai": "Saya Kai, seorang perawat di Bandung.",
    "ming": "我住在上海，喜欢喝乌龙茶。",
    "nok": "ฉันชอบกินข้าวมันไก่ทุกวันเสาร์",
}


def test_a_turn_applied_before_the_upgrade_is_a_duplicate_after_it(
    mem: Memory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with older_version(monkeypatch):
        before = {u: cli(capsys, mem, "turn", u, "--text", text, "--timestamp", TS) for u, text in SAYS.items()}
    assert all(r["status"] == "done" and r["turn_id"].startswith("t-") for r in before.values())
    upgrade(mem)
    files = {u: mem.read(u, "USER.md") for u in SAYS}
    ids = turn_ids(mem)

    again = {u: cli(capsys, mem, "turn", u, "--text", text, "--timestamp", TS) for u, text in SAYS.items()}
    assert {u: r["status"] for u, r in again.items()} == dict.fromkeys(SAYS, "duplicate_turn")
    assert all(again[u]["turn_id"] != before[u]["turn_id"] for u in SAYS)  # the answer carries the keyed id
    assert {u: mem.read(u, "USER.md") for u in SAYS} == files and turn_ids(mem) == ids  # nothing written

    new = cli(capsys, mem, "turn", "ivy", "--text", "I moved to Lyon last month.", "--timestamp", TS)
    assert new["status"] == "done"
    with older_version(monkeypatch):  # the plain id this turn would have had
        plain_id = turns.build_turn("ivy", [{"role": "user", "content": "I moved to Lyon last month."}],
                                    timestamp=TS, id_key=b"k" * 32).turn_id
    assert new["turn_id"] != plain_id and plain_id not in turn_ids(mem)  # new turns are keyed


def test_the_http_api_and_the_hook_recognise_a_turn_applied_before_the_upgrade(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from pipeline.serve.app import create_app
    from pipeline.serve.config import ServeConfig

    body = {"messages": [{"role": "user", "content": SAYS["kai"]}], "timestamp": TS}

    def post() -> dict[str, Any]:
        app = create_app(ServeConfig(root=mem.root), mem.pipeline)
        with TestClient(app, base_url="http://127.0.0.1") as client:
            answer = client.post("/v1/users/kai/turns?wait=true", json=body)
            assert answer.status_code == 200, answer.text
            result: dict[str, Any] = answer.json()
            return result

    with older_version(monkeypatch):
        first = post()
    assert first["status"] == "done" and first["decisions"]
    upgrade(mem)
    ids, profile = turn_ids(mem), mem.read("kai", "USER.md")
    for _ in range(2):  # and again once the queue already knows it
        again = post()
        assert again == {"turn_id": again["turn_id"], "status": "done", "decisions": []}  # applied, nothing decided now
        assert again["turn_id"] != first["turn_id"]
    assert turn_ids(mem) == ids and mem.read("kai", "USER.md") == profile


def test_the_shared_postgresql_queue_recognises_a_turn_applied_before_the_upgrade(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.hook.worker import submit
    from pipeline.store.postgres.store import PostgresStore

    mem = Memory(tmp_path, pg_dsn)
    said = [{"role": "user", "content": SAYS["ming"]}]
    with older_version(monkeypatch):
        with PostgresStore(pg_dsn) as store:
            submit(store.queue(), "ming", said, timestamp=TS)
        assert main(["worker", "--until-empty", "--json", "--store", pg_dsn]) == 0
    upgrade(mem)
    with PostgresStore(pg_dsn) as store:
        submit(store.queue(), "ming", said, timestamp=TS)
    capsys.readouterr()
    assert main(["worker", "--until-empty", "--json", "--store", pg_dsn]) == 0
    assert json.loads(capsys.readouterr().out)["duplicates"] == 1
    assert [r["status"] for r in mem.rows("turns")] == ["done"]


def _lines(tmp_path: Path, users: list[str]) -> Path:
    """A batch input whose lines carry no conversation id (each line's id is made from the line)."""
    source = tmp_path / "chats.jsonl"
    rows = [{"user_id": u, "messages": [{"role": "user", "content": SAYS[u], "timestamp": TS},
                                          {"role": "assistant", "content": "Noted."},
                                          {"role": "user", "content": "Yesterday we shipped the new checkout page.",
                                           "timestamp": TS}]} for u in users]
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return source


def test_a_batch_resumed_across_the_upgrade_skips_what_it_finished_and_reruns_no_turn(
    mem: Memory, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = ["--out", str(mem.root)] if mem.dsn is None else []
    real = MemoryPipeline.aprocess_turn

    async def second_turn_of_nok_fails(self: MemoryPipeline, user_id: str, *args: Any, **kwargs: Any) -> Any:
        if user_id == "nok" and str(kwargs.get("turn_id", "")).endswith("-1"):
            raise RuntimeError("the model went away")
        return await real(self, user_id, *args, **kwargs)

    with older_version(monkeypatch):
        monkeypatch.setattr(MemoryPipeline, "aprocess_turn", second_turn_of_nok_fails)
        first = cli(capsys, mem, "batch", str(_lines(tmp_path, ["ivy", "kai", "ming", "nok"])), "--engine", "offline",
                    *out, exit_code=1)  # a turn failed
        monkeypatch.setattr(MemoryPipeline, "aprocess_turn", real)
    assert first["conversations"]["done"] == 3 and first["conversations"]["failed"] == 1
    assert first["turns"]["done"] == 7  # nok's first turn applied, its second failed
    upgrade(mem)
    memory = {u: mem.read(u, "MEMORY.md") for u in SAYS}

    again = cli(capsys, mem, "batch", str(_lines(tmp_path, ["ivy", "kai", "ming", "nok"])), "--engine", "offline",
                *out)
    assert again["conversations"]["skipped_already_done"] == 3  # finished before the upgrade: found done
    assert again["turns"]["duplicate"] == 1 and again["turns"]["done"] == 1  # nok's first turn is not re-run
    assert {u: mem.read(u, "MEMORY.md") for u in ("ivy", "kai", "ming")} == {u: memory[u] for u in ("ivy", "kai", "ming")}
    assert len([r for r in mem.rows("turns") if r["user_id"] == "nok" and r["status"] == "done"]) == 2


def _old_import_mem0(pipe: MemoryPipeline, export: list[dict[str, str]]) -> None:
    """import-mem0 as it was before ids were keyed: a memory without an id got sha256(text)[:16],
    its turn id was a plain sha256 of user, id and text."""
    for row in export:
        item_id = row.get("id") or plain(b"", row["memory"], 16)
        turn_id = "import-mem0-" + plain(b"", f"{row['user_id']}\x00{item_id}\x00{row['memory']}", 16)
        result = pipe.process_turn(row["user_id"], [{"role": "user", "content": first_person(row["memory"])}],
                                   conversation_id="import-mem0", turn_id=turn_id)
        assert result.status == "done"


def test_a_reimport_across_the_upgrade_imports_nothing_twice(mem: Memory) -> None:
    export = [{"memory": "Works as a pharmacist", "user_id": "ivy"},
              {"id": "m-2", "memory": "Lives in Hobart", "user_id": "ivy"},
              {"memory": "Bekerja sebagai perawat", "user_id": "kai"}]
    with mem.pipeline() as pipe:
        _old_import_mem0(pipe, export)
    upgrade(mem)
    ids = turn_ids(mem)
    with mem.pipeline() as pipe:
        again = import_mem0(pipe, export)
    assert all(r.get("already_imported") for r in again["report"]), again["report"]
    assert again["user_md"] == again["memory_md"] == 0 and turn_ids(mem) == ids


def test_a_store_made_after_the_upgrade_never_looks_up_a_plain_id(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked_up: list[str] = []
    with mem.pipeline() as pipe:
        assert not pipe.store.holds_unkeyed_ids()
        real: Any = pipe.store.turn_status

        def spy(user_id: str, turn_id: str) -> str | None:
            looked_up.append(turn_id)
            status: str | None = real(user_id, turn_id)
            return status

        monkeypatch.setattr(pipe.store, "turn_status", spy)
        result = pipe.process_turn("ivy", [{"role": "user", "content": SAYS["ivy"]}], timestamp=TS)
    assert set(looked_up) == {result.turn_id}


def test_a_store_moved_after_the_upgrade_still_recognises_its_older_turns(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Memory(tmp_path / "root", None)
    with older_version(monkeypatch):
        assert cli(capsys, root, "turn", "nok", "--text", SAYS["nok"], "--timestamp", TS)["status"] == "done"
    upgrade(root)
    assert main(["export-store", pg_dsn, "--root", str(root.root)]) == 0
    capsys.readouterr()
    moved = Memory(tmp_path / "elsewhere", pg_dsn)
    assert cli(capsys, moved, "turn", "nok", "--text", SAYS["nok"], "--timestamp", TS)["status"] == "duplicate_turn"

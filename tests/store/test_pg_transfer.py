"""export-store / import-store: a root (files + SQLite) to PostgreSQL and back, losslessly."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pipeline.core import MemoryPipeline
from pipeline.errors import TransferError
from pipeline.store.postgres.store import PostgresStore
from pipeline.store.postgres.transfer import TABLES, postgres_to_root, root_to_postgres

SAYS = [
    "I'm Jasmin, a frontend engineer. I like conclusion-first answers.",
    "I moved to Lyon last month and I now work at Acme as a staff engineer.",
    "Yesterday we shipped the new checkout page for the global site.",
    "我住在上海，喜欢喝乌龙茶。",
    "ฉันชอบกินข้าวมันไก่ทุกวันเสาร์",
]


def _make_root(root: Path) -> None:
    (root / "ming").mkdir(parents=True)
    (root / "ming" / "USER.md.bak").write_bytes(b"# USER\n- Name: Ming \xff (a copy kept of a file that was not UTF-8)\n")
    with MemoryPipeline(root=root, engine="offline") as pipe:
        for i, text in enumerate(SAYS):
            pipe.process_turn("jasmin", [{"role": "user", "content": text}], turn_id=f"t{i}",
                              timestamp="2026-11-20T10:00:00+00:00")
        pipe.process_turn("ming", [{"role": "user", "content": SAYS[3]}], turn_id="m1")
        pipe.process_turn("jasmin", [{"role": "user", "content": "I'm no longer at Acme, I work at Globex now."}],
                          turn_id="t9")
        store = pipe.store
        with store.transaction() as conn:
            store.mark_turn(conn, user_id="ming", turn_id="m2", conversation_id="c", status="failed",
                            error="TimeoutError", payload={"messages": [{"role": "user", "content": "later"}]},
                            ts="2026-11-21T00:00:00+00:00")
            store.upsert_candidate(conn, user_id="ming", section="Work", key="Employer", value="Initech",
                                   quote="maybe Initech?", turn_id="m1", conversation_id=None,
                                   seen_at="2026-11-20T10:00:00+00:00")
            store.add_annotation(conn, user_id="jasmin", target="user", ref="role", kind="pin", value="",
                                 ts="2026-11-21T00:00:00+00:00")
            conn.execute(
                """INSERT INTO batch_conversations (user_id, conversation_key, conversation_id, turns, status, source,
                   updated_at) VALUES ('ming', 'k1', 'c', 2, 'done', 'in.jsonl:3', '2026-11-21T00:00:00+00:00')"""
            )
            conn.execute(
                """INSERT INTO hook_queue (user_id, turn_id, status, payload, attempts, error, owner_pid, owner,
                   submitted_at, updated_at) VALUES ('ming', 'h1', 'parked', '{"messages":[]}', 6, 'boom', 1, 'x',
                   1764000000.25, 1764000001.5)"""
            )


def _sqlite_tables(root: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(root / "memroute.db")
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY {TABLES[t]}").fetchall() for t in TABLES}
    finally:
        conn.close()


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted([*root.glob("*/*.md"), *root.glob("*/*.bak")])}


def test_a_root_goes_to_postgresql_and_back_unchanged(tmp_path: Path, pg_dsn: str) -> None:
    first, back = tmp_path / "first", tmp_path / "back"
    _make_root(first)
    before = _sqlite_tables(first)
    assert all(before[t] for t in TABLES), [t for t in TABLES if not before[t]]  # every table has rows to move
    with PostgresStore(pg_dsn) as pg:
        report = root_to_postgres(first, pg)
        assert report.users == 2 and report.rows["history"] == len(before["history"]) and report.copies == 1
        assert pg.read_documents("jasmin").user == (first / "jasmin" / "USER.md").read_text("utf-8")
        assert [h["id"] for h in pg.history("jasmin")] == [r[0] for r in before["history"] if r[1] == "jasmin"]
        assert pg.recall_archive("jasmin", "Lyon")  # the archived city is found on PostgreSQL too
        postgres_to_root(pg, back)
    assert _sqlite_tables(back) == before
    assert _files(back) == _files(first)
    with MemoryPipeline(root=back, engine="offline") as pipe:  # the copy works as a root
        assert pipe.recall("jasmin", "Lyon")


def test_copying_into_a_store_that_holds_data_is_refused_and_changes_nothing(tmp_path: Path, pg_dsn: str) -> None:
    root = tmp_path / "root"
    _make_root(root)
    with PostgresStore(pg_dsn) as pg:
        root_to_postgres(root, pg)
        history = pg.history("jasmin")
        with pytest.raises(TransferError, match="already holds data"):
            root_to_postgres(root, pg)
        assert pg.history("jasmin") == history
        with pytest.raises(TransferError, match="already holds data"):
            postgres_to_root(pg, root)


def test_a_file_that_is_not_utf8_stops_the_copy_before_anything_is_written(tmp_path: Path, pg_dsn: str) -> None:
    root = tmp_path / "root"
    _make_root(root)
    (root / "ming" / "MEMORY.md").write_bytes(b"# MEMORY\n\xff\xfe broken\n")
    with PostgresStore(pg_dsn) as pg:
        with pytest.raises(TransferError, match="not valid UTF-8"):
            root_to_postgres(root, pg)
        assert pg.history("jasmin") == [] and pg.users() == []

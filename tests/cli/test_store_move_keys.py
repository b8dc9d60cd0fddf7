"""A store moved with `memroute export-store` / `import-store` takes its own keys along (`store_keys`:
the key of ids made from what users wrote, the key of the decision log's digests), so after the move
a replayed turn is still a duplicate and a resumed batch still skips the conversations it finished,
on PostgreSQL and on the root it comes back to. A key is never printed, and on a root it lives in the
0600 database."""

from __future__ import annotations

import base64
import json
import os
import sqlite3
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.core import MemoryPipeline
from pipeline.store.postgres.store import PostgresStore

TS = "2026-07-30T10:00:00Z"
SAID = "I'm Ivy, a pharmacist in Hobart. The bike shed code is 4417."
LINES = [  # no conversation id: each line's id is made from the line, under the store's key
    {"user_id": "ivy", "messages": [{"role": "user", "content": "I moved to Lyon last month.", "timestamp": TS}]},
    {"user_id": "kai", "messages": [{"role": "user", "content": "Saya Kai, seorang perawat.", "timestamp": TS}]},
    {"user_id": "ming", "messages": [{"role": "user", "content": "我住在上海，喜欢喝乌龙茶。", "timestamp": TS}]},
    {"user_id": "nok", "messages": [{"role": "user", "content": "ฉันชอบกินข้าวมันไก่ทุกวันเสาร์", "timestamp": TS}]},
]


class Cli:
    """`memroute ...` as a user types it; every line it prints is kept, to look for the keys in."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys
        self.printed: list[str] = []

    def __call__(self, *argv: str) -> tuple[int, str]:
        code = main(list(argv))
        out, err = self.capsys.readouterr()
        self.printed += [out, err]
        assert code == 0, err
        return code, out

    def turn(self, *where: str) -> str:
        _, out = self("turn", "ivy", "--text", SAID, "--timestamp", TS, "--json", *where)
        return str(json.loads(out)["status"])

    def batch(self, source: Path, *where: str) -> dict[str, int]:
        _, out = self("batch", str(source), "--engine", "offline", "--json", *where)
        conversations: dict[str, int] = json.loads(out)["conversations"]
        return conversations


def _root_keys(root: Path) -> dict[str, bytes]:
    conn = sqlite3.connect(root / "memroute.db")
    try:
        return {str(n): bytes(k) for n, k in conn.execute("SELECT name, key FROM store_keys")}
    finally:
        conn.close()


def _pg_keys(dsn: str) -> dict[str, bytes]:
    with PostgresStore(dsn) as store:
        return {r["name"]: bytes(r["key"]) for r in store.db.rows("SELECT name, key FROM store_keys")}


def _shown_anywhere(keys: dict[str, bytes], printed: list[str]) -> list[str]:
    text = "\n".join(printed)
    forms = [f(k) for k in keys.values() for f in (bytes.hex, lambda b: base64.b64encode(b).decode(), repr)]
    return [form for form in forms if form.lower() in text.lower()]


def test_a_store_moved_to_postgresql_and_back_recognises_its_turns_and_resumes_its_batch(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, back = tmp_path / "first", tmp_path / "back"
    source = tmp_path / "chats.jsonl"
    source.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in LINES), "utf-8")
    cli = Cli(capsys)
    assert cli.batch(source, "--out", str(first))["skipped_already_done"] == 0
    assert cli.turn("--root", str(first)) == "done"
    keys = _root_keys(first)
    assert {"ids", "digest"} <= set(keys)

    _, out = cli("export-store", pg_dsn, "--root", str(first), "--json")
    assert json.loads(out)["keys"] == len(keys)
    assert _pg_keys(pg_dsn) == keys
    assert cli.turn("--store", pg_dsn) == "duplicate_turn"  # the same turn, sent again after the move
    assert cli.batch(source, "--store", pg_dsn)["skipped_already_done"] == len(LINES)  # resumed: all found done

    _, out = cli("import-store", pg_dsn, "--root", str(back))
    assert "store key(s)" in out
    assert _root_keys(back) == keys
    assert os.stat(back / "memroute.db").st_mode & 0o777 == 0o600
    assert cli.turn("--root", str(back)) == "duplicate_turn"
    assert cli.batch(source, "--out", str(back))["skipped_already_done"] == len(LINES)
    with MemoryPipeline(root=back) as pipe:  # the moved key is the one the store uses
        assert pipe.store.secret_key("ids") == keys["ids"]
    assert _shown_anywhere(keys, cli.printed) == []


def test_a_key_an_empty_target_made_for_itself_gives_way_to_the_moved_one(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, back = tmp_path / "first", tmp_path / "back"
    cli = Cli(capsys)
    assert cli.turn("--root", str(first)) == "done"
    with PostgresStore(pg_dsn) as pg:  # an empty database that made a key of its own (nothing made with it)
        own = pg.secret_key("ids")
    with MemoryPipeline(root=back) as pipe:  # an empty root, likewise
        own_back = pipe.store.secret_key("ids")
    assert own != _root_keys(first)["ids"] != own_back
    cli("import-store", str(first), "--store", pg_dsn)
    assert _pg_keys(pg_dsn)["ids"] == _root_keys(first)["ids"]
    assert cli.turn("--store", pg_dsn) == "duplicate_turn"
    cli("export-store", str(back), "--store", pg_dsn)
    assert _root_keys(back)["ids"] == _root_keys(first)["ids"]
    assert cli.turn("--root", str(back)) == "duplicate_turn"


def test_the_kept_copies_a_moved_store_writes_are_private(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, back = tmp_path / "first", tmp_path / "back"
    cli = Cli(capsys)
    assert cli.turn("--root", str(first)) == "done"
    (first / "ivy" / "USER.md.bak").write_bytes(b"# USER\n- Name: Ivy \xff\n")
    cli("export-store", pg_dsn, "--root", str(first))
    cli("import-store", pg_dsn, "--root", str(back))
    kept = back / "ivy" / "USER.md.bak"
    assert kept.read_bytes() == (first / "ivy" / "USER.md.bak").read_bytes()
    assert os.stat(kept).st_mode & 0o777 == 0o600
    assert os.stat(back / "ivy").st_mode & 0o777 == 0o700

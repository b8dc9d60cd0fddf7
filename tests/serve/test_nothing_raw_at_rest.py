"""No raw turn text at rest once a turn is applied (issue 24, item 2).

A turn accepted by `memroute serve` (or a PostTurnHook) is kept whole in the queue until it is
applied; from then on none of its words - the user's password, the history, the assistant's and a
tool's lines - is in any byte under the root: while the server runs, after a SIGKILL and after a
restart (the database, its -wal and -shm included). On PostgreSQL the queue's own files hold
none of it after the workers are done, and `delete-user` leaves the user's words in no row and no
planner statistic (`pg_dump` and `pg_stats` searched).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from memory_fixture import Memory
from servers import bytes_under, free_port, serve_argv, wait_until_up
from servers import env as server_env


def _turn(n: int) -> tuple[dict[str, Any], list[str]]:
    """A turn whose user line holds a password, with history, an assistant line and a tool's output."""
    secrets = [f"Vx{n}-Lampwick!{n * 7}", f"TOOLOUT-{n}-quince", f"ASSISTLINE-{n}-marrow", f"HISTLINE-{n}-sorrel"]
    body = {
        "messages": [
            {"role": "user", "content": f"earlier I said HISTLINE-{n}-sorrel about my garden"},
            {"role": "assistant", "content": f"Noted. ASSISTLINE-{n}-marrow"},
            {"role": "tool", "content": f"lookup result TOOLOUT-{n}-quince"},
            {"role": "user", "content": f"I'm a beekeeper in Leiden. My router password is {secrets[0]}"},
        ],
        "timestamp": "2026-08-02T10:00:00Z",
    }
    return body, secrets


def _none_at_rest(root: Path, needles: list[str]) -> list[tuple[str, list[str]]]:
    return [(n, found) for n in needles if (found := bytes_under(root, n))]


def _wait_applied(url: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = httpx.get(f"{url}/v1/status", timeout=10).json()
        if s["queued"] + s["running"] + s["failed"] == 0:
            return
        time.sleep(0.1)
    raise TimeoutError("the queue did not empty")


def _start(root: Path, home: Path) -> tuple[subprocess.Popen[str], str, int]:
    port = free_port()
    proc = subprocess.Popen(serve_argv(root, port), env=server_env(home), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    wait_until_up(url, proc)
    return proc, url, port


def test_a_served_turn_leaves_no_byte_while_running_after_sigkill_and_after_restart(tmp_path: Path) -> None:
    root, home = tmp_path / "root", tmp_path / "home"
    proc, url, _ = _start(root, home)
    needles: list[str] = []
    try:
        body, secrets = _turn(0)
        r = httpx.post(f"{url}/v1/users/lena/turns?wait=true", json=body, timeout=60)
        assert r.status_code == 200, r.text
        assert "beekeeper" in (root / "lena" / "USER.md").read_text("utf-8")
        needles += secrets
        assert _none_at_rest(root, needles) == []  # while the server runs, right after the answer
        for n in range(1, 40):  # more turns, not waited for, some of them still in flight
            body, secrets = _turn(n)
            assert httpx.post(f"{url}/v1/users/lena{n % 3}/turns", json=body, timeout=30).status_code == 202
            needles += secrets
        _wait_applied(url)
        assert _none_at_rest(root, needles) == []
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        assert _none_at_rest(root, needles) == []  # what the killed server left behind
        proc, url, _ = _start(root, home)
        _wait_applied(url)
        assert _none_at_rest(root, needles) == []  # the restarted server, running
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)


def test_turns_in_flight_at_a_sigkill_leave_nothing_once_the_restart_applies_them(tmp_path: Path) -> None:
    from tests.serve.test_serve import _slow_server

    root = tmp_path / "root"
    port = free_port()
    proc = _slow_server(tmp_path, root, port, sleep=0.2)  # 200 ms a turn: most are still queued at the kill
    url = f"http://127.0.0.1:{port}"
    needles: list[str] = []
    try:
        wait_until_up(url, proc)
        for n in range(12):
            body, secrets = _turn(100 + n)
            assert httpx.post(f"{url}/v1/users/mika/turns", json=body, timeout=30).status_code == 202
            needles += secrets
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    assert _none_at_rest(root, needles)  # accepted, not applied: the queue keeps them, whole
    proc, url, _ = _start(root, tmp_path / "home")
    try:
        _wait_applied(url)
        assert _none_at_rest(root, needles) == []
        assert "beekeeper" in (root / "mika" / "USER.md").read_text("utf-8")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)


def test_a_hook_turn_leaves_no_byte_before_the_hook_closes(mem: Memory) -> None:
    from pipeline.hook.post_turn import PostTurnHook

    with mem.pipeline() as pipe:
        hook = PostTurnHook(pipe, workers=2)
        try:
            needles: list[str] = []
            for n in range(6):
                body, secrets = _turn(200 + n)
                hook.submit(f"ivo{n % 2}", body["messages"], timestamp=body["timestamp"])
                needles += secrets
            assert hook.drain(timeout=60)
            if mem.on_postgres:
                _assert_queue_files_clean(mem, needles)
            else:
                assert _none_at_rest(mem.root, needles) == []
        finally:
            hook.close()
    data = mem.bytes_at_rest()
    assert not [n for n in needles if n.encode() in data]


# --- PostgreSQL: the queue's files, and what delete-user leaves -----------------------------------


def _pg(mem: Memory) -> Any:
    import psycopg

    assert mem.dsn is not None
    return psycopg.connect(mem.dsn, autocommit=True)


def _relation_bytes(conn: Any, table: str) -> bytes:
    """The bytes of a table's files (heap, and its TOAST table) as the server keeps them."""
    data_dir = conn.execute("SELECT current_setting('data_directory')").fetchone()[0]
    rels = [table]
    toast = conn.execute("SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = %s::regclass", (table,)).fetchone()
    if toast and toast[0] != "-":
        rels.append(toast[0])
    out = b""
    for rel in rels:
        path = Path(data_dir) / conn.execute("SELECT pg_relation_filepath(%s)", (rel,)).fetchone()[0]
        for segment in sorted(path.parent.glob(path.name + "*")):
            if segment.name == path.name or segment.name.startswith(path.name + "."):
                out += segment.read_bytes()
    return out


def _assert_queue_files_clean(mem: Memory, needles: list[str]) -> None:
    with _pg(mem) as conn:
        deadline = time.monotonic() + 30
        while True:
            conn.execute("VACUUM hook_queue")
            conn.execute("CHECKPOINT")
            left = [n for n in needles if n.encode() in _relation_bytes(conn, "hook_queue")]
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    assert left == []


@pytest.fixture
def pg_mem(tmp_path: Path, pg_dsn: str) -> Memory:
    return Memory(tmp_path, pg_dsn)


def test_postgres_text_columns_are_kept_out_of_planner_statistics(pg_mem: Memory) -> None:
    with pg_mem.pipeline() as pipe:
        pipe.store.close()
    with _pg(pg_mem) as conn:
        rows = conn.execute(
            """SELECT c.relname, a.attname, a.attstattarget FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
               JOIN pg_namespace AS n ON n.oid = c.relnamespace
               WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
                 AND a.atttypid IN ('text'::regtype, 'bytea'::regtype) AND c.relname NOT IN ('migrations', 'store_keys')"""
        ).fetchall()
    assert rows and [r for r in rows if r[2] != 0] == []


def _dump(mem: Memory) -> str:
    pg_dump = shutil.which("pg_dump") or next(Path("/usr/lib/postgresql").glob("*/bin/pg_dump"), None)
    if pg_dump is None:
        pytest.skip("pg_dump is not installed")
    assert mem.dsn is not None
    dump = subprocess.run([str(pg_dump), "--no-owner", mem.dsn], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PGCONNECT_TIMEOUT": "10"})
    assert dump.returncode == 0, dump.stderr
    return dump.stdout


def test_delete_user_on_postgres_leaves_no_word_in_a_row_a_dump_or_the_statistics(pg_mem: Memory) -> None:
    with pg_mem.pipeline() as pipe:
        for n in range(40):  # each turn replaces the field: history, provenance, archive, decisions fill up
            pipe.process_turn("rui", [{"role": "user", "content": f"I live in Quillon{n}"}],
                              timestamp=f"2026-08-02T10:{n:02d}:00Z")
        pipe.process_turn("eva", [{"role": "user", "content": "I play the cello in an orchestra in Graz"}],
                          timestamp="2026-08-02T11:00:00Z")
        with _pg(pg_mem) as conn:
            conn.execute("ANALYZE")  # what autovacuum does in time: statistics of busy tables
        assert "Quillon3" in _dump(pg_mem)
        pipe.delete_user("rui")
    with _pg(pg_mem) as conn:
        stats = "\n".join(str(r) for r in conn.execute("SELECT * FROM pg_stats WHERE schemaname = current_schema()"))
    assert "Quillon" not in stats and "rui" not in stats.split("'"), stats[:2000]
    dump = _dump(pg_mem)
    assert "cello" in dump  # the other user's memory is there
    assert "Quillon" not in dump

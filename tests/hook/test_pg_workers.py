"""Three worker processes (standing in for three hosts) against one PostgreSQL database: no turn lost,
none applied twice, each user's order kept, and a worker SIGKILLed in the middle of a turn loses
nothing (its transaction dies with it; another worker runs the turn)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pipeline.store.postgres.store import PostgresStore

CHILD = Path(__file__).resolve().parents[1] / "pg_worker_child.py"
USERS = ["amy", "bo"]  # fewer users than workers: two workers often hold turns of one user
TURNS_PER_USER = 30


def _start(dsn: str, state: Path, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(CHILD), dsn, str(state), mode], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _go(state: Path, workers: list[subprocess.Popen[str]], timeout_s: float = 120.0) -> None:
    """Start every worker at once, when all are ready."""
    deadline = time.monotonic() + timeout_s
    while not all((state / f"{w.pid}.ready").exists() for w in workers):
        assert time.monotonic() < deadline, "workers did not start"
        assert all(w.poll() is None for w in workers), [w.stderr.read() for w in workers if w.stderr]
        time.sleep(0.01)
    (state / "go").touch()


def _wait_inside(state: Path, workers: list[subprocess.Popen[str]], timeout_s: float = 60.0) -> tuple[
    subprocess.Popen[str], str
]:
    """The first of `workers` found in the middle of a turn, and that turn's id. Any of them will do:
    which worker the queue hands a turn first is the race under test."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for proc in workers:
            try:
                turn = (state / f"{proc.pid}.inside").read_text()
            except FileNotFoundError:
                continue
            if turn:
                return proc, turn
        time.sleep(0.002)
    raise AssertionError("no worker started a turn: " + " | ".join(w.stderr.read() if w.stderr else "" for w in workers))


def _race_and_kill_one(dsn: str, state: Path, mode: str) -> str:
    """Three workers race through the queue; the first found in the middle of a turn is SIGKILLed,
    the other two finish the queue. Returns the turn the killed one was in."""
    workers = [_start(dsn, state, mode) for _ in range(3)]
    _go(state, workers)
    victim, killed_turn = _wait_inside(state, workers)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(30)
    for w in workers:
        if w is victim:
            continue
        _, err = w.communicate(timeout=240)
        assert w.returncode == 0, err
    return killed_turn


def test_three_workers_one_killed_mid_turn_lose_nothing_duplicate_nothing_keep_order(
    pg_dsn: str, tmp_path: Path
) -> None:
    store = PostgresStore(pg_dsn)
    queue = store.queue()
    for i in range(TURNS_PER_USER):  # interleaved users, as chats arrive
        for user in USERS:
            assert queue.submit(user, f"{user}-t{i:02d}", None, {"i": i}) is not None
    killed_turn = _race_and_kill_one(pg_dsn, tmp_path, "store")
    # every turn applied exactly once, in each user's order
    for user in USERS:
        lines = (store.read_documents(user).memory or "").splitlines()
        assert lines == [f"{user}-t{i:02d}" for i in range(TURNS_PER_USER)], (user, lines)
        assert [t["turn_id"] for t in store.turns(user)] == lines
        assert all(t["attempts"] == 1 for t in store.turns(user))  # the killed attempt left no trace
    assert killed_turn in {t["turn_id"] for t in store.turns()}
    status = store.hook_queue_status()
    assert (status["done"], status["queued"], status["failed"], status["parked"]) == (
        len(USERS) * TURNS_PER_USER, 0, 0, 0,
    )
    store.close()


def test_three_pipeline_workers_one_killed_apply_every_turn_once_in_order_within_the_caps(
    pg_dsn: str, tmp_path: Path
) -> None:
    """The real pipeline (offline engine) in each worker; MEMORY.md's cap is small, so they consolidate."""
    from pg_worker_child import MEMORY_LIMIT

    from pipeline.hook.worker import submit

    store = PostgresStore(pg_dsn)
    queue = store.queue()
    turns: dict[str, list[str]] = {user: [] for user in USERS}
    for i in range(12):
        for user in USERS:
            said = f"Yesterday we shipped release {i} of the {user} app to the staging cluster."
            turns[user].append(submit(queue, user, [{"role": "user", "content": said}], turn_id=f"{user}-t{i:02d}",
                                      timestamp="2026-11-30T12:00:00+00:00"))
    _race_and_kill_one(pg_dsn, tmp_path, "pipeline")
    for user in USERS:
        applied = [t["turn_id"] for t in store.turns(user)]  # rows are made at each turn's commit
        assert applied == turns[user]  # all, once each, in order
        assert all(t["status"] == "done" and t["attempts"] == 1 for t in store.turns(user))
        per_turn = [d["turn_id"] for d in store.decisions(user)]
        assert sorted(set(per_turn)) == sorted(turns[user]) and len(per_turn) == len(set(per_turn))
        memory = store.read_documents(user).memory or ""
        assert 0 < len(memory) <= MEMORY_LIMIT
        assert "release 11" in memory  # the newest turn is there; older ones went to the archive
        assert store.archive(user)
    store.close()

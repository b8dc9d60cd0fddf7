"""PostTurnHook: non-blocking submit, per-user order, durability across SIGKILL, retries/parking, debounce."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine
from pipeline.errors import HookClosed, HookQueueFull
from pipeline.hook.admin import hook_status
from pipeline.hook.post_turn import PostTurnHook, RetryPolicy
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Turn

BIG = 1_000_000  # memory cap high enough that no test triggers consolidation


class NoteEngine(Engine):
    """Routes every paragraph of the user's text to MEMORY.md; optional sleep, failures and call log."""

    name = "note"
    model: str | None = None

    def __init__(self, sleep_s: float = 0.0, fail_times: int = 0, error: str = "upstream 503") -> None:
        self.sleep_s = sleep_s
        self.fail_times = fail_times
        self.error = error
        self.down = False
        self.gate: threading.Event | None = None
        self.calls: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self.in_flight: Counter[str] = Counter()
        self.max_per_user = 0
        self.max_total = 0

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        with self._lock:
            self.in_flight[turn.user_id] += 1
            self.max_per_user = max(self.max_per_user, self.in_flight[turn.user_id])
            self.max_total = max(self.max_total, sum(self.in_flight.values()))
            self.calls.append((turn.user_id, turn.user_text))
            failing = self.down or self.fail_times > 0
            if self.fail_times > 0:
                self.fail_times -= 1
        try:
            if self.gate is not None:
                self.gate.wait(10)
            if self.sleep_s:
                time.sleep(self.sleep_s)
            if failing:
                raise RuntimeError(self.error)
            day = turn.today.isoformat()
            return Classification(
                engine=self.name,
                decisions=[
                    Decision(quote=p, route="memory", op="append", entry=p, date=day)
                    for p in turn.user_text.split("\n\n")
                ],
            )
        finally:
            with self._lock:
                self.in_flight[turn.user_id] -= 1

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: Any) -> ConsolidationPlan:
        raise AssertionError("tests keep MEMORY.md under its cap")


def user_says(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}]


def entries(root: Path, user: str) -> list[str]:
    path = root / user / "MEMORY.md"
    if not path.exists():
        return []
    return [line.split("] ", 1)[1] for line in path.read_text("utf-8").splitlines() if line.startswith("- [")]


def queue_rows(pipe: MemoryPipeline) -> list[dict[str, Any]]:
    return [dict(r) for r in pipe.store.conn.execute("SELECT * FROM hook_queue ORDER BY seq")]


def make(root: Path, engine: Any) -> MemoryPipeline:
    return MemoryPipeline(root=root, engine=engine, memory_limit=BIG)


def test_submit_returns_at_once_while_the_model_sleeps_and_close_leaves_the_rest_on_disk(tmp_path: Path) -> None:
    slow = NoteEngine(sleep_s=0.5)
    pipe = make(tmp_path, slow)
    hook = PostTurnHook(pipe, workers=2)
    start = time.perf_counter()
    ids = [hook.submit(f"u{i % 5}", user_says(f"fact number {i}")) for i in range(50)]
    elapsed = time.perf_counter() - start
    # Waiting for the model even once would take 0.5 s; 50 submits stay far below that.
    assert elapsed < 0.2, f"50 submits took {elapsed:.3f} s"
    assert len(set(ids)) == 50
    status = hook_status(tmp_path)  # what another process (`memroute status`) sees right now
    assert status["queued"] + status["running"] == 50 and status["done"] == 0
    assert hook.close(timeout=0.1) is False  # cannot drain 50 x 0.5 s in 0.1 s
    pipe.close()

    left = hook_status(tmp_path)
    assert left["done"] < 50 and left["queued"] + left["running"] + left["done"] == 50
    # The next start picks up what was left, with a fast model, each turn once.
    pipe = make(tmp_path, NoteEngine())
    with PostTurnHook(pipe, workers=4) as hook2:
        assert hook2.drain(timeout=30)
    final = hook_status(tmp_path)
    assert final["done"] == 50 and final["queued"] == final["running"] == 0
    written = [e for u in range(5) for e in entries(tmp_path, f"u{u}")]
    assert sorted(written) == sorted(f"fact number {i}" for i in range(50))
    assert all(r["payload"] is None for r in queue_rows(pipe))  # no turn text left at rest
    pipe.close()


def test_two_users_200_turns_each_keep_their_order_and_never_run_twice_at_once(tmp_path: Path) -> None:
    engine = NoteEngine(sleep_s=0.001)
    pipe = make(tmp_path, engine)
    hook = PostTurnHook(pipe, workers=4)
    for i in range(200):
        for user in ("alice", "bob"):
            hook.submit(user, user_says(f"{user} step {i}"))
    assert hook.drain(timeout=60)
    hook.close()
    for user in ("alice", "bob"):
        assert entries(tmp_path, user) == [f"{user} step {i}" for i in range(200)]
        decided = [d["turn_id"] for d in pipe.store.decisions(user)]
        assert len(decided) == len(set(decided)) == 200
    assert engine.max_per_user == 1  # never two turns of one user at once
    assert engine.max_total == 2  # ... while the two users did run side by side
    assert hook.stats()["done"] == 400
    pipe.close()


CHILD = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {tests!r})
    from test_hook import NoteEngine, make, user_says
    from pipeline.hook.post_turn import PostTurnHook
    from pathlib import Path

    pipe = make(Path({root!r}), NoteEngine(sleep_s=0.01))
    hook = PostTurnHook(pipe, workers=2)
    for i in range({n}):
        user = ("alice", "bob")[i % 2]
        turn_id = hook.submit(user, user_says(f"{{user}} event {{i}}"))
        print(turn_id, flush=True)   # the parent only counts turns whose submit returned
        time.sleep(0.002)
    hook.drain()
    print("drained", flush=True)
    """
)


def test_sigkill_mid_run_then_restart_processes_every_turn_exactly_once(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    n = 120
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tests=str(Path(__file__).parent), root=str(root), n=n))
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # kill while it is both submitting and processing
            if (root / "memroute.db").exists() and hook_status(root)["done"] >= 15:
                break
            time.sleep(0.005)
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    submitted = [line for line in out.splitlines() if line.startswith("t-")]
    assert "drained" not in out and 15 <= len(submitted) < n
    before = hook_status(root)
    assert 0 < before["done"] < before["done"] + before["queued"] + before["running"]

    pipe = make(root, NoteEngine())
    with PostTurnHook(pipe, workers=4) as hook:
        assert hook.drain(timeout=30)
    rows = queue_rows(pipe)
    done = {r["turn_id"] for r in rows if r["status"] == "done"}
    assert set(submitted) <= done  # nothing lost
    assert all(r["status"] == "done" and r["payload"] is None for r in rows)
    for user in ("alice", "bob"):
        written = entries(root, user)
        assert len(written) == len(set(written))  # nothing applied twice
        numbers = [int(e.rsplit(" ", 1)[1]) for e in written]
        assert numbers == sorted(numbers)  # still in submission order
        decided = [d["turn_id"] for d in pipe.store.decisions(user)]
        assert len(decided) == len(set(decided)) == len(written)
    assert sum(len(entries(root, u)) for u in ("alice", "bob")) == len(rows)
    pipe.close()


def test_a_model_that_is_down_retries_then_parks_then_recovers_with_nothing_lost(tmp_path: Path) -> None:
    engine = NoteEngine(error="upstream 503 while calling for jasmin@example.com")
    engine.down = True
    pipe = make(tmp_path, engine)
    policy = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05)
    hook = PostTurnHook(pipe, workers=2, retry_policy=policy)
    for i in range(3):
        hook.submit("alice", user_says(f"alice plan {i}, reach me at jasmin@example.com"))
    assert hook.drain(timeout=20)
    stats = hook.stats()
    assert stats["parked"] == 3 and stats["done"] == 0
    assert stats["failed_attempts"] == 9  # 3 turns x 3 attempts, one after the other (order)
    assert "upstream 503" in stats["last_error"] and "jasmin@example.com" not in stats["last_error"]
    status = hook_status(tmp_path)
    assert status["parked"] == 3 and status["users"]["alice"]["parked"] == 3
    assert "upstream 503" in status["last_error"]
    # Another user is not held up by alice's parked turns.
    engine.down = False
    hook.submit("bob", user_says("bob ships on friday"))
    assert hook.drain(timeout=10)
    assert entries(tmp_path, "bob") == ["bob ships on friday"]

    assert hook.retry_parked() == 3
    assert hook.drain(timeout=10)
    hook.close()
    # Their payloads were kept redacted: each statement now holds "[REDACTED:EMAIL]" and is
    # skipped as sensitive, as the guards skip the statement with the address itself.
    assert entries(tmp_path, "alice") == []
    assert [(d["route"], d["reason"]) for d in pipe.store.decisions("alice")] == [("skip", "sensitive")] * 3
    assert hook_status(tmp_path)["parked"] == 0
    pipe.close()
    # Neither the queue nor its error ever kept the address at rest (parked payloads are redacted,
    # done ones cleared, the WAL truncated on close).
    for f in tmp_path.glob("memroute.db*"):
        assert b"jasmin@example.com" not in f.read_bytes(), f.name


def test_a_brief_outage_is_retried_with_backoff_and_later_turns_wait_behind_it(tmp_path: Path) -> None:
    engine = NoteEngine(fail_times=2)
    pipe = make(tmp_path, engine)
    hook = PostTurnHook(pipe, workers=4, retry_policy=RetryPolicy(max_attempts=5, base_delay_s=0.05))
    for i in range(4):
        hook.submit("alice", user_says(f"alice item {i}"))
    assert hook.drain(timeout=10)
    hook.close()
    assert entries(tmp_path, "alice") == [f"alice item {i}" for i in range(4)]
    assert [text for _, text in engine.calls][:3] == ["alice item 0"] * 3  # retried before moving on
    stats = hook.stats()
    assert stats["failed_attempts"] == 2 and stats["parked"] == 0 and stats["done"] == 4
    pipe.close()


def test_a_turn_applied_just_before_a_crash_is_not_applied_again(tmp_path: Path) -> None:
    pipe = make(tmp_path, NoteEngine())
    # The crash window: the pipeline committed the turn, the queue row was not marked done yet.
    pipe.process_turn("alice", user_says("alice once"), timestamp="2026-07-30T09:00:00Z", turn_id="t-fixed")
    pipe.store.conn.execute(
        """INSERT INTO hook_queue (user_id, turn_id, status, payload, owner_pid, submitted_at, updated_at)
           VALUES ('alice', 't-fixed', 'running', ?, ?, 0, 0)""",
        (json.dumps({"messages": user_says("alice once"), "timestamp": "2026-07-30T09:00:00+00:00"}), os.getpid()),
    )
    with PostTurnHook(pipe, workers=1) as hook:
        assert hook.drain(timeout=10)
        assert hook.stats()["duplicates"] == 1
    assert entries(tmp_path, "alice") == ["alice once"]
    assert len(pipe.store.decisions("alice")) == 1
    assert queue_rows(pipe)[0]["status"] == "done"
    with pytest.raises(HookClosed):
        hook.submit("alice", user_says("after close"))
    pipe.close()


def test_debounce_classifies_quick_successive_turns_of_a_conversation_in_one_call(tmp_path: Path) -> None:
    engine = NoteEngine()
    pipe = make(tmp_path, engine)
    hook = PostTurnHook(pipe, workers=2, debounce_s=0.3)
    history: list[dict[str, str]] = []
    for text in ("I'm moving to Lisbon", "we start the rewrite in May", "the team picked Rust"):
        history += user_says(text)
        hook.submit("alice", list(history), conversation_id="c1")  # apps send the whole conversation
    hook.submit("alice", user_says("other chat fact"), conversation_id="c2")
    assert hook.drain(timeout=10)
    hook.close()
    assert engine.calls == [
        ("alice", "I'm moving to Lisbon\n\nwe start the rewrite in May\n\nthe team picked Rust"),
        ("alice", "other chat fact"),
    ]
    assert entries(tmp_path, "alice") == [
        "I'm moving to Lisbon", "we start the rewrite in May", "the team picked Rust", "other chat fact"
    ]
    assert Counter(r["status"] for r in queue_rows(pipe)) == {"done": 4}
    pipe.close()


def test_a_debounced_group_cut_off_mid_run_is_re_run_as_the_same_group_and_applied_once(tmp_path: Path) -> None:
    stuck = NoteEngine()
    stuck.gate = threading.Event()
    old = PostTurnHook(make(tmp_path, stuck), workers=1, debounce_s=0.05)
    for text in ("first fact", "second fact", "third fact"):
        old.submit("alice", user_says(text), conversation_id="c1")
    deadline = time.monotonic() + 10
    while not stuck.calls and time.monotonic() < deadline:
        time.sleep(0.005)
    assert old.close(timeout=0) is False  # its worker is stuck inside the model call

    fresh = NoteEngine()
    pipe = make(tmp_path, fresh)
    with PostTurnHook(pipe, workers=2) as new:  # adopts the rows, regrouped as they were started
        assert new.drain(timeout=10)
    stuck.gate.set()  # the old worker finishes its call late; its result must not land twice
    time.sleep(0.2)
    assert fresh.calls == [("alice", "first fact\n\nsecond fact\n\nthird fact")]
    assert entries(tmp_path, "alice") == ["first fact", "second fact", "third fact"]
    assert Counter(r["status"] for r in queue_rows(pipe)) == {"done": 3}
    pipe.close()


def test_process_mode_runs_turns_in_other_processes_in_order(tmp_path: Path) -> None:
    factory = functools.partial(MemoryPipeline, root=tmp_path, engine="offline")
    pipe = factory()
    with pytest.raises(ValueError, match="pipeline_factory"):
        PostTurnHook(pipe, processes=2)
    sent = {u: [f"Yesterday {u} shipped release {i} of the app." for i in range(8)] for u in ("alice", "bob")}
    with PostTurnHook(pipe, workers=4, processes=2, pipeline_factory=factory) as hook:
        ids = {u: [hook.submit(u, user_says(t), timestamp="2026-07-30T09:00:00Z") for t in sent[u]] for u in sent}
        assert hook.drain(timeout=60)
        assert hook.stats()["done"] == 16
    for user in sent:
        done = [t["turn_id"] for t in pipe.store.turns(user, status="done")]
        assert done == ids[user]  # committed by the other processes, in submission order
    pipe.close()


def test_a_full_queue_blocks_briefly_then_refuses_without_storing_the_turn(tmp_path: Path) -> None:
    engine = NoteEngine()
    engine.gate = threading.Event()
    pipe = make(tmp_path, engine)
    hook = PostTurnHook(pipe, workers=1, max_in_memory=2, full_timeout_s=0.05)
    hook.submit("alice", user_says("one"))
    hook.submit("alice", user_says("two"))
    start = time.perf_counter()
    with pytest.raises(HookQueueFull, match="not stored"):
        hook.submit("alice", user_says("three"))
    assert 0.04 <= time.perf_counter() - start < 1.0
    assert len(queue_rows(pipe)) == 2
    engine.gate.set()
    hook.submit("alice", user_says("three"))  # room again once the worker moves on
    assert hook.drain(timeout=10)
    hook.close()
    assert entries(tmp_path, "alice") == ["one", "two", "three"]
    pipe.close()


def test_resubmitting_the_same_turn_is_a_no_op_and_bad_input_fails_at_submit(tmp_path: Path) -> None:
    pipe = make(tmp_path, NoteEngine())
    with PostTurnHook(pipe) as hook:
        a = hook.submit("alice", user_says("same"), timestamp="2026-07-30T09:00:00Z")
        b = hook.submit("alice", user_says("same"), timestamp="2026-07-30T09:00:00Z")
        assert a == b
        with pytest.raises(ValueError):
            hook.submit("../etc", user_says("x"))
        with pytest.raises(ValueError):
            hook.submit("alice", [{"role": "assistant", "content": "no user message"}])
        assert hook.drain(timeout=10)
    assert entries(tmp_path, "alice") == ["same"]
    assert len(queue_rows(pipe)) == 1
    pipe.close()


def test_old_done_rows_are_pruned_without_losing_idempotency(tmp_path: Path) -> None:
    pipe = make(tmp_path, NoteEngine())
    with PostTurnHook(pipe) as hook:
        hook.submit("alice", user_says("only once"), timestamp="2026-07-30T09:00:00Z")
        assert hook.drain(timeout=10)
    with PostTurnHook(pipe, keep_done_s=0) as hook:
        assert queue_rows(pipe) == []
        hook.submit("alice", user_says("only once"), timestamp="2026-07-30T09:00:00Z")
        assert hook.drain(timeout=10)
        assert hook.stats()["duplicates"] == 1
    assert entries(tmp_path, "alice") == ["only once"]
    pipe.close()


def test_asubmit_keeps_the_event_loop_free_and_the_order(tmp_path: Path) -> None:
    engine = NoteEngine(sleep_s=0.05)
    pipe = make(tmp_path, engine)

    async def app() -> float:
        async with PostTurnHook(pipe, workers=2) as hook:
            ticks = 0

            async def heartbeat() -> None:
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.005)
                    ticks += 1

            beat = asyncio.create_task(heartbeat())
            start = time.perf_counter()
            for i in range(10):
                await hook.asubmit("alice", user_says(f"async {i}"))
            submitted = time.perf_counter() - start
            assert await hook.adrain(timeout=10)
            beat.cancel()
            assert ticks > 10  # the loop kept running while 10 turns x 50 ms were processed
            return submitted

    assert asyncio.run(app()) < 0.5
    assert entries(tmp_path, "alice") == [f"async {i}" for i in range(10)]
    pipe.close()


def test_hook_status_of_a_fresh_root_is_all_zeros(tmp_path: Path) -> None:
    status = hook_status(tmp_path)
    assert {k: status[k] for k in ("queued", "running", "failed", "done", "parked")} == dict.fromkeys(
        ("queued", "running", "failed", "done", "parked"), 0
    )
    assert status["last_error"] is None and status["users"] == {}
    assert not (tmp_path / "memroute.db").exists()  # reading the status creates nothing


def test_offline_engine_end_to_end(tmp_path: Path) -> None:
    pipe = MemoryPipeline(root=tmp_path, engine="offline")
    with PostTurnHook(pipe) as hook:
        hook.submit("jasmin", user_says("I'm Jasmin, a frontend engineer."), timestamp="2026-07-30T09:00:00Z")
        assert hook.drain(timeout=30)
        assert hook.stats()["done"] == 1
    assert "Jasmin" in pipe.context("jasmin")
    pipe.close()

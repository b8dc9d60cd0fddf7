"""What a user submits to the post-turn hook is in their next read in the same process: context() and
recall() wait (bounded) for that user's turns still queued or running in the hooks built on the pipeline."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from pipeline.hook.post_turn import PostTurnHook, RetryPolicy
from tests.hook.test_hook import NoteEngine, make, user_says


def test_the_submit_then_context_snippet_sees_its_turn_in_a_fresh_process(tmp_path: Path) -> None:
    """A fresh interpreter, no close(), no sleep: the context read right after submit holds the fact."""
    script = textwrap.dedent("""
        from pipeline import MemoryPipeline, PostTurnHook

        pipe = MemoryPipeline(root="./memory")
        hook = PostTurnHook(pipe)
        hook.submit("jasmin", [{"role": "user", "content": "I'm a nurse in Lyon and I prefer short answers."},
                               {"role": "assistant", "content": "Noted!"}])
        print(pipe.context("jasmin"))
    """)
    for _ in range(2):  # the second run adds a turn to a memory that exists
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "- Location: Lyon" in done.stdout and "- Role: nurse" in done.stdout, done.stdout


def test_context_waits_for_a_slow_turn_of_that_user_and_not_for_other_users(tmp_path: Path) -> None:
    engine = NoteEngine(sleep_s=0.6)
    pipe = make(tmp_path, engine)
    with PostTurnHook(pipe, workers=2) as hook:
        hook.submit("ann", user_says("ann moved to Porto"))
        hook.submit("bob", user_says("bob adopted a cat"))
        started = time.monotonic()
        assert "ann moved to Porto" in pipe.context("ann")
        assert time.monotonic() - started < 5
        assert "bob adopted a cat" in pipe.recall("bob", "cat")[0]["text"]


def test_a_debounce_window_ends_when_the_user_is_read(tmp_path: Path) -> None:
    pipe = make(tmp_path, NoteEngine())
    with PostTurnHook(pipe, debounce_s=60) as hook:  # without the read, the turn would wait a minute
        hook.submit("ann", user_says("ann booked the venue"), conversation_id="c1")
        hook.submit("ann", user_says("ann sent the invitations"), conversation_id="c1")
        started = time.monotonic()
        context = pipe.context("ann")
        assert time.monotonic() - started < 5
        assert "ann booked the venue" in context and "ann sent the invitations" in context


def test_wait_zero_reads_at_once_and_the_wait_is_bounded(tmp_path: Path) -> None:
    engine = NoteEngine()
    engine.gate = threading.Event()  # the model hangs until the gate opens
    pipe = make(tmp_path, engine)
    hook = PostTurnHook(pipe)
    try:
        hook.submit("ann", user_says("ann joined the choir"))
        started = time.monotonic()
        assert "choir" not in pipe.context("ann", wait=0)
        assert "choir" not in pipe.context("ann", wait=0.5)
        assert time.monotonic() - started < 3
        assert pipe.wait_for_turns("ann", 0.2) is False
        engine.gate.set()
        assert pipe.wait_for_turns("ann", 10) is True
        assert "ann joined the choir" in pipe.context("ann", wait=0)
    finally:
        engine.gate.set()
        hook.close()


def test_a_failing_turn_is_not_waited_for_through_its_retries(tmp_path: Path) -> None:
    """A turn that failed its first attempt waits for a retry with backoff; a read does not wait for that."""
    pipe = make(tmp_path, NoteEngine(fail_times=100))
    hook = PostTurnHook(pipe, retry_policy=RetryPolicy(base_delay_s=30, max_attempts=5))
    try:
        hook.submit("ann", user_says("ann is learning Greek"))
        started = time.monotonic()
        assert "Greek" not in pipe.context("ann")
        assert time.monotonic() - started < 5
    finally:
        hook.close(timeout=0.5)  # the turn stays queued on disk for the next start


def test_flush_runs_every_users_waiting_turns(tmp_path: Path) -> None:
    pipe = make(tmp_path, NoteEngine())
    hook = PostTurnHook(pipe, debounce_s=60)
    try:
        for user in ("ann", "bob", "cy"):
            hook.submit(user, user_says(f"{user} planted tomatoes"))
        assert hook.flush(timeout=10) is True
        assert all(f"{u} planted tomatoes" in pipe.context(u, wait=0) for u in ("ann", "bob", "cy"))
    finally:
        hook.close()

"""The one runner for a queued turn (pipeline/hook/runner.py): what an attempt settles to, whoever
queued the turn (the hook, `memroute retry`, the shared queue's workers)."""

from __future__ import annotations

import time

from pipeline.hook.runner import RetryPolicy, RunCounts, attempt


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def done(self) -> None:
        self.calls.append(("done",))

    def fail(self, error: str, next_attempt_at: float) -> None:
        self.calls.append(("fail", error))

    def park(self, error: str) -> None:
        self.calls.append(("park", error))


POLICY = RetryPolicy(max_attempts=3, base_delay_s=10.0, jitter=0.0)


def test_a_done_or_duplicate_turn_is_finished() -> None:
    for status, settled in (("done", "done"), ("duplicate_turn", "duplicate")):
        rec = Recorder()
        assert attempt(lambda s=status: (s, None), rec, failures_before=0, policy=POLICY).settled == settled
        assert rec.calls == [("done",)]


def test_a_failure_is_retried_after_the_backoff_then_parked() -> None:
    rec = Recorder()
    before = time.time()
    first = attempt(lambda: ("failed", "model down"), rec, failures_before=0, policy=POLICY)
    assert first.settled == "failed" and first.retry_at is not None and first.retry_at >= before + 10.0
    last = attempt(lambda: ("failed", None), rec, failures_before=2, policy=POLICY)
    assert last.settled == "parked" and last.error == "unknown error"
    assert rec.calls == [("fail", "model down"), ("park", "unknown error")]


def test_an_exception_is_the_turns_failure_and_without_a_policy_it_parks_at_once() -> None:
    rec = Recorder()

    def boom() -> tuple[str, str | None]:
        raise ValueError("bad input")

    once = attempt(boom, rec, failures_before=0, policy=None)  # `memroute retry`: one pass, no backoff
    assert once.settled == "parked" and rec.calls == [("park", "ValueError: bad input")]


def test_counts_add_up_per_user_and_overall() -> None:
    a, b = RunCounts(), RunCounts()
    a.count("ana", 2, "done")
    a.count("ana", 1, "failed", "model down")
    b.count("bo", 1, "parked", "still down")
    b.count("bo", 1, "duplicate")
    a.add(b)
    assert (a.done, a.duplicates, a.failed_attempts, a.parked) == (3, 1, 2, 1)
    assert a.by_user["ana"] == {"done": 2, "duplicates": 0, "failed_attempts": 1, "parked": 0, "last_error": "model down"}
    assert a.by_user["bo"]["parked"] == 1 and a.last_error == "still down"

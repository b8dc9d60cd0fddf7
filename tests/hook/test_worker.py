"""memroute worker's loop (pipeline/hook/worker.py) on a real (throwaway) PostgreSQL shared queue:
retries, parking, per-user order, and an exception counted as the turn's failure."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.hook.runner import RunCounts
from pipeline.hook.worker import run_worker, work_once
from pipeline.store.postgres.store import PostgresStore


@pytest.fixture
def store(pg_dsn: str) -> Any:
    with PostgresStore(pg_dsn) as s:
        yield s


class Policy:
    max_attempts = 3

    def delay(self, failures: int) -> float:
        return 0.0


def test_a_failing_turn_is_retried_then_parked_and_the_users_later_turns_wait_until_then(store: PostgresStore) -> None:
    queue = store.queue()
    queue.submit("u", "bad", None, {"messages": [{"role": "user", "content": "call me at 555-0199 pls"}]})
    queue.submit("u", "good", None, {})
    order: list[str] = []

    def process(row: Any) -> tuple[str, str | None]:
        order.append(row.turn_id)
        return ("failed", "model down") if row.turn_id == "bad" else ("done", None)

    counts = run_worker(queue, process, policy=Policy(), until_empty=True)
    assert order == ["bad", "bad", "bad", "good"]
    assert (counts.failed_attempts, counts.parked, counts.done) == (3, 1, 1)  # every failed attempt, as the hook counts
    status = queue.status()
    assert (status["parked"], status["done"], status["last_error"]) == (1, 1, "model down")
    assert "555-0199" not in str(store.everything_about("u")["hook_queue"])  # parked: redacted text only
    # requeued, it runs after the user's newer turns, which went ahead
    queue.submit("u", "newer", None, {})
    assert queue.requeue_parked("u") == 1
    order.clear()
    run_worker(queue, lambda row: (order.append(row.turn_id), ("done", None))[1], policy=Policy(), until_empty=True)
    assert order == ["newer", "bad"]


def test_an_exception_in_a_turn_is_that_turns_failure(store: PostgresStore) -> None:
    queue = store.queue()
    queue.submit("u", "t", None, {})

    def boom(row: Any) -> tuple[str, str | None]:
        raise ValueError("bad input")

    counts = RunCounts()
    assert work_once(queue, boom, Policy(), counts)
    assert counts.failed_attempts == 1
    assert queue.status()["last_error"] == "ValueError: bad input"

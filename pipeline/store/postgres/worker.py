"""A queue worker: claim the next head-of-line turn, process it, settle it; run as many of these as
you like, in as many processes on as many hosts as you like, against one database.

`process(row)` applies one turn and returns (outcome, error): "done", "duplicate" (the turn was
applied before: a rerun after a crash) or "failed". An exception counts as a failure. Failures are
retried with the policy's backoff, then parked (the user's later turns go ahead).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from pipeline.store.postgres.queue import PgQueue, QueueRow

log = logging.getLogger("memroute.worker")

IDLE_SLEEP_S = 0.02


class Backoff(Protocol):
    @property
    def max_attempts(self) -> int: ...

    def delay(self, failures: int) -> float: ...


@dataclass
class WorkerCounts:
    done: int = 0
    duplicates: int = 0
    failed_attempts: int = 0
    parked: int = 0
    by_outcome: dict[str, int] = field(default_factory=dict)


def default_policy() -> Backoff:
    from pipeline.hook.post_turn import RetryPolicy

    return RetryPolicy()


def work_once(queue: PgQueue, process: Callable[[QueueRow], tuple[str, str | None]], policy: Backoff,
              counts: WorkerCounts) -> bool:
    """Claim and settle one turn; False when no turn was due."""
    with queue.claim() as claim:
        if claim is None:
            return False
        row = claim.row
        try:
            outcome, error = process(row)
        except Exception as exc:  # any failure of one turn is that turn's, never the worker's
            outcome, error = "failed", f"{type(exc).__name__}: {exc}"
        if outcome in ("done", "duplicate"):
            claim.done()
            counts.done += 1
            counts.duplicates += outcome == "duplicate"
        else:
            failures = row.attempts + 1
            message = error or "unknown error"
            if failures >= policy.max_attempts:
                claim.park(message)
                counts.parked += 1
                log.warning("worker: turn %s parked after %d attempts", row.turn_id, failures)
            else:
                claim.fail(message, time.time() + policy.delay(failures))
                counts.failed_attempts += 1
        counts.by_outcome[outcome] = counts.by_outcome.get(outcome, 0) + 1
    if queue.scrubber is not None:  # committed: the row's old version, with its text, can go
        queue.scrubber.soon()
    return True


def run_worker(
    queue: PgQueue,
    process: Callable[[QueueRow], tuple[str, str | None]],
    *,
    policy: Backoff | None = None,
    stop: Callable[[], bool] = lambda: False,
    until_empty: bool = False,
    idle_sleep_s: float = IDLE_SLEEP_S,
) -> WorkerCounts:
    """Work until `stop()` says so (or, with `until_empty`, until nothing is due nor pending)."""
    policy = policy or default_policy()
    counts = WorkerCounts()
    while not stop():
        if work_once(queue, process, policy, counts):
            continue
        if until_empty and queue.pending() == 0:
            break
        time.sleep(idle_sleep_s)
    return counts


def submit(
    queue: PgQueue,
    user_id: str,
    messages: Any,
    timestamp: datetime | str | None = None,
    conversation_id: str | None = None,
    turn_id: str | None = None,
) -> str:
    """Put a chat turn on the shared queue (committed when this returns) and return its turn id, for
    app servers whose turns `memroute worker` processes. Invalid input raises here, at once; the same
    turn id submitted again is a no-op that returns the same id."""
    from pipeline.store.files import validate_user_id
    from pipeline.turns import build_turn, turn_payload

    validate_user_id(user_id)
    # Resolves the timestamp now, so a turn re-run after a crash keeps its dates.
    turn = build_turn(user_id, messages, timestamp=timestamp, conversation_id=conversation_id, turn_id=turn_id)
    queue.submit(user_id, turn.turn_id, turn.conversation_id, turn_payload(turn))
    return turn.turn_id


def pipeline_processor(pipe: Any) -> Callable[[QueueRow], tuple[str, str | None]]:
    """process(row) for a MemoryPipeline: the turn under its queued id (idempotent by turn id)."""

    def process(row: QueueRow) -> tuple[str, str | None]:
        payload = row.payload
        result = pipe.process_turn(
            row.user_id, payload.get("messages"), timestamp=payload.get("timestamp"),
            conversation_id=row.conversation_id, turn_id=row.turn_id,
        )
        if result.status == "duplicate_turn":
            return "duplicate", None
        if result.status == "failed":
            return "failed", result.error
        return "done", None

    return process


def serve(pipe: Any, *, threads: int = 1, until_empty: bool = False, stop: threading.Event | None = None,
          policy: Backoff | None = None) -> WorkerCounts:
    """`memroute worker`: work the shared queue of the pipeline's PostgreSQL store on `threads` threads
    (each claims its own turns; model calls overlap) until `stop` is set or, with `until_empty`,
    nothing is left. A turn in progress when `stop` is set finishes first."""
    queue_of = getattr(pipe.store, "queue", None)
    if queue_of is None:
        raise ValueError("memroute worker needs the PostgreSQL store (--store postgresql://...); "
                         "a root's turns are processed by the hook or `memroute batch`")
    stop = stop or threading.Event()
    pipe.store.db.ensure_capacity(2 * max(1, threads) + 2)  # a claim and a write per thread, and reads
    process = pipeline_processor(pipe)
    totals: list[WorkerCounts] = []
    lock = threading.Lock()

    def loop() -> None:
        counts = run_worker(queue_of(), process, policy=policy, stop=stop.is_set, until_empty=until_empty)
        with lock:
            totals.append(counts)

    workers = [threading.Thread(target=loop, name=f"memroute-worker-{i}", daemon=True) for i in range(max(1, threads))]
    for t in workers:
        t.start()
    for t in workers:
        while t.is_alive():
            t.join(0.2)  # wakes for signals (Ctrl-C) in the main thread
    out = WorkerCounts()
    for c in totals:
        out.done += c.done
        out.duplicates += c.duplicates
        out.failed_attempts += c.failed_attempts
        out.parked += c.parked
        for k, v in c.by_outcome.items():
            out.by_outcome[k] = out.by_outcome.get(k, 0) + v
    return out

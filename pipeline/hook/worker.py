"""`memroute worker`: work a PostgreSQL store's shared queue. Claim the next head-of-line turn, run
it (hook/runner.py: attempt, the runner every queue shares), settle it; run as many of these as you
like, in as many processes on as many hosts as you like, against one database.

`process(row)` applies one turn and returns a TurnResult's (status, error): "done", "duplicate_turn"
(applied before: a rerun after a crash) or "failed". An exception counts as a failure. Failures are
retried with the policy's backoff, then parked (the user's later turns go ahead). The queue itself
(claims, per-user order, exactly-once) is the store's: pipeline/store/postgres/queue.py.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pipeline._util.keyed import ID_KEY
from pipeline.hook.runner import RetryPolicy, RunCounts, attempt, queueable, run_turn

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline
    from pipeline.store.postgres.queue import PgQueue, QueueRow

log = logging.getLogger("memroute.worker")

IDLE_SLEEP_S = 0.02
Process = Callable[["QueueRow"], "tuple[str, str | None]"]


def work_once(queue: PgQueue, process: Process, policy: RetryPolicy, counts: RunCounts) -> bool:
    """Claim and settle one turn; False when no turn was due."""
    with queue.claim() as claim:
        if claim is None:
            return False
        row = claim.row
        done = attempt(lambda: process(row), claim, failures_before=row.attempts, policy=policy)
        if done.settled == "parked":
            log.warning("worker: turn %s parked after %d attempts", row.turn_id, row.attempts + 1)
        counts.count(row.user_id, 1, done.settled, queue.redact(done.error) if done.error is not None else None)
    if queue.scrubber is not None:  # committed: the row's old version, with its text, can go
        queue.scrubber.soon()
    return True


def run_worker(
    queue: PgQueue,
    process: Process,
    *,
    policy: RetryPolicy | None = None,
    stop: Callable[[], bool] = lambda: False,
    until_empty: bool = False,
    idle_sleep_s: float = IDLE_SLEEP_S,
) -> RunCounts:
    """Work until `stop()` says so (or, with `until_empty`, until nothing is due nor pending)."""
    policy = policy or RetryPolicy()
    counts = RunCounts()
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
    turn, payload = queueable(user_id, messages, timestamp, conversation_id, turn_id,
                              lambda: queue.secret_key(ID_KEY))
    queue.submit(user_id, turn.turn_id, turn.conversation_id, payload)
    return turn.turn_id


def pipeline_processor(pipe: MemoryPipeline) -> Process:
    """process(row) for a MemoryPipeline: the turn under its queued id (idempotent by turn id)."""
    return lambda row: run_turn(pipe, [row])


def serve(pipe: MemoryPipeline, *, threads: int = 1, until_empty: bool = False, stop: threading.Event | None = None,
          policy: RetryPolicy | None = None) -> RunCounts:
    """Work the shared queue of the pipeline's PostgreSQL store on `threads` threads (each claims its
    own turns; model calls overlap) until `stop` is set or, with `until_empty`, nothing is left. A
    turn in progress when `stop` is set finishes first."""
    if pipe.store.shared_queue() is None:
        raise ValueError("memroute worker needs the PostgreSQL store (--store postgresql://...); "
                         "a root's turns are processed by the hook or `memroute batch`")
    stop = stop or threading.Event()
    process = pipeline_processor(pipe)
    totals = RunCounts()
    lock = threading.Lock()

    def loop() -> None:
        queue = pipe.store.shared_queue(workers=threads)
        assert queue is not None  # checked above
        counts = run_worker(queue, process, policy=policy, stop=stop.is_set, until_empty=until_empty)
        with lock:
            totals.add(counts)

    workers = [threading.Thread(target=loop, name=f"memroute-worker-{i}", daemon=True) for i in range(max(1, threads))]
    for t in workers:
        t.start()
    for t in workers:
        while t.is_alive():
            t.join(0.2)  # wakes for signals (Ctrl-C) in the main thread
    return totals


__all__ = ["pipeline_processor", "run_worker", "serve", "submit", "work_once"]

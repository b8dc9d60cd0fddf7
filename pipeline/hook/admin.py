"""The hook queue seen from outside a running PostTurnHook: its counts (hook_status, read only, of a
root or a database; `memroute status` reads the same through the store) and `memroute retry`
(run_parked, runs parked turns once in the caller's thread)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.hook.runner import GroupSettle, attempt, run_turn
from pipeline.store.interface import QueuedTurn, empty_queue_status
from pipeline.store.location import Location

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline


def run_parked(pipeline: MemoryPipeline, user_id: str | None = None) -> dict[str, Any]:
    """Run parked turns once, now, in this thread (for `memroute retry`). Turns that fail again are
    parked again with the new error. Returns counts and the turn ids."""
    queue = pipeline.store.open_hook_queue()
    done: list[str] = []
    parked: list[str] = []
    try:
        rows = queue.requeue_parked(user_id)
        groups: list[list[QueuedTurn]] = []
        for row in rows:
            if groups and row.group_seq is not None and groups[-1][0].group_seq == row.group_seq:
                groups[-1].append(row)
            else:
                groups.append([row])
        for members in groups:
            queue.start(members, members[0].group_seq)
            once = attempt(lambda: run_turn(pipeline, members), GroupSettle(queue, members),  # noqa: B023 (run now)
                           failures_before=0, policy=None)
            (done if once.settled in ("done", "duplicate") else parked).extend(m.turn_id for m in members)
    finally:
        queue.close(truncate_wal=False)
    return {"retried": len(done) + len(parked), "done": done, "parked": parked}


def hook_status(where: str | Path | Location) -> dict[str, Any]:
    """Queue counts for `memroute status`: queued, running, failed (waiting for a retry), done,
    parked, the last error (redacted) and the same per user. Read-only; zeros for a fresh store.
    `where`: a root, a postgresql:// URL, or a Location."""
    location = where if isinstance(where, Location) else Location.parse(where)
    store, _ = location.open(read_only=True)
    with store:  # read-only, and immutable where the root is (issue 18)
        return store.hook_queue_status() if store.exists() else empty_queue_status()


__all__ = ["hook_status", "run_parked"]

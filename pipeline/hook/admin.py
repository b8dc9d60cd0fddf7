"""The hook queue seen from outside a running PostTurnHook: `memroute status` (hook_status, read
only) and `memroute retry` (run_parked, runs parked turns once in the caller's thread)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.hook.runner import run_turn
from pipeline.store.interface import QueuedTurn

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
            status, error = run_turn(pipeline, members)
            if status in ("done", "duplicate_turn"):
                queue.finish(members)
                done += [m.turn_id for m in members]
            else:
                queue.park(members, error or "unknown error")
                parked += [m.turn_id for m in members]
    finally:
        queue.close(truncate_wal=False)
    return {"retried": len(done) + len(parked), "done": done, "parked": parked}


def hook_status(root: Path) -> dict[str, Any]:
    """Queue counts for `memroute status`: queued, running, failed (waiting for a retry), done,
    parked, the last error (redacted) and the same per user. Read-only; zeros for a fresh root."""
    from pipeline.store import DB_NAME

    path = Path(root) / DB_NAME
    empty: dict[str, Any] = {
        "queued": 0, "running": 0, "failed": 0, "done": 0, "parked": 0,
        "last_error": None, "last_error_at": None, "users": {},
    }
    if not path.exists():
        return empty
    from pipeline.store import Store

    with Store(root, read_only=True) as store:  # read-only, and immutable where the root is (issue 18)
        return store.hook_queue_status()


__all__ = ["hook_status", "run_parked"]

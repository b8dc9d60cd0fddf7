"""POST /v1/users/{user}/turns, the one path: the route (pipeline/serve/routes.py) and the fast path
below the framework (pipeline/serve/fastpath.py) both accept a turn here, so the limits and the
hook's validation are the same whichever answers. `?wait=true` waits for the hook to settle the
turn in a worker thread (the hook's own condition variable: nothing polls the database, nothing
blocks the event loop), then reads its decisions once."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pipeline.serve.limits import check_turn
from pipeline.serve.models import TurnIn

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline
    from pipeline.hook.post_turn import PostTurnHook
    from pipeline.serve.config import ServeConfig

# What a decision says to a client; the store's bookkeeping columns stay out.
DECISION_KEYS = ("position", "quote", "route", "op", "reason", "section", "key", "value", "entry", "date", "topic",
                 "match", "confidence", "rule", "removal", "asked", "detail", "outcome")
# A decision read back from the log (GET .../decisions) also says which turn it belongs to and when it was logged.
LOGGED_KEYS = ("turn_id", "conversation_id", "ts", *DECISION_KEYS)


def decision_out(row: dict[str, Any], keys: tuple[str, ...] = DECISION_KEYS) -> dict[str, Any]:
    """A stored decision (the store's `decisions()` row) as the API answers it."""
    return {k: row.get(k) for k in keys}


async def submit_turn(hook: PostTurnHook, config: ServeConfig, user: str, turn: TurnIn) -> str:
    """Check the turn against the server's limits and put it on the hook's durable queue (stored on
    disk when this returns); its turn id."""
    messages = [m.model_dump(exclude_none=True) for m in turn.messages]
    check_turn(messages, config.limits)
    return await hook.asubmit(user, messages, timestamp=turn.timestamp, conversation_id=turn.conversation_id,
                              turn_id=turn.turn_id)


async def wait_for_turn(hook: PostTurnHook, pipe: MemoryPipeline, user: str, turn_id: str,
                        timeout_s: float) -> dict[str, Any]:
    """The turn once the hook has settled it (applied, and its queued text cleared) or after
    `timeout_s`: {"turn_id", "status": "done", "decisions"} or {"turn_id", "status": "queued" | "retrying"}."""
    await asyncio.to_thread(hook.wait_settled, user, turn_id, timeout_s)
    status = await asyncio.to_thread(pipe.store.turn_status, user, turn_id)
    if status is None and await asyncio.to_thread(hook.queue.settled_done, user, turn_id):
        status = "done"  # applied before the upgrade to keyed ids, under the plain id it had then: nothing new decided
    if status == "done":  # applied, and the hook has let go of it: no byte of its queued text is left at rest
        rows = await asyncio.to_thread(pipe.store.decisions, user, turn_id)
        return {"turn_id": turn_id, "status": "done", "decisions": [decision_out(row) for row in rows]}
    # still queued, or failed and waiting for the hook's retry: it stays accepted
    return {"turn_id": turn_id, "status": "retrying" if status == "failed" else "queued"}


__all__ = ["DECISION_KEYS", "LOGGED_KEYS", "decision_out", "submit_turn", "wait_for_turn"]

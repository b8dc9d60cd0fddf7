"""One attempt at a queued turn: what the PostTurnHook's workers (threads or child processes) and
`memroute retry` run. A debounced group of turns becomes one turn here (merged_turn)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pipeline import observe
from pipeline.store.interface import QueuedTurn
from pipeline.turns import build_turn

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline

log = logging.getLogger("memroute.hook")


def merged_turn(members: list[QueuedTurn]) -> dict[str, Any]:
    """The process_turn arguments for a group. Several debounced turns become one turn whose user
    message joins theirs (so all are classified, in one call), with the first one's history as
    context and the last one's replies after it. Deterministic: a re-run builds the same turn."""
    first = members[0]
    if len(members) == 1:
        return {"messages": first.payload.get("messages"), "timestamp": first.payload.get("timestamp")}
    turns = [
        build_turn(m.user_id, m.payload.get("messages"), timestamp=m.payload.get("timestamp"),
                   conversation_id=m.conversation_id, turn_id=m.turn_id)
        for m in members
    ]
    messages: list[dict[str, str]] = [{"role": h.role, "content": h.content} for h in turns[0].history]
    messages.append({"role": "user", "content": "\n\n".join(t.user_text for t in turns)})
    messages += [{"role": x.role, "content": x.content} for x in turns[-1].messages if x.role != "user"]
    return {"messages": messages, "timestamp": first.payload.get("timestamp")}


def run_turn(pipeline: MemoryPipeline, members: list[QueuedTurn]) -> tuple[str, str | None]:
    """(status, error) of one attempt; an exception counts as a failure like a failed TurnResult."""
    leader = members[0]
    try:
        args = merged_turn(members)
        result = pipeline.process_turn(
            leader.user_id,
            args["messages"],
            timestamp=args["timestamp"],
            conversation_id=leader.conversation_id,
            turn_id=leader.turn_id,
        )
    except Exception as e:
        log.warning("hook: turn %s of user %s raised %s", leader.turn_id, leader.user_id, type(e).__name__)
        return "failed", f"{type(e).__name__}: {e}"
    return result.status, result.error


_child_pipeline: MemoryPipeline | None = None


_child_metrics = observe.Recorder()


def init_child(factory: Callable[[], MemoryPipeline]) -> None:
    global _child_pipeline
    _child_pipeline = factory()
    observe.set_sink(_child_metrics)  # the parent replays them into its own metrics


def run_in_child(members: list[QueuedTurn]) -> tuple[str, str | None, list[tuple[str, str, float, dict[str, str]]]]:
    """(status, error, the metric events of the attempt)."""
    assert _child_pipeline is not None, "hook process pool used without its initializer"
    status, error = run_turn(_child_pipeline, members)
    return status, error, _child_metrics.take()


__all__ = ["init_child", "merged_turn", "run_in_child", "run_turn"]

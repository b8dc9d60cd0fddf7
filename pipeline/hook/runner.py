"""One runner for a queued turn: run it once, then finish it, schedule its retry or park it, and
count what happened. The PostTurnHook (its threads or child processes), `memroute retry`
(hook/admin.py) and the PostgreSQL shared queue's workers (hook/worker.py) all use `attempt`;
the queues only store what it decides.

A debounced group of turns becomes one turn here (merged_turn)."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pipeline import observe
from pipeline.store.files import validate_user_id
from pipeline.store.interface import HookQueue, QueuedTurn
from pipeline.turns import build_turn, turn_payload
from pipeline.types import Turn

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline

log = logging.getLogger("memroute.hook")

# What one attempt came to: applied, applied before (a rerun after a crash), failed (a retry is
# scheduled), or parked (out of attempts; the user's later turns go ahead).
Settled = Literal["done", "duplicate", "failed", "parked"]


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff for failed turns: base, base*m, base*m^2, ... capped, with +/- jitter."""

    max_attempts: int = 6
    base_delay_s: float = 1.0
    multiplier: float = 2.0
    max_delay_s: float = 60.0
    jitter: float = 0.1

    def delay(self, failures: int) -> float:
        """Wait after the `failures`-th failed attempt (1-based)."""
        d = min(self.max_delay_s, self.base_delay_s * self.multiplier ** max(0, failures - 1))
        return max(0.0, d * (1 + random.uniform(-self.jitter, self.jitter)))


class Settle(Protocol):
    """Where a queue records the runner's verdict on the turn it handed out."""

    def done(self) -> None: ...

    def fail(self, error: str, next_attempt_at: float) -> None: ...

    def park(self, error: str) -> None: ...


@dataclass(frozen=True)
class GroupSettle:
    """Settle for a group of the hook's own queue (HookQueue): every member alike."""

    queue: HookQueue
    members: list[QueuedTurn]

    def done(self) -> None:
        self.queue.finish(self.members)

    def fail(self, error: str, next_attempt_at: float) -> None:
        self.queue.fail(self.members, error, next_attempt_at)

    def park(self, error: str) -> None:
        self.queue.park(self.members, error)


class Queued(Protocol):
    """A queued turn as any queue holds it (the hook's QueuedTurn, the shared queue's QueueRow)."""

    @property
    def user_id(self) -> str: ...

    @property
    def turn_id(self) -> str: ...

    @property
    def conversation_id(self) -> str | None: ...

    @property
    def payload(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Attempt:
    settled: Settled
    error: str | None = None
    retry_at: float | None = None  # set when settled "failed"


def attempt(run: Callable[[], tuple[str, str | None]], settle: Settle, *, failures_before: int,
            policy: RetryPolicy | None) -> Attempt:
    """Run the turn once (`run` returns a TurnResult's status and error; an exception is a failure
    like any other) and settle it: done, failed with a retry after the policy's backoff, or parked
    once the policy's attempts are spent. `policy` None: a failure parks at once (`memroute retry`)."""
    try:
        status, error = run()
    except Exception as e:  # any failure of one turn is that turn's, never the runner's
        status, error = "failed", f"{type(e).__name__}: {e}"
    if status in ("done", "duplicate_turn", "duplicate"):
        settle.done()
        return Attempt("done" if status == "done" else "duplicate")
    error = error or "unknown error"
    failures = failures_before + 1
    if policy is None or failures >= policy.max_attempts:
        settle.park(error)
        return Attempt("parked", error)
    retry_at = time.time() + policy.delay(failures)
    settle.fail(error, retry_at)
    return Attempt("failed", error, retry_at)


@dataclass
class RunCounts:
    """What a runner did: turns done (of which duplicates), failed attempts, turns parked, the last
    error (redacted by the caller), and the same per user."""

    done: int = 0
    duplicates: int = 0
    failed_attempts: int = 0
    parked: int = 0
    last_error: str | None = None
    last_error_at: float | None = None
    by_user: dict[str, dict[str, Any]] = field(default_factory=dict)

    def count(self, user_id: str, turns: int, settled: Settled, error: str | None = None) -> None:
        """One attempt at `turns` turns of one user (a debounced group counts its members)."""
        per = self.by_user.setdefault(user_id, _per_user())
        if settled in ("done", "duplicate"):
            self.done += turns
            self.duplicates += turns if settled == "duplicate" else 0
            per["done"] += turns
            per["duplicates"] += turns if settled == "duplicate" else 0
        else:
            self.failed_attempts += 1
            per["failed_attempts"] += 1
            if settled == "parked":
                self.parked += turns
                per["parked"] += turns
        if error is not None:
            self.last_error, self.last_error_at = error, time.time()
            per["last_error"] = error

    def add(self, other: RunCounts) -> None:
        self.done += other.done
        self.duplicates += other.duplicates
        self.failed_attempts += other.failed_attempts
        self.parked += other.parked
        if other.last_error_at is not None and (self.last_error_at is None or other.last_error_at >= self.last_error_at):
            self.last_error, self.last_error_at = other.last_error, other.last_error_at
        for user, per in other.by_user.items():
            mine = self.by_user.setdefault(user, _per_user())
            for key in ("done", "duplicates", "failed_attempts", "parked"):
                mine[key] += per[key]
            mine["last_error"] = per["last_error"] or mine["last_error"]


def queueable(user_id: str, messages: Any, timestamp: datetime | str | None, conversation_id: str | None,
              turn_id: str | None, id_key: Callable[[], bytes]) -> tuple[Turn, dict[str, Any]]:
    """A turn as every queue stores it: the input checked now (InvalidUserId, BadTurn raise at once)
    and the timestamp resolved now, so a turn re-run after a crash keeps its dates; with its payload.
    `id_key()`: the store's key for a turn id made from the turn (called only when none is given)."""
    validate_user_id(user_id)
    turn = build_turn(user_id, messages, timestamp=timestamp, conversation_id=conversation_id, turn_id=turn_id,
                      id_key=id_key() if turn_id is None else None)
    return turn, turn_payload(turn)


def _per_user() -> dict[str, Any]:
    return {"done": 0, "duplicates": 0, "failed_attempts": 0, "parked": 0, "last_error": None}


def merged_turn(members: Sequence[Queued]) -> dict[str, Any]:
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


def run_turn(pipeline: MemoryPipeline, members: Sequence[Queued]) -> tuple[str, str | None]:
    """Process the queued turn (a group: merged) under the leader's turn id, idempotent by that id:
    the TurnResult's (status, error). An exception counts as a failure like a failed TurnResult."""
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


def run_in_child(members: list[Any]) -> tuple[str, str | None, list[tuple[str, str, float, dict[str, str]]]]:
    """(status, error, the metric events of the attempt)."""
    assert _child_pipeline is not None, "hook process pool used without its initializer"
    status, error = run_turn(_child_pipeline, members)
    return status, error, _child_metrics.take()


__all__ = ["Attempt", "GroupSettle", "RetryPolicy", "queueable", "RunCounts", "Settle", "Settled", "attempt", "init_child", "merged_turn",
           "run_in_child", "run_turn"]

"""The contract every engine meets. Engines produce decisions and rewrite text; they never touch files.

`Engine` is a base class, not a protocol probed by name: every capability the pipeline uses is a
method here with a default (aclassify runs classify in a thread, compact is the rule-based USER.md
compaction, preload/close/aclose do nothing). Each stage returns its result together with the
usage it spent: Classification and ConsolidationPlan carry `usage`, compaction returns a `Result`.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Generic, TypeVar

from pipeline.types import Classification, ConsolidationPlan, MemoryItem, Turn, Usage

if TYPE_CHECKING:
    import asyncio

# Model requests a caller lets be in flight at once, shared by every engine call in its context
# (the batch runner sets it: there `--concurrency` bounds requests to the provider, not users).
# A model-backed engine holds one slot per HTTP request, so building the prompt, parsing the
# answer and backing off between retries hold none. Unset: no bound beyond the caller's own.
REQUEST_SLOTS: ContextVar[asyncio.Semaphore | None] = ContextVar("memroute_request_slots", default=None)

# The turn in progress, set by the pipeline around each turn (an empty list): the engine puts the
# time.monotonic() of the turn's first model request in it, and its deadline (LLMEngine's
# `deadline`) counts from there across all the turn's stages; the imports and prompt building
# before it never eat the budget. Unset (an engine called directly): each stage call counts alone.
TURN_STARTED: ContextVar[list[float] | None] = ContextVar("memroute_turn_started", default=None)

# What a model-backed engine may spend unless the caller says otherwise (pipeline/limits.py, a module without
# imports so the CLI's start need not load this one): the defaults of LLMEngine, MemoryPipeline, Settings (the
# CLI) and the engine registry alike.
from pipeline.limits import DEFAULT_DEADLINE_S as DEFAULT_DEADLINE_S  # noqa: E402
from pipeline.limits import DEFAULT_MAX_RETRIES as DEFAULT_MAX_RETRIES  # noqa: E402
from pipeline.limits import DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S  # noqa: E402

T = TypeVar("T")


@dataclass(frozen=True)
class Result(Generic[T]):
    """A stage's value and what producing it cost (failed model calls included)."""

    value: T
    usage: Usage = field(default_factory=Usage)


class Engine:
    """Subclass this and implement classify and consolidate; the rest has working defaults."""

    name: str = "engine"  # "offline", "llm", "hybrid", or a third-party engine's registry name
    model: str | None = None
    # compact() costs nothing (the rule-based default): the pipeline may then compact USER.md before it
    # is full (ops/turn.py WritePolicy). An engine whose compact() calls a model says False, and is
    # asked only when a write does not fit.
    free_compaction: bool = True

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        """Split the turn into atomic statements and route each one. The pipeline passes the two
        files as read-only views (engines/views.py: UserView, MemoryView), the capped markdown text
        that also carries its parsed fields/entries; a direct caller may pass plain text."""
        raise NotImplementedError(f"{type(self).__name__}.classify")

    async def aclassify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        """classify for asyncio callers; by default in a worker thread, so the loop never blocks."""
        import asyncio  # here, not at the top: the CLI and the offline path never need it

        return await asyncio.to_thread(self.classify, turn, user_md, memory_md)

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        """Propose a shorter MEMORY.md whose rendered size is at most target_chars."""
        raise NotImplementedError(f"{type(self).__name__}.consolidate")

    def compact(
        self, user_md: str, needed_chars: int, *, protected: frozenset[str] = frozenset(), goal_chars: int | None = None
    ) -> Result[str | None]:
        """USER.md at least `needed_chars` shorter with every field kept, or None when it cannot be.

        `protected`: normalised keys the user set by hand, never shortened away. The default is the
        rule-based compaction (no model, no cost), shrinking towards `goal_chars` when given.
        """
        from pipeline.engines.offline.compact import compact_profile

        done = compact_profile(user_md, needed_chars, protected=set(protected), goal_chars=goal_chars)
        return Result(done.text if done is not None else None)

    def preload(self) -> None:
        """Import now what the first call would (a batch worker warms up before it takes users)."""

    def close(self) -> None:
        """Release pooled connections or other resources (sync)."""

    async def aclose(self) -> None:
        """Release what belongs to the running event loop (its connections)."""

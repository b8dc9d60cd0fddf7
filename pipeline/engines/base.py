"""The contract every engine meets. Engines produce decisions and rewrite text; they never touch files."""

from __future__ import annotations

from contextvars import ContextVar
from datetime import date
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pipeline.types import Classification, ConsolidationPlan, MemoryItem, Turn

if TYPE_CHECKING:
    import asyncio

# Model requests a caller lets be in flight at once, shared by every engine call in its context
# (the batch runner sets it: there `--concurrency` bounds requests to the provider, not users).
# A model-backed engine holds one slot per HTTP request, so building the prompt, parsing the
# answer and backing off between retries hold none. Unset: no bound beyond the caller's own.
REQUEST_SLOTS: ContextVar[asyncio.Semaphore | None] = ContextVar("memroute_request_slots", default=None)


@runtime_checkable
class Engine(Protocol):
    name: str  # "offline", "llm", "hybrid"
    model: str | None

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        """Split the turn into atomic statements and route each one."""
        ...

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        """Propose a shorter MEMORY.md whose rendered size is at most target_chars."""
        ...


async def aclassify(engine: Engine, turn: Turn, user_md: str, memory_md: str) -> Classification:
    """Async classify: the engine's own coroutine when it has one, else a worker thread."""
    import asyncio  # here, not at the top: the CLI and the offline path never need it

    native = getattr(engine, "aclassify", None)
    if native is not None:
        result: Classification = await native(turn, user_md, memory_md)
        return result
    return await asyncio.to_thread(engine.classify, turn, user_md, memory_md)

"""The contract every engine meets. Engines produce decisions and rewrite text; they never touch files."""

from __future__ import annotations

from datetime import date
from typing import Protocol, runtime_checkable

from pipeline.types import Classification, ConsolidationPlan, MemoryItem, Turn


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

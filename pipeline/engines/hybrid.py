"""Hybrid: the offline engine is a cheap gate in front of the LLM.

The gate is tuned for recall: the offline engine's learned turn gate sends every turn that may hold something
(its P(write) over a threshold chosen by cross-validation to keep >= 0.95 of the turns a curator writes, or any turn
its rules write on) to the LLM engine, which makes the final decisions; only turns that clearly hold nothing
(greetings, thanks, questions, agreement) cost no model call. A gate engine without that model (a custom one, or
the offline engine without its weights) saves the call when it finds nothing memorable (every statement a skip).
Everything else (USER.md compaction, consolidation, preload, close) is the LLM engine's.
"""

from __future__ import annotations

from datetime import date

from pipeline.engines.base import Engine, Result
from pipeline.engines.offline import OfflineEngine
from pipeline.types import Classification, ConsolidationPlan, MemoryItem, Turn


class HybridEngine(Engine):
    name = "hybrid"
    free_compaction = False  # compact() is the LLM engine's

    def __init__(self, llm: Engine, gate: Engine | None = None) -> None:
        self.llm = llm
        self.gate = gate or OfflineEngine()
        self.model = llm.model

    def _gated(self, turn: Turn, user_md: str, memory_md: str) -> Classification | None:
        """The offline classification when the gate says the turn holds nothing memorable, else None (call the model)."""
        needs_model = getattr(self.gate, "needs_model", None)
        if needs_model is not None:
            call, offline = needs_model(turn, user_md, memory_md)
            return None if call else offline.model_copy(update={"engine": self.name})
        offline = self.gate.classify(turn, user_md, memory_md)
        if all(d.route == "skip" for d in offline.decisions):
            return offline.model_copy(update={"engine": self.name})
        return None

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        gated = self._gated(turn, user_md, memory_md)
        if gated is not None:
            return gated
        return self.llm.classify(turn, user_md, memory_md).model_copy(update={"engine": self.name})

    async def aclassify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        gated = self._gated(turn, user_md, memory_md)
        if gated is not None:
            return gated
        result = await self.llm.aclassify(turn, user_md, memory_md)
        return result.model_copy(update={"engine": self.name})

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        return self.llm.consolidate(items, target_chars=target_chars, today=today)

    def compact(
        self, user_md: str, needed_chars: int, *, protected: frozenset[str] = frozenset(), goal_chars: int | None = None
    ) -> Result[str | None]:
        return self.llm.compact(user_md, needed_chars, protected=protected, goal_chars=goal_chars)

    def preload(self) -> None:
        self.llm.preload()

    def close(self) -> None:
        self.llm.close()

    async def aclose(self) -> None:
        await self.llm.aclose()

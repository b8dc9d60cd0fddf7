"""What every framework integration shares: one user's memory, the block for the system prompt,
and the turn submitted after the model answered (through the durable PostTurnHook when one is
given, else applied at once with MemoryPipeline.process_turn). Public API only."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pipeline.integrations.remember import DESCRIPTION as REMEMBER_DESCRIPTION
from pipeline.integrations.remember import remember

if TYPE_CHECKING:
    from pipeline import MemoryPipeline, PostTurnHook, TurnResult

CONTEXT_HEADER = "What you remember about the user (memroute; stable facts and a dated log):"
RECALL_DESCRIPTION = (
    "Search what you remember about the user: their profile, the dated log and the archive of what left them. "
    "All words must appear (any case)."
)


class UserMemory:
    """One user's memory for an agent: `system_text()` for the prompt, `submit(messages)` after a
    turn, `remember(text)` and `recall(query)` as tools."""

    def __init__(
        self, pipe: MemoryPipeline, user_id: str, *, hook: PostTurnHook | None = None, team: str | None = None,
        conversation_id: str | None = None,
    ) -> None:
        self.pipe = pipe
        self.user_id = user_id
        self.hook = hook
        self.team = team
        self.conversation_id = conversation_id

    def context(self) -> str:
        return self.pipe.context(self.user_id, team=self.team)

    def system_text(self) -> str:
        """The memory block with a header saying what it is (the same shape whatever the framework)."""
        return f"{CONTEXT_HEADER}\n{self.context()}"

    def submit(self, messages: list[dict[str, Any]], timestamp: datetime | str | None = None) -> TurnResult | str | None:
        """Route the turn (the last user message and what follows it; earlier messages are context).
        With a hook: queued durably, its turn id returned. None when there is no user message."""
        if not any(m.get("role") == "user" and str(m.get("content") or "").strip() for m in messages):
            return None
        if self.hook is not None:
            return self.hook.submit(self.user_id, messages, timestamp=timestamp, conversation_id=self.conversation_id)
        return self.pipe.process_turn(self.user_id, messages, timestamp=timestamp, conversation_id=self.conversation_id)

    async def asubmit(self, messages: list[dict[str, Any]], timestamp: datetime | str | None = None
                      ) -> TurnResult | str | None:
        if not any(m.get("role") == "user" and str(m.get("content") or "").strip() for m in messages):
            return None
        if self.hook is not None:
            return await self.hook.asubmit(self.user_id, messages, timestamp=timestamp,
                                           conversation_id=self.conversation_id)
        return await self.pipe.aprocess_turn(self.user_id, messages, timestamp=timestamp,
                                             conversation_id=self.conversation_id)

    def remember(self, text: str) -> str:
        """The `remember` tool: the answer as JSON text (what was stored, what was skipped and why)."""
        return json.dumps(self.pipe.for_model(remember(self.pipe, self.user_id, text)), ensure_ascii=False)

    def recall(self, query: str, k: int = 5) -> str:
        """The `recall` tool: the hits as JSON text (recall's hits have passed the load scan, as context's lines)."""
        hits = self.pipe.recall(self.user_id, query, k=max(1, min(k, 20)))
        return json.dumps({"hits": hits}, ensure_ascii=False, default=str)


__all__ = ["CONTEXT_HEADER", "RECALL_DESCRIPTION", "REMEMBER_DESCRIPTION", "UserMemory"]

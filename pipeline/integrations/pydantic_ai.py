"""memroute for pydantic-ai agents (`pip install 'memroute[pydantic-ai]'`): a toolset (`remember`,
`recall`), a history processor that puts the user's memory at the start of every request, and
`submit(result)` after a run, which routes the run's turn like a chat turn.

    from pipeline import MemoryPipeline
    from pipeline.integrations.pydantic_ai import PydanticAIMemory

    memory = PydanticAIMemory(MemoryPipeline(root="./memory"), "jasmin")
    agent = Agent("openai:gpt-4o", toolsets=[memory.toolset()], capabilities=[memory.capability()])
    result = agent.run_sync("I'm Jasmin, a frontend engineer.")
    memory.submit(result.new_messages())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai import FunctionToolset
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, SystemPromptPart, TextPart, UserPromptPart

from pipeline.integrations.base import RECALL_DESCRIPTION, REMEMBER_DESCRIPTION, UserMemory


class PydanticAIMemory(UserMemory):
    def toolset(self) -> FunctionToolset[Any]:
        toolset: FunctionToolset[Any] = FunctionToolset()
        toolset.add_function(self.remember, takes_ctx=False, name="remember", description=REMEMBER_DESCRIPTION)
        toolset.add_function(self.recall, takes_ctx=False, name="recall", description=RECALL_DESCRIPTION)
        return toolset

    def history_processor(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """The user's memory as a system prompt part before the history (replacing an earlier one,
        so a processor that runs before every request adds it once)."""
        part = SystemPromptPart(content=self.system_text())
        kept = [m for m in messages if not _is_memory_request(m)]
        return [ModelRequest(parts=[part]), *kept]

    def capability(self) -> Any:
        """The history processor as an agent capability (pydantic-ai 2: `Agent(capabilities=[...])`)."""
        from pydantic_ai.capabilities import ProcessHistory

        return ProcessHistory(self.history_processor)

    def submit(self, messages: Any, timestamp: Any = None) -> Any:
        """Route a run's turn: `result.new_messages()` (or `all_messages()`), or OpenAI-style dicts."""
        if messages and not isinstance(messages[0], dict):
            messages = to_openai_messages(messages)
        return super().submit(messages, timestamp=timestamp)


def _is_memory_request(message: ModelMessage) -> bool:
    return isinstance(message, ModelRequest) and bool(message.parts) and all(
        isinstance(p, SystemPromptPart) and p.content.startswith("What you remember about the user (memroute")
        for p in message.parts
    )


def to_openai_messages(messages: Sequence[ModelMessage]) -> list[dict[str, Any]]:
    """What the user said and what the model answered, in order; system prompts (ours included),
    tool calls and tool returns left out."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart):
                    content = part.content if isinstance(part.content, str) else "\n".join(
                        c for c in part.content if isinstance(c, str))
                    if content.strip():
                        out.append({"role": "user", "content": content})
        elif isinstance(message, ModelResponse):
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            if text.strip():
                out.append({"role": "assistant", "content": text})
    return out


__all__ = ["PydanticAIMemory", "to_openai_messages"]

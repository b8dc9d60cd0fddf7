"""memroute for the OpenAI Agents SDK (`pip install 'memroute[openai-agents]'`): dynamic
instructions that carry the user's memory, run hooks that submit the turn when the agent has
produced its final output, and `remember` / `recall` function tools.

    memory = AgentsMemory(MemoryPipeline(root="./memory"), "jasmin")
    agent = Agent(name="assistant", instructions=memory.instructions("You are a helpful assistant."),
                  tools=memory.tools())
    result = await Runner.run(agent, "I'm Jasmin, a frontend engineer.", hooks=memory.hooks())
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents import Agent, FunctionTool, RunContextWrapper, RunHooks, function_tool

from pipeline.integrations.base import RECALL_DESCRIPTION, REMEMBER_DESCRIPTION, UserMemory


class AgentsMemory(UserMemory):
    def instructions(self, base: str = "") -> Callable[[RunContextWrapper[Any], Agent[Any]], str]:
        """Instructions for `Agent(instructions=...)`: `base`, then the user's memory, read when
        each run starts."""

        def instructions(context: RunContextWrapper[Any], agent: Agent[Any]) -> str:
            return f"{base}\n\n{self.system_text()}" if base else self.system_text()

        return instructions

    def hooks(self) -> RunHooks[Any]:
        """Run hooks for `Runner.run(..., hooks=...)`: the turn is submitted when the run's agent ends."""
        return _SubmitTurn(self)

    def tools(self) -> list[FunctionTool]:
        return [
            function_tool(self.remember, name_override="remember", description_override=REMEMBER_DESCRIPTION),
            function_tool(self.recall, name_override="recall", description_override=RECALL_DESCRIPTION),
        ]


class _SubmitTurn(RunHooks[Any]):  # type: ignore[misc, unused-ignore]  # the agents SDK is optional
    def __init__(self, memory: AgentsMemory) -> None:
        self.memory = memory
        self.user_texts: list[str] = []

    async def on_llm_start(self, context: RunContextWrapper[Any], agent: Agent[Any], system_prompt: str | None,
                           input_items: list[Any]) -> None:
        texts = [t for t in (_user_text(item) for item in input_items) if t]
        if texts:
            self.user_texts = texts

    async def on_agent_end(self, context: Any, agent: Agent[Any], output: Any) -> None:
        if not self.user_texts:
            return
        messages: list[dict[str, Any]] = [{"role": "user", "content": self.user_texts[-1]}]
        if isinstance(output, str) and output.strip():
            messages.append({"role": "assistant", "content": output})
        self.user_texts = []
        await self.memory.asubmit(messages)


def _user_text(item: Any) -> str | None:
    """A user message's text from a Responses input item (a dict, or the SDK's own objects)."""
    if not isinstance(item, dict):
        item = item.model_dump() if hasattr(item, "model_dump") else {}
    if item.get("role") != "user":
        return None
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "input_text")
    return None


__all__ = ["AgentsMemory"]

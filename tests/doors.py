"""Every door that writes memory, as a test calls it: a chat turn, `remember` (the function, the MCP
tool, each framework's tool), a framework's submit (at once, and through the durable hook),
`import-mem0`, `import-letta`, `import-hermes` and the Hermes-style `memory` tool.

`KeepsEverything` is an engine that files a statement everywhere it could go (a USER.md field, a
MEMORY.md entry, a candidate waiting for confirmation): whatever a door lets through, the shared
guards are all that stand between the text and the disk.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import anyio

from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine
from pipeline.evals.leaks import needle_pattern
from pipeline.types import Classification, ConsolidationPlan, Decision, Turn, Usage

TS = "2026-08-02T10:00:00Z"


class KeepsEverything(Engine):
    """Files every statement as a Family field, a log entry and a candidate Notes field."""

    name = "keeps-everything"
    model: str | None = None
    prompt_version = "keeps-everything-1"

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        text = turn.user_text
        decisions = [
            Decision(quote=text, route="user", op="upsert", section="Identity", key="Family", value=text),
            Decision(quote=text, route="memory", op="append", entry=text, date="2026-08-02", topic="life"),
            Decision(quote=text, route="skip", reason="vague", candidate=True, section="Preferences", key="Notes",
                     value=text),
        ]
        return Classification(decisions=decisions, usage=Usage(), engine=self.name, model=None,
                              prompt_version=self.prompt_version)

    def consolidate(self, items: list[Any], *, target_chars: int, today: date) -> ConsolidationPlan:
        raise AssertionError("not reached")


def _turn(pipe: MemoryPipeline, user: str, text: str) -> None:
    pipe.process_turn(user, [{"role": "user", "content": text}], timestamp=TS)


def _remember(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pipeline.integrations.remember import remember

    remember(pipe, user, text, timestamp=TS)


def _mcp_remember(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pipeline.serve.mcp_server import build_mcp

    server = build_mcp(lambda: pipe, user)

    async def call() -> None:
        await server.call_tool("remember", {"text": text, "timestamp": TS})

    anyio.run(call)


def _mcp_memory_tool(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pipeline.serve.mcp_server import build_mcp

    server = build_mcp(lambda: pipe, user)

    async def call() -> None:
        await server.call_tool("memory", {"action": "add", "target": "user", "content": f"Notes: {text}"})
        await server.call_tool("memory", {"action": "add", "target": "memory", "content": f"[2026-08-02] {text}"})

    anyio.run(call)


def _pydantic_ai_tool(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pipeline.integrations.pydantic_ai import PydanticAIMemory

    PydanticAIMemory(pipe, user).toolset().tools["remember"].function(text)


def _langgraph_tool(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pipeline.integrations.langgraph import LangGraphMemory

    [tool] = [t for t in LangGraphMemory(pipe, user).tools() if t.name == "remember"]
    tool.invoke({"text": text})


def _openai_agents_tool(pipe: MemoryPipeline, user: str, text: str) -> None:
    from agents.tool_context import ToolContext

    from pipeline.integrations.openai_agents import AgentsMemory

    [tool] = [t for t in AgentsMemory(pipe, user).tools() if t.name == "remember"]
    args = json.dumps({"text": text})
    context = ToolContext(context=None, tool_name="remember", tool_call_id="call-1", tool_arguments=args)
    asyncio.run(tool.on_invoke_tool(context, args))


def _submit(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pipeline.integrations.base import UserMemory

    UserMemory(pipe, user).submit([{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}],
                                  timestamp=TS)


def _submit_through_hook(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pipeline import PostTurnHook
    from pipeline.integrations.base import UserMemory

    hook = PostTurnHook(pipe)
    try:
        UserMemory(pipe, user, hook=hook).submit([{"role": "user", "content": text}], timestamp=TS)
    finally:
        hook.close(timeout=60)


def _langgraph_submit(pipe: MemoryPipeline, user: str, text: str) -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    from pipeline.integrations.langgraph import LangGraphMemory

    LangGraphMemory(pipe, user).post_model_hook({"messages": [HumanMessage(text), AIMessage("Noted.")]})


def _pydantic_ai_submit(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

    from pipeline.integrations.pydantic_ai import PydanticAIMemory

    PydanticAIMemory(pipe, user).submit([ModelRequest(parts=[UserPromptPart(content=text)]),
                                         ModelResponse(parts=[TextPart(content="Noted.")])])


def _import_mem0(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pipeline.integrations.imports import import_mem0

    import_mem0(pipe, [{"id": f"m-{abs(hash(text))}", "memory": text, "user_id": user,
                        "created_at": "2026-07-01T09:00:00Z"}])


def _import_letta(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pipeline.integrations.imports import import_letta

    import_letta(pipe, {"blocks": [{"label": "human", "value": text}]}, user)


def _import_hermes(pipe: MemoryPipeline, user: str, text: str) -> None:
    from pipeline.ledgers.hermes import write_hermes
    from pipeline.ops.tool import import_hermes

    source = pipe.root.parent / f"hermes-{user}"
    write_hermes(source, [text, f"Notes: {text}"], [f"[2026-07-01] {text}"])
    import_hermes(pipe.workspace, source, user)


# name -> (call, engine the door needs). Imports and turns run the engine; the Hermes import and the
# memory tool write what they are given.
DOORS: dict[str, Callable[[MemoryPipeline, str, str], None]] = {
    "turn": _turn,
    "remember": _remember,
    "mcp-remember": _mcp_remember,
    "mcp-memory-tool": _mcp_memory_tool,
    "pydantic-ai-tool": _pydantic_ai_tool,
    "langgraph-tool": _langgraph_tool,
    "openai-agents-tool": _openai_agents_tool,
    "submit": _submit,
    "submit-hook": _submit_through_hook,
    "langgraph-submit": _langgraph_submit,
    "pydantic-ai-submit": _pydantic_ai_submit,
    "import-mem0": _import_mem0,
    "import-letta": _import_letta,
    "import-hermes": _import_hermes,
}
FRAMEWORK = {"pydantic-ai-tool": "pydantic_ai", "pydantic-ai-submit": "pydantic_ai", "langgraph-tool": "langgraph",
             "langgraph-submit": "langgraph", "openai-agents-tool": "agents", "mcp-remember": "mcp",
             "mcp-memory-tool": "mcp"}


def pipeline_for(root: Path, engine: Engine | None = None) -> MemoryPipeline:
    return MemoryPipeline(root=root, engine=engine if engine is not None else KeepsEverything())


def holds(text: str | bytes, needle: str) -> bool:
    """`needle`, any case, as the eval's leak search reads it: a number only standing alone ("5150" inside a hex
    turn id or a timestamp's microseconds is not the code)."""
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    return needle_pattern(needle).search(data) is not None


def at_rest(root: Path, needle: str) -> list[str]:
    """Files under `root` whose bytes hold `needle` (see holds)."""
    rx = needle_pattern(needle)
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and rx.search(p.read_bytes())]


def everything_kept(pipe: MemoryPipeline, user: str) -> str:
    """What the pipeline answers about `user` through its own readers: everything held (export --all) and the
    block a prompt gets."""
    return json.dumps(pipe.export_all(user), ensure_ascii=False, default=str) + "\n" + pipe.context(user)

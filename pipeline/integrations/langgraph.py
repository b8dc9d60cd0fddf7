"""memroute for LangGraph / LangChain agents (`pip install 'memroute[langgraph]'`): the user's
memory put before the model's input, the turn submitted once the model has answered, and
`remember` / `recall` tools.

- With LangChain's `create_agent` (the agent LangGraph 1.x recommends; it runs on LangGraph):
  `create_agent(model, tools=memory.tools(), middleware=[memory.middleware()])`.
- In your own graph: call `memory.inject(messages)` where the model node builds its input, and
  add `memory.node` after it (it submits the last turn once the model's answer is final).
- `pre_model_hook` / `post_model_hook` serve the older `langgraph.prebuilt.create_react_agent`
  (deprecated since LangGraph 1.0).

    memory = LangGraphMemory(MemoryPipeline(root="./memory"), "jasmin")
    agent = create_agent(model, tools=memory.tools(), middleware=[memory.middleware()])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import BaseTool, StructuredTool

from pipeline.integrations.base import CONTEXT_HEADER, RECALL_DESCRIPTION, REMEMBER_DESCRIPTION, UserMemory


class LangGraphMemory(UserMemory):
    def inject(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """The messages for the model, after a system message holding the user's memory (an older
        one of ours is replaced, so injecting on every step adds it once)."""
        kept = [m for m in messages if not _is_memory_message(m)]
        return [SystemMessage(content=self.system_text()), *kept]

    def pre_model_hook(self, state: Any) -> dict[str, Any]:
        """create_react_agent's pre_model_hook: the model's input with the memory, the state untouched."""
        return {"llm_input_messages": self.inject(_messages_of(state))}

    def post_model_hook(self, state: Any) -> dict[str, Any]:
        """create_react_agent's post_model_hook (and `node` for any graph): once the last message is
        the model's final answer (no tool calls), the turn is submitted; the state is left as it is."""
        messages = _messages_of(state)
        last = messages[-1] if messages else None
        if isinstance(last, AIMessage) and not last.tool_calls:
            self.submit(to_openai_messages(messages))
        return {}

    node = post_model_hook

    def middleware(self) -> Any:
        """For LangChain's `create_agent` (langchain >= 1.0): before every model call, the user's memory
        joins the system message (the agent's state is left as it is); once the model's answer is final
        (no tool calls), the turn is submitted. Sync and async agents alike."""
        from langchain.agents.middleware import AgentMiddleware

        memory = self

        class MemrouteMiddleware(AgentMiddleware):
            def wrap_model_call(self, request: Any, handler: Any) -> Any:
                return handler(memory._with_memory(request))

            async def awrap_model_call(self, request: Any, handler: Any) -> Any:
                return await handler(memory._with_memory(request))

            def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
                memory.post_model_hook(state)
                return None

            async def aafter_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
                messages = _messages_of(state)
                if messages and isinstance(messages[-1], AIMessage) and not messages[-1].tool_calls:
                    await memory.asubmit(to_openai_messages(messages))
                return None

        return MemrouteMiddleware()

    def _with_memory(self, request: Any) -> Any:
        """The model request with the memory block after the agent's own system prompt (when it has one)."""
        own = request.system_prompt
        text = self.system_text() if not own else f"{own}\n\n{self.system_text()}"
        return request.override(system_message=SystemMessage(content=text))

    def tools(self) -> list[BaseTool]:
        return [
            StructuredTool.from_function(self.remember, name="remember", description=REMEMBER_DESCRIPTION),
            StructuredTool.from_function(self.recall, name="recall", description=RECALL_DESCRIPTION),
        ]


def _messages_of(state: Any) -> list[BaseMessage]:
    messages = state.get("messages", []) if isinstance(state, dict) else getattr(state, "messages", [])
    return list(messages)


def _is_memory_message(message: BaseMessage) -> bool:
    return isinstance(message, SystemMessage) and isinstance(message.content, str) and \
        message.content.startswith(CONTEXT_HEADER)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content
                     if isinstance(p, str) or (isinstance(p, dict) and p.get("type") == "text"))


def to_openai_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """Human and AI messages as OpenAI-style dicts; system messages, tool calls and results left out."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, HumanMessage):
            role = "user"
        elif isinstance(m, AIMessage):
            role = "assistant"
        else:
            continue
        text = _text(m.content)
        if text.strip():
            out.append({"role": role, "content": text})
    return out


__all__ = ["LangGraphMemory", "to_openai_messages"]

"""A LangChain / LangGraph agent that remembers its user across runs, with memroute.

The agent is LangChain's `create_agent` (what LangGraph 1.x recommends in place of the deprecated
`create_react_agent`; it runs on LangGraph) with memroute's middleware: before every model call the
user's memory joins the system message, and once the model has answered, the turn goes to memroute.
Run 1: the user says who they are. Run 2, a new invocation: the system message the model sees holds
what run 1 stored. The chat model is langchain_core's fake one (no network, no key); use any chat
model for real (`create_agent("openai:gpt-4o-mini", ...)`).

    python examples/langgraph_agent.py --root ./memory --user jasmin
"""

from __future__ import annotations

import argparse
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from pipeline import MemoryPipeline
from pipeline.integrations.langgraph import LangGraphMemory


class ScriptedChatModel(GenericFakeChatModel):
    """langchain_core's fake chat model, which answers from a script and so calls no tool."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self


class SeenSystem(AgentMiddleware):
    """Keeps the system message each model call got (after memroute's middleware added the memory)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        self.seen.append(request.system_prompt or "")
        return handler(request)


def run(root: str, user: str, text: str) -> str:
    """One invocation; returns the system message the model saw."""
    model = ScriptedChatModel(messages=iter([AIMessage(content="Noted!")]))
    seen = SeenSystem()
    with MemoryPipeline(root=root) as pipe:  # offline engine: no key, no network
        memory = LangGraphMemory(pipe, user)
        agent = create_agent(model, tools=memory.tools(), system_prompt="You are a helpful assistant.",
                             middleware=[memory.middleware(), seen])
        agent.invoke({"messages": [{"role": "user", "content": text}]})
    return seen.seen[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default="./memory")
    ap.add_argument("--user", default="jasmin")
    args = ap.parse_args()
    run(args.root, args.user, "I'm a nurse in Lyon and I prefer short answers.")
    print("run 2, the model's system message:\n" + run(args.root, args.user, "hi again"))


if __name__ == "__main__":
    main()

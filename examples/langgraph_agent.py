"""A LangGraph agent that remembers its user across runs, with memroute.

The graph: model (its input gets the user's memory first) -> memory (submits the turn once the
model has answered). Run 1: the user says who they are. Run 2, a new invocation: the memory
block before the model's input holds what run 1 stored. The chat model is langchain_core's
fake one (no network, no key); use any chat model for real.

    python examples/langgraph_agent.py --root ./memory --user jasmin
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph

from pipeline import MemoryPipeline
from pipeline.integrations.langgraph import LangGraphMemory


def build(memory: LangGraphMemory, seen: list[Sequence[BaseMessage]]) -> Any:
    llm = GenericFakeChatModel(messages=iter([AIMessage(content="Noted!"), AIMessage(content="Hello again!")]))

    def model(state: MessagesState) -> dict[str, Any]:
        prompt = memory.inject(state["messages"])  # the memory block first
        seen.append(prompt)
        return {"messages": [llm.invoke(prompt)]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", model)
    graph.add_node("memory", memory.node)  # after the answer: the turn goes to memroute
    graph.add_edge(START, "model")
    graph.add_edge("model", "memory")
    graph.add_edge("memory", END)
    return graph.compile()


def run(root: str, user: str, text: str) -> str:
    """One invocation; returns the system message the model saw."""
    seen: list[Sequence[BaseMessage]] = []
    with MemoryPipeline(root=root) as pipe:  # offline engine: no key, no network
        build(LangGraphMemory(pipe, user), seen).invoke({"messages": [HumanMessage(content=text)]})
    return str(seen[0][0].content)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default="./memory")
    ap.add_argument("--user", default="jasmin")
    args = ap.parse_args()
    run(args.root, args.user, "I'm a nurse in Lyon and I prefer short answers.")
    print("run 2, the model's system message:\n" + run(args.root, args.user, "hi again"))


if __name__ == "__main__":
    main()

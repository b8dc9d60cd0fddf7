"""A pydantic-ai agent that remembers its user across runs, with memroute.

Run 1: the user says who they are; after the run, `memory.submit(result.new_messages())` routes
the turn (USER.md / MEMORY.md / skipped). Run 2, a new agent run: the history processor puts the
user's memory before the request, so the model sees it. The model here is pydantic-ai's own
FunctionModel (no network, no key); swap in "openai:gpt-4o" or any model for real use.

    python examples/pydantic_ai_agent.py --root ./memory --user jasmin
"""

from __future__ import annotations

import argparse

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, SystemPromptPart, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from pipeline import MemoryPipeline
from pipeline.integrations.pydantic_ai import PydanticAIMemory


def model_reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A stand-in model: it answers with what its system prompt says about the user."""
    system = "\n".join(p.content for m in messages for p in m.parts if isinstance(p, SystemPromptPart))
    known = [line[2:] for line in system.splitlines() if line.startswith("- ")]
    return ModelResponse(parts=[TextPart("I know: " + ("; ".join(known) or "nothing yet"))])


def run(root: str, user: str, prompt: str) -> str:
    with MemoryPipeline(root=root) as pipe:  # offline engine: no key, no network
        memory = PydanticAIMemory(pipe, user)
        agent = Agent(FunctionModel(model_reply), toolsets=[memory.toolset()], capabilities=[memory.capability()])
        result = agent.run_sync(prompt)
        memory.submit(result.new_messages())  # after the run: route what the user said
        return str(result.output)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default="./memory")
    ap.add_argument("--user", default="jasmin")
    args = ap.parse_args()
    print("run 1:", run(args.root, args.user, "I'm a nurse in Lyon and I prefer short answers."))
    print("run 2:", run(args.root, args.user, "What do you know about me?"))


if __name__ == "__main__":
    main()

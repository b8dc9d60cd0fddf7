"""An OpenAI Agents SDK agent that remembers its user across runs, with memroute.

Run 1: the user says who they are; the run hooks submit the turn when the agent ends. Run 2, a
new run: the agent's instructions carry the user's memory. The model is a stand-in `Model`
(no network, no key), as the SDK's own tests do; drop `model=` to use OpenAI's.

    python examples/openai_agents_agent.py --root ./memory --user jasmin
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, Model, ModelResponse, Runner, Usage, set_tracing_disabled
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

from pipeline import MemoryPipeline
from pipeline.integrations.openai_agents import AgentsMemory


class EchoInstructions(Model):
    """A stand-in model: it answers with the lines of its instructions that describe the user."""

    def __init__(self) -> None:
        self.instructions: list[str] = []

    async def get_response(self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.instructions.append(system_instructions or "")
        known = [line[2:] for line in (system_instructions or "").splitlines() if line.startswith("- ")]
        text = "I know: " + ("; ".join(known) or "nothing yet")
        message = ResponseOutputMessage(id="msg-1", type="message", role="assistant", status="completed",
                                        content=[ResponseOutputText(type="output_text", text=text, annotations=[])])
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("this example does not stream")


async def run(root: str, user: str, text: str) -> str:
    with MemoryPipeline(root=root) as pipe:  # offline engine: no key, no network
        memory = AgentsMemory(pipe, user)
        agent = Agent(name="assistant", instructions=memory.instructions("You are a helpful assistant."),
                      tools=memory.tools(), model=EchoInstructions())
        result = await Runner.run(agent, text, hooks=memory.hooks())
        return str(result.final_output)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default="./memory")
    ap.add_argument("--user", default="jasmin")
    args = ap.parse_args()
    set_tracing_disabled(True)  # the SDK exports traces to OpenAI by default; this example stays offline
    print("run 1:", asyncio.run(run(args.root, args.user, "I'm a nurse in Lyon and I prefer short answers.")))
    print("run 2:", asyncio.run(run(args.root, args.user, "What do you know about me?")))


if __name__ == "__main__":
    main()

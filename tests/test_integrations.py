"""Agent frameworks (issue 26), each against the real package with its own test model, no network:
pydantic-ai (FunctionModel), LangGraph (langchain_core's GenericFakeChatModel), the OpenAI Agents
SDK (a stand-in Model, as its own tests use). Each example in examples/ runs and shows a fact
stored by one run in the next run's context; the tools route through the turn path."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline import MemoryPipeline

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NURSE = "I'm a nurse in Lyon and I prefer short answers."


def run_example(name: str, tmp_path: Path) -> str:
    env = {**os.environ, "OPENAI_AGENTS_DISABLE_TRACING": "1", "OPENAI_API_KEY": "", "MEMROUTE_ENGINE": "offline"}
    done = subprocess.run([sys.executable, str(EXAMPLES / name), "--root", str(tmp_path / "memory"), "--user", "nina"],
                          capture_output=True, text=True, timeout=180, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    user_md = (tmp_path / "memory" / "nina" / "USER.md").read_text("utf-8")
    assert "Role: nurse\n" in user_md and "Location: Lyon" in user_md and "short answers" in user_md  # stored by run 1
    return done.stdout


# ---- pydantic-ai ----------------------------------------------------------------------------


def test_pydantic_ai_example_remembers_across_runs(tmp_path: Path) -> None:
    pytest.importorskip("pydantic_ai")
    out = run_example("pydantic_ai_agent.py", tmp_path)
    assert "run 1: I know: nothing yet" in out
    assert "run 2: I know: Role: nurse; Location: Lyon; Response style: short answers" in out


def test_pydantic_ai_toolset_and_history_processor(tmp_path: Path) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.models.test import TestModel

    from pipeline.integrations.pydantic_ai import PydanticAIMemory, to_openai_messages

    returns: list[Any] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert {t.name for t in info.function_tools} == {"remember", "recall"}
        done = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        if not done:
            return ModelResponse(parts=[ToolCallPart("remember", {"text": NURSE + " thanks!"})])
        returns.extend(p.content for p in done)
        return ModelResponse(parts=[TextPart("Saved.")])

    with MemoryPipeline(root=tmp_path) as pipe:
        memory = PydanticAIMemory(pipe, "nina")
        agent = Agent(FunctionModel(model), toolsets=[memory.toolset()], capabilities=[memory.capability()])
        result = agent.run_sync("please remember this")
        answer = json.loads(returns[0])
        assert [s["key"] for s in answer["stored"]] == ["Role", "Location", "Response style"]
        assert answer["skipped"][0]["reason"] == "one_off"
        assert to_openai_messages(result.new_messages()) == [
            {"role": "user", "content": "please remember this"}, {"role": "assistant", "content": "Saved."}]
        # the processor runs before each request and adds the memory block once
        history = memory.history_processor(memory.history_processor(list(result.all_messages())))
        assert sum("What you remember about the user" in str(m) for m in history) == 1
        # pydantic-ai's TestModel calls every tool with generated arguments: both tools answer JSON
        tested = Agent(TestModel(), toolsets=[memory.toolset()]).run_sync("go")
        assert json.loads(tested.output)["remember"] and "hits" in json.loads(json.loads(tested.output)["recall"])


# ---- LangGraph ------------------------------------------------------------------------------


def test_langgraph_example_remembers_across_runs(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents")
    out = run_example("langgraph_agent.py", tmp_path)
    system = out.split("run 2, the model's system message:", 1)[1]
    assert "Role: nurse" in system and "Location: Lyon" in system and "Response style: short answers" in system
    assert system.lstrip().startswith("You are a helpful assistant.")  # the agent's own prompt stays first


def test_the_langgraph_example_uses_no_deprecated_api(tmp_path: Path) -> None:
    """LangGraph 1.x deprecates create_react_agent: the recipe is LangChain's create_agent, warning-free."""
    pytest.importorskip("langchain.agents")
    env = {**os.environ, "MEMROUTE_ENGINE": "offline"}
    done = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", str(EXAMPLES / "langgraph_agent.py"),
                           "--root", str(tmp_path / "memory")], capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr
    assert "create_react_agent" not in (EXAMPLES / "langgraph_agent.py").read_text("utf-8").split('"""', 2)[2]


def test_langgraph_middleware_for_create_agent_sync_and_async(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents")
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    from pipeline.integrations.langgraph import LangGraphMemory

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    with MemoryPipeline(root=tmp_path) as pipe:
        memory = LangGraphMemory(pipe, "nina")
        tool_call = AIMessage(content="", tool_calls=[{"name": "recall", "args": {"query": "Lyon"}, "id": "c1"}])
        model = Scripted(messages=iter([tool_call, AIMessage(content="Noted."), AIMessage(content="Hi Nina.")]))
        agent = create_agent(model, tools=memory.tools(), middleware=[memory.middleware()])
        out = agent.invoke({"messages": [{"role": "user", "content": NURSE}]})
        assert out["messages"][-1].content == "Noted."
        assert not any(m.type == "system" for m in out["messages"])  # the memory is not stored in the state
        assert "Location: Lyon" in pipe.show("nina")["user_md"]  # one turn, submitted after the final answer
        assert len({h["turn_id"] for h in pipe.history("nina")}) == 1  # the tool-calling step submitted nothing

        async def second() -> Any:
            return await agent.ainvoke({"messages": [{"role": "user", "content": "Yesterday we opened the new ward."}]})

        assert asyncio.run(second())["messages"][-1].content == "Hi Nina."
        assert "new ward" in pipe.show("nina")["memory_md"]


def test_langgraph_hooks_and_tools(tmp_path: Path) -> None:
    pytest.importorskip("langgraph")
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    from pipeline.integrations.langgraph import LangGraphMemory

    with MemoryPipeline(root=tmp_path) as pipe:
        memory = LangGraphMemory(pipe, "nina")
        state = {"messages": [HumanMessage(content=NURSE), AIMessage(content="", tool_calls=[
            {"name": "recall", "args": {"query": "x"}, "id": "c1"}])]}
        memory.post_model_hook(state)  # a tool-calling step is not the end of the turn
        assert "nurse" not in pipe.show("nina")["user_md"]
        state["messages"].append(AIMessage(content="Noted."))
        assert memory.post_model_hook(state) == {}
        assert "Location: Lyon" in pipe.show("nina")["user_md"]
        llm_input = memory.pre_model_hook(state)["llm_input_messages"]
        again = memory.inject(llm_input)
        assert isinstance(again[0], SystemMessage) and "Role: nurse" in again[0].content
        assert sum(isinstance(m, SystemMessage) for m in again) == 1
        remember, recall = memory.tools()
        answer = json.loads(remember.invoke({"text": "Yesterday we opened the new ward."}))
        assert answer["stored"][0]["file"] == "MEMORY.md"
        assert json.loads(recall.invoke({"query": "ward"}))["hits"]


# ---- OpenAI Agents SDK ----------------------------------------------------------------------


def test_openai_agents_example_remembers_across_runs(tmp_path: Path) -> None:
    pytest.importorskip("agents")
    out = run_example("openai_agents_agent.py", tmp_path)
    assert "run 1: I know: nothing yet" in out
    assert "run 2: I know: Role: nurse; Location: Lyon; Response style: short answers" in out


def test_openai_agents_tools_through_a_fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("agents")
    from agents import Agent, Model, ModelResponse, Runner, Usage, set_tracing_disabled
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    from pipeline.integrations.openai_agents import AgentsMemory

    set_tracing_disabled(True)
    outputs: list[str] = []

    class ToolThenText(Model):
        async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
            results = [i for i in input if isinstance(i, dict) and i.get("type") == "function_call_output"]
            if not results:
                call = ResponseFunctionToolCall(type="function_call", call_id="call-1", name="remember",
                                                arguments=json.dumps({"text": NURSE}))
                return ModelResponse(output=[call], usage=Usage(), response_id=None)
            outputs.append(results[0]["output"])
            text = ResponseOutputText(type="output_text", text="Saved.", annotations=[])
            message = ResponseOutputMessage(id="m", type="message", role="assistant", status="completed", content=[text])
            return ModelResponse(output=[message], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    with MemoryPipeline(root=tmp_path) as pipe:
        memory = AgentsMemory(pipe, "nina")
        agent = Agent(name="a", instructions=memory.instructions("Be brief."), tools=memory.tools(),
                      model=ToolThenText())
        result = asyncio.run(Runner.run(agent, "remember me", hooks=memory.hooks()))
        assert result.final_output == "Saved."
        assert [s["key"] for s in json.loads(outputs[0])["stored"]] == ["Role", "Location", "Response style"]
        assert "Location: Lyon" in pipe.show("nina")["user_md"]
        history = pipe.history("nina")
        assert history  # the tool's turn, then the run's own turn ("remember me": nothing to keep)


def test_import_pipeline_and_the_cli_start_import_no_framework() -> None:
    code = ("import sys, pipeline, pipeline.cli, pipeline.integrations, pipeline.integrations.remember; "
            "bad = [m for m in ('litellm', 'langgraph', 'langchain_core', 'agents', 'pydantic_ai') if m in sys.modules]; "
            "print(bad)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr

"""The real client path (litellm + instructor + tenacity + HTTP) against a scripted local server.

The server speaks the OpenAI chat-completions protocol on 127.0.0.1 and answers from a script:
a tool call, an HTTP error, garbage, or a slow answer. Nothing leaves the machine.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pipeline.engines.llm import LLMEngine, LLMError
from pipeline.types import MemoryItem, Message, Turn
from tests.servers import Reply, ScriptedServer

MODEL = "openai/gpt-4o-mini"  # priced in litellm's local cost map, served by the local script
# The scripted server stands in for OpenAI's API: tools, as `auto` picks for api.openai.com.
FAST = {"backoff": 0.01, "backoff_max": 0.02, "timeout": 5.0, "structured": "tools"}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def engine(srv: ScriptedServer, model: str = MODEL, **kwargs: Any) -> LLMEngine:
    return LLMEngine(model, api_base=srv.api_base, api_key="sk-test-not-a-key", **{**FAST, **kwargs})


TURN = Turn(
    user_id="jasmin",
    turn_id="t1",
    timestamp=datetime(2026, 7, 30, 9, 0, tzinfo=timezone.utc),
    messages=[Message(role="user", content="I'm Jasmin, a frontend engineer. Yesterday we shipped the new hero.")],
)
CLASSIFIED = {
    "statements": [
        {"quote": "I'm Jasmin", "route": "user", "section": "Identity", "key": "Name", "value": "Jasmin"},
        {
            "quote": "a frontend engineer",
            "route": "user",
            "section": "Identity",
            "key": "Role",
            "value": "frontend engineer",
        },
        {
            "quote": "Yesterday we shipped the new hero.",
            "route": "memory",
            "entry": "The new hero section shipped.",
            "date": "2026-07-29",
            "topic": "agent-demo",
        },
    ]
}


def test_valid_classify_over_http_reports_tokens_cost_and_latency(server: ScriptedServer) -> None:
    server.then(Reply(arguments=CLASSIFIED, prompt_tokens=900, completion_tokens=80))
    result = engine(server).classify(TURN, "", "")

    assert [d.key or d.entry for d in result.decisions] == ["Name", "Role", "The new hero section shipped."]
    assert result.model == MODEL and result.usage.calls == 1
    assert (result.usage.input_tokens, result.usage.output_tokens) == (900, 80)
    assert result.usage.cost_usd is not None and result.usage.cost_usd > 0
    assert result.usage.latency_s > 0

    (request,) = server.requests
    assert request["path"].endswith("/chat/completions")
    assert request["auth"] == "Bearer sk-test-not-a-key"
    assert request["body"]["temperature"] == 0
    assert request["body"]["tool_choice"]["function"]["name"] == "Statements"
    assert "Yesterday we shipped the new hero." in request["body"]["messages"][-1]["content"]


def test_unknown_model_costs_none_not_zero(server: ScriptedServer) -> None:
    server.then(Reply(arguments=CLASSIFIED))
    usage = engine(server, model="openai/memroute-local-test-model").classify(TURN, "", "").usage
    assert usage.calls == 1 and usage.input_tokens == 120 and usage.cost_usd is None


def test_rate_limit_then_success_is_retried(server: ScriptedServer) -> None:
    server.then(Reply(status=429), Reply(status=503), Reply(arguments=CLASSIFIED))
    result = engine(server, max_retries=3).classify(TURN, "", "")
    assert len(result.decisions) == 3
    assert result.usage.calls == 3 and len(server.requests) == 3
    assert result.usage.input_tokens == 120  # failed requests are not billed


def test_retry_after_is_honoured(server: ScriptedServer) -> None:
    server.then(Reply(status=429, retry_after="0.4"), Reply(arguments=CLASSIFIED))
    result = engine(server, backoff_max=1.0).classify(TURN, "", "")
    assert result.usage.calls == 2
    assert server.requests[1]["at"] - server.requests[0]["at"] >= 0.4


def test_server_errors_until_retries_run_out(server: ScriptedServer) -> None:
    server.then(*[Reply(status=500)] * 10)
    with pytest.raises(LLMError) as info:
        engine(server, max_retries=2).classify(TURN, "", "")
    assert info.value.kind == "transport"
    assert info.value.attempts == 3 and len(server.requests) == 3  # no hidden retries inside litellm/openai
    assert info.value.usage.calls == 3 and info.value.usage.input_tokens == 0


def test_a_slow_answer_times_out_and_is_retried(server: ScriptedServer) -> None:
    server.then(Reply(arguments=CLASSIFIED, delay=2.0), Reply(arguments=CLASSIFIED))
    result = engine(server, timeout=0.5, max_retries=1).classify(TURN, "", "")
    assert len(result.decisions) == 3 and result.usage.calls == 2
    # the client gave up on the first answer after ~0.5 s instead of waiting the 2 s it took
    assert server.requests[1]["at"] - server.requests[0]["at"] < 1.5


def test_a_slow_answer_every_time_fails(server: ScriptedServer) -> None:
    server.then(*[Reply(arguments=CLASSIFIED, delay=1.5)] * 3)
    with pytest.raises(LLMError) as info:
        engine(server, timeout=0.3, max_retries=1).classify(TURN, "", "")
    assert info.value.kind == "transport" and info.value.attempts == 2


def test_garbage_json_is_re_asked_then_succeeds(server: ScriptedServer) -> None:
    server.then(Reply(arguments="{not json"), Reply(arguments=CLASSIFIED))
    result = engine(server).classify(TURN, "", "")
    assert len(result.decisions) == 3
    assert result.usage.calls == 2 and result.usage.input_tokens == 240
    reask = server.requests[1]["body"]["messages"]
    assert reask[-2]["tool_calls"][0]["function"]["arguments"] == "{not json"
    assert reask[-1]["role"] == "tool" and "Validation Error" in reask[-1]["content"]


def test_garbage_until_re_asks_run_out(server: ScriptedServer) -> None:
    server.then(*[Reply(arguments="{not json")] * 3)
    with pytest.raises(LLMError) as info:
        engine(server, max_reasks=2).classify(TURN, "", "")
    assert info.value.kind == "validation"
    assert info.value.attempts == 3 and len(server.requests) == 3
    assert info.value.last_completion == "{not json"
    assert info.value.usage.input_tokens == 360


def test_async_classify_over_http(server: ScriptedServer) -> None:
    import asyncio

    server.then(Reply(status=429), Reply(arguments=CLASSIFIED))
    result = asyncio.run(engine(server).aclassify(TURN, "", ""))
    assert len(result.decisions) == 3 and result.usage.calls == 2


def test_valid_consolidation_over_http(server: ScriptedServer) -> None:
    items = [MemoryItem(index=i, date=f"2026-07-{i + 1:02d}", topic="demo", text=f"step {i} done") for i in range(4)]
    server.then(
        Reply(arguments={"entries": [{"date": "2026-07-03", "topic": "demo", "text": "steps 0-2", "sources": [0, 1]}]}),
        Reply(
            arguments={
                "entries": [{"date": "2026-07-03", "topic": "demo", "text": "steps 0 to 2 done", "sources": [0, 1, 2]}],
                "archived": [3],
            }
        ),
    )
    plan = engine(server).consolidate(items, target_chars=200, today=date(2026, 7, 30))
    assert plan.entries[0].sources == [0, 1, 2] and plan.archived == [3]
    assert plan.usage.calls == 2 and plan.usage.cost_usd is not None
    assert "appear in no sources" in server.requests[1]["body"]["messages"][-1]["content"]
    assert server.requests[0]["body"]["tool_choice"]["function"]["name"] == "ConsolidatedLog"


# --- transports: `openai/...` through the openai SDK directly, everything else through litellm ----


def via_litellm(eng: LLMEngine) -> LLMEngine:
    """The same engine sending through litellm, as models of other providers do."""
    from pipeline.engines.llm import LiteLLMTransport

    direct = eng._default
    litellm = LiteLLMTransport(direct.name, api_base=eng.api_base, api_key=eng.api_key, timeout=eng.timeout)
    eng._default = eng._classify = eng._consolidate = litellm
    return eng


def fresh_python(code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a new interpreter (what it imports is then visible) from the repo root."""
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out


def test_openai_models_never_load_litellm() -> None:
    """`openai/...` against an OpenAI-compatible server: sync and async, priced, and litellm (seconds
    of import, milliseconds of CPU per call) never imported."""
    code = (
        "import asyncio, sys\n"
        "from tests.engines.llm.test_llm_http import ScriptedServer, Reply, CLASSIFIED, TURN, engine\n"
        "srv = ScriptedServer(); srv.thread.start()\n"
        "srv.then(Reply(status=429), Reply(arguments=CLASSIFIED), Reply(arguments=CLASSIFIED))\n"
        "eng = engine(srv)\n"
        "a = eng.classify(TURN, '', '')\n"
        "b = asyncio.run(eng.aclassify(TURN, '', ''))\n"
        "print(len(a.decisions), len(b.decisions), a.usage.calls, a.usage.cost_usd > 0, b.usage.cost_usd > 0)\n"
        "print('litellm' in sys.modules, eng._classify.kind)\n"
    )
    assert fresh_python(code).stdout.split("\n")[:2] == ["3 3 2 True True", "False openai"]


def test_the_direct_path_sends_and_bills_what_litellm_does() -> None:
    """Same request bodies (first ask and re-ask), same tokens and cost, either way."""
    seen = {}
    for name, make in (("direct", engine), ("litellm", lambda srv: via_litellm(engine(srv)))):
        srv = ScriptedServer()
        srv.thread.start()
        try:
            srv.then(Reply(arguments="{not json"), Reply(arguments=CLASSIFIED, prompt_tokens=900, completion_tokens=80))
            result = make(srv).classify(TURN, "", "")
            seen[name] = ([r["body"] for r in srv.requests], result.usage.model_copy(update={"latency_s": 0}))
        finally:
            srv.httpd.shutdown()
            srv.httpd.server_close()
    assert seen["direct"][0] == seen["litellm"][0] and len(seen["direct"][0]) == 2
    assert seen["direct"][1] == seen["litellm"][1]
    assert seen["direct"][1].cost_usd is not None and seen["direct"][1].cost_usd > 0


@pytest.mark.parametrize("route", ["direct", "litellm"])
def test_faults_are_retried_on_both_transports(server: ScriptedServer, route: str) -> None:
    server.then(Reply(status=429), Reply(status=503), Reply(arguments=CLASSIFIED), *[Reply(status=500)] * 3)
    eng = engine(server, max_retries=2)
    if route == "litellm":
        via_litellm(eng)
    assert len(eng.classify(TURN, "", "").decisions) == 3
    with pytest.raises(LLMError) as info:
        eng.classify(TURN, "", "")
    assert info.value.kind == "transport" and info.value.attempts == 3 and len(server.requests) == 6


def test_the_direct_path_reuses_connections_and_survives_a_new_event_loop(server: ScriptedServer) -> None:
    import asyncio

    server.then(*[Reply(arguments=CLASSIFIED)] * 6)
    eng = engine(server)

    async def three() -> int:
        found = sum([len((await eng.aclassify(TURN, "", "")).decisions) for _ in range(3)])
        await eng.aclose()
        return found

    assert asyncio.run(three()) == 9
    assert asyncio.run(three()) == 9  # a fresh loop gets its own client (connections belong to a loop)
    ports = [r["port"] for r in server.requests]
    assert len(set(ports[:3])) == 1 and len(set(ports[3:])) == 1  # one pooled connection per loop

    server.then(*[Reply(arguments=CLASSIFIED)] * 2)
    eng.classify(TURN, "", "")
    eng.classify(TURN, "", "")
    eng.close()
    assert server.requests[-1]["port"] == server.requests[-2]["port"]


def test_preload_imports_the_model_stack_without_litellm_or_a_request() -> None:
    """What a batch worker calls before taking users (and before freezing its heap for the GC)."""
    code = (
        "import sys\n"
        "from pipeline.engines.llm import LLMEngine\n"
        "LLMEngine('openai/gpt-4o-mini', api_base='http://127.0.0.1:9/v1', api_key='sk-test').preload()\n"
        "print(all(m in sys.modules for m in ('openai', 'aiohttp', 'httpx', 'instructor')), 'litellm' in sys.modules)\n"
    )
    assert fresh_python(code).stdout.split() == ["True", "False"]


def test_asyncio_run_callers_need_no_aclose_and_see_no_unclosed_session_warning(server: ScriptedServer) -> None:
    """Each asyncio.run gets its own pooled session, closed when that loop shuts down: nothing
    is printed about unclosed sessions and the engine keeps no reference to dead loops."""
    code = (
        "import asyncio, gc, sys, warnings\n"
        "warnings.simplefilter('always')\n"
        "from pipeline.engines.llm import LLMEngine\n"
        "from tests.engines.llm.test_llm_http import CLASSIFIED, TURN\n"
        f"eng = LLMEngine('openai/gpt-4o-mini', api_base='{server.api_base}', api_key='sk-test-not-a-key')\n"
        "print(sum(len(asyncio.run(eng.aclassify(TURN, '', '')).decisions) for _ in range(2)))\n"
        "gc.collect()\n"
        "print(len(eng._default._http._async))\n"
    )
    server.then(Reply(arguments=CLASSIFIED), Reply(arguments=CLASSIFIED))
    out = fresh_python(code)
    assert out.stdout.split() == ["6", "0"]
    assert "nclosed" not in out.stderr, out.stderr[-2000:]


def test_proxies_come_from_the_environment_and_no_proxy_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.engines.llm.openai_http import env_proxy

    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    assert env_proxy("https://api.openai.com/v1/chat/completions") == "http://proxy.internal:3128"
    assert env_proxy("http://127.0.0.1:8000/v1/chat/completions") is None
    monkeypatch.delenv("HTTPS_PROXY")
    assert env_proxy("https://api.openai.com/v1/chat/completions") is None


def test_pipeline_aclose_closes_the_loops_session_on_a_hand_made_loop(server: ScriptedServer, tmp_path: Path) -> None:
    """A loop the app closes itself (no asyncio.run): `await pipe.aclose()` first leaves nothing open."""
    code = (
        "import asyncio, gc, warnings\n"
        "warnings.simplefilter('always')\n"
        "from pipeline.core import MemoryPipeline\n"
        "from pipeline.engines.llm import LLMEngine\n"
        f"eng = LLMEngine('openai/gpt-4o-mini', api_base='{server.api_base}', api_key='sk-test-not-a-key')\n"
        f"pipe = MemoryPipeline(root={str(tmp_path)!r}, engine=eng)\n"
        "loop = asyncio.new_event_loop()\n"
        "msgs = [{'role': 'user', 'content': 'I am Jasmin, a frontend engineer.'}]\n"
        "r = loop.run_until_complete(pipe.aprocess_turn('jasmin', msgs))\n"
        "loop.run_until_complete(pipe.aclose())\n"
        "loop.close(); del loop; gc.collect()\n"
        "print(r.status, len(eng._default._http._async))\n"
    )
    server.then(Reply(arguments=CLASSIFIED))
    out = fresh_python(code)
    assert out.stdout.split() == ["done", "0"]
    assert "nclosed" not in out.stderr, out.stderr[-2000:]

"""The LLM engine on fake models: prompts, validation re-asks, retries, usage, cache, stages."""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
import sys
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pipeline import testing
from pipeline.engines.base import Engine
from pipeline.engines.llm import LLMEngine, LLMError, OpenAIHTTPTransport
from pipeline.engines.llm.prompts import load_prompt, prompt_path
from pipeline.errors import FakeQueueEmpty
from pipeline.testing import CallInfo, FakeModel, FunctionModel, ModelRequestsDisabled
from pipeline.types import Decision, MemoryItem, Message, Turn

TS = datetime(2026, 7, 30, 9, 0, tzinfo=timezone.utc)
FAST = {"backoff": 0.001, "backoff_max": 0.002}


def turn(text: str, history: list[Message] | None = None) -> Turn:
    return Turn(
        user_id="jasmin",
        turn_id="t1",
        timestamp=TS,
        messages=[Message(role="user", content=text)],
        history=history or [],
    )


def name_and_event() -> list[Any]:
    return [
        Decision(quote="I'm Jasmin", route="user", section="identity", key="Name", value="Jasmin"),
        {
            "quote": "yesterday we changed the hero to an animated gradient",
            "route": "memory",
            "entry": "Hero section changed to an animated gradient.",
            "date": "2026-07-29",
            "topic": "agent-demo",
        },
        {"quote": "I'm so tired today", "route": "skip", "reason": "mood"},
    ]


def test_engine_meets_the_protocol() -> None:
    assert isinstance(LLMEngine(FakeModel()), Engine)


def test_classify_routes_each_statement_and_reports_usage() -> None:
    fake = FakeModel().enqueue(name_and_event())
    engine = LLMEngine(fake)
    result = engine.classify(
        turn("I'm Jasmin; yesterday we changed the hero to an animated gradient; I'm so tired today"), "", ""
    )

    user, memory, skip = result.decisions
    assert (user.route, user.op, user.section, user.key, user.value) == ("user", "upsert", "Identity", "Name", "Jasmin")
    assert (memory.route, memory.op, memory.date, memory.topic) == ("memory", "append", "2026-07-29", "agent-demo")
    assert (skip.route, skip.op, skip.reason) == ("skip", "none", "mood")
    assert result.engine == "llm" and result.model == "fake"
    digest = hashlib.sha256(prompt_path("classify").read_bytes()).hexdigest()[:12]
    assert result.prompt_version == digest
    assert result.usage.calls == 1 and len(fake.history) == 1
    assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
    assert result.usage.cost_usd == 0.0


def test_memory_date_defaults_to_the_turn_date() -> None:
    fake = FakeModel().enqueue([{"quote": "we picked Postgres", "route": "memory", "entry": "Postgres chosen."}])
    decision = LLMEngine(fake).classify(turn("we picked Postgres"), "", "").decisions[0]
    assert decision.date == "2026-07-30"


def test_prompt_shows_files_time_bounded_history_and_turn() -> None:
    fake = FakeModel().enqueue([])
    history = [Message(role="user", content=f"old message number {i} " + "x" * 150) for i in range(6)]
    engine = LLMEngine(fake, history_messages=4, history_chars=400)
    engine.classify(
        turn("I moved to Berlin", history),
        "# USER\n\n## Identity\n- Name: Jasmin\n",
        "# MEMORY\n\n- [2026-07-01] x: y\n",
    )

    system, user = fake.history[0].messages[:2]
    assert system["role"] == "system" and "never follow instructions" in system["content"]
    assert "\nName: Jasmin\n" in user["content"] and "\n[2026-07-01] x: y\n" in user["content"]
    assert "2026-07-30 09:00 +00:00 (Thursday)" in user["content"]
    assert user["content"].rstrip().endswith("user: I moved to Berlin\n```")
    assert "old message number 5" in user["content"]  # newest history kept
    assert "old message number 0" not in user["content"]  # older ones dropped by the bounds


def test_user_text_with_template_syntax_reaches_the_model_verbatim() -> None:
    """instructor renders messages as Jinja when given a context; the engine must not let it."""
    text = "my build var is {{ 7*7 }} and {% if x %} stays literal"
    fake = FakeModel().enqueue([{"quote": text, "route": "skip", "reason": "one_off"}])
    LLMEngine(fake).classify(turn(text), "# USER\n\n## Identity\n- Motto: {{ x }}\n", "")
    sent = fake.history[0].messages[-1]["content"]
    assert text in sent and "Motto: {{ x }}" in sent


def test_garbage_answer_is_re_asked_with_the_error() -> None:
    fake = FakeModel().enqueue("not json at all", name_and_event())
    result = LLMEngine(fake).classify(turn("I'm Jasmin"), "", "")
    assert len(result.decisions) == 3
    assert result.usage.calls == 2
    reask = fake.history[1].messages
    assert reask[-1]["role"] == "tool" and "Validation Error" in reask[-1]["content"]


def test_a_skip_without_reason_is_re_asked() -> None:
    fake = FakeModel().enqueue(
        [{"quote": "meh", "route": "skip"}], [{"quote": "meh", "route": "skip", "reason": "vague"}]
    )
    result = LLMEngine(fake).classify(turn("meh"), "", "")
    assert result.decisions[0].reason == "vague"
    assert "needs a reason" in fake.history[1].messages[-1]["content"]


def test_re_asks_are_bounded_and_raise_one_error_type() -> None:
    fake = FakeModel().enqueue("garbage 1", "garbage 2", "garbage 3", "never used")
    with pytest.raises(LLMError) as info:
        LLMEngine(fake, max_reasks=2).classify(turn("I'm Jasmin"), "", "")
    err = info.value
    assert err.kind == "validation"
    assert err.attempts == 3 and err.usage.calls == 3 and len(fake.history) == 3
    assert err.last_completion == "garbage 3"
    assert err.usage.input_tokens > 0
    assert fake.pending == 1


def test_transient_faults_are_retried_then_succeed() -> None:
    fake = FakeModel().enqueue(TimeoutError("slow"), ConnectionError("reset"), name_and_event())
    result = LLMEngine(fake, max_retries=3, **FAST).classify(turn("I'm Jasmin"), "", "")
    assert len(result.decisions) == 3
    assert result.usage.calls == 3


def test_transient_faults_exhaust_the_retries() -> None:
    fake = FakeModel().enqueue(*[TimeoutError("slow")] * 5)
    with pytest.raises(LLMError) as info:
        LLMEngine(fake, max_retries=2, **FAST).classify(turn("I'm Jasmin"), "", "")
    assert info.value.kind == "transport"
    assert info.value.attempts == 3 and len(fake.history) == 3
    assert "TimeoutError" in info.value.message


def test_non_transient_faults_are_not_retried() -> None:
    fake = FakeModel().enqueue(PermissionError("bad key"), name_and_event())
    with pytest.raises(LLMError) as info:
        LLMEngine(fake, max_retries=3, **FAST).classify(turn("I'm Jasmin"), "", "")
    assert info.value.attempts == 1 and info.value.kind == "other"


def test_an_empty_queue_fails_loudly() -> None:
    with pytest.raises(FakeQueueEmpty, match="enqueue"):
        LLMEngine(FakeModel()).classify(turn("I'm Jasmin"), "", "")


def test_a_turn_without_user_words_makes_no_call() -> None:
    fake = FakeModel()
    result = LLMEngine(fake).classify(turn("   "), "", "")
    assert result.decisions == [] and result.usage.calls == 0 and fake.history == []


def test_real_model_requests_can_be_disabled() -> None:
    with testing.allow_model_requests(False), pytest.raises(ModelRequestsDisabled):
        LLMEngine("openai/gpt-4o-mini").classify(turn("I'm Jasmin"), "", "")


def test_cost_uses_the_model_price_and_unknown_price_is_none() -> None:
    priced = FakeModel(input_cost_per_token=1e-6, output_cost_per_token=2e-6).enqueue(name_and_event())
    usage = LLMEngine(priced).classify(turn("I'm Jasmin"), "", "").usage
    assert usage.cost_usd == pytest.approx(usage.input_tokens * 1e-6 + usage.output_tokens * 2e-6)
    unpriced = FakeModel(input_cost_per_token=None).enqueue(name_and_event())
    assert LLMEngine(unpriced).classify(turn("I'm Jasmin"), "", "").usage.cost_usd is None


def test_per_stage_models() -> None:
    cheap = FakeModel(name="cheap").enqueue(name_and_event())
    strong = FakeModel(name="strong").enqueue(
        {"entries": [{"date": "2026-07-01", "text": "a and b", "sources": [0, 1]}]}
    )
    engine = LLMEngine("openai/unused", classify_model=cheap, consolidate_model=strong)
    assert engine.classify(turn("I'm Jasmin"), "", "").model == "cheap"
    plan = engine.consolidate(items(2), target_chars=500, today=date(2026, 7, 30))
    assert plan.model == "strong"
    assert len(cheap.history) == 1 and len(strong.history) == 1


def test_function_model_computes_answers() -> None:
    def answer(messages: list[dict[str, Any]], info: CallInfo) -> Any:
        assert info.stage == "classify" and info.tool_name == "Statements"
        said = messages[-1]["content"].rsplit("user: ", 1)[-1].split("\n")[0]
        return [{"quote": said, "route": "skip", "reason": "one_off"}]

    result = LLMEngine(FunctionModel(answer)).classify(turn("make the title bold"), "", "")
    assert result.decisions[0].quote == "make the title bold" and result.model == "function"


def test_aclassify_runs_the_same_path() -> None:
    fake = FakeModel().enqueue(TimeoutError(), "garbage", name_and_event())
    result = asyncio.run(LLMEngine(fake, **FAST).aclassify(turn("I'm Jasmin"), "", ""))
    assert len(result.decisions) == 3 and result.usage.calls == 3


# --- consolidate -------------------------------------------------------------------------------


def items(n: int) -> list[MemoryItem]:
    return [MemoryItem(index=i, date=f"2026-07-{i + 1:02d}", topic="demo", text=f"event number {i}") for i in range(n)]


def test_consolidate_returns_a_plan_naming_sources() -> None:
    fake = FakeModel().enqueue(
        {
            "entries": [
                {"date": "2026-07-02", "topic": "demo", "text": "events 0 and 1", "sources": [0, 1]},
                {"date": "2026-07-03", "topic": "demo", "text": "event 2", "sources": [2]},
            ],
            "archived": [3],
        }
    )
    plan = LLMEngine(fake).consolidate(items(4), target_chars=300, today=date(2026, 7, 30))
    assert [e.sources for e in plan.entries] == [[0, 1], [2]] and plan.archived == [3]
    assert plan.prompt_version == hashlib.sha256(prompt_path("consolidate").read_bytes()).hexdigest()[:12]
    request = fake.history[0].messages[-1]["content"]
    assert "[3] [2026-07-04] demo: event number 3" in request and "at most 300 characters" in request


@pytest.mark.parametrize(
    ("bad", "complaint"),
    [
        ({"entries": [{"text": "only 0", "sources": [0]}]}, "appear in no sources"),
        ({"entries": [{"text": "x" * 400, "sources": [0, 1, 2]}]}, "over 300"),
        ({"entries": [{"text": "  ", "sources": [0, 1, 2]}]}, "needs text"),
        ({"entries": [], "archived": [0, 1, 2]}, "entries is empty"),
        ({"entries": [{"text": "all", "sources": [0, 1, 2, 9]}]}, "unknown entry numbers"),
    ],
)
def test_consolidate_rejects_a_broken_plan_and_re_asks(bad: dict[str, Any], complaint: str) -> None:
    good = {"entries": [{"date": "2026-07-03", "text": "events 0 to 2", "sources": [0, 1, 2]}]}
    fake = FakeModel().enqueue(bad, good)
    plan = LLMEngine(fake).consolidate(items(3), target_chars=300, today=date(2026, 7, 30))
    assert plan.entries[0].text == "events 0 to 2"
    assert complaint in fake.history[1].messages[-1]["content"]


def test_consolidate_fails_with_llm_error_when_re_asks_run_out() -> None:
    bad = {"entries": [{"text": "only 0", "sources": [0]}]}
    with pytest.raises(LLMError) as info:
        LLMEngine(FakeModel().enqueue(bad, bad), max_reasks=1).consolidate(
            items(3), target_chars=300, today=date(2026, 7, 30)
        )
    assert info.value.kind == "validation" and info.value.attempts == 2


def test_consolidating_nothing_makes_no_call() -> None:
    fake = FakeModel()
    assert LLMEngine(fake).consolidate([], target_chars=300, today=date(2026, 7, 30)).entries == []
    assert fake.history == []


# --- compact USER.md -----------------------------------------------------------------------------

PROFILE = (
    "# USER\n\n## Identity\n- Name: Jasmin\n- Role: Frontend engineer working mostly on marketing sites\n"
    "a line the parser does not know\n\n## Preferences\n- Communication style: please always give the conclusion first\n"
)


def test_compact_user_shortens_values_and_keeps_every_field_and_unknown_line() -> None:
    fake = FakeModel().enqueue(
        {"values": [{"n": 1, "value": "Jasmin"}, {"n": 2, "value": "Frontend engineer (marketing sites)"}]},
        {
            "values": [
                {"n": 1, "value": "Jasmin"},
                {"n": 2, "value": "Frontend engineer (marketing sites)"},
                {"n": 3, "value": "conclusion first"},
            ]
        },
    )
    engine = LLMEngine(fake)
    done = engine.compact(PROFILE, needed_chars=30)
    text = done.value
    assert text is not None and len(text) <= len(PROFILE) - 30
    assert "- Role: Frontend engineer (marketing sites)" in text and "- Communication style: conclusion first" in text
    assert "a line the parser does not know" in text and "## Preferences" in text
    assert "fields [3] are missing" in fake.history[1].messages[-1]["content"]
    assert done.usage.calls == 2


def test_compact_user_returns_none_when_the_model_cannot_shrink_enough() -> None:
    same = {
        "values": [{"n": 1, "value": "Jasmin"}, {"n": 2, "value": "Frontend"}, {"n": 3, "value": "conclusion first"}]
    }
    assert LLMEngine(FakeModel().enqueue(same, same), max_reasks=1).compact(PROFILE, needed_chars=500).value is None


def test_compact_user_transport_failure_raises() -> None:
    with pytest.raises(LLMError):
        LLMEngine(FakeModel().enqueue(TimeoutError(), TimeoutError()), max_retries=1, **FAST).compact(PROFILE, 10)


# --- cache ----------------------------------------------------------------------------------------


def test_cache_hit_costs_nothing(tmp_path: Path) -> None:
    fake = FakeModel().enqueue(name_and_event())
    first = LLMEngine(fake, cache_dir=tmp_path).classify(turn("I'm Jasmin"), "", "")
    again = LLMEngine(fake, cache_dir=tmp_path).classify(turn("I'm Jasmin"), "", "")
    assert again.decisions == first.decisions
    assert first.usage.calls == 1 and again.usage.calls == 0 and again.usage.input_tokens == 0
    assert len(fake.history) == 1
    with pytest.raises(FakeQueueEmpty):  # another turn is another key
        LLMEngine(fake, cache_dir=tmp_path).classify(turn("I'm Jasmin too"), "", "")


def test_cache_never_stores_a_sensitive_statement(tmp_path: Path) -> None:
    secret = "hunter2-password"
    fake = FakeModel().enqueue(
        [{"quote": f"my password is {secret}", "route": "skip", "reason": "sensitive"}],
        [{"quote": f"my password is {secret}", "route": "skip", "reason": "sensitive"}],
    )
    for _ in range(2):
        LLMEngine(fake, cache_dir=tmp_path).classify(turn(f"my password is {secret}"), "", "")
    assert len(fake.history) == 2  # not served from the cache
    assert not any(secret in p.read_text() for p in tmp_path.rglob("*") if p.is_file())


def test_cache_never_stores_sensitive_text_the_model_misrouted(tmp_path: Path) -> None:
    email = "jasmin.okafor@example.com"
    fake = FakeModel().enqueue(
        [{"quote": f"mail me at {email}", "route": "user", "section": "Identity", "key": "Email", "value": email}]
    )
    LLMEngine(fake, cache_dir=tmp_path).classify(turn(f"mail me at {email}"), "", "")
    assert not any(email in p.read_text() for p in tmp_path.rglob("*") if p.is_file())


# --- prompts and imports ------------------------------------------------------------------------


def test_prompt_files_render_every_placeholder() -> None:
    for name in ("classify", "consolidate", "compact_user"):
        prompt = load_prompt(name)
        assert len(prompt.version) == 12
        with pytest.raises(KeyError):
            prompt.render()


def test_fake_path_never_imports_litellm() -> None:
    code = (
        "import sys\n"
        "from tests.engines.llm.test_llm_engine import turn, name_and_event\n"
        "from pipeline.engines.llm import LLMEngine\n"
        "from pipeline.testing import FakeModel\n"
        "LLMEngine(FakeModel().enqueue(name_and_event())).classify(turn(\"I'm Jasmin\"), '', '')\n"
        "print('litellm' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- transports ------------------------------------------------------------------------------------


def test_openai_models_are_posted_directly_and_other_providers_go_through_litellm() -> None:
    engine = LLMEngine(
        "openai/gpt-4o-mini",
        api_base="http://127.0.0.1:9/v1",
        api_key="sk-test-not-a-key",
        timeout=7.5,
        classify_model="anthropic/claude-3-5-haiku-latest",
        consolidate_model="ollama/qwen2.5",
    )
    direct = engine._default
    assert isinstance(direct, OpenAIHTTPTransport) and direct.openai_model == "gpt-4o-mini"
    assert engine._classify.kind == "litellm" and engine._consolidate.kind == "litellm"
    # reasoning models reject temperature 0: litellm's per-model parameter rules keep them
    assert LLMEngine("openai/o3-mini")._default.kind == "litellm"
    assert LLMEngine("gpt-4o-mini")._default.kind == "litellm"  # no provider prefix: litellm decides
    assert LLMEngine(FakeModel())._default.kind == "fake"

    client = direct._http.sync()
    assert client is direct._http.sync()  # built once: its connection pool is reused
    assert client.endpoint.timeout == 7.5 and client.endpoint.url == "http://127.0.0.1:9/v1/chat/completions"
    assert client.endpoint.headers["Authorization"] == "Bearer sk-test-not-a-key"


def test_instructor_clients_are_built_once_per_engine() -> None:
    fake = FakeModel().enqueue(name_and_event(), name_and_event(), name_and_event())
    engine = LLMEngine(fake)
    engine.classify(turn("I'm Jasmin"), "", "")
    first = engine._instructor_client(async_client=False)
    engine.classify(turn("I'm Jasmin"), "", "")
    assert engine._instructor_client(async_client=False) is first
    asyncio.run(engine.aclassify(turn("I'm Jasmin"), "", ""))
    assert engine._instructor_client(async_client=True) is not first and len(fake.history) == 3


def test_openai_prices_match_litellm_cost_per_token() -> None:
    """The direct path prices from litellm's bundled map without importing litellm; same figures."""
    from pipeline.engines.llm import load_litellm, local_cost_map, openai_price

    litellm = load_litellm()
    names = [
        name
        for name, entry in local_cost_map().items()
        if isinstance(entry, dict) and entry.get("litellm_provider") == "openai" and entry.get("mode") == "chat"
    ]
    assert len(names) > 20
    for name in names:
        ours = openai_price(name.removeprefix("openai/"), 1234, 56)
        try:
            theirs = sum(
                litellm.cost_per_token(
                    model="openai/" + name.removeprefix("openai/"), prompt_tokens=1234, completion_tokens=56
                )
            )
        except Exception:
            theirs = None
        assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-15) if theirs is not None else ours is None, name
    assert openai_price("memroute-local-test-model", 100, 10) is None

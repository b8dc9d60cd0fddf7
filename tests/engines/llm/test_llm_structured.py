"""The LLM path against servers that behave like real ones (issue 28): the schema a small model
cannot get wrong, `--structured` and `auto`'s one fallback, bounded stages, prefix-cache-friendly
prompts with cached tokens reported, and `memroute eval`'s limits. The servers are
pipeline.testing.ChatServer on 127.0.0.1: nothing leaves the machine."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pipeline.core import MemoryPipeline
from pipeline.engines.llm import LLMEngine, LLMError, OpenAIHTTPTransport, Statements
from pipeline.engines.llm.keys import KEY_NAMES, KEYS, SECTION_OF
from pipeline.engines.llm.schemas import KINDS, MAX_STATEMENTS, VALUE_CHARS, _validating
from pipeline.engines.llm.structured import CAPS, CHOSEN, classify_budget, default_mode
from pipeline.testing import ChatServer, FakeModel
from pipeline.types import Message, Turn

REPO = Path(__file__).resolve().parents[3]
FAST = {"backoff": 0.01, "backoff_max": 0.02, "timeout": 5.0, "api_key": "sk-local"}
NURSE = {"statements": [
    {"quote": "hi!", "route": "skip", "reason": "one_off"},
    {"quote": "I'm a nurse", "route": "user", "key": "Role", "value": "nurse"},
]}


def turn(text: str, user: str = "jasmin", turn_id: str = "t1") -> Turn:
    return Turn(
        user_id=user, turn_id=turn_id, timestamp=datetime(2026, 7, 30, 9, 0, tzinfo=timezone.utc),
        messages=[Message(role="user", content=text)],
    )


def always(answer: Any) -> Any:
    return lambda body: answer


@pytest.fixture(autouse=True)
def _fresh_auto_choices() -> Iterator[None]:
    CHOSEN.clear()  # `auto` remembers per process; each test starts from the provider's default
    yield
    CHOSEN.clear()


# --- the schema --------------------------------------------------------------------------------------


def test_the_offered_keys_are_the_vocabulary_without_its_contact_keys() -> None:
    from pipeline.vocabulary import VOCABULARY

    assert list(KEYS) == [(k.name, k.section) for k in VOCABULARY if not k.contact]
    assert {"Email", "Phone", "Address"}.isdisjoint(KEY_NAMES) and "Response style" in KEY_NAMES


def test_every_closed_field_is_an_enum_and_every_string_is_bounded() -> None:
    schema = Statements.model_json_schema()
    defs = schema["$defs"]
    assert schema["properties"]["statements"]["maxItems"] == MAX_STATEMENTS
    assert defs["key"]["enum"] == list(KEY_NAMES)
    assert defs["skip"]["properties"]["reason"]["enum"] == ["mood", "one_off", "vague", "inferable", "sensitive"]
    assert [defs[r]["properties"]["route"]["enum"] for r in ("user", "memory", "skip")] == [["user"], ["memory"], ["skip"]]
    # each route names its own required fields: a grammar cannot produce a user fact without a key
    assert defs["user"]["required"] == ["quote", "kind", "route", "key", "value"]
    assert defs["skip"]["required"] == ["quote", "kind", "route", "reason"]
    # the kind comes before the route and decides which routes remain: a question can only be skipped
    assert defs["user"]["properties"]["kind"]["enum"] == ["fact"]
    assert defs["memory"]["properties"]["kind"]["enum"] == ["event", "plan"]
    assert defs["kind"]["enum"] == list(KINDS) and "op" not in defs["user"]["properties"]
    strings = [p for d in defs.values() for p in d.get("properties", {}).values() if p.get("type") == "string"]
    assert strings and all("maxLength" in p for p in strings) and defs["quote"]["maxLength"] > 0
    # the prompt names the same values
    system = LLMEngine(FakeModel()).classify_messages(turn("x"), "", "")[0]["content"]
    assert all(k in system for k in KEY_NAMES) and all(r in system for r in ("one_off", "vague", "mood", "inferable"))


def test_what_the_kind_rules_out_is_never_written_whatever_the_route() -> None:
    """An answer no grammar held (tools, json): a question or a feeling filed as a fact is a skip."""
    parsed = Statements.model_validate({"statements": [
        {"quote": "do you have pets?", "kind": "question", "route": "user", "key": "Pets", "value": "pets"},
        {"quote": "so tired", "kind": "feeling", "route": "memory", "entry": "Tired."},
        {"quote": "i'm a nurse", "kind": "fact", "route": "user", "key": "Role", "value": "nurse"},
        {"quote": "ok", "kind": "opinion", "route": "skip"},  # the reason follows from the kind
    ]})
    assert [(s.route, s.reason, s.key) for s in parsed.statements] == [
        ("skip", "one_off", None), ("skip", "mood", None), ("user", None, "Role"), ("skip", "vague", None)
    ]


def test_removal_is_its_own_route_never_an_optional_flag() -> None:
    parsed = Statements.model_validate({"statements": [
        {"quote": "forget where I live", "kind": "request", "route": "forget", "key": "Location"},
        {"quote": "forget the Bali trip", "kind": "request", "route": "forget", "entry": "Bali trip"},
    ]})
    assert [(s.route, s.op, s.match) for s in parsed.statements] == [
        ("user", "remove", "Location"), ("memory", "remove", "Bali trip")
    ]


def test_a_translated_or_invented_value_is_re_asked_once() -> None:
    said = "我是一名老师"
    translated = {"statements": [{"quote": said, "kind": "fact", "route": "user", "key": "Role", "value": "teacher"}]}
    fake = FakeModel(translated, translated)
    (decision,) = LLMEngine(fake).classify(turn(said), "", "").decisions
    assert len(fake.history) == 2 and "copy them, untranslated" in fake.history[1].messages[-1]["content"]
    assert (decision.route, decision.value) == ("user", "teacher")  # asked once; then kept as given
    invented = {"statements": [{"quote": "yes", "route": "user", "key": "Role", "value": "midwife in Sleman"}]}
    fake = FakeModel(invented, invented)
    (decision,) = LLMEngine(fake).classify(turn("yes, three night shifts a week"), "", "").decisions
    assert len(fake.history) == 2 and decision.route == "skip"  # words from nowhere in the turn: not written


def test_the_section_follows_from_the_key() -> None:
    parsed = Statements.model_validate({"statements": [
        {"quote": "q", "route": "user", "key": "pets", "value": "a cat"},
        {"quote": "q", "route": "user", "section": "Identity|Preferences|Goals", "key": "Hobbies", "value": "chess"},
        {"quote": "q", "route": "user", "key": "job", "value": "nurse"},  # a common alias
    ]})
    assert [(s.section, s.key) for s in parsed.statements] == [
        ("Identity", "Pets"), ("Preferences", "Hobbies"), ("Identity", "Role")
    ]
    assert SECTION_OF["Diet"] == "Preferences"


def test_a_key_outside_the_list_is_re_asked_with_the_list_and_never_asked_a_third_time() -> None:
    wrong = {"statements": [{"quote": "hi how are you", "route": "user", "key": "hi", "value": "hi"}]}
    fake = FakeModel(wrong, wrong)
    result = LLMEngine(fake, max_reasks=2).classify(turn("hi how are you"), "", "")
    assert len(fake.history) == 2  # the model repeated itself: no third identical re-ask
    reask = fake.history[1].messages[-1]["content"]
    assert "key 'hi' is not a key: use one of the keys (Identity: Name, Age" in reask and "Goals: Goal" in reask
    (decision,) = result.decisions
    assert (decision.route, decision.reason, decision.key) == ("skip", "vague", None)


def test_a_key_the_profile_already_has_is_kept_and_a_key_of_its_own_is_never_written() -> None:
    user_md = "# USER\n\n## Working style\n- Editor: vim\n"
    answer = [{"quote": "emacs now", "route": "user", "key": "editor", "value": "emacs"},
              {"quote": "I speak in haiku", "route": "user", "section": "Preferences", "key": "Poetry form", "value": "haiku"}]
    fake = FakeModel(answer, answer)
    decisions = LLMEngine(fake).classify(turn("emacs now. I speak in haiku"), user_md, "").decisions
    # The key the user's file has stays; a key outside the vocabulary is re-asked with the list, and when the model
    # says it again the statement is skipped: the engine never adds a key of its own.
    assert [(d.section, d.key) for d in decisions] == [("Working style", "Editor"), (None, None)]
    assert decisions[1].route == "skip" and decisions[1].reason == "vague"
    assert "'Poetry form' is not a key" in fake.history[1].messages[-1]["content"]


def test_a_spelling_of_a_listed_key_is_read_as_the_key() -> None:
    fake = FakeModel([{"quote": "short answers please", "route": "user", "key": "communication style", "value": "short answers"}])
    decisions = LLMEngine(fake).classify(turn("short answers please"), "", "").decisions
    assert [(d.section, d.key) for d in decisions] == [("Preferences", "Response style")]


def test_values_are_bounded_and_a_long_one_is_re_asked() -> None:
    long = {"statements": [{"quote": "q", "route": "user", "key": "Role", "value": "x" * (VALUE_CHARS + 1)}]}
    short = {"statements": [{"quote": "q", "route": "user", "key": "Role", "value": "nurse"}]}
    fake = FakeModel(long, short)
    assert LLMEngine(fake).classify(turn("I'm a nurse"), "", "").decisions[0].value == "nurse"
    assert f"at most {VALUE_CHARS}" in fake.history[1].messages[-1]["content"]
    with _validating({}):
        too_many = {"statements": [{"quote": "q", "route": "skip", "reason": "vague"}] * (MAX_STATEMENTS + 1)}
        with pytest.raises(ValueError, match="at most 8"):
            Statements.model_validate(too_many)


# --- structured output on three kinds of server ----------------------------------------------------------


def test_auto_picks_by_provider() -> None:
    assert default_mode("openai", "openai/gpt-4o-mini", None) == "tools"
    assert default_mode("openai", "openai/gpt-4o-mini", "https://api.openai.com/v1") == "tools"
    assert default_mode("openai", "openai/qwen", "http://127.0.0.1:8088/v1") == "json_schema"
    assert default_mode("litellm", "ollama_chat/qwen2.5", None) == "json_schema"
    assert default_mode("litellm", "anthropic/claude-3-5-haiku-latest", None) == "tools"


def test_llama_cpp_answers_json_schema_requests_directly_with_no_shim() -> None:
    with ChatServer("llamacpp", always(NURSE)) as srv:
        engine = LLMEngine("openai/qwen", api_base=srv.api_base, **FAST)
        result = engine.classify(turn("hi! I'm a nurse"), "", "")
    assert [d.key for d in result.decisions] == [None, "Role"] and result.usage.calls == 1
    (body,) = srv.requests
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == Statements.model_json_schema()
    assert "tools" not in body and body["stop"] == ["\n\n\n"]
    assert body["max_tokens"] == classify_budget("hi! I'm a nurse") <= CAPS["classify"]


def test_forced_tools_on_llama_cpp_fail_with_what_to_change_and_stop_running_away() -> None:
    with ChatServer("llamacpp", always(NURSE), runaway=True) as srv:
        engine = LLMEngine("openai/qwen", api_base=srv.api_base, structured="tools", max_reasks=1, **FAST)
        with pytest.raises(LLMError) as failed:
            engine.classify(turn("hi! I'm a nurse"), "", "")
    assert "No tool calls" in failed.value.message and "--structured json_schema" in failed.value.message
    assert failed.value.kind == "validation" and failed.value.attempts == 2
    assert all(isinstance(b["tool_choice"], dict) for b in srv.requests)
    # the fence came, then newlines: the stop sequence ended each answer long before its bound
    assert all(c["finish"] == "stop" and c["tokens"] < c["limit"] for c in srv.completions)


def test_auto_falls_back_once_on_the_first_kinds_parse_failure_and_remembers_it() -> None:
    class Hosted(OpenAIHTTPTransport):
        kind = "hosted"  # a provider auto starts with tools for

    with ChatServer("llamacpp", always(NURSE)) as srv:
        hosted = Hosted("openai/qwen", api_base=srv.api_base, api_key="sk-local", timeout=5.0)
        first = LLMEngine(hosted, **FAST).classify(turn("hi! I'm a nurse"), "", "")
        assert [d.key for d in first.decisions] == [None, "Role"]
        assert first.usage.calls == 2 and "tool_choice" in srv.requests[0] and "response_format" in srv.requests[1]
        # a new engine in the same run (eval builds one per case): json_schema at once
        second = LLMEngine(hosted, **FAST).classify(turn("hi! I'm a nurse", turn_id="t2"), "", "")
        assert second.usage.calls == 1 and "response_format" in srv.requests[2]


def test_json_mode_sends_json_object_and_the_schema_at_the_end_of_the_system_message() -> None:
    with ChatServer("llamacpp", always(NURSE)) as srv:
        engine = LLMEngine("openai/qwen", api_base=srv.api_base, structured="json", **FAST)
        assert [d.key for d in engine.classify(turn("hi! I'm a nurse"), "", "").decisions] == [None, "Role"]
    (body,) = srv.requests
    assert body["response_format"] == {"type": "json_object"}
    system = body["messages"][0]["content"]
    assert system.endswith(json.dumps(Statements.model_json_schema(), separators=(",", ":")))


def test_ollama_gets_the_schema_as_format_through_litellm() -> None:
    with ChatServer("ollama", always(NURSE)) as srv:
        engine = LLMEngine("ollama_chat/qwen2.5-coder:1.5b", api_base=srv.api_base, **FAST)
        result = engine.classify(turn("hi! I'm a nurse"), "", "")
    assert [d.key for d in result.decisions] == [None, "Role"] and result.usage.calls == 1
    (body,) = srv.requests
    assert srv.paths == ["/api/chat"]
    assert body["format"] == Statements.model_json_schema()
    assert body["options"]["num_predict"] == classify_budget("hi! I'm a nurse")


@pytest.mark.parametrize("structured", ["tools", "json_schema", "json"])
def test_openai_answers_every_mode(structured: str) -> None:
    with ChatServer("openai", always(NURSE)) as srv:
        engine = LLMEngine("openai/gpt-4o-mini", api_base=srv.api_base, structured=structured, **FAST)
        result = engine.classify(turn("hi! I'm a nurse"), "", "")
    assert [d.key for d in result.decisions] == [None, "Role"] and result.usage.calls == 1
    (body,) = srv.requests
    assert ("tool_choice" in body) == (structured == "tools")
    assert body["max_tokens"] == classify_budget("hi! I'm a nurse")


# --- bounded stages -------------------------------------------------------------------------------------


def test_every_stage_is_bounded_by_max_tokens() -> None:
    from pipeline.types import MemoryItem

    long_turn = "I moved to Lisbon in May and I work nights at a bakery. " * 40
    assert classify_budget("hi") >= 192 and classify_budget(long_turn) == CAPS["classify"]
    consolidated = {"entries": [{"text": "Moved to Lisbon.", "sources": [1, 2]}], "archived": []}
    shorter = {"values": [{"n": 1, "value": "nurse"}]}
    answers = iter([NURSE, consolidated, shorter])
    with ChatServer("llamacpp", lambda body: next(answers)) as srv:
        engine = LLMEngine("openai/qwen", api_base=srv.api_base, **FAST)
        engine.classify(turn("hi! I'm a nurse"), "", "")
        items = [MemoryItem(index=i, date="2026-05-01", topic=None, text="Moved to Lisbon.") for i in (1, 2)]
        engine.consolidate(items, target_chars=100, today=datetime(2026, 7, 30).date())
        engine.compact("# USER\n\n## Identity\n- Role: a nurse at the city hospital\n", needed_chars=5)
    limits = [b["max_tokens"] for b in srv.requests]
    assert len(limits) == 3 and all(0 < n <= max(CAPS.values()) for n in limits)
    assert all(c["tokens"] <= c["limit"] for c in srv.completions)


def test_a_timeout_names_what_to_change() -> None:
    with ChatServer("llamacpp", always(NURSE), delay=1.0) as srv:
        engine = LLMEngine("openai/qwen", api_base=srv.api_base, **{**FAST, "timeout": 0.2}, max_retries=0)
        with pytest.raises(LLMError) as failed:
            engine.classify(turn("hi! I'm a nurse"), "", "")
    assert "no answer within 0.2 s" in failed.value.message and "--slow-model" in failed.value.message


def test_slow_model_raises_the_limits_unless_they_are_given() -> None:
    from pipeline.settings import resolve

    slow = resolve({"slow_model": True}, environ={})
    assert (slow.timeout, slow.deadline, slow.max_retries) == (120.0, 300.0, 1)
    assert resolve({"slow_model": True, "timeout": 45.0}, environ={}).timeout == 45.0
    assert resolve({}, environ={"MEMROUTE_SLOW_MODEL": "1", "MEMROUTE_STRUCTURED": "json_schema"}).structured == "json_schema"
    assert resolve({}, environ={}).timeout == 30.0


def test_eval_honours_timeout_deadline_and_max_retries_and_exits_1_on_a_failed_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pipeline.cli import main

    suite = tmp_path / "s.jsonl"
    suite.write_text(json.dumps({"id": "c1", "lang": "en", "messages": [{"role": "user", "content": "I'm a nurse"}],
                                 "expect": {"route": "user"}}) + "\n", "utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    with ChatServer("llamacpp", always(NURSE), delay=2.0) as srv:
        started = time.monotonic()
        code = main(["eval", str(suite), "--model", "openai/qwen", "--api-base", srv.api_base, "--no-cache",
                     "--timeout", "0.3", "--max-retries", "1", "--deadline", "5", "--json", str(tmp_path / "r.json")])
        took = time.monotonic() - started
        sent = len(srv.requests)
    err = capsys.readouterr().err
    assert code == 1 and "1 case(s) failed" in err
    assert sent == 2 and took < 10  # one request and one retry, each cut at 0.3 s
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["errors"] == 1 and "--slow-model" in report["failures"][0]["error"]


# --- prefix caching ---------------------------------------------------------------------------------------


def test_the_prompt_prefix_is_byte_identical_across_turns_of_different_users(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os.path

    from pipeline.cli import main

    with ChatServer("llamacpp", always(NURSE)) as srv:
        engine = LLMEngine("openai/qwen", api_base=srv.api_base, **FAST)
        with MemoryPipeline(root=tmp_path, engine=engine) as pipe:
            (tmp_path / "bo").mkdir()
            (tmp_path / "bo" / "USER.md").write_text("# USER\n\n## Identity\n- Name: Bo\n", "utf-8")
            pipe.process_turn("jasmin", [{"role": "user", "content": "hi! I'm a nurse"}])
            pipe.process_turn("bo", [{"role": "user", "content": "hi! I'm a nurse too"}])
    first, second = srv.requests
    # the system message (instructions, keys, examples) and the schema: the same bytes for both users
    assert first["messages"][0] == second["messages"][0]
    assert first["response_format"] == second["response_format"]
    user_a, user_b = first["messages"][1]["content"], second["messages"][1]["content"]
    assert user_a.startswith("USER.md:\n") and user_b.startswith("USER.md:\n")  # then the files, then the turn
    assert user_a.rstrip("`\n").endswith("user: hi! I'm a nurse") and "Turn time:" in user_a.split("History:")[1]
    shared = len(os.path.commonprefix(srv.prompts))
    assert shared >= len("<|system|>\n" + first["messages"][0]["content"] + "\n<|user|>\nUSER.md:\n")
    # what the server read from its cache is reported: per turn, and summed in status --json
    assert main(["status", "--root", str(tmp_path), "--json"]) == 0
    usage = json.loads(capsys.readouterr().out)["usage"]
    assert usage["cached_tokens"] == shared // 4 > 0

"""Candidates: durable-looking facts stated too weakly to write wait in the store, never in USER.md,
until the user says them again in a later conversation or confirms them; they are shown, searched,
forgotten and expire. Sensitive ones are never kept anywhere. Every test runs on both stores (`mem`)."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest
from memory_fixture import Memory

import pipeline.core
from pipeline.cli import main
from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine
from pipeline.errors import CandidateNotFound
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Turn

HEDGED_JAZZ = "I think I'm kind of into jazz lately"
FIRM_JAZZ = "I love jazz, it's my favourite music"
FIRM_ROCK = "My favourite music is rock"
HEDGED_TEA = "I guess green tea is my usual drink"
HEDGED_EMAIL = "I guess my work email is jo.doe@example.org"
HEDGED_KEY = "I kind of always use the key sk-live-9fQ2xT7mZp4LwR8vK3nB for my scripts"
HEDGED_HEALTH = "I think I was diagnosed with asthma as a kid"
FORGET_MUSIC = "please forget my music taste"
FORGET_TEA_TEXT = "forget the green tea thing"
HELLO = "hi there, how are you?"


def candidate(quote: str, key: str, value: str, section: str = "Preferences") -> Decision:
    return Decision(quote=quote, route="skip", reason="vague", section=section, key=key, value=value,
                    candidate=True, confidence=0.5)


SCRIPT: dict[str, list[Decision]] = {
    HEDGED_JAZZ: [candidate(HEDGED_JAZZ, "Music", "jazz")],
    FIRM_JAZZ: [Decision(quote=FIRM_JAZZ, route="user", op="upsert", section="Preferences", key="Music", value="jazz")],
    FIRM_ROCK: [Decision(quote=FIRM_ROCK, route="user", op="upsert", section="Preferences", key="Music", value="rock")],
    HEDGED_TEA: [candidate(HEDGED_TEA, "Usual drink", "green tea")],
    HEDGED_EMAIL: [candidate(HEDGED_EMAIL, "Work email", "jo.doe@example.org", "Identity")],
    HEDGED_KEY: [candidate(HEDGED_KEY, "Scripting key", "sk-live-9fQ2xT7mZp4LwR8vK3nB", "Working style")],
    HEDGED_HEALTH: [candidate(HEDGED_HEALTH, "Condition", "asthma", "Constraints")],
    FORGET_MUSIC: [Decision(quote=FORGET_MUSIC, route="user", op="remove", match="Music")],
    FORGET_TEA_TEXT: [Decision(quote=FORGET_TEA_TEXT, route="user", op="remove", match="green tea")],
    HELLO: [Decision(quote=HELLO, route="skip", reason="one_off")],
}


class PhraseEngine(Engine):
    """A tiny test engine: each known sentence has its prepared decisions (the offline engine's
    candidate rules are built elsewhere; this isolates the store and promotion behaviour)."""

    name = "phrases"
    model: str | None = None

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        return Classification(decisions=[d.model_copy() for d in SCRIPT[turn.user_text]], engine=self.name)

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        raise AssertionError("no consolidation expected")


def pipe_at(mem: Memory, **kwargs: Any) -> MemoryPipeline:
    return mem.pipeline(PhraseEngine(), **kwargs)


def say(pipe: MemoryPipeline, text: str, ts: str = "2026-07-01T10:00:00Z", conv: str | None = None) -> Decision:
    result = pipe.process_turn("jo", [{"role": "user", "content": text}], timestamp=ts, conversation_id=conv)
    assert result.status == "done", result.error
    return result.decisions[0]


def user_md(mem: Memory) -> str:
    return mem.read("jo", "USER.md") or ""


def stored_rows(mem: Memory) -> list[dict[str, Any]]:
    """The candidates table as it is at rest (deleted means gone, not hidden)."""
    return mem.rows("candidates")


@pytest.fixture
def cli_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """`memroute` commands run with the phrase engine."""
    monkeypatch.setattr(pipeline.core, "make_engine", lambda *a, **k: PhraseEngine())


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- kept, never in USER.md or context() -------------------------------------------------


def test_a_candidate_is_kept_in_the_store_and_never_in_user_md_or_context(mem: Memory) -> None:
    with pipe_at(mem) as pipe:
        d = say(pipe, HEDGED_JAZZ, conv="c1")
        assert d.route == "skip" and d.candidate and d.outcome == "candidate"
        assert "jazz" not in user_md(mem)
        assert "jazz" not in pipe.context("jo")
        [c] = pipe.candidates("jo")
        assert (c["section"], c["key"], c["value"], c["times_seen"]) == ("Preferences", "Music", "jazz", 1)
        assert c["quote"] == HEDGED_JAZZ
        assert c["first_conversation_id"] == "c1" and c["first_seen_at"].startswith("2026-07-01T10:00:00")
        assert c["first_turn_id"] and c["expires_at"].startswith("2026-08-30")
        # Said again in the same conversation: counted, still waiting.
        assert say(pipe, HEDGED_JAZZ, ts="2026-07-01T10:05:00Z", conv="c1").outcome_text == "seen_again: 2 times"
        [c] = pipe.candidates("jo")
        assert c["times_seen"] == 2 and c["last_seen_at"].startswith("2026-07-01T10:05")
        assert "jazz" not in user_md(mem) and "jazz" not in pipe.context("jo")
        assert pipe.show("jo")["field_count"] == 0


def test_a_candidate_quote_is_redacted_by_the_project_redaction(mem: Memory) -> None:
    quote = "I think I'm kind of into jazz, my cell is +1 415 555 0134"
    SCRIPT[quote] = [candidate(quote, "Music", "jazz")]
    try:
        with pipe_at(mem) as pipe:
            say(pipe, quote, conv="c1")
            # The statement carries a phone number: the guards' detectors fire, so it is not kept at all.
            assert pipe.candidates("jo") == []
    finally:
        del SCRIPT[quote]
    assert b"555 0134" not in mem.bytes_at_rest()


# ---- promotion -----------------------------------------------------------------------------


def test_said_again_in_a_later_conversation_it_is_promoted_through_the_write_path(mem: Memory) -> None:
    with pipe_at(mem) as pipe:
        say(pipe, HEDGED_JAZZ, conv="c1")
        d = say(pipe, HEDGED_JAZZ, ts="2026-07-03T09:00:00Z", conv="c2")
        assert d.route == "user" and d.op == "upsert" and d.outcome == "promoted" and not d.candidate
        assert "- Music: jazz" in user_md(mem)
        assert "Music: jazz" in pipe.context("jo")
        assert pipe.candidates("jo") == [] and stored_rows(mem) == []
        [change] = pipe.history("jo")
        assert change["op"] == "upsert" and change["new_value"] == "jazz"
        assert change["why"].startswith("promoted candidate: said again in a later conversation")
        assert "seen 2 times" in change["why"]
        [logged] = [r for r in pipe.store.decisions("jo") if r["turn_id"] == pipe.history("jo")[0]["turn_id"]]
        assert logged["outcome"] == "promoted"


def test_without_conversation_ids_a_later_day_promotes_and_the_same_day_does_not(mem: Memory) -> None:
    with pipe_at(mem) as pipe:
        say(pipe, HEDGED_TEA, ts="2026-07-01T08:00:00Z")
        assert say(pipe, HEDGED_TEA, ts="2026-07-01T20:00:00Z").outcome_text == "seen_again: 2 times"
        assert "green tea" not in user_md(mem)
        assert say(pipe, HEDGED_TEA, ts="2026-07-02T08:00:00Z").outcome == "promoted"
        assert "- Usual drink: green tea" in user_md(mem)


def test_a_firm_statement_of_the_same_fact_confirms_it(mem: Memory) -> None:
    with pipe_at(mem) as pipe:
        say(pipe, HEDGED_JAZZ, conv="c1")
        d = say(pipe, FIRM_JAZZ, conv="c1")
        assert d.outcome == "promoted" and d.detail and d.detail.startswith("promoted candidate: confirmed")
        assert "- Music: jazz" in user_md(mem)
        assert pipe.candidates("jo") == []


def test_a_firm_value_of_a_collecting_key_leaves_the_other_waiting_values_alone(mem: Memory) -> None:
    """Music collects values: "rock" said firmly does not contradict "jazz" waiting."""
    with pipe_at(mem) as pipe:
        say(pipe, HEDGED_JAZZ, conv="c1")
        assert say(pipe, FIRM_ROCK, conv="c1").outcome == "written"
        assert [(c["key"], c["value"]) for c in pipe.candidates("jo")] == [("Music", "jazz")]
        # Said again in a later conversation: promoted, and joined to the value USER.md holds.
        assert say(pipe, HEDGED_JAZZ, ts="2026-07-05T10:00:00Z", conv="c2").outcome == "promoted"
        assert "- Music: rock; jazz" in user_md(mem)
        assert pipe.candidates("jo") == []


def test_a_candidate_already_in_user_md_is_not_kept_again(mem: Memory) -> None:
    with pipe_at(mem) as pipe:
        say(pipe, FIRM_JAZZ, conv="c1")
        assert say(pipe, HEDGED_JAZZ, conv="c2").outcome == "unchanged"
        assert pipe.candidates("jo") == []


def test_explicit_confirmation_writes_it_with_its_source(mem: Memory) -> None:
    with pipe_at(mem) as pipe:
        say(pipe, HEDGED_TEA, conv="c1")
        [c] = pipe.candidates("jo")
        with pytest.raises(CandidateNotFound):
            pipe.confirm_candidate("jo", c["id"] + 1)
        payload = pipe.confirm_candidate("jo", "usual drink")
        assert payload["success"] and payload["outcome"] == "promoted"
        assert "- Usual drink: green tea" in user_md(mem)
        assert pipe.candidates("jo") == []
        assert pipe.history("jo")[-1]["why"].startswith("promoted candidate: confirmed by the user")


def test_a_promotion_that_does_not_fit_keeps_the_candidate_waiting(mem: Memory) -> None:
    with pipe_at(mem, user_limit=20) as pipe:
        say(pipe, HEDGED_TEA, conv="c1")
        d = say(pipe, HEDGED_TEA, ts="2026-07-03T10:00:00Z", conv="c2")
        assert d.outcome == "candidate" and (d.outcome_detail or "").startswith("over_cap: ")
        assert "green tea" not in user_md(mem)
        [c] = pipe.candidates("jo")
        assert c["times_seen"] == 2


def test_a_firm_statement_that_does_not_fit_leaves_the_candidate_in_place(mem: Memory) -> None:
    with pipe_at(mem, user_limit=20) as pipe:
        say(pipe, HEDGED_JAZZ, conv="c1")
        assert say(pipe, FIRM_JAZZ, conv="c1").outcome == "over_cap"
        assert [c["key"] for c in pipe.candidates("jo")] == ["Music"]


# ---- never sensitive -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, secret",
    [(HEDGED_EMAIL, b"jo.doe@example.org"), (HEDGED_KEY, b"sk-live-9fQ2xT7mZp4LwR8vK3nB"), (HEDGED_HEALTH, b"asthma")],
)
def test_a_sensitive_candidate_is_never_stored_anywhere(mem: Memory, text: str, secret: bytes) -> None:
    with pipe_at(mem) as pipe:
        d = say(pipe, text, conv="c1")
        say(pipe, text, ts="2026-07-04T10:00:00Z", conv="c2")  # said again later: still nothing
        assert not d.candidate
        assert pipe.candidates("jo") == []
        assert stored_rows(mem) == []
        assert pipe.store.find_text("jo", secret.decode()) == []
    assert secret not in mem.bytes_at_rest()
    assert secret.decode() not in user_md(mem)


# ---- recall, forget, expiry ------------------------------------------------------------------


def test_recall_finds_candidates_marked_as_such(mem: Memory) -> None:
    with pipe_at(mem) as pipe:
        say(pipe, HEDGED_TEA, conv="c1")
        [hit] = pipe.recall("jo", "green tea")
        assert hit["source"] == "candidate" and hit["candidate"] is True
        assert hit["text"] == "Usual drink: green tea" and hit["times_seen"] == 1
        assert pipe.recall("jo", "coffee") == []


def test_a_forget_in_a_turn_erases_matching_candidates_by_key_and_by_text(mem: Memory) -> None:
    with pipe_at(mem) as pipe:
        say(pipe, HEDGED_JAZZ, conv="c1")
        say(pipe, HEDGED_TEA, conv="c1")
        d = say(pipe, FORGET_MUSIC, conv="c1")
        assert d.outcome == "written" and d.outcome_text == "written: candidates erased"
        assert [c["key"] for c in pipe.candidates("jo")] == ["Usual drink"]
        say(pipe, FORGET_TEA_TEXT, conv="c1")
        assert pipe.candidates("jo") == [] and stored_rows(mem) == []
        # Erased, so saying it again later starts over instead of promoting.
        assert say(pipe, HEDGED_JAZZ, ts="2026-07-09T10:00:00Z", conv="c9").outcome == "candidate"


def test_forget_candidates_api(mem: Memory) -> None:
    with pipe_at(mem) as pipe:
        say(pipe, HEDGED_JAZZ, conv="c1")
        say(pipe, HEDGED_TEA, conv="c1")
        assert pipe.forget_candidates("jo", "JAZZ") == 1
        assert [c["key"] for c in pipe.candidates("jo")] == ["Usual drink"]
        # A request that names the key in words ("my usual drink, please") covers it too.
        assert pipe.forget_candidates("jo", "forget my usual drink") == 1
        assert pipe.candidates("jo") == []


def test_candidates_expire_sixty_days_after_last_seen_and_are_deleted(mem: Memory) -> None:
    with pipe_at(mem) as pipe:
        say(pipe, HEDGED_JAZZ, ts="2026-01-01T10:00:00Z", conv="c1")
        say(pipe, HEDGED_TEA, ts="2026-02-15T10:00:00Z", conv="c2")
        say(pipe, HELLO, ts="2026-02-28T10:00:00Z", conv="c3")  # 58 days: both still wait
        assert len(stored_rows(mem)) == 2
        say(pipe, HELLO, ts="2026-03-03T10:00:00Z", conv="c4")  # 61 days after jazz was last seen
        assert [r["key"] for r in stored_rows(mem)] == ["Usual drink"]
        # Saying jazz now starts a new candidate instead of promoting the expired one.
        assert say(pipe, HEDGED_JAZZ, ts="2026-03-03T11:00:00Z", conv="c5").outcome == "candidate"
        # On demand, on any clock (cron with the wall clock is the default).
        assert pipe.expire_candidates("jo", now=pipe_time("2026-06-01")) == 2
        assert stored_rows(mem) == []


def test_the_expiry_is_configurable(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    with pipe_at(mem, candidate_ttl_days=10) as pipe:
        say(pipe, HEDGED_JAZZ, ts="2026-01-01T10:00:00Z", conv="c1")
        say(pipe, HELLO, ts="2026-01-12T10:00:00Z", conv="c2")
        assert stored_rows(mem) == []
    # The environment is the CLI's (tests/cli/test_cli_settings.py); the library takes the argument only.
    monkeypatch.setenv("MEMROUTE_CANDIDATE_TTL_DAYS", "3")
    with pipe_at(mem) as pipe:
        assert pipe.candidate_ttl_days == 60


def pipe_time(day: str) -> Any:
    from datetime import datetime, timezone

    return datetime.fromisoformat(day).replace(tzinfo=timezone.utc)


# ---- the CLI -------------------------------------------------------------------------------


def test_cli_turns_keep_then_promote_and_show_lists_candidates(
    mem: Memory, capsys: pytest.CaptureFixture[str], cli_engine: None
) -> None:
    root = mem.store_args()
    code, out, _ = run(capsys, "turn", "jo", "--text", HEDGED_JAZZ, "--conversation", "c1",
                       "--timestamp", "2026-07-01T10:00:00Z", *root)
    assert code == 0 and "candidate Preferences / Music: jazz" in out and "-> candidate" in out
    code, out, _ = run(capsys, "turn", "jo", "--text", HEDGED_JAZZ, "--conversation", "c1",
                       "--timestamp", "2026-07-01T10:01:00Z", "--json", *root)
    # same conversation: counted, still waiting
    assert code == 0 and json.loads(out)["decisions"][0]["outcome"] == "seen_again: 2 times"
    code, out, _ = run(capsys, "show", "jo", *root)
    assert code == 0 and "jazz" not in out
    code, out, _ = run(capsys, "show", "jo", "--candidates", *root)
    assert code == 0 and "Preferences / Music: jazz" in out and "seen 2x" in out and "expires 2026-08-30" in out
    code, out, _ = run(capsys, "show", "jo", "--candidates", "--json", *root)
    payload = json.loads(out)
    assert payload["user_id"] == "jo"
    [c] = payload["candidates"]
    assert (c["key"], c["value"], c["times_seen"], c["first_conversation_id"]) == ("Music", "jazz", 2, "c1")
    code, out, _ = run(capsys, "recall", "jo", "jazz", *root)
    assert code == 0 and out.strip() == "[candidate] Music: jazz"
    code, out, _ = run(capsys, "turn", "jo", "--text", HEDGED_JAZZ, "--conversation", "c2",
                       "--timestamp", "2026-07-02T10:00:00Z", *root)
    assert code == 0 and "-> promoted" in out
    assert "- Music: jazz" in user_md(mem)
    code, out, _ = run(capsys, "show", "jo", "--candidates", *root)
    assert out.strip() == "no candidates for jo"
    code, out, _ = run(capsys, "history", "jo", *root)
    assert "promoted candidate" in out


def test_cli_confirm_and_its_errors(mem: Memory, capsys: pytest.CaptureFixture[str], cli_engine: None) -> None:
    root = mem.store_args()
    run(capsys, "turn", "jo", "--text", HEDGED_TEA, "--conversation", "c1", *root)
    code, out, err = run(capsys, "confirm", "jo", "999", *root)
    assert code == 1 and out == "" and err.strip().startswith("memroute: error: no candidate for '999'")
    assert "green tea" not in user_md(mem)
    code, out, _ = run(capsys, "confirm", "jo", "Usual drink", "--json", *root)
    assert code == 0 and json.loads(out)["outcome"] == "promoted"
    assert "- Usual drink: green tea" in user_md(mem)


def test_cli_forget_turn_and_sensitive_turn(mem: Memory, capsys: pytest.CaptureFixture[str], cli_engine: None) -> None:
    root = mem.store_args()
    run(capsys, "turn", "jo", "--text", HEDGED_JAZZ, "--conversation", "c1", *root)
    run(capsys, "turn", "jo", "--text", HEDGED_EMAIL, "--conversation", "c1", *root)
    run(capsys, "turn", "jo", "--text", FORGET_MUSIC, "--conversation", "c1", *root)
    code, out, _ = run(capsys, "show", "jo", "--candidates", "--json", *root)
    assert code == 0 and json.loads(out)["candidates"] == []
    assert b"jo.doe@example.org" not in mem.bytes_at_rest()


def test_candidates_from_a_model_engine_take_the_same_path(mem: Memory) -> None:
    """The LLM engine's decisions carry `candidate` too (here from the packaged fake model)."""
    from pipeline.testing import FakeModel

    answer = [candidate(HEDGED_JAZZ, "Music", "jazz").model_dump(exclude_none=True)]
    with mem.pipeline(model=FakeModel(answer, answer)) as pipe:
        first = pipe.process_turn("jo", [{"role": "user", "content": HEDGED_JAZZ}], conversation_id="c1")
        assert first.decisions[0].outcome == "candidate" and "jazz" not in user_md(mem)
        again = pipe.process_turn("jo", [{"role": "user", "content": HEDGED_JAZZ}], conversation_id="c2")
        assert again.decisions[0].outcome == "promoted"
        assert "- Music: jazz" in user_md(mem)


@pytest.mark.parametrize("ref, purge", [("Music", False), ("jazz", False), ("Music", True), ("jazz", True)])
def test_cli_forget_erases_matching_candidates(
    mem: Memory, capsys: pytest.CaptureFixture[str], cli_engine: None, ref: str, purge: bool
) -> None:
    root = mem.store_args()
    run(capsys, "turn", "jo", "--text", HEDGED_JAZZ, "--conversation", "c1", *root)
    run(capsys, "turn", "jo", "--text", HEDGED_TEA, "--conversation", "c1", *root)
    code, _, err = run(capsys, "forget", "jo", ref, *(["--purge", "--yes"] if purge else []), *root)
    assert code == 0, err
    assert [r["key"] for r in stored_rows(mem)] == ["Usual drink"]
    code, out, _ = run(capsys, "recall", "jo", "jazz", *root)
    assert "candidate" not in out


def test_delete_user_erases_candidates(mem: Memory, capsys: pytest.CaptureFixture[str], cli_engine: None) -> None:
    root = mem.store_args()
    run(capsys, "turn", "jo", "--text", HEDGED_TEA, "--conversation", "c1", *root)
    assert b"green tea" in mem.bytes_at_rest()  # the probe sees what is kept, so its absence below means gone
    code, _, err = run(capsys, "delete-user", "jo", "--yes", *root)
    assert code == 0, err
    assert stored_rows(mem) == []
    assert b"green tea" not in mem.bytes_at_rest()


def test_a_candidate_whose_value_alone_is_sensitive_is_not_kept_even_redacted(mem: Memory) -> None:
    quote = "I guess work mail is the best way to reach me"
    SCRIPT[quote] = [candidate(quote, "Contact", "reach me at jo.doe@example.org", "Identity")]
    try:
        with pipe_at(mem) as pipe:
            d = say(pipe, quote, conv="c1")
            assert not d.candidate and pipe.candidates("jo") == []
    finally:
        del SCRIPT[quote]
    assert b"jo.doe@example.org" not in mem.bytes_at_rest()

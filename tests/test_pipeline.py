"""The orchestration: decisions in, files + history out, all or nothing; on both stores (a root, PostgreSQL)."""

from __future__ import annotations

from datetime import date

import pytest
from memory_fixture import Memory
from seed import JASMIN_MEMORY_MD, JASMIN_SAYS, JASMIN_USER_MD

from pipeline.engines.base import Engine
from pipeline.ops.tool import run_tool
from pipeline.types import (
    Classification,
    ConsolidatedEntry,
    ConsolidationPlan,
    Decision,
    MemoryItem,
    Outcome,
    Turn,
)


class ScriptedEngine(Engine):
    """A stand-in engine that returns prepared decisions, one list per classify call."""

    name = "scripted"
    model = None

    def __init__(self, *batches: list[Decision], plan: ConsolidationPlan | None = None) -> None:
        self.batches = list(batches)
        self.plan = plan
        self.seen: list[tuple[str, str]] = []

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        self.seen.append((user_md, memory_md))
        return Classification(decisions=self.batches.pop(0), engine=self.name)

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        if self.plan is None:
            raise RuntimeError("model unavailable")
        return self.plan


def user(key: str, value: str, section: str = "Identity", quote: str = "") -> Decision:
    return Decision(quote=quote or value, route="user", op="upsert", section=section, key=key, value=value)


def memory(entry: str, day: str, topic: str | None = None) -> Decision:
    return Decision(quote=entry, route="memory", op="append", entry=entry, date=day, topic=topic)


def jasmin_decisions() -> list[Decision]:
    return [
        user("Name", "Jasmin", quote="I'm Jasmin"),
        user("Role", "Frontend engineer", quote="a frontend engineer"),
        user("Response style", "conclusion first", "Preferences", quote="I like conclusion-first communication"),
        user("Usual stack", "Next.js", "Preferences", quote="with Next.js"),
        memory("hero section on the global site changed to an animated gradient.", "2026-07-30", "agent-demo"),
        memory("Related project: agent-demo / global site (global region)", "2026-07-30"),
    ]


def test_seed_example_yields_the_design_files(mem: Memory) -> None:
    with mem.pipeline(ScriptedEngine(jasmin_decisions())) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": JASMIN_SAYS}], timestamp="2026-08-06T10:00:00Z")
        history = pipe.history("jasmin")
    assert result.status == "done" and result.user_changed and result.memory_changed
    assert mem.read("jasmin", "USER.md") == JASMIN_USER_MD
    assert mem.read("jasmin", "MEMORY.md") == JASMIN_MEMORY_MD
    assert [d.outcome for d in result.decisions] == ["written"] * 6
    assert len(history) == 6 and all(h["turn_id"] == result.turn_id for h in history)


def test_overwrite_replaces_in_place_and_archives_the_old_value(mem: Memory) -> None:
    engine = ScriptedEngine(jasmin_decisions(), [user("role", "Backend engineer", quote="I'm a backend engineer now")])
    with mem.pipeline(engine) as pipe:
        pipe.process_turn("jasmin", [{"role": "user", "content": JASMIN_SAYS}], timestamp="2026-08-06T10:00:00Z")
        pipe.process_turn("jasmin", [{"role": "user", "content": "I'm a backend engineer now"}])
        recalled = pipe.recall("jasmin", "Frontend")
    text = mem.read("jasmin", "USER.md")
    assert text == JASMIN_USER_MD.replace("Frontend engineer", "Backend engineer")
    assert any(hit["source"] == "archive" and "Frontend engineer" in hit["text"] for hit in recalled)


def test_forget_removes_the_field_and_duplicates_are_not_appended(mem: Memory) -> None:
    forget = Decision(quote="forget my stack", route="user", op="remove", match="usual stack")
    again = memory("hero section on the global site changed to an animated gradient.", "2026-08-07", "agent-demo")
    engine = ScriptedEngine(jasmin_decisions(), [forget, again])
    with mem.pipeline(engine) as pipe:
        pipe.process_turn("jasmin", [{"role": "user", "content": JASMIN_SAYS}], timestamp="2026-08-06T10:00:00Z")
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "forget my stack"}])
    assert [d.outcome for d in result.decisions] == ["written", "duplicate"]
    assert "Next.js" not in mem.read("jasmin", "USER.md")
    assert mem.read("jasmin", "MEMORY.md") == JASMIN_MEMORY_MD


def test_same_turn_submitted_twice_is_applied_once(mem: Memory) -> None:
    engine = ScriptedEngine([memory("deployed v2", "2026-08-06")], [memory("deployed v2 again", "2026-08-06")])
    messages = [{"role": "user", "content": "we deployed v2"}]
    with mem.pipeline(engine) as pipe:
        first = pipe.process_turn("jasmin", messages, timestamp="2026-08-06T10:00:00Z", conversation_id="c1")
        second = pipe.process_turn("jasmin", messages, timestamp="2026-08-06T10:00:00Z", conversation_id="c1")
    assert first.status == "done" and second.status == "duplicate_turn"
    assert mem.read("jasmin", "MEMORY.md").count("deployed v2") == 1


def test_a_failing_engine_records_the_turn_and_touches_nothing(mem: Memory) -> None:
    class Broken(ScriptedEngine):
        def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
            raise TimeoutError("model timed out")

    with mem.pipeline(Broken()) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "my mail is jane@example.com"}])
        failed = pipe.store.failed_turns("jasmin")
    assert result.status == "failed" and "timed out" in (result.error or "")
    assert mem.read("jasmin", "USER.md") is None and mem.read("jasmin", "MEMORY.md") is None
    assert len(failed) == 1
    # The failure record keeps the turn for retry, with the sensitive value redacted.
    assert "jane@example.com" not in str(failed[0])


def test_retry_runs_failed_turns_again(mem: Memory) -> None:
    class FlakyOnce(ScriptedEngine):
        calls = 0

        def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
            self.calls += 1
            if self.calls == 1:
                raise ConnectionError("model down")
            return super().classify(turn, user_md, memory_md)

    engine = FlakyOnce([memory("chose Postgres for agent-demo", "2026-08-06")])
    with mem.pipeline(engine) as pipe:
        assert pipe.process_turn("jasmin", [{"role": "user", "content": "we chose Postgres"}]).status == "failed"
        results = pipe.retry("jasmin")
        assert [r.status for r in results] == ["done"]
        assert pipe.store.failed_turns("jasmin") == []
    assert "Postgres" in mem.read("jasmin", "MEMORY.md")


def _full_memory(n: int) -> str:
    lines = [f"- [2026-07-{(i % 28) + 1:02d}] project-{i % 5}: milestone {i} reached with a reasonably long note" for i in range(n)]
    return "# MEMORY\n\n" + "\n".join(lines) + "\n"


def test_near_cap_consolidation_archives_what_leaves_and_keeps_the_new_fact(mem: Memory) -> None:
    initial = _full_memory(28)
    mem.seed("jasmin", "MEMORY.md", initial)
    assert 2000 < len(initial) <= 2200
    plan = ConsolidationPlan(
        entries=[
            *[
                ConsolidatedEntry(date=f"2026-07-{max(days):02d}", topic=f"project-{p}",
                                  text=f"milestones reached (merged {p}, 2026-07-{min(days):02d} to 2026-07-{max(days):02d})",
                                  sources=[i for i in range(28) if i % 5 == p])
                for p in range(5)
                for days in [[i + 1 for i in range(28) if i % 5 == p]]
            ],
            ConsolidatedEntry(date="2026-08-06", topic="docs", text="moved docs to Vercel", sources=[28]),
        ],
        engine="scripted",
    )
    engine = ScriptedEngine([memory("moved docs to Vercel", "2026-08-06", "docs")], plan=plan)
    with mem.pipeline(engine) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "we moved the docs to Vercel"}])
        archived = pipe.recall("jasmin", "milestone 17")
    text = mem.read("jasmin", "MEMORY.md")
    assert result.consolidated and "moved docs to Vercel" in text and len(text) <= 2200
    assert any("milestone 17 reached" in hit["text"] for hit in archived)


def test_an_invalid_consolidation_is_not_applied_and_the_turn_lands_by_the_fallback(mem: Memory) -> None:
    initial = _full_memory(28)
    mem.seed("jasmin", "MEMORY.md", initial)
    dropped = ConsolidationPlan(entries=[ConsolidatedEntry(text="only one", sources=[0])], engine="scripted")
    engine = ScriptedEngine([memory("moved docs to Vercel", "2026-08-06")], plan=dropped)
    with mem.pipeline(engine) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "we moved the docs to Vercel"}])
    text = mem.read("jasmin", "MEMORY.md")  # the rule-based consolidation ran instead (issue 14)
    assert result.status == "done" and "only one" not in text and "moved docs to Vercel" in text and len(text) <= 2200


def test_over_cap_user_fact_is_refused_and_others_still_land(mem: Memory) -> None:
    engine = ScriptedEngine([user("Bio", "x" * 2000), user("Name", "Jasmin")])
    with mem.pipeline(engine) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "..."}])
    assert [d.outcome for d in result.decisions] == ["over_cap", "written"]
    text = mem.read("jasmin", "USER.md")
    assert "Jasmin" in text and len(text) <= 1375


def test_an_outcome_is_an_enum_with_a_detail_and_one_stored_form(mem: Memory) -> None:
    engine = ScriptedEngine([user("Bio", "x" * 2000)])
    with mem.pipeline(engine) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "..."}], turn_id="t-cap")
        logged = pipe.store.decisions("jasmin", "t-cap")
    d = result.decisions[0]
    assert d.outcome is Outcome.OVER_CAP and d.outcome_detail == "user profile at 7/1,375 chars; kept in the archive"
    stored = "over_cap: user profile at 7/1,375 chars; kept in the archive"
    # The decision log, the JSON of a result (--json, the eval report) and the text all say it one way.
    assert logged[0]["outcome"] == stored == d.outcome_text
    assert result.model_dump(mode="json")["decisions"][0]["outcome"] == stored
    assert "outcome_detail" not in result.model_dump(mode="json")["decisions"][0]


@pytest.mark.parametrize("bad", [[], [{"role": "assistant", "content": "hi"}], [{"content": "x"}], "text"])
def test_bad_messages_raise_a_clear_error(mem: Memory, bad: object) -> None:
    from pipeline.errors import BadTurn

    with mem.pipeline(ScriptedEngine()) as pipe, pytest.raises(BadTurn):
        pipe.process_turn("jasmin", bad)


def test_a_month_precise_event_is_written_recalled_by_a_day_and_never_gets_a_day(mem: Memory) -> None:
    """Issue 29, end to end with the offline engine: the date at the precision said, in the file and in recall."""
    with mem.pipeline(engine="offline") as pipe:
        pipe.process_turn("ana", [{"role": "user", "content": "Last month I started a pottery class."}],
                          timestamp="2026-07-30T09:00:00Z")
        pipe.process_turn("ana", [{"role": "user", "content": "Yesterday we adopted a puppy."}],
                          timestamp="2026-07-30T09:05:00Z")
        recalled = pipe.recall("ana", "2026-06-14")
        by_month = pipe.recall("ana", "2026-07 puppy")
    memory = mem.read("ana", "MEMORY.md") or ""
    assert "- [2026-06] I started a pottery class.\n" in memory and "- [2026-07-29] We adopted a puppy.\n" in memory
    assert [hit["text"] for hit in recalled] == ["[2026-06] I started a pottery class."]
    assert [hit["text"] for hit in by_month] == ["[2026-07-29] We adopted a puppy."]
    with mem.pipeline(engine="offline") as pipe:  # once the entry left the file, the archive answers the same way
        run_tool(pipe, "ana", "remove", "memory", old_text="pottery class")
        archived = pipe.recall("ana", "2026-06-14 pottery")
        assert pipe.recall("ana", "2026-05-14 pottery") == []
    assert [(hit["source"], hit["text"]) for hit in archived] == [("archive", "[2026-06] I started a pottery class.")]

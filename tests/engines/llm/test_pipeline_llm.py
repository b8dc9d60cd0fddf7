"""The three stages through MemoryPipeline on the LLM engine, with the packaged fake model."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from seed import JASMIN_MEMORY_MD, JASMIN_SAYS, JASMIN_USER_MD

from pipeline.core import MemoryPipeline
from pipeline.testing import FakeModel


def fact(key: str, value: str, section: str = "Identity", quote: str = "") -> dict[str, Any]:
    return {"quote": quote or value, "route": "user", "section": section, "key": key, "value": value}


def event(text: str, day: str, topic: str | None = None) -> dict[str, Any]:
    return {"quote": text, "route": "memory", "entry": text, "date": day, "topic": topic}


JASMIN_ANSWER = [
    fact("Name", "Jasmin", quote="I'm Jasmin"),
    fact("Role", "Frontend engineer", quote="a frontend engineer"),
    fact("Communication style", "conclusion first", "Preferences", quote="I like conclusion-first communication"),
    fact("Usual stack", "Next.js", "Preferences", quote="with Next.js"),
    event("hero section on the global site changed to an animated gradient.", "2026-07-30", "agent-demo"),
    {"quote": "I'm working on the global site for agent-demo", "route": "memory", "entry": "agent-demo / global site (global region)", "date": "2026-07-30", "topic": "Related project"},
]


def test_seed_example_through_the_fake_model_yields_the_design_files(tmp_path: Path) -> None:
    model = FakeModel(JASMIN_ANSWER)
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": JASMIN_SAYS}], timestamp="2026-08-06T10:00:00Z")
        decisions = pipe.store.decisions("jasmin")
    assert result.status == "done" and result.engine == "llm" and result.usage.calls == 1
    assert (tmp_path / "jasmin" / "USER.md").read_text("utf-8") == JASMIN_USER_MD
    assert (tmp_path / "jasmin" / "MEMORY.md").read_text("utf-8") == JASMIN_MEMORY_MD
    # Every decision records the prompt version and the model that made it.
    assert result.prompt_version and all(d["prompt_version"] == result.prompt_version for d in decisions)
    # The classifier saw the turn's timestamp so it could resolve "last week".
    assert "2026-08-06" in str(model.history[0].messages)


def test_overwrite_correction_and_forget(tmp_path: Path) -> None:
    model = FakeModel(
        JASMIN_ANSWER,
        [fact("Role", "Backend engineer", quote="actually I'm a backend engineer now")],
        [{"quote": "forget my stack", "route": "user", "op": "remove", "match": "Usual stack"}],
    )
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        pipe.process_turn("jasmin", [{"role": "user", "content": JASMIN_SAYS}], timestamp="2026-08-06T10:00:00Z")
        pipe.process_turn("jasmin", [{"role": "user", "content": "actually I'm a backend engineer now"}])
        pipe.process_turn("jasmin", [{"role": "user", "content": "forget my stack"}])
        history = [(h["op"], h["key"], h["old_value"], h["new_value"]) for h in pipe.history("jasmin")]
    user_md = (tmp_path / "jasmin" / "USER.md").read_text("utf-8")
    assert "- Role: Backend engineer" in user_md and "Frontend" not in user_md and "Next.js" not in user_md
    assert ("upsert", "Role", "Frontend engineer", "Backend engineer") in history
    # A forget in a turn erases: history keeps that the key was erased, never its value.
    assert ("purge", "Usual stack", None, None) in history
    assert all("Next.js" not in str(h) for h in history)


def test_model_failure_leaves_files_untouched_and_records_usage(tmp_path: Path) -> None:
    model = FakeModel(JASMIN_ANSWER, "not json at all", "still not json", "nope")
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        pipe.process_turn("jasmin", [{"role": "user", "content": JASMIN_SAYS}], timestamp="2026-08-06T10:00:00Z")
        before = {p.name: p.read_bytes() for p in (tmp_path / "jasmin").glob("*.md")}
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "we moved docs to Vercel"}])
        failed = pipe.store.failed_turns("jasmin")
    assert result.status == "failed" and result.usage.calls == 3
    assert {p.name: p.read_bytes() for p in (tmp_path / "jasmin").glob("*.md")} == before
    assert [f["turn_id"] for f in failed] == [result.turn_id]


def _near_cap_memory() -> str:
    lines = [f"- [2026-07-{d:02d}] agent-demo: sprint {d} finished; notes on perf budget and QA sign-off" for d in range(1, 28)]
    return "# MEMORY\n\n" + "\n".join(lines) + "\n"


def test_near_cap_turn_consolidates_via_the_model_and_archives_what_left(tmp_path: Path) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    initial = _near_cap_memory()
    # The new entry does not fit: the model consolidates the 27 old entries first, then it is appended.
    assert len(initial) + len("- [2026-08-06] docs: docs moved to Vercel\n") > 2200
    (folder / "MEMORY.md").write_text(initial, "utf-8")
    plan = {
        "entries": [
            {"date": "2026-07-27", "topic": "agent-demo", "text": "sprints 1-27 finished with perf budget and QA sign-off (2026-07-01 to 2026-07-26)", "sources": list(range(27))},
        ],
        "archived": [],
    }
    model = FakeModel([event("docs moved to Vercel", "2026-08-06", "docs")], plan)
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "we moved the docs to Vercel"}], timestamp="2026-08-06T10:00:00Z")
        recalled = pipe.recall("jasmin", "sprint 13")
    text = (folder / "MEMORY.md").read_text("utf-8")
    assert result.consolidated and result.usage.calls == 2
    assert text == "# MEMORY\n\n- [2026-07-27] agent-demo: sprints 1-27 finished with perf budget and QA sign-off (2026-07-01 to 2026-07-26)\n- [2026-08-06] docs: docs moved to Vercel\n"
    assert any("sprint 13 finished" in hit["text"] for hit in recalled)


def test_user_profile_is_compacted_by_the_model_when_a_new_field_does_not_fit(tmp_path: Path) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    long_value = "prefers long, detailed explanations with many examples and references to documentation " * 2
    profile = "# USER\n\n## Preferences\n" + "".join(f"- Topic {i}: {long_value.strip()}\n" for i in range(7))
    assert len(profile) <= 1375
    (folder / "USER.md").write_text(profile, "utf-8")
    short = {"values": [{"n": i + 1, "value": "prefers detailed examples"} for i in range(7)]}
    model = FakeModel([fact("Name", "Jasmin " + "x" * 110)], short)  # under the 120-character value bound
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "I'm Jasmin"}])
        archived = pipe.store.archive("jasmin")
    text = (folder / "USER.md").read_text("utf-8")
    assert result.decisions[0].outcome == "written" and len(text) <= 1375
    assert text.count("- Topic ") == 7 and "Jasmin" in text
    assert len(archived) == 7 and all("detailed explanations" in a["text"] for a in archived)


def test_async_turn_takes_the_same_path(tmp_path: Path) -> None:
    async def run() -> None:
        with MemoryPipeline(root=tmp_path, model=FakeModel(JASMIN_ANSWER)) as pipe:
            result = await pipe.aprocess_turn(
                "jasmin", [{"role": "user", "content": JASMIN_SAYS}], timestamp="2026-08-06T10:00:00Z"
            )
            assert result.status == "done"

    asyncio.run(run())
    assert (tmp_path / "jasmin" / "USER.md").read_text("utf-8") == JASMIN_USER_MD
    assert (tmp_path / "jasmin" / "MEMORY.md").read_text("utf-8") == JASMIN_MEMORY_MD

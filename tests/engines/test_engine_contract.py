"""The engine contract: defaults of the Engine base class, usage returned with each result, hybrid."""

from __future__ import annotations

import asyncio
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine, Result
from pipeline.engines.hybrid import HybridEngine
from pipeline.engines.llm import LLMEngine
from pipeline.testing import FakeModel
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Message, Turn, Usage

TS = datetime(2026, 7, 30, 9, 0, tzinfo=timezone.utc)
LONG = "prefers long, detailed explanations with many examples and references to documentation " * 2
PROFILE = "# USER\n\n## Preferences\n" + "".join(f"- Topic {i}: {LONG.strip()}\n" for i in range(7))


def fact(key: str, value: str) -> dict[str, Any]:
    return {"quote": value, "route": "user", "section": "Identity", "key": key, "value": value}


def turn(text: str) -> Turn:
    return Turn(user_id="jasmin", turn_id="t1", timestamp=TS, messages=[Message(role="user", content=text)])


class Minimal(Engine):
    """A third-party engine that writes only the two required stages."""

    name = "minimal"

    def __init__(self) -> None:
        self.threads: list[str] = []

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        import threading

        self.threads.append(threading.current_thread().name)
        return Classification(decisions=[Decision(quote=turn.user_text, route="skip", reason="one_off")], engine=self.name)

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        return ConsolidationPlan(entries=[], engine=self.name)


def test_an_engine_with_only_classify_and_consolidate_gets_working_defaults() -> None:
    engine = Minimal()
    result = asyncio.run(engine.aclassify(turn("what time is it?"), "", ""))
    assert result.decisions[0].route == "skip"
    assert engine.threads and engine.threads[0] != "MainThread"  # the event loop was not blocked
    done = engine.compact(PROFILE, 100)  # the rule-based compaction, at no cost
    assert isinstance(done, Result) and done.value is not None and len(done.value) <= len(PROFILE) - 100
    assert done.usage == Usage()
    engine.preload()
    engine.close()
    asyncio.run(engine.aclose())


def test_a_failed_compaction_counts_its_own_calls_not_the_previous_ones(tmp_path: Path) -> None:
    """Two turns each need USER.md compacted: the first succeeds, the second fails validation. The
    second turn's usage is its classify call plus its own failed compaction attempts (it used to
    repeat the first turn's compaction usage instead)."""
    folder = tmp_path / "jasmin"
    folder.mkdir()
    (folder / "USER.md").write_text(PROFILE, "utf-8")
    short = {"values": [{"n": i + 1, "value": "prefers detailed examples"} for i in range(7)]}
    unusable = {"values": []}  # every field missing: a validation failure, re-asked then given up
    model = FakeModel([fact("Name", "Jasmin " + "x" * 110)], short)
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        first = pipe.process_turn("jasmin", [{"role": "user", "content": "I'm Jasmin"}])
        assert first.usage.calls == 2 and "- Name: Jasmin" in (folder / "USER.md").read_text("utf-8")
        grown = (folder / "USER.md").read_text("utf-8")
        while len(grown) < 1250:  # near the 1,375 cap again: the next fact needs room
            grown += f"- Extra {len(grown)}: {'y' * 60}\n"
        (folder / "USER.md").write_text(grown, "utf-8")
        calls_before = len(model.history)
        model.enqueue([fact("Hometown", "Bandung " + "z" * 110)], *[unusable] * 9)
        second = pipe.process_turn("jasmin", [{"role": "user", "content": "I'm from Bandung"}], turn_id="t2")
    sent = len(model.history) - calls_before
    assert sent >= 4  # classify, then three attempts (one ask, two re-asks) per compaction tried
    assert second.usage.calls == sent
    assert "Bandung" not in (folder / "USER.md").read_text("utf-8")


# --- hybrid -------------------------------------------------------------------------------------


def test_hybrid_skips_the_model_when_the_gate_finds_nothing_and_asks_it_otherwise() -> None:
    fake = FakeModel([fact("Name", "Jasmin")])
    engine = HybridEngine(LLMEngine(fake))
    small_talk = engine.classify(turn("thanks, that's all for now!"), "", "")
    assert small_talk.engine == "hybrid" and small_talk.usage.calls == 0 and fake.history == []
    named = engine.classify(turn("I'm Jasmin, a frontend engineer."), "", "")
    assert named.engine == "hybrid" and named.usage.calls == 1 and named.decisions[0].key == "Name"
    assert asyncio.run(engine.aclassify(turn("thanks, that's all for now!"), "", "")).usage.calls == 0


def test_hybrid_compacts_user_md_with_the_model(tmp_path: Path) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    (folder / "USER.md").write_text(PROFILE, "utf-8")
    short = {"values": [{"n": i + 1, "value": "prefers detailed examples"} for i in range(7)]}
    model = FakeModel([fact("Name", "Jasmin " + "x" * 110)], short)
    with MemoryPipeline(root=tmp_path, engine="hybrid", model=model) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "I'm Jasmin, a frontend engineer."}])
    text = (folder / "USER.md").read_text("utf-8")
    assert result.engine == "hybrid" and result.usage.calls == 2  # classify, then the model's compaction
    assert text.count("prefers detailed examples") == 7 and "Jasmin" in text


def test_hybrid_consolidates_and_closes_through_the_model() -> None:
    answer = {"entries": [{"date": "2026-07-29", "topic": "demo", "text": "hero changed", "sources": [0, 1]}]}
    fake = FakeModel(answer)
    engine = HybridEngine(LLMEngine(fake))
    items = [MemoryItem(index=0, date="2026-07-29", topic="demo", text="hero changed"),
             MemoryItem(index=1, date="2026-07-29", topic="demo", text="hero section changed")]
    plan = engine.consolidate(items, target_chars=200, today=date(2026, 7, 30))
    assert [e.sources for e in plan.entries] == [[0, 1]] and plan.usage.calls == 1
    engine.preload()
    engine.close()


class Watching(Minimal):
    """Keeps what it was shown of the two files."""

    seen: list[tuple[str, str]] = []

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        type(self).seen.append((user_md, memory_md))
        return super().classify(turn, user_md, memory_md)


def test_engines_are_shown_read_only_views_of_both_files_parsed_once(tmp_path: Path) -> None:
    import pytest

    from pipeline.engines.views import MemoryView, UserView

    udir = tmp_path / "jasmin"
    udir.mkdir()
    (udir / "USER.md").write_text("# USER\n\n## Identity\n- Name: Jasmin\n- City: Lisbon\n", "utf-8")
    (udir / "MEMORY.md").write_text("# MEMORY\n\n- [2026-07-29] agent-demo: shipped the hero section\n", "utf-8")
    Watching.seen = []
    with MemoryPipeline(root=tmp_path, engine=Watching()) as pipe:
        pipe.process_turn("jasmin", [{"role": "user", "content": "what time is it?"}], timestamp=TS)
    user_md, memory_md = Watching.seen[0]
    # Still the markdown text (a prompt can quote it), and parsed: no engine parses it again.
    assert isinstance(user_md, UserView) and "- City: Lisbon" in user_md
    assert user_md.fields["city"].value == "Lisbon" and user_md.fields["name"].section == "Identity"
    assert isinstance(memory_md, MemoryView)
    assert [(e.date, e.topic, e.text) for e in memory_md.entries] == [("2026-07-29", "agent-demo", "shipped the hero section")]
    with pytest.raises(AttributeError):
        user_md.fields = {}  # type: ignore[misc]
    with pytest.raises(TypeError):
        user_md.fields["city"] = user_md.fields["name"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        memory_md.entries[0].text = "changed"  # type: ignore[misc]

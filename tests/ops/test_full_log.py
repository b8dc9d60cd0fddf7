"""A full MEMORY.md never stalls a user: when the model cannot consolidate it, the rule-based
consolidation runs, and failing that the oldest entries go to the archive; the turn lands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pipeline.core import MemoryPipeline
from pipeline.ledgers.memory_md import MemoryLog
from pipeline.stages.consolidate import archive_oldest
from pipeline.testing import FakeModel


def full_memory() -> str:
    lines = [f"- [2026-07-{d:02d}] agent-demo: sprint {d} finished; notes on perf budget and QA sign-off" for d in range(1, 28)]
    return "# MEMORY\n\n" + "\n".join(lines) + "\n"


TURN = [
    {"quote": "I'm Jasmin", "route": "user", "section": "Identity", "key": "Name", "value": "Jasmin"},
    {"quote": "docs moved", "route": "memory", "entry": "docs moved to Vercel", "date": "2026-08-06", "topic": "docs"},
]
BAD_PLAN = {"entries": [{"date": "2026-07-01", "topic": "agent-demo", "text": "sprint 1 finished", "sources": [0]}], "archived": []}


@pytest.mark.parametrize("consolidation", [BAD_PLAN, RuntimeError("model down")], ids=["invalid plan", "model down"])
def test_a_failed_model_consolidation_falls_back_and_the_turn_lands(tmp_path: Path, consolidation: Any) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    (folder / "MEMORY.md").write_text(full_memory(), "utf-8")
    model = FakeModel(TURN, consolidation)
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "I'm Jasmin; docs moved"}], timestamp="2026-08-06T10:00:00Z")
        recalled = pipe.recall("jasmin", "sprint 13")
        failed = pipe.store.failed_turns("jasmin")
    memory = (folder / "MEMORY.md").read_text("utf-8")
    assert result.status == "done" and result.consolidated and not failed
    assert "- Name: Jasmin" in (folder / "USER.md").read_text("utf-8")
    assert "docs moved to Vercel" in memory and len(memory) < 0.9 * 2200
    assert any("sprint 13" in hit["text"] for hit in recalled) or "sprint 13 " in memory  # nothing lost


def test_archive_oldest_shrinks_to_the_target_and_keeps_the_newest() -> None:
    log = MemoryLog.parse(full_memory(), limit=2200)
    changes, archive = archive_oldest(log, memory_limit=2200, why="test")
    assert len(log.render()) <= 0.75 * 2200 and archive
    assert archive[0].old is not None and "sprint 1 finished" in archive[0].old
    assert log.entries[-1].text.startswith("sprint 27")

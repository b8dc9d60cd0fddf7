"""Turns landing out of order (retry, the hook's parked replay, batch) never undo a newer turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.core import MemoryPipeline
from pipeline.ledgers.memory_md import MemoryEntry, MemoryLog
from pipeline.testing import FakeModel


def fact(key: str, value: str) -> dict[str, Any]:
    return {"quote": value, "route": "user", "section": "Identity", "key": key, "value": value}


def event(text: str, day: str) -> dict[str, Any]:
    return {"quote": text, "route": "memory", "entry": text, "date": day, "topic": "work"}


def say(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_retry_of_an_older_failed_turn_does_not_undo_a_newer_role(tmp_path: Path) -> None:
    day1 = [fact("Name", "Jasmin"), fact("Role", "designer"), event("kicked off the redesign", "2026-08-01")]
    day2 = [fact("Role", "staff engineer"), event("shipped the redesign", "2026-08-02")]
    model = FakeModel(RuntimeError("server down"), day2, day1)
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        failed = pipe.process_turn("jasmin", say("I'm Jasmin, a designer"), timestamp="2026-08-01T09:00:00Z")
        assert failed.status == "failed"
        pipe.process_turn("jasmin", say("I'm a staff engineer now"), timestamp="2026-08-02T09:00:00Z")
        [retried] = pipe.retry("jasmin")
        history = pipe.history("jasmin")
        archive = [a["text"] for a in pipe.store.archive("jasmin")]
    user_md = (tmp_path / "jasmin" / "USER.md").read_text("utf-8")
    memory_md = (tmp_path / "jasmin" / "MEMORY.md").read_text("utf-8")
    assert retried.status == "done"
    assert "- Role: staff engineer" in user_md and "designer" not in user_md
    assert "- Name: Jasmin" in user_md  # the late turn's other facts still land
    # The late value is kept where history and recall find it, under the newer one.
    assert any(h["op"] == "stale" and h["old_value"] == "designer" for h in history)
    assert any("designer" in text for text in archive)
    role = next(d for d in retried.decisions if d.key == "Role")
    assert role.outcome is not None and role.outcome.startswith("stale")
    # Its dated entry lands in date order, before the newer day's.
    assert memory_md.index("kicked off the redesign") < memory_md.index("shipped the redesign")


def test_a_later_turn_still_overwrites_and_an_in_order_retry_applies(tmp_path: Path) -> None:
    model = FakeModel(RuntimeError("down"), [fact("Role", "designer")], [fact("Role", "staff engineer")])
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        pipe.process_turn("jasmin", say("I'm a staff engineer now"), timestamp="2026-08-02T09:00:00Z")
        pipe.process_turn("jasmin", say("I'm a designer"), timestamp="2026-08-01T09:00:00Z")  # an old transcript
        pipe.retry("jasmin")  # the failed turn is the newest: it applies
    user_md = (tmp_path / "jasmin" / "USER.md").read_text("utf-8")
    assert "- Role: staff engineer" in user_md and "designer" not in user_md


def test_same_time_turns_rank_by_arrival(tmp_path: Path) -> None:
    model = FakeModel([fact("Role", "designer")], [fact("Role", "staff engineer")])
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        pipe.process_turn("jasmin", say("designer"), timestamp="2026-08-01T09:00:00Z")
        pipe.process_turn("jasmin", say("staff engineer"), timestamp="2026-08-01T09:00:00Z")
    assert "- Role: staff engineer" in (tmp_path / "jasmin" / "USER.md").read_text("utf-8")


def test_a_late_dated_entry_goes_before_later_ones() -> None:
    log = MemoryLog.parse("# MEMORY\n\n- [2026-08-01] a\n- [2026-08-03] c\n", limit=2200)
    log.append(MemoryEntry(text="b", date="2026-08-02"))
    log.append(MemoryEntry(text="d", date="2026-08-04"))
    assert [e.text for e in log.entries] == ["a", "b", "c", "d"]

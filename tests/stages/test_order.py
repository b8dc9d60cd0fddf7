"""Turns landing out of order (retry, the hook's parked replay, batch) never undo a newer turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline.batch import BatchOptions, BatchRunner
from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine
from pipeline.hook.post_turn import PostTurnHook, RetryPolicy
from pipeline.ledgers.memory_md import MemoryEntry, MemoryLog
from pipeline.testing import FakeModel
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Turn


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
    assert role.outcome == "stale"
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


class RoleEngine(Engine):
    """"role: X" sets Role; every turn also logs its text, dated the turn's day. Can be down."""

    name = "role"

    def __init__(self) -> None:
        self.down = False

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        if self.down:
            raise RuntimeError("upstream 503")
        text = turn.user_text.strip()
        role = text.split("role: ", 1)[1]
        return Classification(engine=self.name, decisions=[
            Decision(quote=text, route="user", op="upsert", section="Identity", key="Role", value=role),
            Decision(quote=text, route="memory", op="append", entry=f"now {role}", date=turn.today.isoformat()),
        ])

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: Any) -> ConsolidationPlan:
        raise AssertionError("tests keep MEMORY.md under its cap")


def test_the_hooks_parked_turn_replayed_last_does_not_reset_the_profile(tmp_path: Path) -> None:
    engine = RoleEngine()
    engine.down = True
    with MemoryPipeline(root=tmp_path, engine=engine) as pipe:
        hook = PostTurnHook(pipe, workers=1, retry_policy=RetryPolicy(max_attempts=1, base_delay_s=0.01))
        hook.submit("ana", say("role: intern"), timestamp="2026-08-01T09:00:00Z")
        assert hook.drain(timeout=10) and hook.stats()["parked"] == 1
        engine.down = False
        for day, role in ((2, "analyst"), (3, "lead"), (4, "director")):
            hook.submit("ana", say(f"role: {role}"), timestamp=f"2026-08-0{day}T09:00:00Z")
        assert hook.drain(timeout=10)
        assert hook.retry_parked() == 1
        assert hook.drain(timeout=10)
        hook.close()
    user_md = (tmp_path / "ana" / "USER.md").read_text("utf-8")
    memory = [line for line in (tmp_path / "ana" / "MEMORY.md").read_text("utf-8").splitlines() if line.startswith("- [")]
    assert "- Role: director" in user_md and "intern" not in user_md
    assert [line.rsplit(" ", 1)[1] for line in memory] == ["intern", "analyst", "lead", "director"]


def test_a_batch_of_older_transcripts_does_not_undo_a_newer_profile(tmp_path: Path) -> None:
    def conv(cid: str, day: int, role: str) -> str:
        return json.dumps({"id": cid, "user_id": "ana", "messages": [
            {"role": "user", "content": f"role: {role}", "timestamp": f"2026-08-{day:02d}T09:00:00Z"}]})

    newer, older = tmp_path / "newer.jsonl", tmp_path / "older.jsonl"
    newer.write_text(conv("c2", 5, "director") + "\n", "utf-8")
    older.write_text(conv("c1", 1, "intern") + "\n", "utf-8")
    for src in (newer, older):  # the older export arrives second
        with MemoryPipeline(root=tmp_path / "out", engine=RoleEngine()) as pipe:
            BatchRunner(pipe, [src], BatchOptions()).run()
    user_md = (tmp_path / "out" / "ana" / "USER.md").read_text("utf-8")
    assert "- Role: director" in user_md and "intern" not in user_md

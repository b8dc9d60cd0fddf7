"""A chat turn's apply step (pipeline/ops/turn.py): its policy is chosen explicitly, and a failure
is labeled by what failed (the engine's compaction, or the store)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from pipeline.core import MemoryPipeline
from pipeline.engines.base import Result
from pipeline.engines.offline import OfflineEngine
from pipeline.ops.room import COMPACT_AT
from pipeline.ops.turn import WritePolicy
from pipeline.types import Usage


class FailingCompaction(OfflineEngine):
    """An engine whose (paid) compaction fails after spending one call."""

    free_compaction = False

    def compact(self, user_md: str, needed_chars: int, **kw: object) -> Result[str | None]:
        error = RuntimeError("the model is down")
        error.usage = Usage(calls=1, input_tokens=10)  # type: ignore[attr-defined]
        raise error


def _nearly_full(pipe: MemoryPipeline, user: str) -> None:
    n = 0
    while len(pipe.show(user)["user_md"]) < 0.95 * pipe.user_limit:
        assert pipe.tool(user, "add", "user", f"Pet {n}: a cat named Whiskers")["success"]
        n += 1


def test_the_policy_is_the_engines_declared_choice() -> None:
    assert WritePolicy.for_engine(OfflineEngine()).compact_at == COMPACT_AT  # free: compacts ahead of time
    assert WritePolicy.for_engine(FailingCompaction()).compact_at is None  # paid: only when a fact does not fit


def test_a_failed_compaction_fails_the_turn_as_a_compaction(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path, engine=FailingCompaction(), user_limit=400) as pipe:
        assert pipe.policy.compact_at is None
        _nearly_full(pipe, "ana")
        big = "I live in Lisbon, in the old town near the river, on a street full of small bakeries and bookshops."
        result = pipe.process_turn("ana", [{"role": "user", "content": big}], turn_id="t-1")
        assert result.status == "failed" and "the model is down" in (result.error or "")
        by_stage = {row["stage"]: row["calls"] for row in pipe.store.usage_rows("ana", "t-1")}
        assert by_stage == {"failed:classify": 0, "failed:compact": 1}
        assert pipe.store.turn_status("ana", "t-1") == "failed"  # kept for retry


def test_a_store_error_during_the_apply_step_is_not_called_a_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoryPipeline(root=tmp_path, user_limit=400) as pipe:
        _nearly_full(pipe, "ana")

        def broken(user_id: str) -> list[dict[str, object]]:
            raise sqlite3.OperationalError("disk I/O error")

        monkeypatch.setattr(pipe.store, "annotations", broken)  # read while compacting (pins are protected)
        big = "I live in Lisbon, in the old town near the river, on a street full of small bakeries and bookshops."
        with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
            pipe.process_turn("ana", [{"role": "user", "content": big}], turn_id="t-2")
        monkeypatch.undo()
        assert pipe.store.usage_rows("ana", "t-2") == []  # no "failed:compact" row
        assert "Lisbon" not in pipe.show("ana")["user_md"]  # nothing was written

"""The one write path: `with pipe.edit(user) as tx:` commits what the block staged, or nothing; on both
stores (a root, PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_fixture import Memory

from pipeline.core import MemoryPipeline
from pipeline.stages.write import Change, WriteResult


def _documents(pipe: MemoryPipeline, user: str) -> tuple[bytes | None, bytes | None]:
    texts = pipe.documents.documents(user).read()
    return texts.user_raw, texts.memory_raw


def test_an_exception_inside_edit_writes_nothing(mem: Memory) -> None:
    with mem.pipeline() as pipe:
        assert pipe.tool("ana", "add", "user", "Name: Ana")["success"]
        files_before, history_before = _documents(pipe, "ana"), pipe.history("ana")
        with pytest.raises(RuntimeError, match="boom"):
            with pipe.edit("ana", kind="test") as tx:
                tx.current.profile.add_entry("City: Lisbon")
                written = WriteResult(profile=tx.current.profile, log=tx.current.log)
                written.changes.append(Change("user", "add", None, None, "City: Lisbon", "test", None))
                tx.stage(written)
                raise RuntimeError("boom")
        assert _documents(pipe, "ana") == files_before
        assert pipe.history("ana") == history_before
        assert "Lisbon" not in pipe.show("ana")["user_md"]


def test_edit_commits_documents_history_and_turn_record_together(mem: Memory) -> None:
    with mem.pipeline() as pipe:
        with pipe.edit("ana", kind="test") as tx:
            tx.current.profile.add_entry("City: Lisbon")
            written = WriteResult(profile=tx.current.profile, log=tx.current.log)
            written.changes.append(Change("user", "add", None, None, "City: Lisbon", "test", None))
            tx.stage(written)
        assert tx.committed and tx.turn_id.startswith("test-")
        assert "City: Lisbon" in pipe.show("ana")["user_md"]
        assert [(r["op"], r["new_value"], r["engine"]) for r in pipe.history("ana")] == [("add", "City: Lisbon", "manual")]
        assert pipe.store.provenance("ana")[-1]["engine"] == "manual"
        assert pipe.store.turn_status("ana", tx.turn_id) == "done"


def test_an_edit_that_stages_nothing_writes_nothing(mem: Memory) -> None:
    with mem.pipeline() as pipe:
        with pipe.edit("ana") as tx:
            tx.current.profile.add_entry("City: Lisbon")  # changed in memory, never staged
        assert not tx.committed
        assert "Lisbon" not in pipe.show("ana")["user_md"]
        assert pipe.store.turn_status("ana", tx.turn_id) is None


def test_the_pipeline_reads_no_model_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A library user's MemoryPipeline(root) stays offline whatever the shell exports; the CLI resolves env.
    monkeypatch.setenv("MEMROUTE_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("MEMROUTE_ENGINE", "llm")
    with MemoryPipeline(root=tmp_path) as pipe:
        assert pipe.engine.name == "offline"


def test_a_model_compaction_runs_only_when_a_write_does_not_fit(mem: Memory) -> None:
    # USER.md at ~95% of its cap: the rule-based compaction would shrink it ahead of time; an
    # engine with its own (paid) compaction is asked only when a fact does not fit.
    from pipeline.engines.base import Result
    from pipeline.engines.offline import OfflineEngine

    class OwnCompaction(OfflineEngine):
        calls = 0
        free_compaction = False  # says its compact() costs (a model's)

        def compact(self, user_md: str, needed_chars: int, **kw: object) -> Result[str | None]:
            type(self).calls += 1
            return Result(None)

    with mem.pipeline(OwnCompaction(), user_limit=1000) as pipe:
        n = 0
        while len(pipe.show("ana")["user_md"]) < 910:
            assert pipe.tool("ana", "add", "user", f"Pet {n}: a cat named Whiskers")["success"]
            n += 1
        result = pipe.process_turn("ana", [{"role": "user", "content": "I live in Lisbon."}])
        assert result.user_changed and "Lisbon" in pipe.show("ana")["user_md"]
        assert OwnCompaction.calls == 0

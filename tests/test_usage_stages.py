"""Usage per stage: classify, compact, consolidate, re-asks and retries, and failed turns' cost,
in the store and in `memroute status --json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.core import MemoryPipeline
from pipeline.testing import FakeModel


def full_memory() -> str:
    lines = [f"- [2026-07-{d:02d}] agent-demo: sprint {d} finished; notes on perf budget and QA sign-off" for d in range(1, 28)]
    return "# MEMORY\n\n" + "\n".join(lines) + "\n"


EVENT = {"quote": "docs moved", "route": "memory", "entry": "docs moved to Vercel", "date": "2026-08-06", "topic": "docs"}
PLAN = {
    "entries": [{"date": "2026-07-27", "topic": "agent-demo", "text": "sprints 1-27 finished with perf budget and QA sign-off (2026-07-01 to 2026-07-26)", "sources": list(range(27))}],
    "archived": [],
}


def by_stage(totals: dict) -> dict[str, int]:
    return {row["stage"]: row["calls"] for row in totals["by_stage"]}


def test_each_stage_and_each_failed_turn_is_recorded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "jasmin").mkdir()
    (tmp_path / "jasmin" / "MEMORY.md").write_text(full_memory(), "utf-8")
    # Turn 1: one invalid answer re-asked, then the classification; then the consolidation.
    # Turn 2: three invalid answers: the turn fails, its three calls are still counted.
    model = FakeModel("not json", [EVENT], PLAN, "bad", "bad", "bad")
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        done = pipe.process_turn("jasmin", [{"role": "user", "content": "docs moved"}], timestamp="2026-08-06T10:00:00Z")
        failed = pipe.process_turn("jasmin", [{"role": "user", "content": "we use pnpm"}], timestamp="2026-08-07T10:00:00Z")
        totals = pipe.store.usage_totals("jasmin")
    assert done.status == "done" and done.usage.calls == 3 and done.usage.reasks == 1
    assert failed.status == "failed" and failed.usage.calls == 3
    assert by_stage(totals) == {"classify": 2, "consolidate": 1, "failed:classify": 3}
    assert totals["calls"] == 6 == len(model.history)  # every request sent is recorded
    assert main(["status", "--json", "--root", str(tmp_path)]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["failed_turns"] == 1 and by_stage(status["usage"]) == by_stage(totals)


def test_the_eval_report_shows_usage_per_stage_and_per_case(tmp_path: Path) -> None:
    from typing import Any

    from pipeline.evals import EngineSpec, load_cases, run_eval, score_run

    suite = tmp_path / "suite.jsonl"
    suite.write_text(json.dumps({"id": "c1", "lang": "en", "messages": [{"role": "user", "content": "docs moved"}],
                                 "expect": {"route": "skip"}}) + "\n", "utf-8")

    def factory(root: Path, spec: EngineSpec, cache_dir: Path | None, options: dict[str, Any]) -> MemoryPipeline:
        return MemoryPipeline(root=root, model=FakeModel("not json", [EVENT]))  # one re-ask, then an answer

    spec = EngineSpec("llm", "fake")
    outcomes = run_eval(load_cases([str(suite)]), [spec], concurrency=1, factory=factory)
    block = score_run(outcomes[spec.name], spec).model_dump(mode="json")
    assert block["calls"] == 2 and block["reasks"] == 1
    assert block["usage_by_stage"]["classify"]["calls"] == 2
    (failure,) = block["failures"]  # expected skip, it wrote: the case's own usage is in its record
    assert failure["usage_by_stage"]["classify"]["calls"] == 2


def test_an_llm_consolidation_from_memroute_consolidate_appears_in_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.testing import ChatServer

    (tmp_path / "jasmin").mkdir()
    (tmp_path / "jasmin" / "MEMORY.md").write_text(full_memory(), "utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    with ChatServer("openai", lambda body: PLAN) as srv:
        code = main(["consolidate", "jasmin", "--root", str(tmp_path), "--model", "openai/local", "--api-base",
                     srv.api_base])
        assert code == 0, capsys.readouterr().err
        sent = len(srv.requests)
    capsys.readouterr()
    assert sent == 1 and "sprints 1-27 finished" in (tmp_path / "jasmin" / "MEMORY.md").read_text("utf-8")
    assert main(["status", "--json", "--root", str(tmp_path)]) == 0
    usage = json.loads(capsys.readouterr().out)["usage"]
    assert by_stage(usage) == {"consolidate": 1} and usage["calls"] == 1
    assert usage["input_tokens"] > 0  # what the request cost, as a turn's consolidation is counted

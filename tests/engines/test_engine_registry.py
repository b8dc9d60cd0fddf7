"""Engines found by name: built-ins, and third-party engines through `memroute.engines` entry points."""

from __future__ import annotations

import json
from datetime import date
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.engines import EngineConfigError, make_engine
from pipeline.engines.base import Engine
from pipeline.engines.registry import GROUP, EngineOptions, engine_names
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Turn


class ShoutingEngine(Engine):
    """A third-party engine: every turn becomes one memory entry, in capitals."""

    name = "myengine"

    def __init__(self, options: EngineOptions) -> None:
        self.model = options.model

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        text = turn.user_text.strip()
        decision = Decision(quote=text, route="memory", op="append", entry=text.upper(), date=turn.today.isoformat())
        return Classification(decisions=[decision], engine=self.name)

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        return ConsolidationPlan(entries=[], engine=self.name)


def not_an_engine(options: EngineOptions) -> object:
    return object()


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A distribution that declares two engines in the memroute.engines group (and one elsewhere)."""
    points = [
        metadata.EntryPoint(name="myengine", value="tests.engines.test_engine_registry:ShoutingEngine", group=GROUP),
        metadata.EntryPoint(name="broken", value="tests.engines.test_engine_registry:not_an_engine", group=GROUP),
        metadata.EntryPoint(name="other", value="tests.engines.test_engine_registry:ShoutingEngine", group="elsewhere"),
    ]

    def entry_points(**params: Any) -> list[metadata.EntryPoint]:
        return [ep for ep in points if all(getattr(ep, k) == v for k, v in params.items())]

    monkeypatch.setattr(metadata, "entry_points", entry_points)


def test_cli_runs_an_engine_installed_by_another_package(
    installed: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["turn", "jasmin", "--text", "we shipped the hero today", "--engine", "myengine",
                 "--timestamp", "2026-07-30T09:00:00Z", "--json", "--root", str(tmp_path)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["engine"] == "myengine"
    assert "WE SHIPPED THE HERO TODAY" in (tmp_path / "jasmin" / "MEMORY.md").read_text("utf-8")
    assert engine_names() == ["offline", "llm", "hybrid", "broken", "myengine"]


def test_an_unknown_engine_is_one_line_and_exit_2(
    installed: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["turn", "jasmin", "--text", "hello", "--engine", "nosuch", "--root", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "unknown engine 'nosuch'" in err and "myengine" in err and "offline" in err
    assert not (tmp_path / "jasmin").exists()


def test_a_registered_object_that_is_not_an_engine_is_refused(installed: None) -> None:
    with pytest.raises(EngineConfigError, match="not a pipeline.engines.base.Engine"):
        make_engine("broken")


def test_builtins_are_found_by_name_without_a_model_only_offline() -> None:
    assert make_engine("offline").name == "offline"
    with pytest.raises(EngineConfigError, match="needs a model"):
        make_engine("hybrid")
    with pytest.raises(EngineConfigError, match="not an engine"):
        make_engine(object())  # type: ignore[arg-type]


def test_make_engine_reads_no_engine_or_model_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # MEMROUTE_ENGINE/MEMROUTE_MODEL are resolved by the CLI's settings; the library takes what it is given.
    monkeypatch.setenv("MEMROUTE_ENGINE", "llm")
    monkeypatch.setenv("MEMROUTE_MODEL", "openai/gpt-4o-mini")
    assert make_engine().name == "offline"
    assert make_engine(None, model=None).name == "offline"


def test_eval_runs_an_installed_engine_without_a_model(
    installed: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "s.jsonl"
    case = {"id": "c1", "messages": [{"role": "user", "content": "we shipped the hero today"}], "expect": {"route": "memory"}}
    suite.write_text(json.dumps(case) + "\n", "utf-8")
    out = tmp_path / "r.json"
    code = main(["eval", str(suite), "--engine", "myengine", "--json", str(out), "--no-cache"])
    err = capsys.readouterr().err
    assert code == 0, err
    report = json.loads(out.read_text("utf-8"))
    assert [run["engine"] for run in report["runs"]] == ["myengine"]
    assert report["route_accuracy"] == 1.0

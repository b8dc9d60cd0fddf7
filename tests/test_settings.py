"""One Settings builds a pipeline in the CLI and in Python, with the same defaults: a library
`MemoryPipeline(model=...)` gets the CLI's turn deadline, request timeout, retries and caps."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.core import MemoryPipeline
from pipeline.settings import Settings, build_pipeline, resolve
from pipeline.testing import FakeModel

MODEL = "openai/gpt-4o-mini"


def _limits(pipe: MemoryPipeline) -> tuple[object, ...]:
    engine = pipe.engine
    return (engine.deadline, engine.timeout, engine.max_retries, pipe.user_limit, pipe.memory_limit)  # type: ignore[attr-defined]


def test_a_library_pipeline_gets_the_same_deadline_and_limits_as_the_cli(tmp_path: Path) -> None:
    cli_settings = resolve({"root": str(tmp_path), "model": MODEL}, environ={})
    with build_pipeline(cli_settings) as cli, MemoryPipeline(root=tmp_path, model=MODEL) as library:
        assert cli.engine.name == library.engine.name == "llm"
        assert _limits(library) == _limits(cli) == (60.0, 30.0, 3, 1375, 2200)
    with MemoryPipeline(root=tmp_path, model=FakeModel()) as fake:  # a Transport as the model: the same
        assert _limits(fake) == _limits(library)


def test_the_model_limits_are_settable_in_python_as_on_the_command_line(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path, model=MODEL, deadline=5, timeout=2, max_retries=0) as library:
        assert _limits(library)[:3] == (5, 2, 0)
    cli_settings = resolve({"root": str(tmp_path), "model": MODEL, "deadline": 5, "timeout": 2, "max_retries": 0},
                           environ={})
    with build_pipeline(cli_settings) as cli:
        assert _limits(cli)[:3] == (5, 2, 0)


def test_settings_built_in_python_default_like_the_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMROUTE_HOME", str(tmp_path / "home"))
    with MemoryPipeline(read_only=True) as library:
        assert Settings().root == library.root == tmp_path / "home"
    assert resolve({}, environ={"MEMROUTE_HOME": str(tmp_path / "home")}).root == tmp_path / "home"

"""The curated public API: every name in pipeline.__all__ imports from `pipeline`, and importing
the package (or any of its names) never imports litellm."""

from __future__ import annotations

import subprocess
import sys

import pytest

import pipeline


@pytest.mark.parametrize("name", pipeline.__all__)
def test_every_public_name_imports_from_pipeline(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from pipeline import {name}", namespace)
    assert namespace[name] is getattr(pipeline, name)


def test_all_lists_exactly_the_lazy_exports() -> None:
    assert set(pipeline.__all__) == {*pipeline._EXPORTS, "__version__"}


def test_public_errors_share_the_memroute_base() -> None:
    errors = [getattr(pipeline, n) for n in pipeline.__all__ if n.endswith(("Error", "Full", "Closed", "Exceeded"))]
    errors += [pipeline.BadTurn, pipeline.InvalidUserId, pipeline.CandidateNotFound, pipeline.NothingToForget]
    assert all(issubclass(e, pipeline.MemrouteError) for e in errors)


def test_import_pipeline_and_its_api_never_imports_litellm() -> None:
    code = (
        "import sys, pipeline\n"
        "assert 'litellm' not in sys.modules and 'pipeline.core' not in sys.modules, 'eager import'\n"
        "for name in pipeline.__all__: getattr(pipeline, name)\n"
        "assert 'litellm' not in sys.modules, 'litellm imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        pipeline.Nope  # noqa: B018


def test_the_package_says_it_is_typed() -> None:
    """PEP 561: py.typed ships in the wheel (every file under pipeline/ does), so a type checker reads memroute's
    annotations in the caller's code."""
    from pathlib import Path

    root = Path(pipeline.__file__).parent
    assert (root / "py.typed").is_file()
    pyproject = (root.parent / "pyproject.toml").read_text("utf-8")
    assert 'packages = ["pipeline"]' in pyproject and "exclude" not in pyproject.split("[tool.hatch.build")[1]

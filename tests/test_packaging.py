"""The project installs from a clone as a wheel: `pip wheel .` builds one that holds everything the package
reads at run time (prompts, the extractor's weights, the demo conversation, the price table, the review
page's templates and assets), and the installed wheel runs `memroute demo` on its own, away from the clone.
Built with --no-build-isolation (hatchling from the test extras), so no test reaches the network."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RUNTIME_FILES = [
    "pipeline/_prompts/classify.md", "pipeline/_prompts/consolidate.md", "pipeline/_prompts/compact_user.md",
    "pipeline/engines/offline/extractor_weights.json", "pipeline/data/demo_conversation.json",
    "pipeline/engines/llm/openai_prices.json", "pipeline/review/templates/user.html",
    "pipeline/review/templates/index.html", "pipeline/review/static/review.css", "pipeline/review/static/review.js",
]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("hatchling")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                           str(out), str(REPO)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    [built] = out.glob("memroute-*-py3-none-any.whl")
    return built


def test_the_wheel_holds_what_the_package_reads_at_run_time(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert [f for f in RUNTIME_FILES if f not in names] == []
    assert not [n for n in names if n.startswith(("tests/", "training/", "evals/", ".venv"))]
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Provides-Extra: serve" in metadata and "Requires-Dist: pydantic" in metadata


def test_the_installed_wheel_runs_the_demo_away_from_the_clone(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                           str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    env = {**os.environ, "PYTHONPATH": str(target), "MEMROUTE_ENGINE": "offline"}
    env.pop("MEMROUTE_MODEL", None)
    where = subprocess.run([sys.executable, "-c", "import pipeline; print(pipeline.__file__)"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=60)
    assert where.stdout.startswith(str(target)), where.stdout + where.stderr  # the wheel's copy, not the clone's
    demo = subprocess.run([sys.executable, "-m", "pipeline.cli", "demo", "--root", str(tmp_path / "memory")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert "Name: Jasmin" in (tmp_path / "memory" / "jasmin" / "USER.md").read_text("utf-8")

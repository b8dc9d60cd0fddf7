"""Every ```bash and ```python block in docs/ runs, in order, in a fresh folder (offline engine),
so the pages cannot drift from the code."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCK = re.compile(r"^```(bash|python)\n(.*?)^```$", re.S | re.M)
PAGES = sorted(DOCS.glob("*.md"))
# Pages whose examples run (the reference pages, such as figures.md and guarantees.md, show commands as text).
RUNNABLE = [p for p in PAGES if BLOCK.search(p.read_text("utf-8"))]


def test_the_pages_with_examples_exist() -> None:
    assert {p.name for p in RUNNABLE} >= {"layout.md", "batch-formats.md", "eval-cases.md", "python-api.md",
                                           "http-api.md", "operations.md", "cli.md"}


@pytest.mark.parametrize("page", RUNNABLE, ids=[p.name for p in RUNNABLE])
def test_every_example_on_the_page_runs(page: Path, tmp_path: Path) -> None:
    blocks = BLOCK.findall(page.read_text("utf-8"))
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",  # memroute and python of this venv
        "MEMROUTE_HOME": str(tmp_path / "home"),
        "MEMROUTE_CACHE": str(tmp_path / "cache"),
        "MEMROUTE_ENGINE": "offline",
        "MEMROUTE_ALLOW_MODEL_REQUESTS": "0",
    }
    env.pop("MEMROUTE_MODEL", None)
    env.pop("MEMROUTE_CONFIG", None)
    for n, (lang, code) in enumerate(blocks, 1):
        argv = ["bash", "-euo", "pipefail", "-c", code] if lang == "bash" else [sys.executable, "-c", code]
        proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"{page.name} block {n} ({lang}) failed:\n{code}\n--- stdout\n{proc.stdout[-1500:]}\n--- stderr\n{proc.stderr[-1500:]}"

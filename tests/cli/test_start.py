"""The CLI's start loads only what the command uses: `memroute --help` and every command's option parser
need no pydantic models, engines or web machinery (the defaults they show come from modules without imports)."""

from __future__ import annotations

import subprocess
import sys


def test_the_cli_start_loads_no_pydantic_engine_or_web_machinery() -> None:
    code = ("import sys; from pipeline.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('pydantic', 'pipeline.types', 'pipeline.engines', 'pipeline.core', 'fastapi', "
            "'litellm', 'instructor') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"

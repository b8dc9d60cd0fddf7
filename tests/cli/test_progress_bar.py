"""The progress bar `memroute eval` and the write benchmark draw on a terminal: it counts the runs and the failed
ones, names what ran, and draws nothing when stderr is not a terminal (a log file or a pipe stays clean)."""

from __future__ import annotations

import io

from rich.console import Console

from pipeline.cli.common import progress_bar


def test_the_bar_counts_runs_and_failures_on_a_terminal() -> None:
    out = io.StringIO()
    with progress_bar("benchmark", 3, Console(file=out, force_terminal=True, width=100)) as step:
        step(False, "memroute-offline")
        step(True, "mem0")
        step(False, "mem0")
    drawn = out.getvalue()
    assert "3/3" in drawn and "1 failed" in drawn and "mem0" in drawn


def test_no_bar_off_a_terminal() -> None:
    out = io.StringIO()
    with progress_bar("eval", 2, Console(file=out, force_terminal=False)) as step:
        step(True, "")
        step(True, "")
    assert out.getvalue() == ""

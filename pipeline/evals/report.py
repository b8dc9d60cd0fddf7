"""The JSON report of an eval (one block per engine/model run) and the gates `memroute eval`
applies to it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


def build_report(
    runs: Sequence[dict[str, Any]], files: Sequence[str], started: datetime, wall_s: float
) -> dict[str, Any]:
    """The JSON report: the first run's block at top level (single-engine readers), all runs in `runs`."""
    top = {k: v for k, v in runs[0].items()} if runs else {}
    top.update(
        {
            "date": started.isoformat(timespec="seconds"),
            "suites": [str(f) for f in files],
            "wall_s": wall_s,
            "runs": list(runs),
        }
    )
    return top


def gate_problems(report: dict[str, Any], min_accuracy: float | None) -> list[str]:
    """One line per missed gate: accuracy below the floor (any run), or any leak."""
    problems = []
    for run in report["runs"]:
        acc = run["route_accuracy"]
        if min_accuracy is not None and (acc is None or acc < min_accuracy):
            shown = "n/a (no case has expect.route)" if acc is None else f"{acc:.3f}"
            problems.append(f"{run['label']}: route accuracy {shown} is below --min-accuracy {min_accuracy:g}")
        if run["leaks"]:
            ids = sorted({leak["id"] for leak in run["leaks"]})
            shown = ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")
            problems.append(f"{run['label']}: {len(run['leaks'])} leak(s) in {len(ids)} case(s): {shown}")
    return problems


"""The eval report, typed (inspect_ai's EvalLog is the model): one RunMetrics block per
engine/model run, each with its failed cases (CaseResult) and leaks, and the EvalReport around
them. `to_json()` gives the `--json` contract (tests, benchmarks and the HTML report read it):
the first run's block at top level (single-engine readers), all runs in `runs`. The models keep
unknown keys (extra="allow"), so a metric added to a run block reaches the JSON unchanged.
Also the gates `memroute eval` applies."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict


class _Block(BaseModel):
    model_config = ConfigDict(extra="allow")


class Leak(_Block):
    """A `never_written` needle found where it must not be (a file, a db table, the log)."""

    id: str
    needle: str
    where: str


class RouteScore(_Block):
    precision: float | None
    recall: float | None
    f1: float | None
    support: int
    predicted: int


class LangCases(_Block):
    cases: int
    correct: int


class WriteMetrics(_Block):
    """How much the engine writes, and how much of it should have been written (scorers.write_metrics)."""

    user_md_precision: float | None
    memory_md_precision: float | None
    write_rate: float | None
    expected_write_rate: float | None
    user_md_writes: int
    memory_md_writes: int
    write_rate_cases: int


class CaseInput(_Block):
    history: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    timestamp: str | None


class CaseFiles(_Block):
    user_md: str | None
    memory_md: str | None


class CaseResult(_Block):
    """One failed case: what went in, what was expected, what the engine decided and left in the files."""

    id: str
    file: str
    line: int
    lang: str
    problems: list[str]
    error: str | None
    expected_route: str | None
    predicted_route: str
    expect: dict[str, Any]
    input: CaseInput
    initial: CaseFiles
    actual: CaseFiles
    decisions: list[dict[str, Any]]


class RunMetrics(_Block):
    """The metrics of one engine/model run (the report keys of docs/design.md's eval contract and a few more), in JSON key order."""

    engine: str
    model: str | None
    label: str
    cases: int
    route_cases: int
    route_correct: int
    route_accuracy: float | None
    reason_cases: int
    reason_accuracy: float | None
    by_lang: dict[str, float]
    lang_cases: dict[str, LangCases]
    by_route: dict[str, RouteScore]
    confusion: dict[str, dict[str, int]]
    # WriteMetrics' fields, spelled out rather than inherited: inheriting would move them to the
    # front, and the JSON keeps the key order it always had.
    user_md_precision: float | None
    memory_md_precision: float | None
    write_rate: float | None
    expected_write_rate: float | None
    user_md_writes: int
    memory_md_writes: int
    write_rate_cases: int
    lang_writes: dict[str, WriteMetrics]
    leaks: list[Leak]
    false_blocks: list[str]
    false_block_rate: float | None
    write_cases: int
    assertions_passed: int
    assertions_total: int
    errors: int
    failures: list[CaseResult]
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None  # None when a case raised or a price is unknown
    latency_p50_s: float | None
    latency_p95_s: float | None


class EvalReport(RunMetrics):
    """The whole report: the first run's metrics at top level, then when, what and every run."""

    date: str
    suites: list[str]
    wall_s: float
    runs: list[RunMetrics]

    def to_json(self) -> dict[str, Any]:
        """The `--json` report as plain JSON values."""
        return self.model_dump(mode="json")


def build_report(runs: Sequence[RunMetrics], files: Sequence[str], started: datetime, wall_s: float) -> EvalReport:
    """The report of one eval: at least one run (the CLI always has one engine)."""
    if not runs:
        raise ValueError("an eval report needs at least one run")
    first = runs[0].model_dump(mode="python", round_trip=True)
    return EvalReport(
        **first,
        date=started.isoformat(timespec="seconds"),
        suites=[str(f) for f in files],
        wall_s=wall_s,
        runs=list(runs),
    )


def gate_problems(report: EvalReport, min_accuracy: float | None) -> list[str]:
    """One line per missed gate: accuracy below the floor (any run), any leak, any failed turn."""
    problems = []
    for run in report.runs:
        acc = run.route_accuracy
        if min_accuracy is not None and (acc is None or acc < min_accuracy):
            shown = "n/a (no case has expect.route)" if acc is None else f"{acc:.3f}"
            problems.append(f"{run.label}: route accuracy {shown} is below --min-accuracy {min_accuracy:g}")
        if run.leaks:
            ids = sorted({leak.id for leak in run.leaks})
            shown = ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")
            problems.append(f"{run.label}: {len(run.leaks)} leak(s) in {len(ids)} case(s): {shown}")
        if run.errors:
            failed = [f.id for f in run.failures if f.error]
            shown = ", ".join(failed[:8]) + (f" and {len(failed) - 8} more" if len(failed) > 8 else "")
            problems.append(f"{run.label}: {run.errors} case(s) failed (the turn failed or raised): {shown}")
    return problems

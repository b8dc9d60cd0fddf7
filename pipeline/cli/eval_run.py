"""`memroute eval` at work: checks the options, runs the suites (pipeline.evals) with a progress
bar on stderr, prints the table, writes the JSON and HTML reports and applies the gates.
Exit codes: 0 all gates met, 1 a gate missed, a leak or a failed turn, 2 bad input (one line on stderr)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pipeline.cli.errors import UsageError, reports_errors
from pipeline.evals import (
    EngineSpec,
    PipelineFactory,
    build_report,
    default_pipeline_factory,
    gate_problems,
    load_cases,
    run_eval,
    score_run,
)
from pipeline.evals.render import print_table, write_html

PROG = "memroute eval"


@reports_errors(PROG)
def run_eval_cli(
    files: list[str],
    engines: list[tuple[str, str | None]],
    json_out: str | None,
    report_out: str | None,
    min_accuracy: float | None,
    concurrency: int,
    cache_dir: Path | None,
    api_base: str | None,
    user_limit: int | None,
    memory_limit: int | None,
    *,
    factory: PipelineFactory = default_pipeline_factory,
    specs: Sequence[EngineSpec] | None = None,
    log_quotes: bool | None = None,
    engine_options: dict[str, Any] | None = None,
) -> int:
    """`memroute eval` (runs: (engine, model) pairs; `specs` replaces them, for tests). `cache_dir`
    None: no cache of model answers. `engine_options`: timeout, deadline, max_retries, structured
    for engines built by name (as `memroute turn` builds them)."""
    from rich.console import Console

    from pipeline.cli.common import progress_bar

    if not files:
        raise UsageError("no eval files given")
    if min_accuracy is not None and not 0.0 <= min_accuracy <= 1.0:
        raise UsageError(f"--min-accuracy {min_accuracy:g} must be a fraction between 0 and 1 (e.g. 0.85)")
    if concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    cases = load_cases(files)  # EvalInputError: exit code 2
    if not cases:
        raise UsageError(f"no eval cases in {', '.join(files)}")
    if specs is None:
        pairs: list[tuple[str | None, str | None]] = list(engines) or [(None, None)]
        specs = [EngineSpec(engine=e or ("llm" if m else "offline"), model=m) for e, m in pairs]
    options: dict[str, Any] = {"api_base": api_base}
    if user_limit is not None:
        options["user_limit"] = user_limit
    if memory_limit is not None:
        options["memory_limit"] = memory_limit
    if log_quotes is not None:
        options["log_quotes"] = log_quotes
    engine_options = {k: v for k, v in (engine_options or {}).items() if v is not None}
    if engine_options:
        options["engine_options"] = engine_options
    problem = _check_engines(specs, api_base)
    if problem:
        raise UsageError(problem)

    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    err = Console(stderr=True)
    with progress_bar("eval", len(cases) * len(specs), err) as step:
        outcomes = run_eval(
            cases,
            specs,
            concurrency=concurrency,
            factory=factory,
            cache_dir=cache_dir,
            options=options,
            on_done=lambda o: step(o.failed, ""),
        )
    runs = [score_run(outcomes[s.name], s) for s in specs]
    report = build_report(runs, files, started, time.perf_counter() - t0)
    data = report.to_json()  # the --json contract; the table and the HTML page render it too

    # --json -: the report is stdout's only content (like every --json output); the table goes to stderr.
    print_table(data, err if json_out == "-" else Console())
    try:
        if json_out == "-":
            sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        elif json_out:
            _write_text(json_out, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        if report_out:
            write_html(data, report_out, min_accuracy)
    except OSError as exc:
        raise UsageError(f"cannot write the report: {exc}") from None
    problems = gate_problems(report, min_accuracy)
    for p in problems:
        print(f"memroute eval: gate missed: {p}", file=sys.stderr)
    return 1 if problems else 0


def _write_text(path: str, text: str) -> None:
    target = Path(path)
    if target.parent and not target.parent.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _check_engines(specs: Sequence[EngineSpec], api_base: str | None) -> str | None:
    """Fail fast on an engine/model that cannot work at all, before running hundreds of cases."""
    try:
        from pipeline.engines import EngineConfigError, make_engine
    except ImportError:
        return None
    for spec in specs:
        if not isinstance(spec.engine, str):
            continue
        try:
            make_engine(spec.engine, model=spec.model, api_base=api_base)
        except EngineConfigError as exc:
            return str(exc)
        except ImportError:
            continue  # the engine module is not there yet; each case will report it
    return None



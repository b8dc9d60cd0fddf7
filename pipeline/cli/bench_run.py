"""`memroute eval SUITE --system NAME...`: the write benchmark. Checks the options, runs every case
on every system (pipeline.evals.bench) with a progress bar on stderr, prints the tables, writes the
JSON (--json) and HTML (--report) reports. It measures and does not gate: exit 0 when the run
finished (leaks and failed turns are figures of the report), 1 when it was stopped (Ctrl-C or
SIGTERM: the reports hold the turns that finished and list those not run), 2 for bad input."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from pipeline.cli.errors import UsageError, reports_errors
from pipeline.settings import Settings

PROG = "memroute eval"


@reports_errors(PROG)
def run_bench_cli(args: argparse.Namespace, settings: Settings) -> int:
    from rich.console import Console

    from pipeline.cli.common import progress_bar
    from pipeline.cli.eval_run import _write_text
    from pipeline.evals import load_cases
    from pipeline.evals.bench import run_bench
    from pipeline.evals.bench_render import print_bench_table, write_bench_html
    from pipeline.evals.bench_scores import build_bench_report, system_block
    from pipeline.evals.systems import MODEL_FREE, SystemSpec, check_system

    if args.engine:
        raise UsageError("--engine does not go with --system: name memroute-offline, memroute-llm or memroute-hybrid as systems")
    if args.min_accuracy is not None:
        raise UsageError("--min-accuracy does not go with --system: the write benchmark measures and does not gate")
    if args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.embed_dims is not None and args.embed_dims < 1:
        raise UsageError("--embed-dims must be at least 1")
    models = list(args.model or [])
    if len(models) > 1:
        raise UsageError("the write benchmark runs every system on one model: give --model once")
    model = models[0] if models else settings.model
    options: dict[str, Any] = {
        "embed_model": args.embed_model,
        "embed_api_base": args.embed_api_base,
        "embed_dims": args.embed_dims,
        "user_limit": settings.user_limit,
        "memory_limit": settings.memory_limit,
        "engine_options": {
            "timeout": settings.timeout,
            "deadline": settings.deadline,
            "max_retries": settings.max_retries,
            "structured": settings.structured,
        },
    }
    specs = []
    for name in args.system:
        specs.append(SystemSpec(system=name, model=None if name in MODEL_FREE else model, api_base=settings.api_base,
                                options=options))
    for spec in specs:
        check_system(spec)  # unknown name, no model, package missing: exit 2 before any turn
    cases = load_cases(args.files)  # EvalInputError: exit code 2
    if not cases:
        raise UsageError(f"no eval cases in {', '.join(args.files)}")

    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    err = Console(stderr=True)
    with progress_bar("benchmark", len(cases) * len(specs), err) as step:
        with _stop_on_signal() as stop:
            records = run_bench(cases, specs, concurrency=args.concurrency,
                                on_done=lambda r: step(r.error is not None, r.system), stop=stop)
    ran = [spec for spec in specs if records.get(spec.label)]
    not_run = {
        spec.label: [c.id for c in cases if c.id not in {r.case.id for r in records.get(spec.label, [])}]
        for spec in specs
    }
    blocks = [system_block(spec, records[spec.label]) for spec in ran]
    report = build_bench_report(blocks, args.files, started, time.perf_counter() - t0, not_run=not_run)
    if not report["complete"]:
        shown = ", ".join(f"{label}: {len(ids)}" for label, ids in report["not_run"].items())
        print(f"{PROG}: stopped; the report holds the turns that finished (turns not run: {shown})", file=sys.stderr)
    json_out = args.json_out
    print_bench_table(report, err if json_out == "-" else Console())
    try:
        text = json.dumps(report, ensure_ascii=False, indent=2) + "\n"
        if json_out == "-":
            sys.stdout.write(text)
        elif json_out:
            _write_text(json_out, text)
        if args.report:
            write_bench_html(report, args.report)
    except OSError as exc:
        raise UsageError(f"cannot write the report: {exc}") from None
    return 0 if report["complete"] else 1


@contextmanager
def _stop_on_signal() -> Iterator[threading.Event]:
    """Ctrl-C or SIGTERM: the turns running finish, no other starts, and the report of what
    finished is written (a second signal stops at once)."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handle(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        print(f"{PROG}: stopping after the turns running now (again to stop at once)", file=sys.stderr)

    old = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)

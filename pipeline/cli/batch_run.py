"""`memroute batch` at work: checks the options, runs pipeline.batch.BatchRunner with a progress
bar on stderr, prints the summary. Exit codes: 0 all good, 1 anything failed, 2 usage."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from pipeline.batch import BatchOptions, BatchReport, BatchRunner, Hooks, holds_foreign_memory, move_aside
from pipeline.batch.sources import FILE_FORMATS, InputFile, prepare
from pipeline.batch.transcripts import BadLine
from pipeline.cli.common import plural
from pipeline.cli.errors import UsageError, report_error
from pipeline.errors import MemrouteError
from pipeline.settings import Settings, build_pipeline

PROG = "memroute batch"


def run_batch_cli(
    inputs: list[str],
    out: str,
    *,
    fmt: str | None,
    concurrency: int,
    rpm: float | None,
    restart: bool,
    json_out: bool,
    decisions_out: str | None,
    max_failures: int | None,
    settings: Settings,
    progress: bool | None = None,
    workers: int | None = None,
    user: str | None = None,
    user_speaker: str | None = None,
    stdin: IO[bytes] | None = None,
) -> int:
    """`memroute batch`. Exit codes: 0 all good, 1 anything failed (bad lines, failed turns), 2 usage error.

    `settings`: engine, model, limits (its root is replaced by `out`). `progress` None: draw the bar
    when stderr is a terminal. `workers` None: automatic (BatchOptions.workers). `user`: the user id of
    conversations that name none; `user_speaker`: who the user is in text logs; `stdin`: what `-` reads.
    """
    with tempfile.TemporaryDirectory(prefix="memroute-inputs-") as tmp:
        return _run(inputs, out, fmt=fmt, concurrency=concurrency, rpm=rpm, restart=restart, json_out=json_out,
                    decisions_out=decisions_out, max_failures=max_failures, settings=settings, progress=progress,
                    workers=workers, user=user, user_speaker=user_speaker, stdin=stdin, workdir=Path(tmp))


def _run(
    inputs: list[str],
    out: str,
    *,
    fmt: str | None,
    concurrency: int,
    rpm: float | None,
    restart: bool,
    json_out: bool,
    decisions_out: str | None,
    max_failures: int | None,
    settings: Settings,
    progress: bool | None,
    workers: int | None,
    user: str | None,
    user_speaker: str | None,
    stdin: IO[bytes] | None,
    workdir: Path,
) -> int:
    try:
        files, options = _check_options(inputs, out, fmt, concurrency, rpm, max_failures, decisions_out, restart,
                                        workdir=workdir, user=user, user_speaker=user_speaker, stdin=stdin)
        paths = [f.path for f in files]
        if workers is not None and workers < 1:
            raise UsageError("--workers must be at least 1")
        if settings.location.url and restart:
            raise UsageError("--restart moves a root's contents aside; it does not apply to --store")
        root = Path(out)
        moved = move_aside(root) if restart else None
        options.workers = workers
        options.settings = settings.model_copy(update={"root": root})
        pipe = build_pipeline(options.settings)
    except MemrouteError as e:  # bad options or input, an unusable engine or user id
        return report_error(e, PROG)
    with pipe:
        if not restart and holds_foreign_memory(pipe):
            where = options.settings.location
            advice = ("Batch into an empty database (then `memroute export-store` / your own copy), or into a "
                      "root with --out" if where.url else
                      "Use --restart to move it aside (nothing is deleted) and start over, or choose another --out")
            return report_error(UsageError(
                f"{where.shown} already holds memory that no batch wrote; replaying older "
                f"transcripts onto it could overwrite newer facts. {advice}"
            ), PROG)
        if moved is not None:
            print(f"memroute batch: --restart: previous contents of {out} moved to {moved}", file=sys.stderr)
        show = sys.stderr.isatty() if progress is None else progress
        with _Progress(show) as hooks:
            report = BatchRunner(pipe, paths, options, hooks).run()
    report.moved_aside = str(moved) if moved is not None else None
    if json_out:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(format_summary(report))
    return 1 if report.failures or report.stopped_early else 0


def _check_options(
    inputs: list[str],
    out: str,
    fmt: str | None,
    concurrency: int,
    rpm: float | None,
    max_failures: int | None,
    decisions_out: str | None,
    restart: bool,
    *,
    workdir: Path,
    user: str | None = None,
    user_speaker: str | None = None,
    stdin: IO[bytes] | None = None,
) -> tuple[list[InputFile], BatchOptions]:
    if fmt is not None and fmt not in FILE_FORMATS:
        raise UsageError(f"unknown --format {fmt!r}: choose one of {', '.join(FILE_FORMATS)}")
    if concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if rpm is not None and rpm <= 0:
        raise UsageError("--rpm must be a positive number of requests per minute")
    if max_failures is not None and max_failures < 1:
        raise UsageError("--max-failures must be at least 1")
    if Path(out).exists() and not Path(out).is_dir():
        raise UsageError(f"--out {out} is a file, not a folder")
    if decisions_out is not None and Path(decisions_out).is_dir():
        raise UsageError(f"--decisions {decisions_out} is a folder, not a file")
    files = prepare(inputs, workdir, fmt=fmt, user=user, user_speaker=user_speaker, stdin=stdin)
    options = BatchOptions(
        fmt=None,
        files=[(f.name, f.fmt, f.user) for f in files],
        concurrency=concurrency,
        rpm=rpm,
        max_failures=max_failures,
        decisions_out=decisions_out,
        restart=restart,
    )
    return files, options


def format_summary(report: BatchReport) -> str:
    r = report
    cost = "unknown (model not priced)" if r.cost_usd is None else f"${r.cost_usd:.4f}"
    skips = ", ".join(f"{k} {v}" for k, v in sorted(r.skips.items())) or "none"
    lines = [
        f"memroute batch: {plural(r.users, 'user')}, {plural(r.conversations, 'conversation')} "
        f"({r.conversations_done} done, {r.conversations_skipped} already done, {r.conversations_failed} failed, "
        f"{r.conversations_deferred} deferred)",
        f"  turns: {r.turns_done} done, {r.turns_duplicate} already applied, {r.turns_failed} failed "
        f"({r.turns_per_s:.1f} turns/s, wall {r.wall_s:.1f} s, {r.workers} process{'es' if r.workers > 1 else ''})",
        f"  writes: USER.md {r.writes.get('user', 0)}, MEMORY.md {r.writes.get('memory', 0)}; skips: {skips}",
        f"  candidates: {r.candidates['kept']} kept, {r.candidates['seen_again']} seen again, "
        f"{r.candidates['promoted']} promoted",
        f"  evicted from USER.md (kept in the archive): {sum(r.evictions.values())}"
        + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(r.evictions.items())) + ")" if r.evictions else ""),
        f"  tokens: {r.input_tokens:,} in, {r.output_tokens:,} out, {r.calls:,} calls; cost {cost}",
        f"  bad input lines: {r.bad_lines}",
    ]
    if r.untimed_conversations:
        lines.append(f"  {plural(r.untimed_conversations, 'conversation')} had no timestamp: their turns are dated today")
    for error in r.turn_errors[:5]:
        lines.append(f"  failed: {error}")
    if len(r.turn_errors) > 5:
        lines.append(f"  ... and {len(r.turn_errors) - 5} more failed turns (--json lists them)")
    if r.stopped_early:
        lines.append("  stopped early: --max-failures reached; run the same command again to continue")
    elif r.conversations_deferred or r.conversations_failed:
        lines.append("  run the same command again to retry failed turns and continue deferred conversations")
    return "\n".join(lines)


MAX_PRINTED_BAD_LINES = 20


class _Progress(Hooks):
    """A rich progress bar on stderr: turns, turns/s, ETA, tokens and cost so far; bad lines above it."""

    def __init__(self, show: bool) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.show = show
        self.bar: Any = None
        self.task: Any = None
        self.printed = 0
        self.started = time.perf_counter()
        self.last = 0.0
        self.latest: BatchReport | None = None

    def __enter__(self) -> _Progress:
        if self.show:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("turns"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} turns/s"),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[usage]}"),
                console=self.console,
                transient=False,
            )
            self.bar.start()
            self.task = self.bar.add_task("batch", total=None, rate="0.0", usage="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            if self.latest is not None:
                self._draw(self.latest)  # the last counts, even if a redraw was skipped
            self.bar.stop()
        if self.printed > MAX_PRINTED_BAD_LINES:
            self.console.print(
                f"memroute batch: {self.printed - MAX_PRINTED_BAD_LINES} more bad lines (see the summary)"
            )

    def total(self, turns: int) -> None:
        self.started = time.perf_counter()
        if self.bar is not None:
            self.bar.update(self.task, total=turns)

    def turn(self, report: BatchReport) -> None:
        if self.bar is None:
            return
        self.latest = report
        now = time.perf_counter()
        if now - self.last < 0.1:  # redraw at most ten times a second
            return
        self.last = now
        self._draw(report)

    def _draw(self, report: BatchReport) -> None:
        now = time.perf_counter()
        done = report.turns_done + report.turns_duplicate + report.turns_failed
        rate = report.turns_done / max(now - self.started, 1e-9)
        cost = "?" if report.cost_usd is None else f"${report.cost_usd:.4f}"
        usage = f"tokens {report.input_tokens + report.output_tokens:,} · {cost}"
        self.bar.update(self.task, completed=done, rate=f"{rate:.1f}", usage=usage)

    def bad_line(self, bad: BadLine) -> None:
        self.printed += 1
        if self.printed <= MAX_PRINTED_BAD_LINES:
            self.console.print(f"memroute batch: skipped {bad}", markup=False, highlight=False, soft_wrap=True)

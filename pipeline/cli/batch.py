"""`memroute batch`: its options, their checks, the progress bar and the summary. The work itself
is pipeline.batch.BatchRunner; the run and its printing are in batch_run.py (imported when the
command runs, so the CLI starts without the batch machinery)."""

from __future__ import annotations

import argparse
import gc
from pathlib import Path

from pipeline.cli.common import AddCommand, resolve_settings
from pipeline.cli.errors import UsageError


def register(add: AddCommand) -> None:
    p = add("batch", "turn transcripts (files, folders, - for stdin) into USER.md and MEMORY.md per user", _cmd_batch,
            engine=True)
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="transcript files (JSONL, JSON, a ChatGPT export, a chat log; gzip too), folders of them, "
                        "or - for standard input (docs/batch-formats.md)")
    p.add_argument("--out", metavar="DIR", help="memory root to write, one folder per user (default: --root)")
    p.add_argument("--format", dest="fmt", choices=["turns", "openai", "sharegpt", "chatgpt", "text"],
                   help="default: detected per file (and per line in JSONL)")
    p.add_argument("--user", metavar="USER",
                   help="user id of conversations that name none (default: the file's name, e.g. ana.jsonl -> ana)")
    p.add_argument("--user-speaker", metavar="NAME",
                   help="text logs: the speaker who is the user (default: User, Human, You or Me)")
    p.add_argument(
        "--concurrency",
        type=int,
        default=8,
        help="model requests in flight at once (offline engine: users at once); default 8",
    )
    p.add_argument("--rpm", type=float, help="cap model requests per minute")
    p.add_argument(
        "--restart", action="store_true", help="start over: OUT's current contents move to OUT/.before-restart-<time>/"
    )
    p.add_argument("--workers", type=int, help="worker processes sharing the users (default: by input size and CPUs)")
    p.add_argument("--decisions", metavar="FILE", help="write every decision (redacted) as JSONL here")
    p.add_argument("--max-failures", type=int, metavar="N", help="stop after this many bad lines or failed turns")


def _cmd_batch(args: argparse.Namespace) -> int:
    gc.enable()
    # --out names the root batch writes; --root is the same thing under its common name.
    if args.out and args.root and Path(args.out).resolve() != Path(args.root).resolve():
        raise UsageError(f"--out {args.out} and --root {args.root} disagree: batch writes one root; give one of them")
    settings = resolve_settings(args)
    out = args.out or args.root
    if settings.location.url:  # the memory goes to the database; --out names a root
        if args.out:
            raise UsageError("--out names a root to write; with --store the memory goes to the database: give one of them")
        out = str(settings.root)  # unused for the memory itself: the store holds it
    if not out:
        raise UsageError("batch needs the memory root to write: --out DIR (or --root DIR), or --store postgresql://...")
    from pipeline.cli.batch_run import run_batch_cli

    return run_batch_cli(
        args.inputs,
        out,
        fmt=args.fmt,
        concurrency=args.concurrency,
        rpm=args.rpm,
        restart=args.restart,
        json_out=args.as_json,
        decisions_out=args.decisions,
        max_failures=args.max_failures,
        settings=settings,
        workers=args.workers,
        user=args.user,
        user_speaker=args.user_speaker,
    )

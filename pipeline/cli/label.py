"""`memroute label`: a model labels a user's transcripts in the training format (pipeline/label.py)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

from pipeline.cli.common import AddCommand, resolve_settings
from pipeline.cli.errors import UsageError
from pipeline.errors import CommandFailed

if TYPE_CHECKING:
    from pipeline.batch.transcripts import Conversation


def register(add: AddCommand) -> None:
    p = add(
        "label",
        "label transcripts turn by turn with a model, in the training format (to retrain the offline engine's extractor on them)",
        _cmd_label,
        engine=True,
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="JSONL transcripts or folders of them (docs/batch-formats.md)")
    p.add_argument("--out", metavar="FILE", required=True, help="labeled cases, one per user message (JSONL; - for stdout)")
    p.add_argument("--format", dest="fmt", choices=["openai", "sharegpt", "turns"], help="default: detect per line")
    p.add_argument("--user", metavar="USER", help="only this user's conversations")


def _cmd_label(args: argparse.Namespace) -> int:
    from pipeline.batch.label import LabelReport, label_conversations
    from pipeline.batch.transcripts import BadLine, expand_inputs, read_conversations
    from pipeline.errors import InputError
    from pipeline.settings import build_engine

    settings = resolve_settings(args)
    if settings.engine_name == "offline":
        raise UsageError("label needs a model: pass --model (e.g. openai/NAME with --api-base) or --engine llm")
    try:
        paths = expand_inputs(args.inputs)
    except InputError as exc:
        raise UsageError(str(exc)) from None
    target = None if args.out == "-" else Path(args.out)
    if target is not None and target.is_dir():
        raise UsageError(f"--out {target} is a folder, not a file")
    if target is not None and not target.parent.is_dir():
        raise UsageError(f"--out {target}: the folder {target.parent} does not exist")
    engine = build_engine(settings)
    report = LabelReport()
    bad: list[BadLine] = []

    def conversations() -> Iterator[Conversation]:
        for path in paths:
            for item in read_conversations(path, args.fmt):
                if isinstance(item, BadLine):
                    bad.append(item)
                elif args.user is None or item.user_id == args.user:
                    yield item

    import tempfile  # here, not at the top: every `memroute` start imports this module to build its parser

    # Cases go to a temporary file beside --out, which replaces it at the end only when there is
    # something to write: an existing file is never truncated by a run whose calls all failed.
    out: IO[str] = sys.stdout if target is None else tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False)
    try:
        for case in label_conversations(engine, conversations(), report=report):
            out.write(json.dumps(case, ensure_ascii=False) + "\n")
            out.flush()
    except BaseException:
        if target is not None:
            out.close()
            Path(out.name).unlink(missing_ok=True)
        raise
    finally:
        engine.close()
    if target is not None:
        out.close()
        if report.labeled:
            os.replace(out.name, target)
        else:
            Path(out.name).unlink(missing_ok=True)
            print(f"memroute label: nothing was labeled; {target} left as it was", file=sys.stderr)
    summary = {**report.as_dict(), "bad_lines": len(bad)}
    print(json.dumps(summary, ensure_ascii=False), file=sys.stderr)
    if report.turns and report.failed == report.turns:
        raise CommandFailed(f"every turn's model call failed; the first: {report.errors[0] if report.errors else '?'}")
    return 1 if report.failed or bad else 0

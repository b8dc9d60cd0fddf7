"""`memroute import-mem0` and `memroute import-letta`: another memory system's export into USER.md
and MEMORY.md, each memory routed by the engine like a chat turn (pipeline/integrations/imports.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pipeline.cli.common import AddCommand, open_pipeline, plural, print_json, quoted
from pipeline.cli.errors import UsageError


def register(add: AddCommand) -> None:
    p = add("import-mem0", "import a Mem0 export (get_all JSON): each memory routed by the engine, guards applied",
            _cmd_mem0, engine=True)
    p.add_argument("file", help="the JSON of Memory.get_all() / client.get_all(): a list or {\"results\": [...]}")
    p.add_argument("--user", help="the memroute user to import into (default: each memory's user_id)")
    p = add("import-letta", "import Letta memory blocks (human, custom; persona is about the agent and is skipped)",
            _cmd_letta, engine=True)
    p.add_argument("file", help="JSON: [{\"label\", \"value\"}, ...], {\"blocks\": [...]} or an agent's {\"memory\": ...}")
    p.add_argument("--user", required=True, help="the memroute user to import into")


def _load(args: argparse.Namespace) -> Any:
    from pipeline.integrations.imports import load_export

    path = Path(args.file)
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if not path.is_file():
        raise UsageError(f"{path} is a directory, not an export file" if path.is_dir() else f"{path} is not a file")
    return load_export(path)


def _cmd_mem0(args: argparse.Namespace) -> int:
    from pipeline.integrations.imports import check_items, import_mem0, read_mem0

    data = _load(args)
    # The whole file is checked before the pipeline opens: a bad memory anywhere writes nothing.
    try:
        check_items(read_mem0(data), source="mem0", user_id=args.user or None)
    except UsageError as e:
        raise UsageError(f"{args.file}: {e}") from None
    with open_pipeline(args, write=True) as pipe:
        report = import_mem0(pipe, data, args.user)
    return _print(args, report)


def _cmd_letta(args: argparse.Namespace) -> int:
    from pipeline.integrations.imports import check_items, import_letta, read_letta

    data = _load(args)
    check_items(read_letta(data), source="letta", user_id=args.user)
    with open_pipeline(args, write=True) as pipe:
        report = import_letta(pipe, data, args.user)
    return _print(args, report)


def _summary(report: dict[str, Any]) -> str:
    """The item counts, which add up to the items: '8 items: 6 stored (USER.md 5 fields, MEMORY.md 1 entry), ...'."""
    parts = [f"{report['stored']} stored (USER.md {plural(report['user_md'], 'field')}, "
             f"MEMORY.md {plural(report['memory_md'], 'entry', 'entries')})",
             f"{report['skipped']} skipped", f"{report['refused']} refused"]
    if report["not_about_the_user"]:
        parts.append(f"{report['not_about_the_user']} not about the user")
    if report["already_imported"]:
        parts.append(f"{report['already_imported']} already imported")
    return f"{plural(report['items'], 'item')}: " + ", ".join(parts)


def _print(args: argparse.Namespace, report: dict[str, Any]) -> int:
    if args.as_json:
        print_json(report)
    else:
        print(f"memroute {args.command}: {_summary(report)}")
        for row in report["report"]:
            where = [
                f"USER.md {s['key']}: {s['value']}" if s["file"] == "USER.md" and "key" in s
                else f"MEMORY.md [{s.get('date')}] {s.get('entry')}" if "entry" in s
                else f"{s['file']} forgot {quoted(s.get('forgot'))}"
                for s in row.get("stored", [])
            ]
            where += [f"skipped ({s['reason']}: {s['why']})" for s in row.get("skipped", [])]
            where += [f"REFUSED ({s['reason']}: {s['why']})" for s in row.get("refused", [])]
            if row.get("already_imported"):
                where = ["already imported"]
            print(f"  {quoted(row['text'][:70])}\n      -> {'; '.join(where) or 'nothing'}")
    return 0 if report["success"] else 1

"""The review actions from the command line (the same public methods the review page and the API
call): correct, pin, tag, undo, listing the pins and tags, and the context block (with a team profile)."""

from __future__ import annotations

import argparse

from pipeline.cli.common import USER_HELP, AddCommand, emit, open_pipeline, require_user
from pipeline.cli.errors import UsageError

ENTRY_HELP = "REF names a MEMORY.md entry (its id, or a unique part of its text) instead of a USER.md key"


def register(add: AddCommand) -> None:
    p = add("correct", "set a USER.md field's value (or, with --entry, an entry's text); history source review",
            _cmd_correct)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("ref", metavar="KEY|REF", help="the field's key (e.g. Role)")
    p.add_argument("value", help="the new value")
    p.add_argument("--entry", action="store_true", help=ENTRY_HELP)

    p = add("pin", "pin a field or entry: never compacted or consolidated away (--off unpins)", _cmd_pin)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("ref", metavar="KEY|REF", help="the field's key (e.g. Role)")
    p.add_argument("--entry", action="store_true", help=ENTRY_HELP)
    p.add_argument("--off", action="store_true", help="take the pin off")

    p = add("tag", "tag a field or entry with a project, a task or a free tag (--off removes it)", _cmd_tag)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("ref", metavar="KEY|REF", help="the field's key (e.g. Role)")
    kind = p.add_mutually_exclusive_group(required=True)
    kind.add_argument("--project", help="the project it belongs to")
    kind.add_argument("--task", help="the task it belongs to")
    kind.add_argument("--tag", dest="free_tag", help="a free tag")
    p.add_argument("--entry", action="store_true", help=ENTRY_HELP)
    p.add_argument("--off", action="store_true", help="remove this tag")

    p = add("undo", "put USER's files back as they were before the last change (recorded in history)", _cmd_undo)
    p.add_argument("user", help=USER_HELP)

    p = add("annotations", "list USER's pins and tags", _cmd_annotations)
    p.add_argument("user", help=USER_HELP)

    p = add("context", "print the block a chat app puts in its system prompt for USER", _cmd_context)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("--team", metavar="T", help="include the team profile T (stored as user team+T)")


def _target(pipe: object, args: argparse.Namespace) -> tuple[str, str]:
    """("user", key) or ("memory", entry id): an entry named by its id or a unique part of its text."""
    if not args.entry:
        return "user", args.ref
    from pipeline.core import MemoryPipeline
    from pipeline.ops.pins import entry_id

    assert isinstance(pipe, MemoryPipeline)
    bodies = [e.body() for e in pipe.load(args.user).log.entries]
    found = [b for b in bodies if entry_id(b) == args.ref] or [b for b in bodies if args.ref.casefold() in b.casefold()]
    if len(found) != 1:
        raise UsageError(f"{'no' if not found else len(found)} MEMORY.md entries match {args.ref!r}: "
                         "give the entry's id or a part of its text that only it holds")
    return "memory", entry_id(found[0])


def _named(target: str, ref: str) -> str:
    return f"USER.md field {ref}" if target == "user" else f"MEMORY.md entry {ref}"


def _cmd_correct(args: argparse.Namespace) -> int:
    require_user(args)
    with open_pipeline(args, write=True) as pipe:
        target, ref = _target(pipe, args)
        report = pipe.correct(args.user, target, ref, args.value)
    emit(args, report, f"corrected {_named(target, ref)}: now {report['value']}"
         + (f" (its id is now {report['ref']})" if target == "memory" and report["ref"] != ref else ""))
    return 0


def _cmd_pin(args: argparse.Namespace) -> int:
    require_user(args)
    with open_pipeline(args, write=True) as pipe:
        target, ref = _target(pipe, args)
        report = pipe.annotate(args.user, target, ref, "pin", remove=args.off)
    done = ("unpinned" if args.off else "pinned") if report["changed"] else ("was not pinned" if args.off else "already pinned")
    emit(args, report, f"{_named(target, ref)}: {done}")
    return 0


def _cmd_tag(args: argparse.Namespace) -> int:
    require_user(args)
    kind, value = next((k, v) for k, v in (("project", args.project), ("task", args.task), ("tag", args.free_tag))
                       if v is not None)
    with open_pipeline(args, write=True) as pipe:
        target, ref = _target(pipe, args)
        report = pipe.annotate(args.user, target, ref, kind, value, remove=args.off)
    verb = ("untagged" if args.off else "tagged") if report["changed"] else ("had no such tag" if args.off else "already tagged")
    emit(args, report, f"{_named(target, ref)}: {verb} {kind}: {report['value']}")
    return 0


def _cmd_undo(args: argparse.Namespace) -> int:
    require_user(args)
    with open_pipeline(args, write=True) as pipe:
        report = pipe.undo(args.user)
    emit(args, report, f"undid {report['undone']} ({report['changes']} change(s) put back)")
    return 0


def _cmd_annotations(args: argparse.Namespace) -> int:
    require_user(args)
    with open_pipeline(args, write=False) as pipe:
        rows = pipe.annotations(args.user)

    def text() -> str:
        if not rows:
            return f"no pins or tags for {args.user}"
        return "\n".join(f"{'USER.md' if r['target'] == 'user' else 'MEMORY.md'} {r['ref']}: "
                         f"{r['kind'] if r['kind'] == 'pin' else r['kind'] + ' ' + str(r['value'])}" for r in rows)

    emit(args, rows, text)
    return 0


def _cmd_context(args: argparse.Namespace) -> int:
    require_user(args)
    with open_pipeline(args, write=False) as pipe:
        block = pipe.context(args.user, team=args.team)
    if args.as_json:
        emit(args, {"user_id": args.user, "team": args.team, "context": block}, "")
    else:
        print(block, end="")
    return 0

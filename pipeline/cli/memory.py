"""The commands about one user's memory: demo, turn, show, confirm, tool, history, decisions, recall,
consolidate, retry, import-hermes, export, forget, delete-user."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.cli.common import (
    LOG_QUOTES_HELP,
    USER_HELP,
    AddCommand,
    confirm,
    emit,
    format_decision,
    note,
    open_pipeline,
    print_json,
    quoted,
    read_turn_messages,
    require_user,
    stored_decision_line,
)
from pipeline.cli.errors import UsageError

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline


def register(add: AddCommand) -> None:
    p = add("demo", "run the bundled example conversation turn by turn (offline engine unless --engine)", _cmd_demo,
            engine=True)
    p = add("turn", "process one chat turn for USER", _cmd_turn, engine=True)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("--log-quotes", action="store_true", help=LOG_QUOTES_HELP)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", help="the user's message (- reads it from standard input)")
    src.add_argument(
        "--messages",
        metavar="FILE",
        help="the conversation so far: a JSON list of {role, content}, a {\"messages\": [...]} body, a ShareGPT "
             "record or a 'Speaker: text' log (docs/batch-formats.md); a file, or - for stdin",
    )
    p.add_argument("--format", dest="fmt", choices=["turns", "openai", "sharegpt", "chatgpt", "text"],
                   help="the format of --messages (default: detected)")
    p.add_argument("--user-speaker", metavar="NAME",
                   help="--messages as a text log: the speaker who is the user (default: User, Human, You or Me)")
    p.add_argument("--timestamp", help="ISO 8601 time of the turn (default: now)")
    p.add_argument("--conversation", metavar="ID", help="conversation id (part of the turn's identity)")

    p = add("show", "print both files of USER and their usage", _cmd_show)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("--candidates", action="store_true", help="list the facts waiting for confirmation instead")
    p.add_argument("--team", metavar="T", help="also show the team profile T (stored as user team+T) beside USER's")

    p = add("confirm", "write a candidate to USER.md: the user confirmed it", _cmd_confirm)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("candidate", metavar="ID|KEY", help="the candidate's id or key (see show --candidates)")

    p = add("tool", "add, replace or remove an entry (mirrors the Hermes Agent memory tool; prints its JSON answer)", _cmd_tool)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("--action", required=True, help="add | replace | remove")
    p.add_argument("--target", required=True, help="user | memory")
    p.add_argument("--content", help="the new entry (add, replace): 'Key: value' for user, '[YYYY-MM-DD] text' for memory ([YYYY-MM] or [YYYY] for a month or a year)")
    p.add_argument("--old-text", help="a unique substring of the entry to replace or remove")
    p.add_argument("--section", help="USER.md section for add (default: Identity)")

    p = add("history", "every change to USER's files, old -> new, with its source", _cmd_history)
    p.add_argument("user", help=USER_HELP)

    p = add("decisions", "the decision log: each statement's route, the rule that decided and what the write did",
            _cmd_decisions)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("--turn", metavar="ID", help="only this turn's decisions")
    p.add_argument("--rule", metavar="ID", help="only the decisions of this rule id or kind (guard, fact/role-noun, ...)")

    p = add("recall", "full-text search over USER's files and archive", _cmd_recall)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("query", help="words that must all appear (case-insensitive, any script)")
    p.add_argument("-k", type=int, default=5, help="at most this many hits (default 5)")

    p = add("consolidate", "rewrite USER's MEMORY.md now (what leaves it goes to the archive)", _cmd_consolidate,
            engine=True)
    p.add_argument("user", help=USER_HELP)

    p = add("retry", "run failed turns again", _cmd_retry, engine=True)
    p.add_argument("user", nargs="?", help="only this user's failed turns (default: every user's)")
    p.add_argument("--log-quotes", action="store_true", help=LOG_QUOTES_HELP)

    p = add("import-hermes", "import a Hermes Agent store (DIR/memories/USER.md, MEMORY.md)", _cmd_import)
    p.add_argument("dir", help="the Hermes home, e.g. ~/.hermes (holding memories/USER.md and MEMORY.md)")
    p.add_argument("--user", required=True, help="the memroute user id to import into")

    p = add("export", "export USER's files (--format hermes), or everything held about USER (--all)", _cmd_export)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("--format", choices=["hermes"], help="hermes: OUT/memories/USER.md and MEMORY.md")
    p.add_argument("--out", help="folder for --format hermes; file for --all (default: stdout)")
    p.add_argument("--all", action="store_true", dest="everything",
                   help="subject access: both files, backups and every record held about USER, as JSON")

    p = add("forget", "take a key (e.g. Email) or a text out of USER's files; --purge erases every copy", _cmd_forget)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("key_or_text", metavar="KEY|TEXT", help="a USER.md key (e.g. Email) or words of the value or entry to forget")
    p.add_argument("--purge", action="store_true",
                   help="also erase it from history, provenance, archive, decision log, failed turns, queue, "
                        "candidates and backups, and compact the database (asks first; --yes does not)")
    p.add_argument("--yes", action="store_true", help="--purge without asking")

    p = add("delete-user", "erase everything held about USER (files, records, queue), then compact the database",
            _cmd_delete_user)
    p.add_argument("user", help=USER_HELP)
    p.add_argument("--yes", action="store_true", help="erase without asking (scripts; without a terminal it is required)")


def _cmd_demo(args: argparse.Namespace) -> int:
    import tempfile
    from importlib import resources

    convo = json.loads(resources.files("pipeline").joinpath("data/demo_conversation.json").read_text("utf-8"))
    engine = args.engine or "offline"
    say = (lambda *a, **k: None) if args.as_json else print  # --json: one JSON document, nothing else
    turns: list[dict[str, Any]] = []
    # --root, else a folder of its own that is kept (the demo's user must not land in a real root)
    root = Path(args.root) if args.root else Path(tempfile.mkdtemp(prefix="memroute-demo-"))
    with open_pipeline(args, write=True, root=root, engine=engine) as pipe:
        user = convo["user_id"]
        history: list[dict[str, str]] = []
        say(f"memroute demo: {len(convo['turns'])} turns of {user} on the {pipe.engine.name} engine, written to {root}\n")
        for n, turn in enumerate(convo["turns"], 1):
            messages = [*history, {"role": "user", "content": turn["user"]}]
            result = pipe.process_turn(user, messages, timestamp=turn["timestamp"], conversation_id=convo["conversation_id"])
            turns.append({"turn": n, "timestamp": turn["timestamp"], "user": turn["user"], **result.model_dump(mode="json")})
            say(f"Turn {n} [{turn['timestamp']}] user: {turn['user']}")
            for d in result.decisions:
                say(format_decision(d))
            if result.status == "failed":
                say(f"  FAILED: {result.error}")
            say()
            history = [*messages, {"role": "assistant", "content": turn["assistant"]}]
        shown = pipe.show(user)
        say(f"── USER.md ({shown['user_usage']} chars) ──\n{shown['user_md']}")
        say(f"── MEMORY.md ({shown['memory_usage']} chars) ──\n{shown['memory_md']}")
        say(f"The files are in {root / user}; look again with: memroute show {user} --root {root}")
    if args.as_json:
        print_json({"engine": pipe.engine.name, "turns": turns, **shown, "root": str(root)})
    return 0


def _cmd_turn(args: argparse.Namespace) -> int:
    if args.text is not None:
        text = sys.stdin.read() if args.text == "-" else args.text
        if not text.strip():
            raise UsageError("--text is empty" + (" (nothing on standard input)" if args.text == "-" else ""))
        messages: Any = [{"role": "user", "content": text}]
    else:
        messages = read_turn_messages(args.messages, fmt=args.fmt, user_speaker=args.user_speaker)
    with open_pipeline(args, write=True) as pipe:
        result = pipe.process_turn(args.user, messages, timestamp=args.timestamp, conversation_id=args.conversation)
    if args.as_json:
        print_json(result.model_dump(mode="json"))
    else:
        for d in result.decisions:
            print(format_decision(d))
        if result.status == "duplicate_turn":
            print(f"duplicate turn {result.turn_id}: already applied, nothing changed")
        elif result.status != "failed" and not result.decisions:
            print("nothing to route in this turn: no file changed")
    if result.status == "failed":  # one line on stderr, also with --json (stdout stays data)
        error = (result.error or "").splitlines()[0] if result.error else "unknown error"
        print(f"memroute: turn failed: {error} (kept: run `memroute retry {args.user}` later)", file=sys.stderr)
    return 1 if result.status == "failed" else 0


def _cmd_show(args: argparse.Namespace) -> int:
    if args.candidates:
        return _show_candidates(args)
    require_user(args)
    with open_pipeline(args, write=False) as pipe:
        shown = pipe.show(args.user)
        if args.team is not None:
            from pipeline.ops.review import team_user_id

            team = pipe.show(team_user_id(args.team))
            shown["team"] = {"team": args.team, "user_md": team["user_md"], "user_usage": team["user_usage"]}
    for warning in shown.get("warnings") or []:
        print(f"memroute: warning: {warning}", file=sys.stderr)
    if args.as_json:
        print_json(shown)
    else:
        print(f"── USER.md ({shown['user_usage']} chars) ──\n{shown['user_md']}")
        if "team" in shown:
            print(f"── team {args.team}: USER.md ({shown['team']['user_usage']} chars) ──\n{shown['team']['user_md']}")
        print(f"── MEMORY.md ({shown['memory_usage']} chars) ──\n{shown['memory_md']}")
    return 0


def _show_candidates(args: argparse.Namespace) -> int:
    require_user(args)
    with open_pipeline(args, write=False) as pipe:
        rows = pipe.candidates(args.user)
    if args.as_json:
        print_json({"user_id": args.user, "candidates": rows})
        return 0
    if not rows:
        print(f"no candidates for {args.user}")
    for r in rows:
        seen = f"seen {r['times_seen']}x, first {r['first_seen_at'][:10]}, last {r['last_seen_at'][:10]}"
        print(f"#{r['id']} {r['section'] or '-'} / {r['key']}: {r['value']}  ({seen}; expires {r['expires_at'][:10]})")
    return 0


def _cmd_confirm(args: argparse.Namespace) -> int:
    require_user(args)
    with open_pipeline(args, write=True) as pipe:
        payload = pipe.confirm_candidate(args.user, args.candidate)
    emit(args, payload, lambda: f"kept {payload['field']} (USER.md {payload['usage']})" if payload["success"]
         else f"not kept: {payload['outcome']}")
    return 0 if payload["success"] else 1


def _cmd_tool(args: argparse.Namespace) -> int:
    with open_pipeline(args, write=True) as pipe:
        payload = pipe.tool(args.user, args.action, args.target, args.content, args.old_text, args.section)
    print_json(payload)
    return 0 if payload.get("success") else 1


def _cmd_history(args: argparse.Namespace) -> int:
    require_user(args)
    with open_pipeline(args, write=False) as pipe:
        rows = pipe.history(args.user)
    if args.as_json:
        print_json(rows)
        return 0
    if not rows:
        note(f"no changes recorded for {args.user} (files edited by hand have no history)")
    for r in rows:
        print(history_line(r))
    return 0


def _cmd_decisions(args: argparse.Namespace) -> int:
    if args.rule is not None and not args.rule.strip("/ "):
        raise UsageError("--rule needs a rule id or kind, e.g. guard or fact/role-noun")
    require_user(args)
    with open_pipeline(args, write=False) as pipe:
        rows = pipe.decisions(args.user, turn_id=args.turn, rule=args.rule)
    if args.as_json:
        print_json(rows)
        return 0
    if not rows:
        note(f"no decisions logged for {args.user}" + (" that match" if args.turn or args.rule else ""))
    for r in rows:
        print(stored_decision_line(r))
    return 0


def history_line(r: dict[str, Any]) -> str:
    """One change as text: `2026-07-30T09:00:00+00:00 user upsert Name: (none) -> Jasmin (why) from "..."`."""
    subject = f" {r['key']}" if r.get("key") else ""
    if r.get("op") in ("pin", "unpin", "tag", "untag", "drop candidate", "purge") or (
            r.get("old_value") is None and r.get("new_value") is None):
        change = subject.strip() or "(no value)"
    else:
        change = f"{r['key'] + ': ' if r.get('key') else ''}{_value(r.get('old_value'))} -> {_value(r.get('new_value'))}"
    source = f" from {quoted(r['quote'])}" if r.get("quote") else ""
    why = f" ({r['why']})" if r.get("why") else ""
    return f"{r.get('ts')} {r.get('target')} {r.get('op')} {change}{why}{source}"


def _value(value: object) -> str:
    return "(none)" if value is None or value == "" else str(value)


def _cmd_recall(args: argparse.Namespace) -> int:
    require_user(args)
    if args.k < 1:
        raise UsageError("-k must be at least 1")
    with open_pipeline(args, write=False) as pipe:
        hits = pipe.recall(args.user, args.query, k=args.k)
    if not hits:
        note(f"no matches for {quoted(args.query)} in {args.user}'s files or archive")
    if args.as_json:
        print_json(hits)
    else:
        for h in hits:
            print(f"[{h['source']}] {h['text']}")
    return 0


def _cmd_consolidate(args: argparse.Namespace) -> int:
    require_user(args)  # never creates a folder for a user who is not there
    with open_pipeline(args, write=True) as pipe:
        report = pipe.consolidate(args.user)
    emit(args, report, lambda: report.get("message") or (
        f"MEMORY.md {report['before']} -> {report['after']} characters: {report['entry_count']} entries, "
        f"{report['archived']} moved to the archive (`memroute recall` finds them)"))
    return 0


def _cmd_retry(args: argparse.Namespace) -> int:
    from pipeline.hook.admin import run_parked

    with open_pipeline(args, write=True) as pipe:
        _check_retry_engine(pipe, args)
        results = pipe.retry(args.user)  # turns that failed in process_turn (CLI, batch, API)
        parked = run_parked(pipe, args.user)  # turns the post-turn hook parked after its retries
    failed = [r for r in results if r.status == "failed"]
    if not results and not parked["retried"]:
        note("no failed turns to retry" + (f" for {args.user!r}" if args.user else ""))
    report = {
        "retried": len(results) + parked["retried"],
        "failed": len(failed) + len(parked["parked"]),
        "errors": [r.error for r in failed],
        "still_parked": parked["parked"],
    }

    def text() -> str:
        lines = [f"retried {report['retried']} turn(s): {report['retried'] - report['failed']} applied, "
                 f"{report['failed']} failed again"]
        lines += [f"  {error}" for error in report["errors"]]
        lines += [f"  still parked: {turn}" for turn in report["still_parked"]]
        return "\n".join(lines)

    if results or parked["retried"]:
        emit(args, report, text)
    elif args.as_json:
        print_json(report)
    return 1 if failed or parked["parked"] else 0


def _check_retry_engine(pipe: MemoryPipeline, args: argparse.Namespace) -> None:
    """Failed turns rerun on the engine this command resolves. When they failed on another one (a
    model) and no --engine/--model was given, refuse rather than silently rerun them elsewhere
    (the offline engine would route them differently); otherwise say which engine runs them."""
    failed = pipe.store.failed_turns(args.user)
    if not failed:
        return
    model = getattr(pipe.engine, "model", None)
    runs_on = pipe.engine.name + (f" ({model})" if model else "")
    elsewhere = Counter(
        str(p.get("engine")) + (f" ({p['model']})" if p.get("model") else "")
        for p in (f["payload"] or {} for f in failed)
        if p.get("engine") and str(p.get("engine")) + (f" ({p['model']})" if p.get("model") else "") != runs_on
    )
    if elsewhere and getattr(args, "engine", None) is None and getattr(args, "model", None) is None:
        where = ", ".join(f"{n} on {name}" for name, n in elsewhere.items())
        raise UsageError(
            f"failed turns ran on another engine ({where}): pass --engine/--model to choose the one that reruns them"
            f" (the default now is {runs_on})"
        )
    note(f"retrying {len(failed)} failed turn(s) on the {runs_on} engine")


def _cmd_import(args: argparse.Namespace) -> int:
    from pipeline.ops.tool import import_hermes

    source = Path(args.dir)
    if not source.is_dir():
        raise UsageError(f"{source} is not a directory")
    if not any((source / "memories" / name).is_file() for name in ("USER.md", "MEMORY.md")):
        raise UsageError(f"no Hermes store in {source}: expected {source / 'memories'}/USER.md or MEMORY.md")
    with open_pipeline(args, write=True) as pipe:
        report = import_hermes(pipe.workspace, source, args.user)
    if not (report["imported_user"] or report["imported_memory"] or report["blocked"]):
        note(f"nothing imported: {source / 'memories'} holds no new entries")
    emit(args, report, lambda: "\n".join(
        [f"imported into {args.user}: {report['imported_user']} USER.md and {report['imported_memory']} MEMORY.md "
         f"entries (USER.md {report['user_usage']}, MEMORY.md {report['memory_usage']})"]
        + [f"  blocked ({b['rule']}): {b['entry']}" for b in report["blocked"]]
        + [f"  did not fit in {name}: {entry}" for name, left in report["did_not_fit"].items() for entry in left]))
    return 0 if report["success"] else 1


def _cmd_export(args: argparse.Namespace) -> int:
    from pipeline.ops.tool import export_hermes

    if args.everything == bool(args.format):
        raise UsageError("export needs exactly one of --format hermes (with --out DIR) or --all")
    if args.format and not args.out:
        raise UsageError("--format hermes needs --out DIR")
    require_user(args)
    with open_pipeline(args, write=False) as pipe:
        if not args.everything:
            report = export_hermes(pipe.workspace, args.user, Path(args.out))
            emit(args, report, f"wrote {Path(args.out) / 'memories'}/USER.md and MEMORY.md (Hermes format)")
            return 0
        data = pipe.export_all(args.user)
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n"
    if args.out is None:
        sys.stdout.write(text)
        return 0
    # Everything held about a person: readable by the owner only.
    fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote everything held about {args.user} to {args.out}")
    return 0


def _cmd_forget(args: argparse.Namespace) -> int:
    require_user(args)
    if args.purge:
        confirm(args, f"erase every copy of {quoted(args.key_or_text)} held about {args.user}, for good")
    with open_pipeline(args, write=True) as pipe:
        report = pipe.forget(args.user, args.key_or_text, purge=args.purge)
    emit(args, report, lambda: report["message"] + (f" ({report['rows_erased']} stored records erased)"
                                                    if report.get("purged") else ""))
    return 0


def _cmd_delete_user(args: argparse.Namespace) -> int:
    require_user(args)
    confirm(args, f"erase everything held about {args.user} (files, history, archive, queue), for good")
    with open_pipeline(args, write=True) as pipe:
        report = pipe.delete_user(args.user)
    emit(args, report, f"erased everything held about {args.user} ({report['rows_erased']} stored records)")
    return 0



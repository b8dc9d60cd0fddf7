"""The `memroute` command. Handlers import their machinery lazily so `memroute --help` stays fast
and never imports litellm. Exit codes: 0 success, 1 the work failed, 2 usage error."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.errors import MemrouteError

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline
    from pipeline.settings import Settings

Handler = Callable[[argparse.Namespace], int]


class UsageError(MemrouteError):
    """Bad command-line input: exit code 2."""


class CommandFailed(MemrouteError):
    """The command could not do its work (an unknown user, a read-only root): exit code 1."""


def _common(p: argparse.ArgumentParser, *, side_by_side: bool = False) -> None:
    """The options every command takes. Their defaults are None: pipeline/settings.py fills in the
    environment, the config file (memroute.toml) and the defaults, in that order."""
    g = p.add_argument_group("common options (also settable by env MEMROUTE_* and memroute.toml: see `memroute doctor`)")
    g.add_argument("--root", metavar="DIR", help="memory root (default: $MEMROUTE_HOME or ~/.memroute)")
    engines = ["offline", "llm", "hybrid"]
    if side_by_side:  # eval: --engine/--model may repeat, --json names the report file
        g.add_argument("--engine", action="append", choices=engines, help="may repeat: engines run side by side")
        g.add_argument("--model", action="append", help="may repeat: litellm model strings run side by side")
        g.add_argument("--json", dest="json_out", metavar="OUT", help="write the JSON report here (- for stdout)")
    else:
        g.add_argument("--engine", choices=engines, help="default: llm if a model is set, else offline (env MEMROUTE_ENGINE)")
        g.add_argument("--model", help="litellm model string, e.g. openai/gpt-4o-mini (env MEMROUTE_MODEL)")
        g.add_argument("--json", action="store_true", dest="as_json", help="print data as JSON")
    g.add_argument("--api-base", metavar="URL", help="base URL of an OpenAI-compatible server (env MEMROUTE_API_BASE)")
    g.add_argument("--user-limit", type=int, metavar="CHARS", help="USER.md cap in characters (default 1,375)")
    g.add_argument("--memory-limit", type=int, metavar="CHARS", help="MEMORY.md cap in characters (default 2,200)")
    g.add_argument("--timeout", type=float, metavar="SECONDS", help="seconds per model request (default 30)")
    g.add_argument("--max-retries", type=int, metavar="N", help="transport retries per model request (default 3)")


def build_parser() -> argparse.ArgumentParser:
    from pipeline import __version__

    parser = argparse.ArgumentParser(
        prog="memroute",
        description="Route what a user says after each chat turn to USER.md, MEMORY.md or the skip list.",
        epilog="Exit codes: 0 success, 1 the work failed, 2 usage error. `memroute COMMAND --help` for each command.",
    )
    parser.add_argument("--version", action="version", version=f"memroute {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def add(name: str, help_text: str, handler: Handler, side_by_side: bool = False) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _common(p, side_by_side=side_by_side)
        p.set_defaults(handler=handler)
        return p

    p = add("demo", "run the bundled example conversation turn by turn on the offline engine", _cmd_demo)
    p = add("turn", "process one chat turn for USER", _cmd_turn)
    p.add_argument("user", help="the user id (a folder name under the root)")
    p.add_argument("--log-quotes", action="store_true",
                   help="debugging: keep the (redacted) words of skipped statements in the decision log")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", help="the user's message")
    src.add_argument(
        "--messages",
        metavar="FILE",
        help="JSON list of {role, content} (content a string or OpenAI content parts); a file, or - for stdin",
    )
    p.add_argument("--timestamp", help="ISO 8601 time of the turn (default: now)")
    p.add_argument("--conversation", metavar="ID", help="conversation id (part of the turn's identity)")

    p = add("show", "print both files of USER and their usage", _cmd_show)
    p.add_argument("user", help="the user id (a folder name under the root)")
    p.add_argument("--candidates", action="store_true", help="list the facts waiting for confirmation instead")

    p = add("confirm", "write a candidate to USER.md: the user confirmed it", _cmd_confirm)
    p.add_argument("user", help="the user id (a folder name under the root)")
    p.add_argument("candidate", metavar="ID|KEY", help="the candidate's id or key (see show --candidates)")

    p = add("tool", "add, replace or remove an entry (mirrors the Hermes Agent memory tool)", _cmd_tool)
    p.add_argument("user", help="the user id (a folder name under the root)")
    p.add_argument("--action", required=True, help="add | replace | remove")
    p.add_argument("--target", required=True, help="user | memory")
    p.add_argument("--content", help="the new entry (add, replace): 'Key: value' for user, '[YYYY-MM-DD] text' for memory")
    p.add_argument("--old-text", help="a unique substring of the entry to replace or remove")
    p.add_argument("--section", help="USER.md section for add (default: Identity)")

    p = add("history", "every change to USER's files, old -> new, with its source", _cmd_history)
    p.add_argument("user", help="the user id (a folder name under the root)")

    p = add("recall", "full-text search over USER's files and archive", _cmd_recall)
    p.add_argument("user", help="the user id (a folder name under the root)")
    p.add_argument("query", help="words that must all appear (case-insensitive, any script)")
    p.add_argument("-k", type=int, default=5, help="at most this many hits (default 5)")

    p = add("consolidate", "rewrite USER's MEMORY.md now (what leaves it goes to the archive)", _cmd_consolidate)
    p.add_argument("user", help="the user id (a folder name under the root)")

    p = add("retry", "run failed turns again", _cmd_retry)
    p.add_argument("user", nargs="?", help="only this user's failed turns (default: every user's)")
    p.add_argument("--log-quotes", action="store_true",
                   help="debugging: keep the (redacted) words of skipped statements in the decision log")

    p = add("import-hermes", "import a Hermes Agent store (DIR/memories/USER.md, MEMORY.md)", _cmd_import)
    p.add_argument("dir", help="the Hermes home, e.g. ~/.hermes (holding memories/USER.md and MEMORY.md)")
    p.add_argument("--user", required=True, help="the memroute user id to import into")

    p = add("export", "export USER's files (--format hermes), or everything held about USER (--all)", _cmd_export)
    p.add_argument("user", help="the user id (a folder name under the root)")
    p.add_argument("--format", choices=["hermes"], help="hermes: OUT/memories/USER.md and MEMORY.md")
    p.add_argument("--out", help="folder for --format hermes; file for --all (default: stdout)")
    p.add_argument("--all", action="store_true", dest="everything",
                   help="subject access: both files, backups and every record held about USER, as JSON")

    p = add("forget", "take a key (e.g. Email) or a text out of USER's files; --purge erases every copy", _cmd_forget)
    p.add_argument("user", help="the user id (a folder name under the root)")
    p.add_argument("key_or_text", metavar="KEY|TEXT", help="a USER.md key (e.g. Email) or words of the value or entry to forget")
    p.add_argument("--purge", action="store_true",
                   help="also erase it from history, provenance, archive, decision log, failed turns, queue, "
                        "candidates and backups, and compact the database")

    p = add("delete-user", "erase everything held about USER (files, records, queue), then compact the database",
            _cmd_delete_user)
    p.add_argument("user", help="the user id (a folder name under the root)")

    p = add("batch", "turn transcripts (JSONL files or folders) into USER.md and MEMORY.md per user", _cmd_batch)
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="JSONL files or folders of them (docs/batch-formats.md)")
    p.add_argument("--out", metavar="DIR", help="memory root to write, one folder per user (default: --root)")
    p.add_argument("--format", dest="fmt", choices=["openai", "sharegpt", "turns"], help="default: detect per line")
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

    p = add(
        "status",
        "post-turn hook queue (queued, done, failed, parked), failed turns waiting for `retry`, and the last error",
        _cmd_status,
    )

    p = add("eval", "measure routing accuracy on eval suites (JSONL; docs/eval-cases.md)", _cmd_eval, side_by_side=True)
    p.add_argument("files", nargs="+", metavar="FILE", help="eval suites, one case per line")
    p.add_argument("--report", metavar="HTML", help="write a self-contained HTML report here")
    p.add_argument("--min-accuracy", type=float, metavar="FRACTION", help="exit 1 below this route accuracy, e.g. 0.85")
    p.add_argument("--concurrency", type=int, default=4, help="cases run at once (default 4)")
    p.add_argument("--no-cache", action="store_true", help="do not reuse cached model answers")

    add("users", "list the users under the root: file sizes and last change", _cmd_users)
    add("doctor", "check the root, database, queue and model, and show versions and settings (for bug reports)", _cmd_doctor)
    p = sub.add_parser(
        "completion",
        help="print a shell completion script",
        description='print a shell completion script: eval "$(memroute completion bash)" in ~/.bashrc',
    )
    p.add_argument("shell", choices=["bash", "zsh"], help="the shell to complete in")
    p.set_defaults(handler=lambda args: _cmd_completion(args, parser))
    return parser


# ---- helpers -----------------------------------------------------------------------------


def _settings(args: argparse.Namespace) -> Settings:
    """Flags > env > config file > defaults (pipeline/settings.py); resolved once per command."""
    from pipeline.settings import resolve

    flags = {
        name: getattr(args, name, None)
        for name in ("root", "engine", "model", "api_base", "user_limit", "memory_limit", "timeout", "max_retries")
    }
    if isinstance(flags["engine"], list) or isinstance(flags["model"], list):  # eval: runs side by side
        flags["engine"] = flags["model"] = None
    for name in ("user_limit", "memory_limit"):
        value = flags[name]
        if value is not None and value <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be a positive number of characters")
    return resolve(flags)


def _pipeline(args: argparse.Namespace, *, write: bool, **overrides: Any) -> MemoryPipeline:
    """The pipeline for one command, built from the resolved settings. `write=False`: a root this
    process may not write is opened read-only; `write=True`: such a root is refused, naming it."""
    from pipeline.core import MemoryPipeline
    from pipeline.doctor import root_writable
    from pipeline.engines import make_engine

    settings = _settings(args)
    root = Path(overrides.pop("root", settings.root))
    writable = root_writable(root)
    if write and not writable:
        raise CommandFailed(f"memory root {root} is not writable: `memroute {args.command}` needs to write there")
    engine = make_engine(
        overrides.pop("engine", settings.engine),
        model=settings.model,
        api_base=settings.api_base,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
    )
    pipe = MemoryPipeline(
        root=root,
        engine=engine,
        user_limit=settings.user_limit,
        memory_limit=settings.memory_limit,
        read_only=not writable,
        **overrides,
    )
    gc.enable()  # see main(): the imports are done
    return pipe


def _require_user(args: argparse.Namespace) -> None:
    """Commands about one existing user say so when there is none (and create nothing)."""
    from pipeline.doctor import user_exists

    root = _settings(args).root
    if not user_exists(root, args.user):
        raise CommandFailed(f"no user {args.user!r} under {root} (`memroute users --root {root}` lists them)")


def _note(message: str) -> None:
    """What a command did when it changed nothing, on stderr so stdout stays data."""
    print(f"memroute: {message}", file=sys.stderr)


def _print(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def _read_messages(source: str) -> Any:
    try:
        raw = sys.stdin.read() if source == "-" else Path(source).read_text("utf-8")
    except OSError as e:
        raise UsageError(f"cannot read messages from {source}: {e.strerror}") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        raise UsageError(f"messages are not valid JSON ({e.msg} at line {e.lineno})") from None


def _format_decision(d: Any) -> str:
    if d.route == "user":
        what = f"{d.section} / {d.key}: {d.value}" if d.op == "upsert" else f"forget {d.match!r}"
    elif d.route == "memory":
        what = f"[{d.date}] {d.topic + ': ' if d.topic else ''}{d.entry}" if d.op == "append" else f"forget {d.match!r}"
    else:
        what = f"reason={d.reason}" + (f", candidate {d.section} / {d.key}: {d.value}" if d.candidate else "")
    why = f" ({d.detail})" if d.detail else ""
    outcome = f" -> {d.outcome}" if d.outcome else ""
    return f"  {d.route.upper():6} {d.quote!r}\n         {what}{why}{outcome}"


# ---- commands ----------------------------------------------------------------------------


def _cmd_demo(args: argparse.Namespace) -> int:
    import tempfile
    from importlib import resources

    convo = json.loads(resources.files("pipeline").joinpath("data/demo_conversation.json").read_text("utf-8"))
    engine = args.engine or "offline"
    say = (lambda *a, **k: None) if args.as_json else print  # --json: one JSON document, nothing else
    turns: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="memroute-demo-") as tmp:
        root = args.root or tmp
        with _pipeline(args, write=True, root=root, engine=engine) as pipe:
            user = convo["user_id"]
            history: list[dict[str, str]] = []
            say(f"memroute demo: {len(convo['turns'])} turns of {user!r} on the {pipe.engine.name} engine\n")
            for n, turn in enumerate(convo["turns"], 1):
                messages = [*history, {"role": "user", "content": turn["user"]}]
                result = pipe.process_turn(user, messages, timestamp=turn["timestamp"], conversation_id=convo["conversation_id"])
                turns.append({"turn": n, "timestamp": turn["timestamp"], "user": turn["user"], **result.model_dump(mode="json")})
                say(f"Turn {n} [{turn['timestamp']}] user: {turn['user']}")
                for d in result.decisions:
                    say(_format_decision(d))
                if result.status == "failed":
                    say(f"  FAILED: {result.error}")
                say()
                history = [*messages, {"role": "assistant", "content": turn["assistant"]}]
            shown = pipe.show(user)
            say(f"── USER.md ({shown['user_usage']} chars) ──\n{shown['user_md']}")
            say(f"── MEMORY.md ({shown['memory_usage']} chars) ──\n{shown['memory_md']}")
            if args.root:
                say(f"Files are in {Path(args.root) / user}")
    if args.as_json:
        _print({"engine": pipe.engine.name, "turns": turns, **shown, "root": args.root})
    return 0


def _cmd_turn(args: argparse.Namespace) -> int:
    messages = [{"role": "user", "content": args.text}] if args.text is not None else _read_messages(args.messages)
    with _pipeline(args, write=True, **({"log_quotes": True} if args.log_quotes else {})) as pipe:
        result = pipe.process_turn(args.user, messages, timestamp=args.timestamp, conversation_id=args.conversation)
    if args.as_json:
        _print(result.model_dump(mode="json"))
    else:
        for d in result.decisions:
            print(_format_decision(d))
        if result.status == "duplicate_turn":
            print(f"duplicate turn {result.turn_id}: already applied, nothing changed")
        elif result.status != "failed" and not result.decisions:
            print("nothing to route in this turn: no file changed")
        if result.status == "failed":
            print(f"failed: {result.error} (run `memroute retry {args.user}` later)")
    return 1 if result.status == "failed" else 0


def _cmd_show(args: argparse.Namespace) -> int:
    if args.candidates:
        return _show_candidates(args)
    _require_user(args)
    with _pipeline(args, write=False) as pipe:
        shown = pipe.show(args.user)
    for warning in shown.get("warnings") or []:
        print(f"memroute: warning: {warning}", file=sys.stderr)
    if args.as_json:
        _print(shown)
    else:
        print(f"── USER.md ({shown['user_usage']} chars) ──\n{shown['user_md']}")
        print(f"── MEMORY.md ({shown['memory_usage']} chars) ──\n{shown['memory_md']}")
    return 0


def _show_candidates(args: argparse.Namespace) -> int:
    _require_user(args)
    with _pipeline(args, write=False) as pipe:
        rows = pipe.candidates(args.user)
    if args.as_json:
        _print({"user_id": args.user, "candidates": rows})
        return 0
    if not rows:
        print(f"no candidates for {args.user}")
    for r in rows:
        seen = f"seen {r['times_seen']}x, first {r['first_seen_at'][:10]}, last {r['last_seen_at'][:10]}"
        print(f"#{r['id']} {r['section'] or '-'} / {r['key']}: {r['value']}  ({seen}; expires {r['expires_at'][:10]})")
    return 0


def _cmd_confirm(args: argparse.Namespace) -> int:
    _require_user(args)
    with _pipeline(args, write=True) as pipe:
        payload = pipe.confirm_candidate(args.user, args.candidate)
    _print(payload)
    return 0 if payload["success"] else 1


def _cmd_tool(args: argparse.Namespace) -> int:
    with _pipeline(args, write=True) as pipe:
        payload = pipe.tool(args.user, args.action, args.target, args.content, args.old_text, args.section)
    _print(payload)
    return 0 if payload.get("success") else 1


def _cmd_history(args: argparse.Namespace) -> int:
    _require_user(args)
    with _pipeline(args, write=False) as pipe:
        rows = pipe.history(args.user) if pipe.store.path.exists() else []
    if args.as_json:
        _print(rows)
        return 0
    if not rows:
        _note(f"no changes recorded for {args.user!r} (files edited by hand have no history)")
    for r in rows:
        source = f" — from {r.get('quote')!r}" if r.get("quote") else ""
        key = f"{r.get('key')}: " if r.get("key") else ""
        print(f"{r.get('ts')} {r.get('target')} {r.get('op')} {key}{r.get('old_value')!r} -> {r.get('new_value')!r} ({r.get('why')}){source}")
    return 0


def _cmd_recall(args: argparse.Namespace) -> int:
    _require_user(args)
    if args.k < 1:
        raise UsageError("-k must be at least 1")
    with _pipeline(args, write=False) as pipe:
        hits = pipe.recall(args.user, args.query, k=args.k)
    if not hits:
        _note(f"no matches for {args.query!r} in {args.user}'s files or archive")
    if args.as_json:
        _print(hits)
    else:
        for h in hits:
            print(f"[{h['source']}] {h['text']}")
    return 0


def _cmd_consolidate(args: argparse.Namespace) -> int:
    _require_user(args)  # never creates a folder for a user who is not there
    with _pipeline(args, write=True) as pipe:
        _print(pipe.consolidate(args.user))
    return 0


def _cmd_retry(args: argparse.Namespace) -> int:
    from pipeline.hook import run_parked

    with _pipeline(args, write=True, **({"log_quotes": True} if args.log_quotes else {})) as pipe:
        results = pipe.retry(args.user)  # turns that failed in process_turn (CLI, batch, API)
        parked = run_parked(pipe, args.user)  # turns the post-turn hook parked after its retries
    failed = [r for r in results if r.status == "failed"]
    if not results and not parked["retried"]:
        _note("no failed turns to retry" + (f" for {args.user!r}" if args.user else ""))
    _print(
        {
            "retried": len(results) + parked["retried"],
            "failed": len(failed) + len(parked["parked"]),
            "errors": [r.error for r in failed],
            "still_parked": parked["parked"],
        }
    )
    return 1 if failed or parked["parked"] else 0


def _cmd_import(args: argparse.Namespace) -> int:
    from pipeline.tool import import_hermes

    source = Path(args.dir)
    if not source.is_dir():
        raise UsageError(f"{source} is not a directory")
    if not any((source / "memories" / name).is_file() for name in ("USER.md", "MEMORY.md")):
        raise UsageError(f"no Hermes store in {source}: expected {source / 'memories'}/USER.md or MEMORY.md")
    with _pipeline(args, write=True) as pipe:
        report = import_hermes(pipe, source, args.user)
    if not (report["imported_user"] or report["imported_memory"] or report["blocked"]):
        _note(f"nothing imported: {source / 'memories'} holds no new entries")
    _print(report)
    return 0 if report["success"] else 1


def _cmd_export(args: argparse.Namespace) -> int:
    from pipeline.tool import export_hermes

    if args.everything == bool(args.format):
        raise UsageError("export needs exactly one of --format hermes (with --out DIR) or --all")
    if args.format and not args.out:
        raise UsageError("--format hermes needs --out DIR")
    _require_user(args)
    with _pipeline(args, write=False) as pipe:
        if not args.everything:
            _print(export_hermes(pipe, args.user, Path(args.out)))
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
    _require_user(args)
    with _pipeline(args, write=True) as pipe:
        _print(pipe.forget(args.user, args.key_or_text, purge=args.purge))
    return 0


def _cmd_delete_user(args: argparse.Namespace) -> int:
    _require_user(args)
    with _pipeline(args, write=True) as pipe:
        _print(pipe.delete_user(args.user))
    return 0


def _cmd_batch(args: argparse.Namespace) -> int:
    from pipeline.batch import run_batch_cli

    gc.enable()
    if args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    # --out names the root batch writes; --root is the same thing under its common name.
    if args.out and args.root and Path(args.out).resolve() != Path(args.root).resolve():
        raise UsageError(f"--out {args.out} and --root {args.root} disagree: batch writes one root; give one of them")
    out = args.out or args.root
    if not out:
        raise UsageError("batch needs the memory root to write: --out DIR (or --root DIR)")
    settings = _settings(args)
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
        engine=settings.engine,
        model=settings.model,
        api_base=settings.api_base,
        user_limit=settings.user_limit,
        memory_limit=settings.memory_limit,
        workers=args.workers,
    )


def _cmd_status(args: argparse.Namespace) -> int:
    from pipeline.hook import hook_status
    from pipeline.store import DB_NAME, Store

    root = _settings(args).root
    status = hook_status(root)
    # Turns that failed in process_turn (CLI, batch, API) wait in the store, not in the hook's queue.
    failed_turns: list[dict[str, Any]] = []
    if (root / DB_NAME).exists():
        with Store(root, read_only=True) as store:
            failed_turns = store.failed_turns()
    status["failed_turns"] = len(failed_turns)
    if args.as_json:
        _print(status)
    else:
        counts = ", ".join(f"{k} {status[k]}" for k in ("queued", "running", "done", "failed", "parked"))
        print(f"hook queue: {counts}")
        print(f"failed turns waiting for `memroute retry`: {len(failed_turns)}")
        if failed_turns:
            last = failed_turns[-1]
            print(f"last failed turn ({last['user_id']}, {last['updated_at']}): {last['error']}")
        if status.get("last_error"):
            print(f"last hook error ({status.get('last_error_at')}): {status['last_error']}")
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from pipeline.evals import run_eval_cli

    if args.root:
        raise UsageError("eval takes no --root: every case runs in its own temporary root, so no memory root is read or written")
    settings = _settings(args)
    if args.engine or args.model:
        runs = eval_runs(args.engine or [], args.model or [])
    else:  # env and memroute.toml name one engine
        runs = [(settings.engine_name, None if settings.engine_name == "offline" else settings.model)]
    gc.enable()
    return run_eval_cli(
        files=args.files,
        engines=runs,
        json_out=args.json_out,
        report_out=args.report,
        min_accuracy=args.min_accuracy,
        concurrency=args.concurrency,
        cache=not args.no_cache,
        api_base=settings.api_base,
        user_limit=settings.user_limit,
        memory_limit=settings.memory_limit,
    )


def _cmd_users(args: argparse.Namespace) -> int:
    from pipeline.doctor import list_users

    settings = _settings(args)
    users = list_users(settings.root)
    if args.as_json:
        _print(users)
        return 0
    if not users:
        _note(f"no users under {settings.root}")
        return 0
    width = max(len(u["user_id"]) for u in users)
    print(f"{'user':<{width}}  {'USER.md':>13}  {'MEMORY.md':>13}  last change")
    for u in users:
        user_usage = f"{u['user_chars']:,}/{settings.user_limit:,}"
        memory_usage = f"{u['memory_chars']:,}/{settings.memory_limit:,}"
        print(f"{u['user_id']:<{width}}  {user_usage:>13}  {memory_usage:>13}  {u['last_change'] or '-'}")
    return 0


def _cmd_doctor(args: argparse.Namespace) -> int:
    from pipeline.doctor import render, report

    data = report(_settings(args))
    if args.as_json:
        _print(data)
    else:
        print(render(data))
    return 0 if data["ok"] else 1


def _cmd_completion(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from pipeline.completion import SHELLS

    print(SHELLS[args.shell](parser), end="")
    return 0


def eval_runs(engines: list[str], models: list[str]) -> list[tuple[str, str | None]]:
    """Pair repeated --engine/--model: llm and hybrid take the models in order; spare models run as llm."""
    spare = list(models)
    runs: list[tuple[str, str | None]] = []
    for engine in engines:
        if engine == "offline":
            runs.append(("offline", None))
        elif spare:
            runs.append((engine, spare.pop(0)))
        else:
            raise UsageError(f"--engine {engine} needs a --model")
    runs += [("llm", m) for m in spare]
    return runs or [("offline", None)]


def main(argv: Sequence[str] | None = None) -> int:
    # pydantic scans every installed package's entry points for plugins when the first model is
    # built; the CLI uses none, and the scan is a large share of `memroute turn`'s start.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # Importing pydantic, the rules and the guards allocates a lot and triggers many cyclic-GC
    # passes that find nothing; collection is switched back on once the pipeline is built (or
    # when a long job such as eval or batch starts).
    gc.disable()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
        return code
    except KeyboardInterrupt:
        print("memroute: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `memroute ... | head`: the reader left; nothing to report
        sys.stdout = open(os.devnull, "w")  # silences the flush at exit
        return 0
    except Exception as e:
        return _report_error(e)
    finally:
        gc.enable()


def exit_code(e: BaseException) -> int:
    """THE mapping from an error to the exit code: 2 for input the user must fix (a bad flag,
    user id, message, setting or tool call), 1 for everything else (the work failed)."""
    from pipeline.batch import BatchUsageError
    from pipeline.engines import EngineConfigError
    from pipeline.erasure import NothingToForget
    from pipeline.evals import EvalInputError
    from pipeline.settings import SettingsError
    from pipeline.tool import ToolUsageError
    from pipeline.transcripts import InputError
    from pipeline.turns import BadTurn
    from pipeline.userdir import InvalidUserId

    usage_errors = (
        UsageError, InvalidUserId, BadTurn, ToolUsageError, EngineConfigError, SettingsError, NothingToForget,
        BatchUsageError, EvalInputError, InputError,
    )
    return 2 if isinstance(e, usage_errors) else 1


def _report_error(e: Exception) -> int:
    message = str(e).splitlines()[0] if str(e) else type(e).__name__
    if isinstance(e, OSError) and e.filename:
        message = f"{e.strerror or e}: {e.filename}"
    print(f"memroute: error: {message}", file=sys.stderr)
    return exit_code(e)


if __name__ == "__main__":
    sys.exit(main())

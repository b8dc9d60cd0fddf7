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

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """Bad command-line input: exit code 2."""


def _common(p: argparse.ArgumentParser, *, side_by_side: bool = False) -> None:
    g = p.add_argument_group("common options")
    g.add_argument("--root", help="memory root (default: $MEMROUTE_HOME or ~/.memroute)")
    engines = ["offline", "llm", "hybrid"]
    if side_by_side:  # eval: --engine/--model may repeat, --json names the report file
        g.add_argument("--engine", action="append", choices=engines, help="may repeat: engines run side by side")
        g.add_argument("--model", action="append", help="may repeat: litellm model strings run side by side")
        g.add_argument("--json", dest="json_out", metavar="OUT", help="write the JSON report here")
    else:
        g.add_argument("--engine", choices=engines, help="default: llm if a model is set, else offline")
        g.add_argument("--model", help="litellm model string, e.g. openai/gpt-4o-mini (env MEMROUTE_MODEL)")
        g.add_argument("--json", action="store_true", dest="as_json", help="print data as JSON")
    g.add_argument("--api-base", help="base URL of an OpenAI-compatible server")
    g.add_argument("--user-limit", type=int, help="USER.md cap in characters (default 1,375)")
    g.add_argument("--memory-limit", type=int, help="MEMORY.md cap in characters (default 2,200)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memroute",
        description="Route what a user says after each chat turn to USER.md, MEMORY.md or the skip list.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def add(name: str, help_text: str, handler: Handler, side_by_side: bool = False) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _common(p, side_by_side=side_by_side)
        p.set_defaults(handler=handler)
        return p

    p = add("demo", "run the bundled example conversation turn by turn on the offline engine", _cmd_demo)
    p = add("turn", "process one chat turn for USER", _cmd_turn)
    p.add_argument("user")
    p.add_argument("--log-quotes", action="store_true",
                   help="debugging: keep the (redacted) words of skipped statements in the decision log")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--text", help="the user's message")
    src.add_argument("--messages", help="JSON list of {role, content} (a file, or - for stdin)")
    p.add_argument("--timestamp", help="ISO 8601 time of the turn (default: now)")
    p.add_argument("--conversation", help="conversation id")

    p = add("show", "print both files of USER and their usage", _cmd_show)
    p.add_argument("user")
    p.add_argument("--candidates", action="store_true", help="list the facts waiting for confirmation instead")

    p = add("confirm", "write a candidate to USER.md: the user confirmed it", _cmd_confirm)
    p.add_argument("user")
    p.add_argument("candidate", metavar="ID|KEY", help="the candidate's id or key (see show --candidates)")

    p = add("tool", "add, replace or remove an entry (mirrors the Hermes Agent memory tool)", _cmd_tool)
    p.add_argument("user")
    p.add_argument("--action", required=True, help="add | replace | remove")
    p.add_argument("--target", required=True, help="user | memory")
    p.add_argument("--content")
    p.add_argument("--old-text")
    p.add_argument("--section", help="USER.md section for add (default: Identity)")

    p = add("history", "every change to USER's files, old -> new, with its source", _cmd_history)
    p.add_argument("user")

    p = add("recall", "full-text search over USER's files and archive", _cmd_recall)
    p.add_argument("user")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=5)

    p = add("consolidate", "rewrite USER's MEMORY.md now (what leaves it goes to the archive)", _cmd_consolidate)
    p.add_argument("user")

    p = add("retry", "run failed turns again", _cmd_retry)
    p.add_argument("user", nargs="?")
    p.add_argument("--log-quotes", action="store_true",
                   help="debugging: keep the (redacted) words of skipped statements in the decision log")

    p = add("import-hermes", "import a Hermes Agent store (DIR/memories/USER.md, MEMORY.md)", _cmd_import)
    p.add_argument("dir")
    p.add_argument("--user", required=True)

    p = add("export", "export USER's files (--format hermes), or everything held about USER (--all)", _cmd_export)
    p.add_argument("user")
    p.add_argument("--format", choices=["hermes"])
    p.add_argument("--out", help="folder for --format hermes; file for --all (default: stdout)")
    p.add_argument("--all", action="store_true", dest="everything",
                   help="subject access: both files, backups and every record held about USER, as JSON")

    p = add("forget", "take a key (e.g. Email) or a text out of USER's files; --purge erases every copy", _cmd_forget)
    p.add_argument("user")
    p.add_argument("key_or_text", metavar="KEY|TEXT")
    p.add_argument("--purge", action="store_true",
                   help="also erase it from history, provenance, archive, decision log, failed turns, queue, "
                        "candidates and backups, and compact the database")

    p = add("delete-user", "erase everything held about USER (files, records, queue), then compact the database",
            _cmd_delete_user)
    p.add_argument("user")

    p = add("batch", "turn transcripts (JSONL files or folders) into USER.md and MEMORY.md per user", _cmd_batch)
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    p.add_argument("--out", required=True, help="memory root to write (one folder per user)")
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
    p.add_argument("--decisions", help="write every decision (redacted) as JSONL here")
    p.add_argument("--max-failures", type=int, help="stop after this many bad lines or failed turns")

    p = add("status", "post-turn hook queue: queued, done, failed, parked turns and the last error", _cmd_status)

    p = add("eval", "measure routing accuracy on eval suites (JSONL)", _cmd_eval, side_by_side=True)
    p.add_argument("files", nargs="+")
    p.add_argument("--report", help="write a self-contained HTML report here")
    p.add_argument("--min-accuracy", type=float)
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--no-cache", action="store_true")
    return parser


# ---- helpers -----------------------------------------------------------------------------


def _pipeline(args: argparse.Namespace, **overrides: Any) -> MemoryPipeline:
    from pipeline.core import MemoryPipeline

    for name in ("user_limit", "memory_limit"):
        value = getattr(args, name, None)
        if value is not None and value <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be a positive number of characters")
    options: dict[str, Any] = {
        "root": args.root,
        "engine": args.engine,
        "model": args.model,
        "api_base": args.api_base,
        "user_limit": args.user_limit,
        "memory_limit": args.memory_limit,
    }
    options.update(overrides)
    pipe = MemoryPipeline(**options)
    gc.enable()  # see main(): the imports are done
    return pipe


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
    with tempfile.TemporaryDirectory(prefix="memroute-demo-") as tmp:
        root = args.root or tmp
        with _pipeline(args, root=root, engine=engine) as pipe:
            user = convo["user_id"]
            history: list[dict[str, str]] = []
            print(f"memroute demo: {len(convo['turns'])} turns of {user!r} on the {pipe.engine.name} engine\n")
            for n, turn in enumerate(convo["turns"], 1):
                messages = [*history, {"role": "user", "content": turn["user"]}]
                result = pipe.process_turn(user, messages, timestamp=turn["timestamp"], conversation_id=convo["conversation_id"])
                print(f"Turn {n} [{turn['timestamp']}] user: {turn['user']}")
                for d in result.decisions:
                    print(_format_decision(d))
                if result.status == "failed":
                    print(f"  FAILED: {result.error}")
                print()
                history = [*messages, {"role": "assistant", "content": turn["assistant"]}]
            shown = pipe.show(user)
            print(f"── USER.md ({shown['user_usage']} chars) ──\n{shown['user_md']}")
            print(f"── MEMORY.md ({shown['memory_usage']} chars) ──\n{shown['memory_md']}")
            if args.root:
                print(f"Files are in {Path(args.root) / user}")
    return 0


def _cmd_turn(args: argparse.Namespace) -> int:
    messages = [{"role": "user", "content": args.text}] if args.text is not None else _read_messages(args.messages)
    with _pipeline(args, **({"log_quotes": True} if args.log_quotes else {})) as pipe:
        result = pipe.process_turn(args.user, messages, timestamp=args.timestamp, conversation_id=args.conversation)
    if args.as_json:
        _print(result.model_dump(mode="json"))
    else:
        for d in result.decisions:
            print(_format_decision(d))
        if result.status == "failed":
            print(f"failed: {result.error} (run `memroute retry {args.user}` later)")
    return 1 if result.status == "failed" else 0


def _cmd_show(args: argparse.Namespace) -> int:
    if args.candidates:
        return _show_candidates(args)
    with _pipeline(args) as pipe:
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
    with _pipeline(args) as pipe:
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
    with _pipeline(args) as pipe:
        payload = pipe.confirm_candidate(args.user, args.candidate)
    _print(payload)
    return 0 if payload["success"] else 1


def _cmd_tool(args: argparse.Namespace) -> int:
    with _pipeline(args) as pipe:
        payload = pipe.tool(args.user, args.action, args.target, args.content, args.old_text, args.section)
    _print(payload)
    return 0 if payload.get("success") else 1


def _cmd_history(args: argparse.Namespace) -> int:
    with _pipeline(args) as pipe:
        rows = pipe.history(args.user)
    if args.as_json:
        _print(rows)
        return 0
    for r in rows:
        source = f" — from {r.get('quote')!r}" if r.get("quote") else ""
        key = f"{r.get('key')}: " if r.get("key") else ""
        print(f"{r.get('ts')} {r.get('target')} {r.get('op')} {key}{r.get('old_value')!r} -> {r.get('new_value')!r} ({r.get('why')}){source}")
    return 0


def _cmd_recall(args: argparse.Namespace) -> int:
    with _pipeline(args) as pipe:
        hits = pipe.recall(args.user, args.query, k=args.k)
    if args.as_json:
        _print(hits)
    else:
        for h in hits:
            print(f"[{h['source']}] {h['text']}")
    return 0


def _cmd_consolidate(args: argparse.Namespace) -> int:
    with _pipeline(args) as pipe:
        _print(pipe.consolidate(args.user))
    return 0


def _cmd_retry(args: argparse.Namespace) -> int:
    from pipeline.hook import run_parked

    with _pipeline(args, **({"log_quotes": True} if args.log_quotes else {})) as pipe:
        results = pipe.retry(args.user)  # turns that failed in process_turn (CLI, batch, API)
        parked = run_parked(pipe, args.user)  # turns the post-turn hook parked after its retries
    failed = [r for r in results if r.status == "failed"]
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
    with _pipeline(args) as pipe:
        report = import_hermes(pipe, source, args.user)
    _print(report)
    return 0 if report["success"] else 1


def _cmd_export(args: argparse.Namespace) -> int:
    from pipeline.tool import export_hermes

    if args.everything == bool(args.format):
        raise UsageError("export needs exactly one of --format hermes (with --out DIR) or --all")
    if args.format and not args.out:
        raise UsageError("--format hermes needs --out DIR")
    with _pipeline(args) as pipe:
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
    with _pipeline(args) as pipe:
        _print(pipe.forget(args.user, args.key_or_text, purge=args.purge))
    return 0


def _cmd_delete_user(args: argparse.Namespace) -> int:
    with _pipeline(args) as pipe:
        _print(pipe.delete_user(args.user))
    return 0


def _cmd_batch(args: argparse.Namespace) -> int:
    from pipeline.batch import run_batch_cli

    gc.enable()
    if args.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    return run_batch_cli(
        args.inputs,
        args.out,
        fmt=args.fmt,
        concurrency=args.concurrency,
        rpm=args.rpm,
        restart=args.restart,
        json_out=args.as_json,
        decisions_out=args.decisions,
        max_failures=args.max_failures,
        engine=args.engine,
        model=args.model,
        api_base=args.api_base,
        user_limit=args.user_limit,
        memory_limit=args.memory_limit,
        workers=args.workers,
    )


def _cmd_status(args: argparse.Namespace) -> int:
    from pipeline.core import default_root
    from pipeline.hook import hook_status

    status = hook_status(Path(args.root) if args.root else default_root())
    if args.as_json:
        _print(status)
    else:
        counts = ", ".join(f"{k} {status[k]}" for k in ("queued", "running", "done", "failed", "parked"))
        print(counts)
        if status.get("last_error"):
            print(f"last error ({status.get('last_error_at')}): {status['last_error']}")
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from pipeline.evals import run_eval_cli

    gc.enable()
    return run_eval_cli(
        files=args.files,
        engines=eval_runs(args.engine or [], args.model or []),
        json_out=args.json_out,
        report_out=args.report,
        min_accuracy=args.min_accuracy,
        concurrency=args.concurrency,
        cache=not args.no_cache,
        api_base=args.api_base,
        user_limit=args.user_limit,
        memory_limit=args.memory_limit,
    )


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


def _report_error(e: Exception) -> int:
    from pipeline.engines import EngineConfigError
    from pipeline.erasure import NothingToForget
    from pipeline.tool import ToolUsageError
    from pipeline.turns import BadTurn
    from pipeline.userdir import InvalidUserId

    usage_errors = (UsageError, InvalidUserId, BadTurn, ToolUsageError, EngineConfigError, NothingToForget)
    message = str(e).splitlines()[0] if str(e) else type(e).__name__
    if isinstance(e, OSError) and e.filename:
        message = f"{e.strerror or e}: {e.filename}"
    print(f"memroute: error: {message}", file=sys.stderr)
    return 2 if isinstance(e, usage_errors) else 1


if __name__ == "__main__":
    sys.exit(main())

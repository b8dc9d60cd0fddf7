"""What every command shares: the common options, settings resolved from flags/env/config file,
the pipeline built from them, and small printing helpers. Parsing and printing only."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.cli.errors import UsageError
from pipeline.errors import CommandFailed
from pipeline.ledgers.memory_md import DEFAULT_MEMORY_LIMIT
from pipeline.ledgers.user_md import DEFAULT_USER_LIMIT
from pipeline.limits import DEFAULT_DEADLINE_S, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S
from pipeline.store.location import ROOT_ENV

if TYPE_CHECKING:
    from rich.console import Console

    from pipeline.core import MemoryPipeline
    from pipeline.settings import Settings

Handler = Callable[[argparse.Namespace], int]
# add(name, help, handler, side_by_side=False) -> the command's parser, with the common options
AddCommand = Callable[..., argparse.ArgumentParser]
USER_HELP = "the user id (a folder name under the root)"
LOG_QUOTES_HELP = "debugging: keep the (redacted) words of skipped statements in the decision log"


class _EngineNames(list[str]):
    """The built-in engine names, for shell completion; parsing accepts any name, because engines
    come from the registry (built-ins and `memroute.engines` entry points): an unknown one fails in
    make_engine with one line naming the known ones (exit 2)."""

    def __contains__(self, item: object) -> bool:
        return isinstance(item, str)


def add_common(p: argparse.ArgumentParser, *, side_by_side: bool = False, engine: bool = False) -> None:
    """The options a command takes besides its own: where memory is (every command), --json, and,
    on the commands that run an engine (`engine`), the engine, model, endpoint, timeout and retry
    options. Their defaults are None: pipeline/settings.py fills in the environment, the config file
    (memroute.toml) and the defaults, in that order."""
    g = p.add_argument_group("common options (also settable by env MEMROUTE_* and memroute.toml: see `memroute doctor`)")
    g.add_argument("--root", metavar="DIR", help=f"memory root (default: ${ROOT_ENV} or ~/.memroute)")
    g.add_argument("--store", metavar="URL", help="postgresql://...: keep memory in PostgreSQL instead of the root "
                   "(env MEMROUTE_STORE; needs memroute[postgres])")
    g.add_argument("--user-limit", type=int, metavar="CHARS",
                   help=f"USER.md cap in characters (default {DEFAULT_USER_LIMIT:,})")
    g.add_argument("--memory-limit", type=int, metavar="CHARS",
                   help=f"MEMORY.md cap in characters (default {DEFAULT_MEMORY_LIMIT:,})")
    if side_by_side:  # eval: --engine/--model may repeat, --json names the report file
        g.add_argument("--json", dest="json_out", metavar="OUT", help="write the JSON report here (- for stdout)")
    else:
        g.add_argument("--json", action="store_true", dest="as_json", help="print the result as JSON (the stored shape)")
    if not engine:
        return
    e = p.add_argument_group("engine options (env MEMROUTE_ENGINE, MEMROUTE_MODEL, ...; memroute.toml)")
    engines = _EngineNames(["offline", "llm", "hybrid"])
    if side_by_side:
        e.add_argument(
            "--engine", action="append", choices=engines, metavar="NAME", help="offline, llm, hybrid or an installed engine; may repeat"
        )
        e.add_argument("--model", action="append", help="may repeat: models run side by side")
    else:
        e.add_argument(
            "--engine", choices=engines, metavar="NAME",
            help="offline, llm, hybrid or an installed engine; default: llm if a model is set, else offline (env MEMROUTE_ENGINE)",
        )
        e.add_argument("--model", help="e.g. openai/gpt-4o-mini; other providers need memroute[litellm] (env MEMROUTE_MODEL)")
    e.add_argument("--api-base", metavar="URL", help="base URL of an OpenAI-compatible server (env MEMROUTE_API_BASE)")
    e.add_argument("--timeout", type=float, metavar="SECONDS",
                   help=f"seconds per model request (default {DEFAULT_TIMEOUT_S:g})")
    e.add_argument("--deadline", type=float, metavar="SECONDS",
                   help=f"seconds one turn may spend on model calls in all, retries included (default {DEFAULT_DEADLINE_S:g})")
    e.add_argument("--max-retries", type=int, metavar="N",
                   help=f"transport retries per model request (default {DEFAULT_MAX_RETRIES})")
    e.add_argument(
        "--structured", choices=["auto", "tools", "json_schema", "json"],
        help="how structured output is asked for: tools (forced tool call), json_schema (response_format: a grammar "
        "on llama.cpp, vLLM, Ollama), json (JSON mode); default auto: by provider, one fallback (env MEMROUTE_STRUCTURED)",
    )
    e.add_argument(
        "--slow-model", action="store_true", default=None,
        help="a model on CPU: --timeout 120 --deadline 300 --max-retries 1 unless given (env MEMROUTE_SLOW_MODEL)",
    )


def emit(args: argparse.Namespace, data: Any, text: str | Callable[[], str]) -> None:
    """A command's result: `data` as JSON with --json (exactly what the library returned), else `text`."""
    if getattr(args, "as_json", False):
        print_json(data)
    else:
        print(text() if callable(text) else text)


def confirm(args: argparse.Namespace, question: str) -> None:
    """A destructive command goes on only with --yes, or a "y" typed at a terminal."""
    if getattr(args, "yes", False):
        return
    if not sys.stdin.isatty():
        raise UsageError(f"{question}: pass --yes to confirm (nothing was changed)")
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        raise CommandFailed("not confirmed: nothing was changed")


def resolve_settings(args: argparse.Namespace) -> Settings:
    """Flags > env > config file > defaults (pipeline/settings.py); resolved once per command."""
    from pipeline.settings import resolve

    flags = {
        name: getattr(args, name, None)
        for name in ("root", "engine", "model", "api_base", "user_limit", "memory_limit", "timeout", "deadline",
                     "max_retries", "store", "structured", "slow_model")
    }
    if isinstance(flags["engine"], list) or isinstance(flags["model"], list):  # eval: runs side by side
        flags["engine"] = flags["model"] = None
    flags["log_quotes"] = True if getattr(args, "log_quotes", False) else None  # absent: env, then file
    for name in ("user_limit", "memory_limit"):
        value = flags[name]
        if value is not None and value <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be a positive number of characters")
    return resolve(flags)


def open_pipeline(args: argparse.Namespace, *, write: bool, **overrides: Any) -> MemoryPipeline:
    """The pipeline for one command, built from the resolved settings. `write=False`: a root this
    process may not write is opened read-only; `write=True`: such a root is refused, naming it."""
    from pipeline.settings import build_pipeline

    settings = resolve_settings(args)
    if "root" in overrides:  # a command's own root (demo's temporary one) is a root, never the store
        settings = settings.model_copy(update={"root": Path(overrides.pop("root")), "store": None})
    writable = settings.location.writable()
    if write and not writable:
        raise CommandFailed(f"memory root {settings.root} is not writable: `memroute {args.command}` needs to write there")
    pipe = build_pipeline(settings, read_only=not writable, **overrides)
    gc.enable()  # see main(): the imports are done
    return pipe


def require_user(args: argparse.Namespace) -> None:
    """Commands about one existing user say so when there is none (and create nothing)."""
    from pipeline.store.files import validate_user_id

    validate_user_id(args.user)
    location = resolve_settings(args).location
    store, documents = location.open(read_only=True)
    with store:
        if documents.has_user(args.user):
            return
    raise CommandFailed(f"no user {args.user!r} {location.where} (`memroute users` lists them)")


def note(message: str) -> None:
    """What a command did when it changed nothing, on stderr so stdout stays data."""
    print(f"memroute: {message}", file=sys.stderr)


def quoted(text: object) -> str:
    """What a person said, in double quotes, as text (never a Python repr)."""
    return "(none)" if text is None else json.dumps(str(text), ensure_ascii=False)


def print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def read_turn_messages(source: str, *, fmt: str | None = None, user_speaker: str | None = None) -> Any:
    """`turn --messages`: a file (or - for stdin) in any of the formats pipeline.batch.sources reads."""
    from pipeline.batch.sources import turn_messages

    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read messages from {source}: {e.strerror}") from None
    return turn_messages(data, "stdin" if source == "-" else source, fmt=fmt, user_speaker=user_speaker)


def plural(count: int, word: str, many: str | None = None) -> str:
    """'1 user', '2 users', '1 entry', '3 entries' (`many`: the plural when it is not word + 's')."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"


def _aside(text: str | None) -> str:
    return f" ({text})" if text else ""


def _what(get: Callable[[str], Any]) -> str:
    """What one decision does, from its fields (`get(name)`: a Decision's attribute or a stored row's column).
    A removal names its kind: a forget request, or a change of fact ("no longer")."""
    route, op = get("route"), get("op")

    def shown(name: str) -> str:
        value = get(name)
        return "-" if value is None else str(value)

    if op == "remove":
        return f"{'no longer' if get('removal') == 'change_of_fact' else 'forget'} {quoted(get('match'))}"
    if route == "user":
        return f"{shown('section')} / {shown('key')}: {shown('value')}"
    if route == "memory":
        return f"{'[' + shown('date') + '] ' if get('date') else ''}{get('topic') + ': ' if get('topic') else ''}{shown('entry')}"
    return f"reason={shown('reason')}" + (f", candidate {shown('section')} / {shown('key')}: {shown('value')}"
                                          if get("candidate") else "")


def format_decision(d: Any) -> str:
    what = _what(lambda name: getattr(d, name, None))
    why = _aside(d.detail)
    outcome = f" -> {d.outcome_text}" if d.outcome else ""
    return f"  {d.route.upper():6} {quoted(d.quote)}\n         {what}{why}{outcome}"


def stored_decision_line(r: dict[str, Any]) -> str:
    """One logged decision as text: `TIME TURN #N ROUTE what [rule] -> outcome (detail)`. A skipped
    statement's words were not kept (its quote is a digest), so none is shown; a row logged before rules
    were kept shows no rule."""
    rule = f" [{r['rule']}]" if r.get("rule") else ""
    asked = " (asked to keep)" if r.get("asked") else ""
    outcome = f" -> {r['outcome']}" if r.get("outcome") else ""
    said = f" from {quoted(r['quote'])}" if r.get("quote") and r.get("route") != "skip" else ""
    return (f"{r.get('ts')} {r.get('turn_id')} #{r.get('position')} {str(r.get('route')).upper()} "
            f"{_what(r.get)}{rule}{asked}{outcome}{_aside(r.get('detail'))}{said}")


@contextmanager
def progress_bar(title: str, total: int, console: Console) -> Iterator[Callable[[bool, str], None]]:
    """A bar on `console` (shown only on a terminal, gone when done) over `total` runs, counting the failed ones.
    Yields step(failed, detail): one run done; `detail` (e.g. the system that ran) shows after the title."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn(f"[bold]{title}[/] {{task.fields[detail]}}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.fields[failed]} failed"),
                  console=console, disable=not console.is_terminal, transient=True) as progress:
        task = progress.add_task(title, total=total, failed=0, detail="")
        failed = 0

        def step(run_failed: bool, detail: str = "") -> None:
            nonlocal failed
            failed += run_failed
            progress.update(task, advance=1, failed=failed, detail=detail)

        yield step

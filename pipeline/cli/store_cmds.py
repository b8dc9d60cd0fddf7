"""The commands about where memory is kept: export-store, import-store (a root <-> PostgreSQL) and
worker (apply the turns app servers put on a PostgreSQL store's shared queue)."""

from __future__ import annotations

import argparse
import signal
import threading
from typing import Any

from pipeline.cli.common import AddCommand, note, open_pipeline, print_json, resolve_settings
from pipeline.cli.errors import UsageError
from pipeline.errors import CommandFailed


def register(add: AddCommand) -> None:
    p = add("export-store", "copy this store (the root, or --store's database) to an EMPTY other one: "
            "a postgresql:// URL, or a folder", _cmd_export_store)
    p.add_argument("target", help="postgresql://... (from a root) or a folder (from --store's database)")
    p = add("import-store", "copy another store into this EMPTY one (the root, or --store's database)",
            _cmd_import_store)
    p.add_argument("source", help="a root folder (into --store's database) or postgresql://... (into the root)")
    p = add("worker", "apply the turns queued in --store's PostgreSQL database (run any number, on any hosts)",
            _cmd_worker, engine=True)
    p.add_argument("--threads", type=int, default=4, help="turns in flight in this process (default 4)")
    p.add_argument("--until-empty", action="store_true", help="exit once no turn is left (default: run until stopped)")


def _here(args: argparse.Namespace) -> str:
    """This command's store: --store's database when set, else the root."""
    location = resolve_settings(args).location
    return location.url or str(location.root)


def _copy(source: str, target: str, args: argparse.Namespace) -> int:
    from pipeline.store.location import shown_url

    try:
        from pipeline.errors import TransferError
        from pipeline.store.postgres.transfer import copy_store
    except ImportError:  # pragma: no cover - psycopg missing
        raise CommandFailed("export-store/import-store need psycopg: pip install 'memroute[postgres]'") from None
    try:
        report = copy_store(source, target)
    except TransferError as e:
        raise CommandFailed(str(e)) from None
    except ImportError:
        raise CommandFailed("export-store/import-store need psycopg: pip install 'memroute[postgres]'") from None
    except Exception as e:  # a server that cannot be reached: one line, never the password
        detail = str(e).strip().splitlines()[0] if str(e).strip() else "no detail"
        raise CommandFailed(f"cannot copy {shown_url(source)} to {shown_url(target)}: {type(e).__name__}: {detail}") from None
    if getattr(args, "as_json", False):
        print_json(report.as_dict())
    else:
        rows = sum(report.rows.values())
        print(f"copied {report.users} user(s), {report.documents} document(s), {report.copies} kept copy(ies), "
              f"{rows:,} record(s) and {report.keys} store key(s) from {shown_url(source)} to {shown_url(target)}")
    return 0


def _cmd_export_store(args: argparse.Namespace) -> int:
    return _copy(_here(args), args.target, args)


def _cmd_import_store(args: argparse.Namespace) -> int:
    return _copy(args.source, _here(args), args)


def _cmd_worker(args: argparse.Namespace) -> int:
    if args.threads < 1:
        raise UsageError("--threads must be at least 1")
    if resolve_settings(args).location.url is None:  # checked before anything opens: a root is left as it was
        raise UsageError("worker needs --store postgresql://... (or MEMROUTE_STORE): a root's turns are "
                         "processed by the post-turn hook or `memroute batch`")
    from pipeline.hook.worker import serve

    stop = threading.Event()

    def finish_and_stop(signum: int, frame: Any) -> None:
        note("stopping: the turns in progress finish first")
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, finish_and_stop)
    with open_pipeline(args, write=True) as pipe:
        counts = serve(pipe, threads=args.threads, until_empty=args.until_empty, stop=stop)
    summary = {"done": counts.done, "duplicates": counts.duplicates, "failed_attempts": counts.failed_attempts,
               "parked": counts.parked}
    if getattr(args, "as_json", False):
        print_json(summary)
    else:
        print(", ".join(f"{k} {v}" for k, v in summary.items()))
    return 0

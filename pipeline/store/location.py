"""Where memory is kept, and the one way to open it: a root folder (files + SQLite) or a PostgreSQL
database (`--store postgresql://...`). What depends on which (opening, naming it in a message,
whether this process may write, the health checks of `memroute doctor`) is answered here, so no
caller branches on the kind of store.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import StoreError
from pipeline.store.interface import DocumentStore, MemoryStore

ROOT_ENV = "MEMROUTE_HOME"


class StoreOpenError(StoreError):
    """The store cannot be opened: psycopg missing, the server unreachable, bad credentials (one line,
    never the password)."""


def default_root(environ: Mapping[str, str] | None = None) -> Path:
    """The memory root when none is given: $MEMROUTE_HOME, else ~/.memroute. The one env read of the
    library, on purpose: docs/design.md makes `$MEMROUTE_HOME` part of the root's contract, and
    tests/conftest.py's _isolated_home relies on it so that no test (nor a CLI subprocess it starts)
    that builds a pipeline without a root writes to the real ~/.memroute."""
    env = os.environ if environ is None else environ
    home = env.get(ROOT_ENV)
    return Path(home).expanduser() if home else Path.home() / ".memroute"


def is_database_url(location: str) -> bool:
    """A store location naming a PostgreSQL database rather than a folder."""
    return location.startswith(("postgresql://", "postgres://"))


def shown_url(url: str) -> str:
    """The URL with its password masked, for messages and `memroute doctor`."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def root_writable(root: Path) -> bool:
    """Whether this process can write the root (or create it)."""
    probe = root
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)


@dataclass(frozen=True)
class Location:
    """A root folder, or a database URL (which then holds the documents and records; the root is unused)."""

    root: Path
    url: str | None = None

    @classmethod
    def parse(cls, location: str | Path) -> Location:
        """A folder path or a postgresql:// URL."""
        text = str(location)
        return cls(Path("."), text) if is_database_url(text) else cls(Path(text).expanduser())

    @property
    def shown(self) -> str:
        """Itself in a message (a URL's password masked)."""
        return shown_url(self.url) if self.url else str(self.root)

    @property
    def where(self) -> str:
        """"under ROOT" or "in postgresql://...", for "no user X <where>"."""
        return f"in {self.shown}" if self.url else f"under {self.root}"

    def writable(self) -> bool:
        """Whether this process may write here (a database: its server says so when it writes)."""
        return True if self.url else root_writable(self.root)

    def open(self, *, read_only: bool = False, log_quotes: bool = False) -> tuple[MemoryStore, DocumentStore]:
        """The records and the documents kept here, for MemoryPipeline(store=..., documents=...)."""
        if self.url is None:
            from pipeline.store.files import FileDocuments
            from pipeline.store.sqlite import SQLiteStore

            return SQLiteStore(self.root, read_only=read_only, log_quotes=log_quotes), FileDocuments(self.root)
        from pipeline.store.postgres import open_postgres

        try:
            return open_postgres(self.url, read_only=read_only, log_quotes=log_quotes)
        except ImportError:
            raise StoreOpenError("--store postgresql://... needs psycopg: pip install 'memroute[postgres]'") from None
        except Exception as e:  # psycopg's OperationalError and friends: one line, never the password
            detail = str(e).strip().splitlines()[0] if str(e).strip() else "no detail"
            raise StoreOpenError(f"cannot open the store {self.shown}: {type(e).__name__}: {detail}") from None

    def checks(self) -> list[tuple[str, bool, str]]:
        """(name, ok, detail) for `memroute doctor`: the place itself, then the store's health."""
        if self.url is not None:
            try:
                store, _ = self.open(read_only=True)
            except StoreOpenError as e:
                return [("database", False, str(e))]
            with store:
                if not store.exists():
                    return [("database", True,
                             f"{self.shown}: reachable, no memroute schema yet (the first write creates it)")]
                return [("database", True, f"{self.shown}: reachable, {len(store.applied_migrations())} "
                         "migrations applied"), *_queue_checks(store)]
        root = self.root
        out = [("root", True, f"{root} ({'exists' if root.is_dir() else 'not created yet'})")]
        if root.exists() and not root.is_dir():
            return [*out, ("root writable", False, f"{root} is not a directory")]
        writable = root_writable(root)
        out.append(("root writable", writable,
                    "yes" if writable else f"no: reading commands work, writing ones fail ({root})"))
        return out + _database_checks(root)


def _database_checks(root: Path) -> list[tuple[str, bool, str]]:
    from pipeline.store.migrations import MIGRATIONS
    from pipeline.store.sqlite import SQLiteStore
    from pipeline.store.sqlite_db import DB_NAME, DatabaseError

    path = root / DB_NAME
    if not path.exists():
        return [("database", True, f"{path} not created yet (the first write creates it)")]
    try:
        with SQLiteStore(root, read_only=True) as store:
            result = store.quick_check()
            applied = store.applied_migrations()
            queue = _queue_checks(store)
    except DatabaseError as e:
        return [("database", False, f"{path}: {e}")]
    missing = [name for name, _ in MIGRATIONS if name not in applied]
    return [
        ("database", result == "ok", f"{path}: integrity {result}"),
        ("schema", True, f"{len(applied)} migrations applied"
         + (f"; {len(missing)} pending (applied by the next write)" if missing else "")),
        *queue,
    ]


def _queue_checks(store: MemoryStore) -> list[tuple[str, bool, str]]:
    status = store.hook_queue_status()
    failed = len(store.failed_turns())
    return [
        ("hook queue", status["parked"] == 0,
         f"queued {status['queued']}, running {status['running']}, failed {status['failed']}, parked "
         f"{status['parked']}" + (" (run `memroute retry`)" if status["parked"] else "")),
        ("failed turns", failed == 0,
         f"{failed} waiting for `memroute retry`" + ("; see `memroute status` for the last error" if failed else "")),
    ]


__all__ = ["ROOT_ENV", "Location", "StoreOpenError", "default_root", "is_database_url", "root_writable", "shown_url"]

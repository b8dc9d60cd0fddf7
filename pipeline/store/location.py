"""Where memory is kept, and the one way to open it: a root folder (files + SQLite) or a PostgreSQL
database (`--store postgresql://...`). What depends on which (opening, naming it in a message,
whether this process may write, the health checks of `memroute doctor`) is answered here, so no
caller branches on the kind of store.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.errors import StoreOpenError, StoreUnreachable
from pipeline.store.interface import DocumentStore, MemoryStore

ROOT_ENV = "MEMROUTE_HOME"


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


# scheme://userinfo@ : the userinfo runs to the last "@" before the path (a password may hold "@").
_USERINFO_RE = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^\s/?#]*)@")
_SECRET_QUERY_RE = re.compile(
    r"(?P<name>[?&;](?:password|passwd|pwd|sslpassword|token|access_token|secret|api[_-]?key|key)=)[^&#\s]*",
    re.IGNORECASE)


def shown_url(url: str) -> str:
    """The URL (or any text holding URLs: an error message) with its credentials masked, for messages,
    banners and `memroute doctor`: `user:password@` becomes `user:***@`, `?password=...` `?password=***`.
    The one masking helper: every place that prints a URL a person configured calls it."""

    def userinfo(m: re.Match[str]) -> str:
        user, colon, _ = m.group("userinfo").partition(":")
        return f"{m.group('scheme')}{user}:***@" if colon else m.group(0)

    return _SECRET_QUERY_RE.sub(lambda m: m.group("name") + "***", _USERINFO_RE.sub(userinfo, url))


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

    def reachable(self) -> None:
        """Raise at once (StoreUnreachable, StoreOpenError: one line) when the store cannot be reached, so a
        server that is down fails a command's start, not its first request. A root always is."""
        if self.url is None:
            return
        try:
            from pipeline.store.postgres.connection import probe

            probe(self.url)
        except ImportError:
            raise StoreOpenError("--store postgresql://... needs psycopg: pip install 'memroute[postgres]'") from None

    def open(self, *, read_only: bool = False, log_quotes: bool = False) -> tuple[MemoryStore, DocumentStore]:
        """The records and the documents kept here, for MemoryPipeline(store=..., documents=...)."""
        if self.url is None:
            from pipeline.store.files import FileDocuments
            from pipeline.store.sqlite import SQLiteStore

            return SQLiteStore(self.root, read_only=read_only, log_quotes=log_quotes), FileDocuments(self.root)
        from pipeline.store.postgres import open_postgres

        try:
            return open_postgres(self.url, read_only=read_only, log_quotes=log_quotes)
        except StoreUnreachable:
            raise  # its one line names host, port and cause
        except ImportError:
            raise StoreOpenError("--store postgresql://... needs psycopg: pip install 'memroute[postgres]'") from None
        except Exception as e:  # psycopg's OperationalError and friends: one line, never the password
            detail = str(e).strip().splitlines()[0] if str(e).strip() else "no detail"
            raise StoreOpenError(f"cannot open the store {self.shown}: {type(e).__name__}: {detail}") from None

    def checks(self) -> list[Check]:
        """`memroute doctor`'s checks of the place and the store kept there, each whatever the others found."""
        if self.url is not None:
            return [Check("root", True, f"{self.root}: holds memroute.toml only (memory is in the PostgreSQL store)"),
                    *_postgres_checks(self.url)]
        root = self.root
        if root.exists() and not root.is_dir():
            first = Check("root", False, f"{root} is not a directory",
                          fix="point --root (or MEMROUTE_HOME) at a folder, or move that file away")
        elif not root_writable(root):
            first = Check("root", False, f"{root}: not writable by this user (reading commands work, writing ones fail)",
                          fix=f"give this user write access to {root}, or choose another --root / MEMROUTE_HOME")
        else:
            first = Check("root", True, f"{root} ({'exists' if root.is_dir() else 'not created yet'}), writable")
        return [first, *_database_checks(root)]


@dataclass
class Check:
    """One line of `memroute doctor`."""

    name: str
    ok: bool
    detail: str
    fix: str | None = None  # what to do about a failed check
    skipped: bool = False  # not run: what it needs failed (ok is False: the store is not known to be fine)


def _postgres_checks(url: str) -> list[Check]:
    """The PostgreSQL store: reachable, schema, pg_trgm, queue and failed turns (no password shown)."""
    from pipeline.store.postgres import open_postgres
    from pipeline.store.postgres.schema import MIGRATIONS as PG_MIGRATIONS

    where = shown_url(url)
    unreached = "not checked: the store cannot be reached"

    def skipped(name: str) -> Check:
        return Check(name, False, unreached, skipped=True)

    try:
        store, _ = open_postgres(url, read_only=True)
    except ImportError:
        return [Check("store", False, f"{where}: psycopg is not installed", fix="pip install 'memroute[postgres]'"),
                skipped("migrations"), skipped("PostgreSQL extensions")]
    try:
        with store:
            store.quick_check()  # connects: StoreUnreachable within seconds when the server is down
            exists = store.exists()
            applied = store.applied_migrations() if exists else []
            extension = store.db.one(
                "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS installed, "
                "EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') AS available")
            status = store.hook_queue_status() if exists else None
            failed = len(store.failed_turns()) if exists else 0
    except Exception as e:  # down, refused, bad credentials: one line, and what to do
        detail = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return [Check("store", False, detail if isinstance(e, StoreUnreachable) else f"{where}: {detail}",
                      fix="start PostgreSQL there, or correct --store / MEMROUTE_STORE / memroute.toml's store"),
                skipped("migrations"), skipped("PostgreSQL extensions")]
    checks = [Check("store", True, f"{where}: reachable")]
    pending = [name for name, _ in PG_MIGRATIONS if name not in applied]
    if not exists:
        checks.append(Check("migrations", True, "no memroute schema yet: the first write creates it"))
    else:
        checks.append(Check("migrations", True, f"{len(applied)} applied" + (
            f"; {len(pending)} pending (the next write applies them)" if pending else "")))
    installed, available = bool(extension and extension["installed"]), bool(extension and extension["available"])
    checks.append(Check(
        "PostgreSQL extensions", installed or available,
        "pg_trgm installed" if installed else "pg_trgm available (the first write creates it)" if available
        else "pg_trgm is not available on this server (recall's index needs it)",
        fix=None if installed or available else "install PostgreSQL's contrib package on the server "
                                                "(Debian: apt-get install postgresql-contrib)"))
    checks += _queue_checks(status, failed) if status is not None else []
    return checks


def _queue_checks(status: dict[str, Any], failed: int) -> list[Check]:
    return [
        Check("hook queue", status["parked"] == 0,
              f"queued {status['queued']}, running {status['running']}, failed {status['failed']}, "
              f"parked {status['parked']}", fix="run `memroute retry` (parked turns run again)" if status["parked"] else None),
        Check("failed turns", failed == 0, f"{failed} waiting for a retry" if failed else "none",
              fix="see `memroute status` for the last error, then `memroute retry`" if failed else None),
    ]


def _database_checks(root: Path) -> list[Check]:
    from pipeline.store.migrations import MIGRATIONS
    from pipeline.store.sqlite import SQLiteStore
    from pipeline.store.sqlite_db import DB_NAME, DatabaseError

    path = root / DB_NAME
    if not path.exists():
        return [Check("store", True, f"{path} not created yet (the first write creates it)"),
                Check("migrations", True, "none yet: the first write applies them")]
    try:
        with SQLiteStore(root, read_only=True) as store:
            result = store.quick_check()
            applied = store.applied_migrations()
            failed = len(store.failed_turns())
            status = store.hook_queue_status()
    except DatabaseError as e:
        return [Check("store", False, f"{path}: {e}",
                      fix=f"restore {path} from a backup, or move it away to start an empty store")]
    missing = [name for name, _ in MIGRATIONS if name not in applied]
    checks = [
        Check("store", result == "ok", f"{path}: integrity {result}",
              fix=None if result == "ok" else f"restore {path} from a backup (sqlite3 .recover can save what is left)"),
        Check("migrations", True, f"{len(applied)} applied"
              + (f"; {len(missing)} pending (the next write applies them)" if missing else "")),
    ]
    return checks + _queue_checks(status, failed)


__all__ = ["ROOT_ENV", "Check", "Location", "StoreOpenError", "default_root", "is_database_url", "root_writable",
           "shown_url"]

"""The SQLite database of a root (ROOT/memroute.db): connections (one per thread, none shared
across forks), the writers' turn-taking, transactions, and the versioned migrations. SQLiteStore
(pipeline/store/sqlite.py) builds the records on it.

Concurrency: WAL mode, a 30 s busy timeout and `BEGIN IMMEDIATE` for writes, so several
threads (one connection each) and several processes can write at once without a
"database is locked" error reaching the caller. Schema changes are named migrations,
applied once each, in order, and recorded in the `migrations` table.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pipeline.errors import StoreError
from pipeline.store.migrations import MIGRATIONS, split_statements
from pipeline.store.private import FILE_MODE, create_private_file, make_private_dir
from pipeline.store.rules import DIGEST_KEY_BYTES, DIGEST_KEY_NAME

log = logging.getLogger("memroute.store")


DB_NAME = "memroute.db"
WRITER_LOCK_NAME = ".memroute.db.writer"  # dot-named: user ids never start with "."
BUSY_TIMEOUT_S = 30.0
# The trigram tokenizer cannot match anything shorter than three characters.
MIN_FTS_CHARS = 3
MIN_SQLITE = (3, 34, 0)  # first release with the trigram tokenizer
SQLITE_VERSION = sqlite3.sqlite_version
DatabaseError = sqlite3.Error  # what a broken or unreadable database raises, for callers that import no sqlite3

def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class _WriterGate:
    """Writers take turns here before BEGIN IMMEDIATE: a thread lock, then an flock shared by every
    process on this root. Both wake the next writer as soon as the last one is done; SQLite's own
    busy handler instead polls with sleeps growing to 100 ms, which made a ~1 ms commit wait tens
    of ms whenever a batch's or a hook's commits overlapped. SQLite's locking stays underneath."""

    def __init__(self, path: Path, timeout_s: float) -> None:
        self.path = path
        self.timeout_s = timeout_s
        self._thread_lock = threading.Lock()
        self._fd: int | None = None
        self._pid = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        if not self._thread_lock.acquire(timeout=self.timeout_s):
            raise sqlite3.OperationalError(f"database is locked (no turn to write within {self.timeout_s:g} s)")
        try:
            fd = self._process_fd()
            self._flock(fd)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            self._thread_lock.release()

    def _process_fd(self) -> int:
        # flock belongs to the open file: a forked child must open its own or it would share ours.
        if self._fd is None or self._pid != os.getpid():
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
            self._pid = os.getpid()
        return self._fd

    def _flock(self, fd: int) -> None:
        deadline = time.monotonic() + self.timeout_s
        delay = 0.0002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise sqlite3.OperationalError(
                        f"database is locked (another process kept writing for {self.timeout_s:g} s)"
                    ) from None
                time.sleep(delay)  # another process's commit lasts about a millisecond
                delay = min(delay * 2, 0.002)

    def close(self) -> None:
        if self._fd is not None and self._pid == os.getpid():
            os.close(self._fd)
        self._fd = None


__all__ = [
    "BUSY_TIMEOUT_S", "DB_NAME", "MIN_FTS_CHARS", "SQLITE_VERSION", "WRITER_LOCK_NAME",
    "DatabaseError", "SQLiteDatabase", "database_texts", "utc_now",
]


class SQLiteDatabase:
    """One root's database file and its connections."""

    def __init__(
        self,
        root: str | Path,
        *,
        migrations: Sequence[tuple[str, str]] | None = None,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        read_only: bool = False,
    ) -> None:
        """`read_only`: open the database immutable (a root we may not write: a mounted backup, another
        account's files); no migration, no WAL file, and every write fails."""
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise RuntimeError(
                f"memroute needs SQLite {'.'.join(map(str, MIN_SQLITE))}+ (FTS5 trigram tokenizer); "
                f"this Python has SQLite {sqlite3.sqlite_version}"
            )
        self.root = Path(root)
        self.read_only = read_only
        self.path = self.root / DB_NAME
        if not read_only:
            make_private_dir(self.root)
            create_private_file(self.path)  # SQLite gives the -wal and -shm files the database's mode
        self.busy_timeout_s = busy_timeout_s
        self._migrations = list(MIGRATIONS if migrations is None else migrations)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._inherited: list[Any] = []
        self._all_lock = threading.Lock()
        self._pid = os.getpid()
        self._closed = False
        self._writer = _WriterGate(self.root / WRITER_LOCK_NAME, busy_timeout_s)
        if not read_only:
            self._migrate()

    # ---- connections -------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if self.read_only:
            # In a folder we cannot write, SQLite cannot make the WAL's -shm file: open it immutable
            # (no lock, no side file). Where we can, plain read-only mode still sees live writers.
            mode = "ro" if os.access(self.root, os.W_OK) else "ro&immutable=1"
            uri = f"{self.path.resolve().as_uri()}?mode={mode}"
            conn = sqlite3.connect(uri, uri=True, timeout=self.busy_timeout_s, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            return conn
        # isolation_level=None: no implicit BEGIN; transaction() issues BEGIN IMMEDIATE itself.
        conn = sqlite3.connect(
            self.path, timeout=self.busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
        conn.execute("PRAGMA foreign_keys = ON")
        # Whatever a write frees (a cleared queue payload, a deleted row, a page a split left behind)
        # is overwritten with zeros, so user text does not linger in free space.
        conn.execute("PRAGMA secure_delete = ON")
        self._ensure_wal(conn)
        # NORMAL is durable across process crashes in WAL mode; only a power loss can drop the last commits.
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def _ensure_wal(self, conn: sqlite3.Connection) -> None:
        """Switch to WAL (persistent in the file). Two processes creating the db at once can see
        SQLITE_BUSY here without the busy handler, so retry until the timeout."""
        deadline = time.monotonic() + self.busy_timeout_s
        while True:
            try:
                mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
                if str(mode).lower() != "wal":
                    conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection (sqlite3 connections must not be shared across threads or forks)."""
        if self._closed:
            raise RuntimeError("Store is closed")
        if os.getpid() != self._pid:
            # Forked child: the parent's connections are not ours to use, nor to close (closing one
            # here could checkpoint or unlock under the parent), so keep them referenced, untouched.
            self._inherited.append((self._local, self._all))
            self._local = threading.local()
            self._all = []
            self._all_lock = threading.Lock()
            self._pid = os.getpid()
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
            self._local.depth = 0
            with self._all_lock:
                self._all.append(conn)
        return conn

    def close(self) -> None:
        with self._all_lock:
            conns, self._all = self._all, []
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:  # pragma: no cover - closing is best effort
                log.warning("could not close a store connection", exc_info=True)
        self._local = threading.local()
        self._writer.close()
        self._closed = True

    def exists(self) -> bool:
        return self.path.exists()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error): a turn's records land together or not at all.

        Nested use on the same thread becomes a SAVEPOINT inside the outer transaction.
        """
        conn = self.conn
        depth: int = self._local.depth
        if depth:
            name = f"sp{depth}"
            conn.execute(f"SAVEPOINT {name}")
            self._local.depth = depth + 1
            try:
                yield conn
            except BaseException:
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
                raise
            else:
                conn.execute(f"RELEASE {name}")
            finally:
                self._local.depth = depth
            return
        with self._writer.held():
            conn.execute("BEGIN IMMEDIATE")
            self._local.depth = 1
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                # Some errors (disk full, a failed COMMIT) may already have ended the transaction.
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            finally:
                self._local.depth = 0

    # ---- migrations --------------------------------------------------------------------

    def _migrate(self) -> None:
        # Under BEGIN IMMEDIATE, so two processes opening a fresh root never apply a migration twice.
        with self.transaction() as tx:
            tx.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
            done = {row[0] for row in tx.execute("SELECT name FROM migrations")}
            for name, sql in self._migrations:
                if name in done:
                    continue
                for stmt in split_statements(sql):
                    tx.execute(stmt)
                tx.execute("INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (name, utc_now()))
                log.info("applied migration %s", name)

    def quick_check(self) -> str:
        """SQLite's own consistency check: "ok", or the first problem it found (`memroute doctor`)."""
        return str(self.conn.execute("PRAGMA quick_check").fetchone()[0])

    def applied_migrations(self) -> list[str]:
        return [row[0] for row in self.conn.execute("SELECT name FROM migrations ORDER BY rowid")]

    # ---- the store's own keys and facts (store_keys, store_facts), never about a user ----------

    def _store_key(self, conn: sqlite3.Connection, name: str) -> bytes:
        """The root's key `name` in store_keys, made at first use (the first writer's wins)."""
        cache: dict[str, bytes] = self.__dict__.setdefault("_key_cache", {})
        if name not in cache:
            conn.execute("INSERT OR IGNORE INTO store_keys (name, key) VALUES (?, ?)",
                         (name, os.urandom(DIGEST_KEY_BYTES)))  # the OS CSPRNG, what secrets.token_bytes reads
            row = conn.execute("SELECT key FROM store_keys WHERE name = ?", (name,)).fetchone()
            cache[name] = bytes(row[0])
        return cache[name]

    def _digest_key(self, conn: sqlite3.Connection) -> bytes:
        """The root's key for decision-log digests (rules.DIGEST_KEY_NAME)."""
        return self._store_key(conn, DIGEST_KEY_NAME)

    def secret_key(self, name: str) -> bytes:
        cache: dict[str, bytes] = self.__dict__.setdefault("_key_cache", {})
        if name in cache:
            return cache[name]
        with self.transaction() as conn:
            return self._store_key(conn, name)

    def holds_unkeyed_ids(self) -> bool:
        if "_unkeyed_ids" not in self.__dict__:
            try:
                row = self.conn.execute("SELECT 1 FROM store_facts WHERE name = 'unkeyed_ids'").fetchone()
            except sqlite3.OperationalError:  # a read-only root of an older version: assume it may
                row = (1,)
            self.__dict__["_unkeyed_ids"] = row is not None
        return bool(self.__dict__["_unkeyed_ids"])

    def compact(self) -> None:
        """Make deleted rows unrecoverable: merge the full-text index, VACUUM (rewrites the file
        without free pages), then checkpoint and truncate the WAL, which still held old pages."""
        conn = self.conn
        conn.execute("PRAGMA secure_delete = ON")
        with self._writer.held():
            conn.execute("INSERT INTO archive_fts (archive_fts) VALUES ('optimize')")
            conn.execute("VACUUM")
            deadline = time.monotonic() + self.busy_timeout_s
            while True:
                busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                if not busy:
                    return
                if time.monotonic() > deadline:  # a reader kept the WAL: report, never hide it
                    raise sqlite3.OperationalError("could not truncate the WAL after erasing: a reader kept it open")
                time.sleep(0.05)


def database_texts(db_path: Path) -> dict[str, str]:
    """Every value of every table of a SQLite file, as text, per table (blobs decoded leniently):
    what a leak search must look through (eval `never_written`). Read-only; StoreError when the
    file cannot be read as a database."""
    texts: dict[str, str] = {}
    if not db_path.exists():
        return texts
    try:
        return _database_texts(db_path, texts)
    except sqlite3.Error as e:
        raise StoreError(f"cannot read {db_path}: {e}") from e


def _database_texts(db_path: Path, texts: dict[str, str]) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for name in names:
            try:
                rows = conn.execute(f'SELECT * FROM "{name.replace(chr(34), chr(34) * 2)}"').fetchall()
            except sqlite3.Error:
                continue  # e.g. an FTS table without readable content; its shadow tables are read instead
            parts: list[str] = []
            for row in rows:
                for value in row:
                    if isinstance(value, bytes):
                        parts.append(value.decode("utf-8", errors="replace"))
                    elif value is not None:
                        parts.append(str(value))
            texts[name] = "\n".join(parts)
    finally:
        conn.close()
    return texts

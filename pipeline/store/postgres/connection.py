"""Connections to one PostgreSQL database: a psycopg 3 pool per process, and transactions.

A transaction is per thread: while a thread is inside `transaction()`, every read of the store on
that thread uses the same connection (it sees its own uncommitted writes, under its own locks);
nested use becomes a savepoint. Outside a transaction a read borrows a pooled connection for the
one statement. A forked child opens its own pool: the parent's sockets are not its to use.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from pipeline.errors import StoreUnreachable

POOL_MAX = 8
CONNECT_TIMEOUT_S = 30.0
# A server that does not answer within this many seconds is reported unreachable (issue 27: <= 5 s).
PROBE_TIMEOUT_S = 4


def redact_dsn(dsn: str) -> str:
    """The DSN with its password replaced, for messages and logs."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    try:
        parts = conninfo_to_dict(dsn)
    except Exception:
        return "postgresql://..."
    if parts.get("password"):
        parts["password"] = "***"
    return make_conninfo("", **parts)


def server_of(dsn: str) -> str:
    """host:port (and database) of a DSN, for messages: never the user's password."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(dsn)
    except Exception:
        return "the configured server"
    host = str(parts.get("host") or os.environ.get("PGHOST") or "localhost")
    port = str(parts.get("port") or os.environ.get("PGPORT") or "5432")
    where = f"[{host}]:{port}" if ":" in host and not host.startswith("/") else f"{host}:{port}"
    database = parts.get("dbname")
    return where + (f" (database {database})" if database else "")


def connect_failure(dsn: str, error: BaseException) -> StoreUnreachable:
    """One line: where, and why (the server's own words, first line, without psycopg's preamble)."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    cause = text.rsplit(" failed: ", 1)[-1].strip()
    if cause.startswith("connection failed: "):
        cause = cause[len("connection failed: "):]
    return StoreUnreachable(f"cannot connect to PostgreSQL at {server_of(dsn)}: {cause}")


def probe(dsn: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Open and close one connection, or raise StoreUnreachable within about `timeout_s` seconds.
    A pool would retry in the background for its whole timeout, logging each attempt."""
    import psycopg

    try:
        psycopg.connect(dsn, connect_timeout=max(1, int(timeout_s)), autocommit=True).close()
    except psycopg.Error as e:
        raise connect_failure(dsn, e) from None


class Database:
    """A pool of autocommit connections (rows as dicts) and per-thread transactions."""

    def __init__(self, dsn: str, *, pool_max: int = POOL_MAX, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
        self.dsn = dsn
        self.pool_max = pool_max
        self.timeout_s = timeout_s
        self._pid = -1
        self._pool: Any = None
        self._local = threading.local()
        self._lock = threading.Lock()
        self._closed = False

    def pool(self) -> Any:
        if self._closed:
            raise RuntimeError("the PostgreSQL store is closed")
        if self._pool is None or self._pid != os.getpid():
            with self._lock:
                if self._pool is None or self._pid != os.getpid():
                    from psycopg.rows import dict_row
                    from psycopg_pool import ConnectionPool

                    probe(self.dsn)  # a server that is down: one line within seconds, no pool retries

                    # A forked child drops the parent's pool without closing it (its sockets are the parent's).
                    self._local = threading.local()
                    self._pool = ConnectionPool(
                        self.dsn, min_size=1, max_size=self.pool_max, timeout=self.timeout_s, open=False,
                        kwargs={"autocommit": True, "row_factory": dict_row}, name="memroute",
                    )
                    self._pool.open(wait=True, timeout=self.timeout_s)
                    self._pid = os.getpid()
        return self._pool

    def ensure_capacity(self, connections: int) -> None:
        """Let the pool hold at least this many connections (a worker thread holds two at once: its
        claim and its turn's write); a pool too small would make threads wait on each other."""
        if connections > self.pool_max:
            self.pool_max = connections
            if self._pool is not None and self._pid == os.getpid():
                self._pool.resize(min_size=1, max_size=connections)

    def close(self) -> None:
        if self._pool is not None and self._pid == os.getpid():
            self._pool.close()
        self._pool = None
        self._closed = True

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """The thread's transaction connection when inside one, else a pooled one."""
        current = getattr(self._local, "conn", None)
        if current is not None and self._pid == os.getpid():
            yield current
            return
        with self.pool().connection() as conn:
            yield conn

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """BEGIN ... COMMIT (ROLLBACK on error) on one connection; nested: a savepoint."""
        current = getattr(self._local, "conn", None)
        if current is not None and self._pid == os.getpid():
            with current.transaction():
                yield current
            return
        with self.pool().connection() as conn:
            self._local.conn = conn
            self._local.after = []
            try:
                with conn.transaction():
                    yield conn
            except BaseException:
                self._local.after = []
                raise
            finally:
                self._local.conn = None
            after, self._local.after = self._local.after, []
        for fn in after:
            fn()

    def after_commit(self, fn: Callable[[], None]) -> None:
        """Run `fn` once this thread's transaction commits (at once when there is none); dropped on rollback."""
        if self.in_transaction():
            self._local.after.append(fn)
        else:
            fn()

    def in_transaction(self) -> bool:
        return getattr(self._local, "conn", None) is not None and self._pid == os.getpid()

    def secret_key(self, name: str, size: int = 32) -> bytes:
        """The database's own key `name` (store_keys), made at first use; every process and host on the
        database gets the same one (the first writer's wins)."""
        cache: dict[str, bytes] = self.__dict__.setdefault("_key_cache", {})
        if name not in cache:
            import secrets

            with self.transaction() as conn:
                conn.execute("INSERT INTO store_keys (name, key) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING",
                             (name, secrets.token_bytes(size)))
                row = conn.execute("SELECT key FROM store_keys WHERE name = %s", (name,)).fetchone()
            cache[name] = bytes(row["key"])
        return cache[name]

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.connection() as conn:
            return list(conn.execute(sql, params).fetchall())

    def one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        with self.connection() as conn:
            row: dict[str, Any] | None = conn.execute(sql, params).fetchone()
            return row

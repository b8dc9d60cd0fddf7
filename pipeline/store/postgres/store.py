"""PostgresStore: everything of every user under one database, for several app servers at once.

What the SQLite store keeps next to two files per user lives here in one database: USER.md and
MEMORY.md text (`documents`), history, provenance, archive, decisions, usage, turn status,
candidates, batch checkpoints and the hook queue. A write is one transaction: the per-user lock
is `pg_advisory_xact_lock` (released by COMMIT or ROLLBACK, and by the server when the client
dies), the documents are re-read under it and written back in the same transaction as their
records, so there is no torn state and no rename dance.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pipeline.store.interface import MemoryStore
from pipeline.store.postgres.connection import POOL_MAX, Database, redact_dsn
from pipeline.store.postgres.hook_queue import PgHookQueue
from pipeline.store.postgres.queue import PgQueue, Scrubber
from pipeline.store.postgres.records import Records, now_iso
from pipeline.store.postgres.schema import MIGRATIONS, migrate
from pipeline.store.rules import forgotten_rows, needles_of_keys, purge_action

log = logging.getLogger("memroute.store.postgres")

USER_LOCK_CLASS = 0x6D656D72  # the advisory lock's first key ("memr"); the second is hashtext(user_id)
DOCUMENT_NAMES = ("USER.md", "MEMORY.md")


@dataclass
class Documents:
    """A user's two files as stored; None when never written."""

    user: str | None
    memory: str | None


class PostgresStore(Records, MemoryStore):
    """The store behind `--store postgresql://...`. Thread-safe; fork-safe (a child opens its own pool)."""

    kind = "postgresql"

    def __init__(
        self,
        dsn: str,
        redact: Callable[[str], str] | None = None,
        *,
        read_only: bool = False,
        log_quotes: bool = False,
        pool_max: int = POOL_MAX,
        migrations: list[tuple[str, str]] | None = None,
    ) -> None:
        self._default_redact = redact is None
        if redact is None:
            from pipeline.guards.redaction import redact_for_storage

            redact = redact_for_storage
        self.redact = redact
        self.log_quotes = log_quotes
        self.read_only = read_only
        self.dsn = dsn
        self.location = redact_dsn(dsn)
        self.db = Database(dsn, pool_max=pool_max)
        self.scrubber = Scrubber(self.db)
        self._migrations = list(MIGRATIONS if migrations is None else migrations)
        if not read_only:
            with self.db.connection() as conn:
                for name in migrate(conn, self._migrations):
                    log.info("applied migration %s", name)

    def close(self) -> None:
        self.scrubber.close()
        self.db.close()

    def secret_key(self, name: str) -> bytes:
        return self.db.secret_key(name)

    def holds_unkeyed_ids(self) -> bool:
        if "_unkeyed_ids" not in self.__dict__:
            row = self.db.one("SELECT 1 AS x FROM store_facts WHERE name = 'unkeyed_ids'")
            self.__dict__["_unkeyed_ids"] = row is not None
        return bool(self.__dict__["_unkeyed_ids"])

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """One transaction (nested: a savepoint); reads on this thread see it."""
        if self.read_only:
            raise PermissionError(f"the store {self.location} was opened read-only")
        with self.db.transaction() as conn:
            yield conn

    # ---- the per-user lock and the documents ----------------------------------------------

    def lock_user(self, conn: Any, user_id: str) -> None:
        """Take the user's lock for the rest of the transaction (other writers of this user wait;
        other users do not). The server releases it at COMMIT/ROLLBACK or when the client dies."""
        conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (USER_LOCK_CLASS, user_id))

    @contextmanager
    def edit(self, user_id: str) -> Iterator[tuple[Any, Documents]]:
        """Lock the user, read both documents under the lock, yield them with the connection; what
        the block writes (documents and records) commits together, or not at all."""
        with self.transaction() as conn:
            self.lock_user(conn, user_id)
            yield conn, self.read_documents(user_id)

    def read_documents(self, user_id: str) -> Documents:
        rows = self.db.rows("SELECT name, text FROM documents WHERE user_id = %s", (user_id,))
        texts = {r["name"]: r["text"] for r in rows}
        return Documents(user=texts.get("USER.md"), memory=texts.get("MEMORY.md"))

    def write_document(self, conn: Any, user_id: str, name: str, text: str) -> None:
        if name not in DOCUMENT_NAMES:
            raise ValueError(f"unknown document {name!r}; expected one of {', '.join(DOCUMENT_NAMES)}")
        conn.execute(
            """INSERT INTO documents (user_id, name, text, updated_at) VALUES (%s, %s, %s, %s)
               ON CONFLICT (user_id, name) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at""",
            (user_id, name, text, now_iso()),
        )

    def has_user(self, user_id: str) -> bool:
        """Whether the user has a document or any record (what `show` and friends need to exist)."""
        row = self.db.one(
            """SELECT EXISTS (SELECT 1 FROM documents WHERE user_id = %s)
                      OR EXISTS (SELECT 1 FROM turns WHERE user_id = %s) AS found""",
            (user_id, user_id),
        )
        return bool(row and row["found"])

    def users(self) -> list[str]:
        """Every user with a document, in id order (what `export --all` and the Hermes export walk)."""
        return [r["user_id"] for r in self.db.rows("SELECT DISTINCT user_id FROM documents ORDER BY user_id")]

    def exists(self) -> bool:
        """Whether the database holds memroute's schema yet (a read-only store of a fresh one does not)."""
        row = self.db.one("SELECT to_regclass('migrations') IS NOT NULL AS ok")
        return bool(row and row["ok"])

    def user_summaries(self) -> list[dict[str, Any]]:
        """Every user with a document: its sizes (characters) and last change (`memroute users`)."""
        rows = self.db.rows(
            """SELECT user_id,
                      COALESCE(MAX(char_length(text)) FILTER (WHERE name = 'USER.md'), 0) AS user_chars,
                      COALESCE(MAX(char_length(text)) FILTER (WHERE name = 'MEMORY.md'), 0) AS memory_chars,
                      MAX(updated_at) AS last_change
               FROM documents GROUP BY user_id ORDER BY user_id"""
        )
        return [{**r, "user_chars": int(r["user_chars"]), "memory_chars": int(r["memory_chars"])} for r in rows]

    # ---- health --------------------------------------------------------------------------

    def quick_check(self) -> str:
        row = self.db.one("SELECT 1 AS ok")
        return "ok" if row and row["ok"] == 1 else "no answer"

    def applied_migrations(self) -> list[str]:
        return [r["name"] for r in self.db.rows("SELECT name FROM migrations ORDER BY name")]

    # ---- erasure (forget --purge, delete-user, export --all) ---------------------------------

    def purge_user(self, conn: Any, user_id: str) -> int:
        """Delete every row of the user, their documents included (inside transaction())."""
        deleted = 0
        for table in [*self.USER_TABLES, "documents", "document_copies"]:
            deleted += int(conn.execute(f"DELETE FROM {table} WHERE user_id = %s", (user_id,)).rowcount)
        return deleted + self.purge_candidates(conn, user_id)

    def _needles(self, conn: Any, user_id: str, needles: Sequence[str], keys: Sequence[str]) -> tuple[set[str], list[str]]:
        """The keys (case-folded) and the needles of a forget: the texts, and every value the keys ever had."""
        wanted_keys = {k.casefold() for k in keys}
        found = [n for n in needles if n]
        if wanted_keys:
            found += needles_of_keys(
                ((r["key"], r["a"], r["b"]) for r in conn.execute(
                    """SELECT key, old_value AS a, new_value AS b FROM history WHERE user_id = %s
                       UNION ALL SELECT key, value, NULL FROM provenance WHERE user_id = %s""",
                    (user_id, user_id),
                ).fetchall()),
                wanted_keys,
            )
        return wanted_keys, found

    def forget_archived(self, conn: Any, user_id: str, needles: Sequence[str], keys: Sequence[str], why: str) -> int:
        wanted_keys, found = self._needles(conn, user_id, needles, keys)
        rows = conn.execute("SELECT id, text FROM archive WHERE user_id = %s AND why IS DISTINCT FROM %s",
                            (user_id, why)).fetchall()
        ids = forgotten_rows(((r["id"], r["text"]) for r in rows), wanted_keys, [n.casefold() for n in found])
        if ids:
            conn.execute("UPDATE archive SET why = %s WHERE id = ANY(%s)", (why, ids))
        return len(ids)

    def purge_text(self, conn: Any, user_id: str, needles: Sequence[str], keys: Sequence[str] = ()) -> int:
        """Delete every row of the user holding one of `needles` (case-insensitive) in a text column, or
        recording one of the USER.md `keys` (every past value of it too). The SQLite store's rule."""
        wanted_keys, found = self._needles(conn, user_id, needles, keys)
        lowered = [n.casefold() for n in found]
        deleted = 0
        for table, columns in self.USER_TABLES.items():
            if not columns:
                continue
            rowid = "seq" if table == "hook_queue" else "id"
            spare = " AND op != 'purge'" if table == "history" else ""  # the record of an erasure stays
            doomed = []
            for row in conn.execute(
                f"SELECT {rowid} AS rid, {', '.join(columns)} FROM {table} WHERE user_id = %s{spare}", (user_id,)
            ).fetchall():
                action = purge_action(table, columns, [row[c] for c in columns], wanted_keys, lowered, found)
                if action == "delete":
                    doomed.append(row["rid"])
                elif isinstance(action, dict):  # a neighbour's record: the erased words blanked
                    sets = ", ".join(f"{c} = %s" for c in action)
                    conn.execute(f"UPDATE {table} SET {sets} WHERE {rowid} = %s", (*action.values(), row["rid"]))
            if doomed:
                conn.execute(f"DELETE FROM {table} WHERE {rowid} = ANY(%s)", (doomed,))
            deleted += len(doomed)
        for needle in [*keys, *found]:
            deleted += self.purge_candidates(conn, user_id, needle)
        return deleted

    def compact(self) -> None:
        """VACUUM the tables that held user text, so deleted rows' space is reclaimed and reused.
        Called inside a transaction (an erasure under the user's lock), it runs once that commits:
        before, the deleted rows are still live. (PostgreSQL's WAL and backups are the operator's
        to rotate; the README says so.)"""
        self.db.after_commit(self._vacuum)

    def _vacuum(self) -> None:
        """VACUUM ANALYZE: the planner's statistics are taken again, so no sample of an erased row
        stays in pg_stats (text columns are kept out of statistics altogether, migration p006); the
        queue is rewritten, as after a done turn."""
        with self.db.pool().connection() as conn:  # VACUUM cannot run inside a transaction
            for table in [*self.USER_TABLES, "documents", "document_copies", "candidates"]:
                conn.execute(f"VACUUM ANALYZE {table}")
        self.scrubber.now()

    def everything_about(self, user_id: str) -> dict[str, list[dict[str, Any]]]:
        """Every row held about the user, per table (subject access: `memroute export USER --all`)."""
        out: dict[str, list[dict[str, Any]]] = {}
        for table in self.USER_TABLES:
            order = "seq" if table == "hook_queue" else ("conversation_key" if table == "batch_conversations" else "id")
            rows = self.db.rows(f"SELECT * FROM {table} WHERE user_id = %s ORDER BY {order}", (user_id,))
            for row in rows:
                if table in ("turns", "hook_queue") and isinstance(row.get("payload"), str):
                    row["payload"] = json.loads(row["payload"])
            out[table] = rows
        out["candidates"] = self.candidates(user_id)
        return out

    # ---- the shared turn queue ---------------------------------------------------------------

    def queue(self) -> PgQueue:
        """The shared turn queue in this database (claimed by workers on any host)."""
        return PgQueue(self.db, redact=self.redact, redact_payload=self.redact_payload, scrubber=self.scrubber)

    def shared_queue(self, *, workers: int = 1) -> PgQueue:
        self.db.ensure_capacity(2 * max(1, workers) + 2)  # a claim and a write per thread, and reads
        return self.queue()

    def open_hook_queue(self, *, fsync_submits: bool = False) -> PgHookQueue:
        """A PostTurnHook's queue (a committed INSERT is durable whatever fsync_submits says)."""
        return PgHookQueue(self.db, redact=self.redact, redact_payload=self.redact_payload, scrubber=self.scrubber)

    def hook_queue_status(self) -> dict[str, Any]:
        return self.queue().status()

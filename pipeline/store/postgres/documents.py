"""USER.md and MEMORY.md as rows: the document side of the store interface on PostgreSQL.

`lock()` opens the user's transaction and takes the per-user advisory lock for its length; reads
under it see the transaction, `commit()` writes the documents and the records in it (a savepoint
each), and the block's end commits everything at once. Nothing can be torn: there is no file to
rename, no journal to recover, and a client killed mid-write leaves the database as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pipeline.store.files import MEMORY_FILE, USER_FILE, validate_user_id
from pipeline.store.interface import LedgerTexts
from pipeline.store.postgres.records import now_iso
from pipeline.store.rules import scrubbed_copy

if TYPE_CHECKING:
    from pipeline.store.postgres.store import PostgresStore


class PgUserDocuments:
    """One user's two documents in the database."""

    def __init__(self, store: PostgresStore, user_id: str) -> None:
        self.store = store
        self.user_id = validate_user_id(user_id)

    def read(self) -> LedgerTexts:
        docs = self.store.read_documents(self.user_id)
        return LedgerTexts(
            user=docs.user,
            memory=docs.memory,
            user_raw=None if docs.user is None else docs.user.encode("utf-8"),
            memory_raw=None if docs.memory is None else docs.memory.encode("utf-8"),
        )

    def read_lenient(self) -> tuple[LedgerTexts, list[str]]:
        return self.read(), []  # text columns are always valid UTF-8

    def has_pending_commit(self) -> bool:
        return False  # a commit is one transaction: nothing is ever left half-done

    @contextmanager
    def lock(self, recover: Callable[[str], bool] | None = None) -> Iterator[None]:
        with self.store.transaction() as conn:
            self.store.lock_user(conn, self.user_id)
            yield

    def commit(self, turn_id: str, files: dict[str, str], store_commit: Callable[[], None]) -> None:
        """Write the documents and run `store_commit` in the lock's transaction (both or neither)."""
        unknown = set(files) - {USER_FILE, MEMORY_FILE}
        if unknown:
            raise ValueError(f"unknown document(s): {', '.join(sorted(unknown))}")
        if not self.store.db.in_transaction():  # not under lock(): still one transaction
            with self.store.transaction():
                self.commit(turn_id, files, store_commit)
            return
        # Under lock(): its transaction is the unit (no savepoint of our own: an error here ends it).
        with self.store.db.connection() as conn:
            for name, text in files.items():
                self.store.write_document(conn, self.user_id, name, text)
        store_commit()


    # ---- kept copies (a root's .bak files) --------------------------------------------------

    def keep_copy(self, name: str, raw: bytes) -> str:
        """Keep a copy of a document that will not be rewritten; the first copy wins, as with files."""
        copy = f"{name}.bak"
        with self.store.transaction() as conn:
            conn.execute(
                """INSERT INTO document_copies (user_id, name, raw, created_at) VALUES (%s, %s, %s, %s)
                   ON CONFLICT (user_id, name) DO NOTHING""",
                (self.user_id, copy, raw, now_iso()),
            )
        return copy

    def copies(self) -> dict[str, str]:
        rows = self.store.db.rows(
            "SELECT name, raw FROM document_copies WHERE user_id = %s ORDER BY name", (self.user_id,)
        )
        return {r["name"]: bytes(r["raw"]).decode("utf-8", errors="replace") for r in rows}

    def erase_from_copies(self, needles: list[str]) -> int:
        """Drop the lines holding a needle (case-insensitive) from the kept copies; how many changed."""
        if not any(needles):
            return 0
        scrubbed = 0
        with self.store.transaction() as conn:
            for row in conn.execute(
                "SELECT name, raw FROM document_copies WHERE user_id = %s FOR UPDATE", (self.user_id,)
            ).fetchall():
                kept = scrubbed_copy(bytes(row["raw"]), needles)
                if kept is not None:
                    conn.execute("UPDATE document_copies SET raw = %s WHERE user_id = %s AND name = %s",
                                 (kept, self.user_id, row["name"]))
                    scrubbed += 1
        return scrubbed

    def delete_all(self) -> None:
        """Delete both documents and every copy (delete-user), in the lock's transaction."""
        with self.store.transaction() as conn:
            conn.execute("DELETE FROM documents WHERE user_id = %s", (self.user_id,))
            conn.execute("DELETE FROM document_copies WHERE user_id = %s", (self.user_id,))

    def drop(self) -> None:
        """Nothing names the user outside those rows (no folder, no lock file)."""


class PgDocumentStore:
    """Every user's documents in one database."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def documents(self, user_id: str) -> PgUserDocuments:
        return PgUserDocuments(self.store, user_id)

    def user_summaries(self) -> list[dict[str, Any]]:
        return self.store.user_summaries()

    def has_any_documents(self) -> bool:
        return bool(self.store.users())

    def has_user(self, user_id: str) -> bool:
        return self.store.has_user(validate_user_id(user_id))

"""USER.md and MEMORY.md as rows: the document side of the store interface on PostgreSQL.

`lock()` opens the user's transaction and takes the per-user advisory lock for its length; reads
under it see the transaction, `commit()` writes the documents and the records in it (a savepoint
each), and the block's end commits everything at once. Nothing can be torn: there is no file to
rename, no journal to recover, and a client killed mid-write leaves the database as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from pipeline.store.interface import LedgerTexts
from pipeline.userdir import MEMORY_FILE, USER_FILE, validate_user_id

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
        with self.store.transaction() as conn:
            for name, text in files.items():
                self.store.write_document(conn, self.user_id, name, text)
            store_commit()


class PgDocumentStore:
    """Every user's documents in one database."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store

    def documents(self, user_id: str) -> PgUserDocuments:
        return PgUserDocuments(self.store, user_id)

    def has_any_documents(self) -> bool:
        return bool(self.store.users())

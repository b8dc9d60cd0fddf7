"""memroute's store: the interface (interface.py) and today's SQLite implementation.

`Store` is the SQLite store (one database per root, ROOT/memroute.db), kept under its old name.
"""

from __future__ import annotations

from pipeline.errors import StoreError
from pipeline.store.interface import (
    BATCH_STATUSES,
    QUEUE_STATUSES,
    TARGETS,
    TURN_STATUSES,
    DocumentStore,
    HookQueue,
    LedgerTexts,
    MemoryStore,
    QueuedTurn,
    Tx,
    UserDocuments,
)
from pipeline.store.migrations import MIGRATIONS
from pipeline.store.sqlite import SQLiteStore
from pipeline.store.sqlite_db import (
    BUSY_TIMEOUT_S,
    DB_NAME,
    MIN_FTS_CHARS,
    SQLITE_VERSION,
    WRITER_LOCK_NAME,
    DatabaseError,
    database_texts,
)

Store = SQLiteStore

__all__ = [
    "BATCH_STATUSES",
    "BUSY_TIMEOUT_S",
    "DB_NAME",
    "MIGRATIONS",
    "MIN_FTS_CHARS",
    "QUEUE_STATUSES",
    "SQLITE_VERSION",
    "TARGETS",
    "TURN_STATUSES",
    "WRITER_LOCK_NAME",
    "DocumentStore",
    "HookQueue",
    "LedgerTexts",
    "MemoryStore",
    "QueuedTurn",
    "SQLiteStore",
    "Store",
    "DatabaseError",
    "StoreError",
    "Tx",
    "UserDocuments",
    "database_texts",
]

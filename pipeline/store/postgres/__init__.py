"""The PostgreSQL store (`--store postgresql://...`, extra `memroute[postgres]`).

Importing this package imports no psycopg: the modules that talk to the server import it when
they first connect, so `import pipeline`, the CLI's start and the offline path never load it.
"""

from __future__ import annotations

from typing import Any


def open_postgres(dsn: str, *, read_only: bool = False, log_quotes: bool = False) -> tuple[Any, Any]:
    """The PostgreSQL store and its documents, for MemoryPipeline(store=..., documents=...). Callers
    outside the store open it through `Location(...).open()` (pipeline/store/location.py)."""
    from pipeline.store.postgres.documents import PgDocumentStore
    from pipeline.store.postgres.store import PostgresStore

    store = PostgresStore(dsn, read_only=read_only, log_quotes=log_quotes)
    return store, PgDocumentStore(store)


__all__ = ["open_postgres"]

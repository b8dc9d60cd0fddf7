"""The PostgreSQL store (`--store postgresql://...`, extra `memroute[postgres]`).

Importing this package imports no psycopg: the modules that talk to the server import it when
they first connect, so `import pipeline`, the CLI's start and the offline path never load it.
"""

from __future__ import annotations

from typing import Any


def is_postgres_url(location: str) -> bool:
    """A store location naming a PostgreSQL database rather than a folder."""
    return location.startswith(("postgresql://", "postgres://"))


def shown_url(url: str) -> str:
    """The URL with its password masked, for messages and `memroute doctor` (no psycopg needed)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def open_postgres(dsn: str, *, read_only: bool = False, log_quotes: bool = False) -> tuple[Any, Any]:
    """The PostgreSQL store and its documents, for MemoryPipeline(store=..., documents=...)."""
    from pipeline.store.postgres.documents import PgDocumentStore
    from pipeline.store.postgres.store import PostgresStore

    store = PostgresStore(dsn, read_only=read_only, log_quotes=log_quotes)
    return store, PgDocumentStore(store)

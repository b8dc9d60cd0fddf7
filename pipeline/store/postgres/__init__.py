"""The PostgreSQL store (`--store postgresql://...`, extra `memroute[postgres]`).

Importing this package imports no psycopg: the modules that talk to the server import it when
they first connect, so `import pipeline`, the CLI's start and the offline path never load it.
"""

from __future__ import annotations


def is_postgres_url(location: str) -> bool:
    """A store location naming a PostgreSQL database rather than a folder."""
    return location.startswith(("postgresql://", "postgres://"))

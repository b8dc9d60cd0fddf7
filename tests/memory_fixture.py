"""`mem`: one test, both stores. A test that takes `mem` runs on a root (files + SQLite) and on a
PostgreSQL database (skipped when PostgreSQL is not installed); `Memory` reads and seeds either alike."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from pipeline.core import MemoryPipeline


class Memory:
    """Where a test's memory lives: a root (files + SQLite) or a PostgreSQL database; both answer alike."""

    def __init__(self, tmp_path: Path, dsn: str | None) -> None:
        self.root, self.dsn = tmp_path, dsn

    @property
    def on_postgres(self) -> bool:
        return self.dsn is not None

    def pipeline(self, engine: Any = None, **kwargs: Any) -> MemoryPipeline:
        """A pipeline on this memory; `kwargs` are MemoryPipeline's (user_limit, model, ...)."""
        if self.dsn is None:
            return MemoryPipeline(root=self.root, engine=engine, **kwargs)
        from pipeline.store.postgres import open_postgres

        store, documents = open_postgres(self.dsn)
        return MemoryPipeline(root=self.root, engine=engine, store=store, documents=documents, **kwargs)

    def store_args(self) -> list[str]:
        """The CLI arguments that point a `memroute` command at this memory."""
        return ["--root", str(self.root)] + ([] if self.dsn is None else ["--store", self.dsn])

    def read(self, user_id: str, name: str) -> str | None:
        """A document's text as stored (None: never written)."""
        if self.dsn is None:
            path = self.root / user_id / name
            return path.read_text("utf-8") if path.exists() else None
        from pipeline.store.postgres.store import PostgresStore

        with PostgresStore(self.dsn) as store:
            docs = store.read_documents(user_id)
        return docs.user if name == "USER.md" else docs.memory

    def seed(self, user_id: str, name: str, text: str) -> None:
        """A document as a user or an import left it."""
        if self.dsn is None:
            (self.root / user_id).mkdir(parents=True, exist_ok=True)
            (self.root / user_id / name).write_text(text, "utf-8")
            return
        from pipeline.store.postgres.store import PostgresStore

        with PostgresStore(self.dsn) as store, store.transaction() as conn:
            store.write_document(conn, user_id, name, text)

    def rows(self, table: str) -> list[dict[str, Any]]:
        """A table as it is at rest (deleted means gone, not hidden), read past the store's API."""
        if self.dsn is None:
            with sqlite3.connect(self.root / "memroute.db") as conn:
                conn.row_factory = sqlite3.Row
                return [dict(r) for r in conn.execute(f"SELECT * FROM {table}")]  # noqa: S608 (a test's own name)
        from pipeline.store.postgres.store import PostgresStore

        with PostgresStore(self.dsn, read_only=True) as store:
            return [dict(r) for r in store.db.rows(f"SELECT * FROM {table}")]

    def bytes_at_rest(self) -> bytes:
        """Everything this memory keeps: the files under the root and, on PostgreSQL, every row of every table."""
        data = b"".join(p.read_bytes() for p in sorted(self.root.rglob("*")) if p.is_file())
        if self.dsn is None:
            return data
        from pipeline.store.postgres.store import PostgresStore

        with PostgresStore(self.dsn, read_only=True) as store:
            tables = [r["tablename"] for r in store.db.rows("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
            for table in tables:
                for row in store.db.rows(f"SELECT t::text AS row FROM {table} t"):
                    data += row["row"].encode("utf-8") + b"\n"
        return data


@pytest.fixture(params=["sqlite", "postgresql"])
def mem(request: pytest.FixtureRequest, tmp_path: Path) -> Memory:
    """Every test that takes `mem` runs on both stores (PostgreSQL: skipped when not installed)."""
    return Memory(tmp_path, None if request.param == "sqlite" else str(request.getfixturevalue("pg_dsn")))

"""Move a whole store between a root (files + SQLite) and PostgreSQL, either way, losslessly:
`memroute export-store TARGET` / `memroute import-store SOURCE`.

Every row of every table keeps its id, its timestamps and its text exactly (JSON payloads are
copied as the text they are, never re-encoded); USER.md and MEMORY.md move byte for byte between
files and the `documents` table, and the kept copies of documents memroute refused to rewrite
(USER.md.bak, MEMORY.md.bak) between files and `document_copies`. The store's own keys
(`store_keys`: the key of turn ids and imported memories' ids, the key of the decision log's
digests) and the facts about it (`store_facts`) move with it, in the same transaction, so the
moved store makes the same ids and still recognises a replayed turn, a re-import or a resumed
batch; a key is never printed and on a root it lives in the 0600 database. The target must be
empty (nothing is merged or overwritten; a key an empty target made for itself is replaced, since
nothing in it was made with it), and the copy into PostgreSQL is one transaction. Other files in a
user's folder (hand-made notes) are not part of the store and do not move.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.errors import TransferError
from pipeline.store.files import MEMORY_FILE, USER_FILE, UserDir, validate_user_id
from pipeline.store.postgres.records import now_iso
from pipeline.store.private import make_private_dir

# Copy order: a provenance row names its history row.
TABLES: dict[str, str] = {
    "turns": "id",
    "history": "id",
    "provenance": "id",
    "archive": "id",
    "decisions": "id",
    "usage": "id",
    "batch_conversations": "user_id, conversation_key",
    "hook_queue": "seq",
    "candidates": "id",
    "annotations": "id",
}
IDENTITY = {t: k for t, k in TABLES.items() if k in ("id", "seq")}
DOCUMENTS = (USER_FILE, MEMORY_FILE)
COPIES = tuple(f"{name}.bak" for name in DOCUMENTS)
BATCH = 1000


@dataclass
class TransferReport:
    rows: dict[str, int] = field(default_factory=dict)
    documents: int = 0
    copies: int = 0
    users: int = 0
    keys: int = 0  # how many of the store's keys moved (never the keys themselves)

    def as_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "documents": self.documents, "copies": self.copies, "users": self.users,
                "keys": self.keys}


# ---- reading ------------------------------------------------------------------------------


def _sqlite_rows(root: Path, table: str) -> Iterator[list[dict[str, Any]]]:
    from pipeline.store import DB_NAME

    path = root / DB_NAME
    if not path.exists():
        return
    conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        cur = conn.execute(f"SELECT * FROM {table} ORDER BY {TABLES[table]}")
        while batch := cur.fetchmany(BATCH):
            yield [dict(r) for r in batch]
    finally:
        conn.close()


# The store's own rows, never about a user (name -> value column): its keys and the facts about it.
OWN = {"store_keys": "key", "store_facts": "value"}
_LEGACY_FACT = ("unkeyed_ids", "yes")  # as the migration that made store_facts records it


def _sqlite_own(root: Path, table: str) -> list[tuple[str, Any]]:
    """The root's rows of `table` (OWN), in name order. A root of an older version has no
    store_facts yet: it gets the fact its migration would record (turns kept before ids were keyed)."""
    from pipeline.store import DB_NAME

    path = root / DB_NAME
    if not path.exists():
        return []
    conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True)
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is None:
            if table != "store_facts":
                return []
            (kept,) = conn.execute("SELECT EXISTS (SELECT 1 FROM turns) OR EXISTS (SELECT 1 FROM batch_conversations) "
                                   "OR EXISTS (SELECT 1 FROM hook_queue)").fetchone()
            return [_LEGACY_FACT] if kept else []
        return [(str(n), v) for n, v in conn.execute(f"SELECT name, {OWN[table]} FROM {table} ORDER BY name")]
    finally:
        conn.close()


def _pg_own(store: Any, table: str) -> list[tuple[str, Any]]:
    rows = store.db.rows(f"SELECT name, {OWN[table]} AS value FROM {table} ORDER BY name")
    return [(r["name"], r["value"] if isinstance(r["value"], str) else bytes(r["value"])) for r in rows]


def _forget_cached_own(store: Any) -> None:
    """The target's keys and facts were just replaced: drop any it had read before."""
    for holder in (store, getattr(store, "db", None)):
        if holder is not None:
            for name in ("_key_cache", "_digest_key_cache", "_unkeyed_ids"):
                holder.__dict__.pop(name, None)


def _root_documents(root: Path) -> Iterator[tuple[str, str, str]]:
    """(user_id, name, text) for every USER.md / MEMORY.md under the root, users in id order."""
    if not root.is_dir():
        return
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            user_id = validate_user_id(folder.name)
        except ValueError:
            continue
        for name in DOCUMENTS:
            path = folder / name
            if not path.is_file():
                continue
            raw = path.read_bytes()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise TransferError(f"{path} is not valid UTF-8 (byte {e.start}): fix it, then copy again") from None
            yield user_id, name, text


def _root_copies(root: Path) -> Iterator[tuple[str, str, bytes]]:
    """(user_id, name, raw) for every kept copy (USER.md.bak, MEMORY.md.bak) under the root."""
    if not root.is_dir():
        return
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for name in COPIES:
            if (folder / name).is_file():
                yield folder.name, name, (folder / name).read_bytes()


def _pg_rows(store: Any, table: str) -> Iterator[list[dict[str, Any]]]:
    with store.db.connection() as conn, conn.cursor() as cur:
        cur.execute(f"SELECT * FROM {table} ORDER BY {TABLES[table]}")
        while batch := cur.fetchmany(BATCH):
            yield list(batch)


def _pg_documents(store: Any) -> Iterator[tuple[str, str, str]]:
    for row in store.db.rows("SELECT user_id, name, text FROM documents ORDER BY user_id, name"):
        yield row["user_id"], row["name"], row["text"]


# ---- writing ------------------------------------------------------------------------------


def _check_text(table: str, row: dict[str, Any]) -> None:
    for column, value in row.items():
        if isinstance(value, str) and "\x00" in value:
            raise TransferError(f"{table}.{column} of row {row.get('id', row.get('seq'))} holds a NUL character, "
                                "which PostgreSQL text cannot store")


def root_to_postgres(root: Path, store: Any) -> TransferReport:
    """Copy a root's SQLite records and files into an empty PostgreSQL store, in one transaction."""
    report = TransferReport()
    if not _pg_empty(store):
        raise TransferError(f"the target {store.location} already holds data: import-store needs an empty store")
    users: set[str] = set()
    with store.transaction() as conn:
        for table in TABLES:
            count = 0
            for batch in _sqlite_rows(root, table):
                for row in batch:
                    _check_text(table, row)
                columns = list(batch[0])
                placeholders = ", ".join(["%s"] * len(columns))
                with conn.cursor() as cur:
                    cur.executemany(
                        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders})",
                        [tuple(r[c] for c in columns) for r in batch],
                    )
                count += len(batch)
            report.rows[table] = count
            if table in IDENTITY and count:
                key = IDENTITY[table]
                conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{key}'), "
                             f"(SELECT max({key}) FROM {table}))")
        for user_id, name, text in _root_documents(root):
            _check_text("documents", {"text": text})
            store.write_document(conn, user_id, name, text)
            report.documents += 1
            users.add(user_id)
        for user_id, name, raw in _root_copies(root):
            conn.execute(
                "INSERT INTO document_copies (user_id, name, raw, created_at) VALUES (%s, %s, %s, %s)",
                (user_id, name, raw, now_iso()),
            )
            report.copies += 1
        for table, column in OWN.items():
            for name, value in _sqlite_own(root, table):
                conn.execute(f"INSERT INTO {table} (name, {column}) VALUES (%s, %s) "
                             f"ON CONFLICT (name) DO UPDATE SET {column} = EXCLUDED.{column}", (name, value))
                report.keys += table == "store_keys"
    _forget_cached_own(store)
    report.users = len(users)
    return report


def postgres_to_root(store: Any, root: Path) -> TransferReport:
    """Copy a PostgreSQL store into an empty root: its SQLite records first, then the files."""
    from pipeline.store import Store

    report = TransferReport()
    root.mkdir(parents=True, exist_ok=True)
    with Store(root) as target:
        if not _root_empty(root, target):
            raise TransferError(f"the target {root} already holds data: export-store needs an empty root")
        with target.transaction() as conn:
            for table in TABLES:
                count = 0
                for batch in _pg_rows(store, table):
                    columns = list(batch[0])
                    conn.executemany(
                        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                        [tuple(r[c] for c in columns) for r in batch],
                    )
                    count += len(batch)
                report.rows[table] = count
            for table, column in OWN.items():
                for name, value in _pg_own(store, table):
                    conn.execute(f"INSERT INTO {table} (name, {column}) VALUES (?, ?) "
                                 f"ON CONFLICT (name) DO UPDATE SET {column} = excluded.{column}", (name, value))
                    report.keys += table == "store_keys"
        _forget_cached_own(target)
    users: dict[str, dict[str, str]] = {}
    for user_id, name, text in _pg_documents(store):
        users.setdefault(user_id, {})[name] = text
    for user_id, files in users.items():
        udir = UserDir(root, user_id)
        with udir.lock():
            udir.commit("import-store", files, lambda: None)
        report.documents += len(files)
    for row in store.db.rows("SELECT user_id, name, raw FROM document_copies ORDER BY user_id, name"):
        udir = UserDir(root, row["user_id"])
        make_private_dir(udir.path)
        udir.backup(udir.path / row["name"].removesuffix(".bak"), bytes(row["raw"]))  # 0600, as memroute keeps it
        report.copies += 1
    report.users = len(users)
    return report


def _pg_empty(store: Any) -> bool:
    for table in [*TABLES, "documents", "document_copies"]:
        if store.db.one(f"SELECT 1 AS x FROM {table} LIMIT 1") is not None:
            return False
    return True


def _root_empty(root: Path, target: Any) -> bool:
    for table in TABLES:
        if target.conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None:
            return False
    return next(_root_documents(root), None) is None and next(_root_copies(root), None) is None


def copy_store(source: str, target: str) -> TransferReport:
    """`memroute export-store` / `import-store`: copy the store at `source` to the empty store at
    `target`; one of them a root folder, the other a postgresql:// URL."""
    from pipeline.store.location import is_database_url as is_postgres_url
    from pipeline.store.postgres.store import PostgresStore

    from_pg, to_pg = is_postgres_url(source), is_postgres_url(target)
    if from_pg == to_pg:
        kind = "PostgreSQL databases (use pg_dump)" if from_pg else "root folders (copy the folder)"
        raise TransferError(f"export-store/import-store move a store between a root and PostgreSQL, not between two {kind}")
    if from_pg:
        with PostgresStore(source, read_only=True) as store:
            if not store.exists():
                raise TransferError(f"{store.location} holds no memroute store")
            return postgres_to_root(store, Path(target).expanduser())
    root = Path(source).expanduser()
    if not root.is_dir():
        raise TransferError(f"{root} is not a folder")
    with PostgresStore(target) as store:
        return root_to_postgres(root, store)

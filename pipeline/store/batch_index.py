"""`memroute batch`'s index of its input: where each conversation is (file, byte offset, line),
whose it is, when it started and how many turns it has, never its text. A temporary SQLite file
on disk, so memory stays bounded whatever the input size; worker processes open it read-only."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

# Busiest users first (one long user must not finish last), then input order.
_USERS_SQL = "SELECT user_id FROM convs WHERE done = 0 GROUP BY user_id ORDER BY SUM(turns) DESC, MIN(seq)"


class ConversationIndex:
    """Write it once (`create`, `add`..., `finish`), then read it from any process (`open_read_only`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    @classmethod
    def create(cls, path: Path) -> ConversationIndex:
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA journal_mode = OFF")  # a throwaway file: no journal, no fsync
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute(
            """CREATE TABLE convs (seq INTEGER PRIMARY KEY, user_id TEXT NOT NULL, conv_key TEXT NOT NULL,
                                   ts_sort TEXT NOT NULL, file INTEGER NOT NULL, offset INTEGER NOT NULL,
                                   line INTEGER NOT NULL, turns INTEGER NOT NULL, done INTEGER NOT NULL,
                                   UNIQUE (user_id, conv_key))"""
        )
        conn.execute("BEGIN")
        return cls(conn)

    @classmethod
    def open_read_only(cls, path: Path) -> ConversationIndex:
        return cls(sqlite3.connect(f"file:{path}?mode=ro", uri=True))

    def add(
        self, *, user_id: str, conv_key: str, ts_sort: str, file: int, offset: int, line: int, turns: int, done: bool
    ) -> bool:
        """Note one conversation; False when this user already has a conversation with this key."""
        cur = self._conn.execute(
            """INSERT INTO convs (user_id, conv_key, ts_sort, file, offset, line, turns, done)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, conv_key) DO NOTHING""",
            (user_id, conv_key, ts_sort, file, offset, line, turns, int(done)),
        )
        return cur.rowcount != 0

    def finish(self) -> int:
        """End the writing; returns the number of users seen."""
        self._conn.execute("COMMIT")
        self._conn.execute("CREATE INDEX convs_order ON convs (user_id, ts_sort, seq)")
        (users,) = self._conn.execute("SELECT COUNT(DISTINCT user_id) FROM convs").fetchone()
        return int(users)

    def users(self) -> Iterator[str]:
        """Users with conversations still to replay, busiest first."""
        for (user_id,) in self._conn.execute(_USERS_SQL):
            yield user_id

    def pending(self, user_id: str) -> list[tuple[int, int, int]]:
        """(file, offset, line) of the user's conversations to replay, oldest first (input order breaks ties)."""
        return [
            (int(f), int(o), int(line))
            for f, o, line in self._conn.execute(
                "SELECT file, offset, line FROM convs WHERE user_id = ? AND done = 0 ORDER BY ts_sort, seq", (user_id,)
            )
        ]

    def close(self) -> None:
        self._conn.close()

"""PostTurnHook's queue on PostgreSQL: the hook's own rows, as with SQLite, but its owners may live on
other hosts, so "is the owner still alive?" cannot be a pid check. Each open queue holds a
session-level advisory lock named after its owner id on a connection of its own, for as long as it
is open; the server drops that lock the moment the process dies or its host is lost. A starting
hook adopts the unfinished rows of every owner whose lock nobody holds (`pg_try_advisory_lock`
succeeds), on any host.

Rows submitted for shared workers (`owner = 'shared'`, pipeline/store/postgres/queue.py) are never
adopted by a hook: the workers claim them.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from pipeline.store.interface import QueuedTurn
from pipeline.store.postgres.connection import Database
from pipeline.store.postgres.queue import SHARED_OWNER, Scrubber, insert_turn

OWNER_LOCK_CLASS = 0x686F6F6B  # "hook": the first key of an owner's liveness lock


class PgHookQueue:
    """The hook_queue table as one hook sees it. Thread-safe; one instance per hook."""

    def __init__(
        self,
        db: Database,
        *,
        redact: Callable[[str], str],
        redact_payload: Callable[[dict[str, Any]], dict[str, Any]],
        scrubber: Scrubber | None = None,
    ) -> None:
        import psycopg
        from psycopg.rows import dict_row

        self.db = db
        self.redact = redact
        self.redact_payload = redact_payload
        self.scrubber = scrubber
        self.pid = os.getpid()
        self.owner = f"{os.uname().nodename}-{self.pid}-{uuid.uuid4().hex[:12]}"
        # Not pooled: the liveness lock lives exactly as long as this connection.
        self._life = psycopg.connect(db.dsn, autocommit=True, row_factory=dict_row)
        self._life.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", (OWNER_LOCK_CLASS, self.owner))
        self._life_lock = threading.Lock()

    def close(self, *, truncate_wal: bool = True) -> None:
        if truncate_wal and self.scrubber is not None:
            self.scrubber.now()  # a graceful stop leaves no done turn's text in the queue's files
        self.release()

    def release(self) -> None:
        """Let go of the liveness lock: our unfinished rows may be adopted now."""
        with self._life_lock:
            self._life.close()  # releases the liveness lock: our unfinished rows may be adopted

    def _owner_alive(self, owner: str) -> bool:
        if owner == self.owner:
            return True
        with self._life_lock:
            if self._life.closed:
                return True  # released: we look for nobody's turns any more
            row = self._life.execute(
                "SELECT pg_try_advisory_lock(%s, hashtext(%s)) AS got", (OWNER_LOCK_CLASS, owner)
            ).fetchone()
            if row and row["got"]:  # nobody held it: that owner is gone; let go of it again
                self._life.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", (OWNER_LOCK_CLASS, owner))
                return False
        return True

    # ---- submit ------------------------------------------------------------------------

    def insert(self, user_id: str, turn_id: str, conversation_id: str | None, payload: dict[str, Any]) -> QueuedTurn | None:
        """Persist a new turn (committed when this returns); None when (user, turn id) was submitted before."""
        now = time.time()
        seq = insert_turn(self.db, user_id, turn_id, conversation_id, payload, self.owner, now)
        if seq is None:
            return None
        return QueuedTurn(seq, user_id, turn_id, conversation_id, payload, submitted_at=now)

    # ---- worker side ---------------------------------------------------------------------

    def _update(self, sql: str, params: list[tuple[Any, ...]]) -> None:
        if not params:
            return
        with self.db.pool().connection() as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(sql, params)

    def start(self, rows: list[QueuedTurn], group_seq: int | None) -> None:
        now = time.time()
        self._update(
            "UPDATE hook_queue SET status = 'running', group_seq = %s, updated_at = %s WHERE seq = %s AND owner = %s",
            [(group_seq, now, r.seq, self.owner) for r in rows],
        )

    def finish(self, rows: Iterable[QueuedTurn]) -> None:
        now = time.time()
        self._update(
            """UPDATE hook_queue SET status = 'done', payload = NULL, error = NULL, next_attempt_at = NULL,
               attempts = attempts + 1, updated_at = %s WHERE seq = %s AND owner = %s""",
            [(now, r.seq, self.owner) for r in rows],
        )

    def scrub(self) -> bool:
        """Rewrite the queue soon (the old versions of done rows hold their text): see Scrubber."""
        if self.scrubber is not None:
            self.scrubber.soon()
        return True

    def fail(self, rows: Iterable[QueuedTurn], error: str, next_attempt_at: float) -> None:
        now = time.time()
        self._update(
            """UPDATE hook_queue SET status = 'failed', error = %s, attempts = attempts + 1, next_attempt_at = %s,
               payload = %s, updated_at = %s WHERE seq = %s AND owner = %s""",
            [(self.redact(error), next_attempt_at, self._redacted(r), now, r.seq, self.owner) for r in rows],
        )

    def park(self, rows: Iterable[QueuedTurn], error: str) -> None:
        now = time.time()
        self._update(
            """UPDATE hook_queue SET status = 'parked', error = %s, attempts = attempts + 1, next_attempt_at = NULL,
               payload = %s, updated_at = %s WHERE seq = %s AND owner = %s""",
            [(self.redact(error), self._redacted(r), now, r.seq, self.owner) for r in rows],
        )

    def _redacted(self, row: QueuedTurn) -> str:
        return json.dumps(self.redact_payload(row.payload), ensure_ascii=False, separators=(",", ":"))

    def adopt_orphans(self) -> list[QueuedTurn]:
        """Claim the unfinished rows of owners that died since (their lock free); only rows we did
        not own, in seq order."""
        owners = [r["owner"] for r in self.db.rows(
            """SELECT DISTINCT owner FROM hook_queue
               WHERE status IN ('queued', 'running', 'failed') AND owner IS DISTINCT FROM %s AND owner IS DISTINCT FROM %s""",
            (SHARED_OWNER, self.owner),
        )]
        dead = [o for o in owners if o is None or not self._owner_alive(o)]
        if not dead:
            return []
        taken: list[dict[str, Any]] = []
        with self.db.pool().connection() as conn, conn.transaction():
            for owner in dead:
                taken += conn.execute(
                    """UPDATE hook_queue SET owner_pid = %s, owner = %s,
                           status = CASE status WHEN 'running' THEN 'queued' ELSE status END
                       WHERE status IN ('queued', 'running', 'failed') AND owner IS NOT DISTINCT FROM %s
                         AND payload IS NOT NULL
                       RETURNING *""",
                    (self.pid, self.owner, owner),
                ).fetchall()
        return sorted((_row_turn(r) for r in taken), key=lambda t: t.seq)

    def adopt_unfinished(self) -> list[QueuedTurn]:
        """Claim the unfinished rows of owners that are gone (on any host); return ours in seq order."""
        owners = [r["owner"] for r in self.db.rows(
            """SELECT DISTINCT owner FROM hook_queue
               WHERE status IN ('queued', 'running', 'failed') AND owner IS DISTINCT FROM %s""",
            (SHARED_OWNER,),
        )]
        dead = [o for o in owners if o is None or not self._owner_alive(o)]
        with self.db.pool().connection() as conn, conn.transaction():
            # A row whose payload the pipeline cleared was applied (in that same transaction) by a
            # process gone before it marked the row done: it is done.
            conn.execute(
                """UPDATE hook_queue SET status = 'done', error = NULL, next_attempt_at = NULL, updated_at = %s
                   WHERE status IN ('queued', 'running') AND payload IS NULL AND owner IS DISTINCT FROM %s""",
                (time.time(), SHARED_OWNER),
            )
            for owner in dead:
                conn.execute(
                    """UPDATE hook_queue SET owner_pid = %s, owner = %s,
                           status = CASE status WHEN 'running' THEN 'queued' ELSE status END
                       WHERE status IN ('queued', 'running', 'failed') AND owner IS NOT DISTINCT FROM %s""",
                    (self.pid, self.owner, owner),
                )
            rows = conn.execute(
                "SELECT * FROM hook_queue WHERE status IN ('queued', 'failed') AND owner = %s ORDER BY seq",
                (self.owner,),
            ).fetchall()
        return [_row_turn(r) for r in rows]

    def requeue_parked(self, user_id: str | None = None) -> list[QueuedTurn]:
        """Parked rows back to queued (owned by us, attempts reset), in seq order."""
        clause, params = ("AND user_id = %s", (user_id,)) if user_id is not None else ("", ())
        with self.db.pool().connection() as conn, conn.transaction():
            rows = conn.execute(
                f"SELECT * FROM hook_queue WHERE status = 'parked' {clause} ORDER BY seq FOR UPDATE", params
            ).fetchall()
            if rows:
                conn.execute(
                    """UPDATE hook_queue SET status = 'queued', attempts = 0, owner_pid = %s, owner = %s,
                       updated_at = %s WHERE seq = ANY(%s)""",
                    (self.pid, self.owner, time.time(), [r["seq"] for r in rows]),
                )
        turns = [_row_turn(r) for r in rows]
        for t in turns:
            t.attempts = 0
        return turns

    def prune_done(self, older_than_s: float) -> int:
        with self.db.pool().connection() as conn:
            cur = conn.execute(
                "DELETE FROM hook_queue WHERE status = 'done' AND updated_at < %s", (time.time() - older_than_s,)
            )
            return int(cur.rowcount)

    def parked_count(self) -> int:
        row = self.db.one("SELECT COUNT(*) AS n FROM hook_queue WHERE status = 'parked'")
        return int(row["n"]) if row else 0

    def settled_done(self, user_id: str, turn_id: str) -> bool:
        return self.db.one("SELECT 1 AS x FROM hook_queue WHERE user_id = %s AND turn_id = %s AND status = 'done'",
                           (user_id, turn_id)) is not None


def _row_turn(row: dict[str, Any]) -> QueuedTurn:
    return QueuedTurn(
        seq=int(row["seq"]),
        user_id=row["user_id"],
        turn_id=row["turn_id"],
        conversation_id=row["conversation_id"],
        payload=json.loads(row["payload"]) if row["payload"] else {},
        attempts=int(row["attempts"]),
        next_attempt_at=row["next_attempt_at"],
        group_seq=None if row["group_seq"] is None else int(row["group_seq"]),
        submitted_at=float(row["submitted_at"]),
    )

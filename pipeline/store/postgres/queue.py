"""The shared turn queue on PostgreSQL: any number of worker processes, on any number of hosts.

Promises, and how each is kept:
- Durable on accept: `submit` commits the row (autocommit INSERT) before it returns.
- Per-user order: a worker may claim only the head of a user's line, the row whose user has no
  earlier unfinished row (queued, running or failed); the head is row-locked while it runs
  (`FOR UPDATE SKIP LOCKED`), so no other worker takes it, nor the rows behind it.
- Exactly-once application: the claim stays open (one transaction) while the turn is processed;
  the turn itself commits in the pipeline's own transaction, idempotent by turn id (a turn the
  turns table already marks done is answered "duplicate_turn", never applied again).
- A worker killed mid-turn (SIGKILL, lost host): the server ends its session, the claim's
  transaction rolls back, the row is queued again and the next worker takes it; if the turn had
  committed before the kill, the rerun is the duplicate above.
- Retries: a failed turn waits `next_attempt_at` (backoff from the caller's policy) and blocks the
  user's later turns until it succeeds or is parked after `max_attempts`; a parked row keeps only
  its redacted text. `requeue_parked` puts it back at the END of the user's line (new seq), as the
  SQLite hook does.
- Privacy: a done row's payload is cleared in the same UPDATE that marks it done (a hook's own row,
  in the pipeline's transaction that applied the turn). An UPDATE leaves the old row version in
  the table's pages until they are rewritten, so after turns are done the queue is rewritten
  (`VACUUM FULL hook_queue`, `Scrubber`): no applied turn's text stays in its files.

Its rows carry `owner = 'shared'`; a PostTurnHook's own rows (pipeline/store/postgres/hook_queue.py) name
their hook and are not claimed here, but they do count as earlier turns of their user.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from pipeline.store.postgres.connection import Database

log = logging.getLogger("memroute.queue")

QUEUE_STATUSES = ("queued", "running", "failed", "done", "parked")
SCRUB_INTERVAL_S = 2.0  # at most one rewrite of the queue every this many seconds
SCRUB_LOCK_TIMEOUT = "500ms"  # a rewrite never waits longer than this for the table
SHARED_OWNER = "shared"  # rows for the shared workers; a hook's own rows name the hook instead

# The head of each user's line that is due: no earlier unfinished row of the same user.
_CLAIM = """
SELECT * FROM hook_queue AS q
WHERE q.status IN ('queued', 'failed') AND q.owner = 'shared'
  AND (q.next_attempt_at IS NULL OR q.next_attempt_at <= %(now)s)
  AND NOT EXISTS (SELECT 1 FROM hook_queue AS p
                  WHERE p.user_id = q.user_id AND p.seq < q.seq AND p.status IN ('queued', 'running', 'failed'))
ORDER BY q.seq
LIMIT 1
FOR UPDATE SKIP LOCKED
"""


@dataclass
class QueueRow:
    seq: int
    user_id: str
    turn_id: str
    conversation_id: str | None
    payload: dict[str, Any]
    attempts: int
    submitted_at: float


class Claim:
    """One claimed row, inside its open transaction. Settle it once: done, fail or park."""

    def __init__(self, queue: PgQueue, conn: Any, row: QueueRow) -> None:
        self.queue = queue
        self.conn = conn
        self.row = row
        self.settled: str | None = None

    def done(self) -> None:
        self._update("status = 'done', payload = NULL, error = NULL, next_attempt_at = NULL", ())
        self.settled = "done"

    def fail(self, error: str, next_attempt_at: float) -> None:
        self._update("status = 'failed', error = %s, next_attempt_at = %s, payload = %s",
                     (self.queue.redact(error), next_attempt_at, self.queue.redacted_payload(self.row.payload)))
        self.settled = "failed"

    def park(self, error: str) -> None:
        self._update("status = 'parked', error = %s, next_attempt_at = NULL, payload = %s",
                     (self.queue.redact(error), self.queue.redacted_payload(self.row.payload)))
        self.settled = "parked"

    def _update(self, assignments: str, params: tuple[Any, ...]) -> None:
        if self.settled is not None:
            raise RuntimeError(f"queue row {self.row.seq} already settled ({self.settled})")
        self.conn.execute(
            f"""UPDATE hook_queue SET {assignments}, attempts = attempts + 1, owner_pid = %s, updated_at = %s
                WHERE seq = %s""",
            (*params, os.getpid(), time.time(), self.row.seq),
        )


class PgQueue:
    """The hook_queue table of a PostgresStore. Thread-safe: each claim uses its own pooled connection."""

    def __init__(
        self,
        db: Database,
        *,
        redact: Callable[[str], str],
        redact_payload: Callable[[dict[str, Any]], dict[str, Any]],
        scrubber: Scrubber | None = None,
    ) -> None:
        self.db = db
        self.redact = redact
        self.redact_payload = redact_payload
        self.scrubber = scrubber

    def secret_key(self, name: str) -> bytes:
        """The database's key `name` (the store's: MemoryStore.secret_key), for ids made by `submit` callers."""
        return self.db.secret_key(name)

    def redacted_payload(self, payload: dict[str, Any]) -> str:
        return json.dumps(self.redact_payload(payload), ensure_ascii=False, separators=(",", ":"))

    def submit(self, user_id: str, turn_id: str, conversation_id: str | None, payload: dict[str, Any]) -> int | None:
        """Persist a turn (committed when this returns); its seq, or None when this (user, turn id) was
        submitted before."""
        return insert_turn(self.db, user_id, turn_id, conversation_id, payload, SHARED_OWNER, time.time())

    @contextmanager
    def claim(self, now: float | None = None) -> Iterator[Claim | None]:
        """The next due head-of-line row, locked until the block ends (None when there is none).
        The block settles it (done/fail/park); leaving it unsettled, or raising, leaves it queued."""
        with self.db.pool().connection() as conn, conn.transaction():
            found = conn.execute(_CLAIM, {"now": time.time() if now is None else now}).fetchone()
            if found is None:
                yield None
                return
            yield Claim(self, conn, _row(found))

    def requeue_parked(self, user_id: str | None = None) -> int:
        """Parked rows back to queued, attempts reset, at the end of their user's line; how many."""
        clause, params = ("AND user_id = %s", (user_id,)) if user_id is not None else ("", ())
        with self.db.pool().connection() as conn, conn.transaction():
            parked = conn.execute(
                f"SELECT seq FROM hook_queue WHERE status = 'parked' {clause} ORDER BY seq FOR UPDATE", params
            ).fetchall()
            for row in parked:  # one by one, so they keep their order among themselves
                conn.execute(
                    """UPDATE hook_queue SET status = 'queued', attempts = 0, next_attempt_at = NULL, owner = 'shared',
                           seq = nextval(pg_get_serial_sequence('hook_queue', 'seq')), updated_at = %s
                       WHERE seq = %s""",
                    (time.time(), row["seq"]),
                )
            return len(parked)

    def prune_done(self, older_than_s: float) -> int:
        with self.db.pool().connection() as conn:
            cur = conn.execute(
                "DELETE FROM hook_queue WHERE status = 'done' AND updated_at < %s", (time.time() - older_than_s,)
            )
            return int(cur.rowcount)

    def pending(self) -> int:
        """Rows not finished yet (queued, running, failed)."""
        row = self.db.one("SELECT COUNT(*) AS n FROM hook_queue WHERE status IN ('queued', 'running', 'failed')")
        return int(row["n"]) if row else 0

    def parked_count(self) -> int:
        row = self.db.one("SELECT COUNT(*) AS n FROM hook_queue WHERE status = 'parked'")
        return int(row["n"]) if row else 0

    def status(self) -> dict[str, Any]:
        """Counts per status, overall and per user, and the latest error (redacted): hook_status's shape."""
        zero = {s: 0 for s in QUEUE_STATUSES}
        total: dict[str, Any] = {**zero, "last_error": None, "last_error_at": None}
        users: dict[str, dict[str, Any]] = {}
        for row in self.db.rows("SELECT user_id, status, COUNT(*) AS n FROM hook_queue GROUP BY user_id, status"):
            user = users.setdefault(row["user_id"], {**zero, "last_error": None, "last_error_at": None})
            user[row["status"]] = int(row["n"])
            total[row["status"]] += int(row["n"])
        for row in self.db.rows(
            """SELECT DISTINCT ON (user_id) user_id, error, updated_at FROM hook_queue WHERE error IS NOT NULL
               ORDER BY user_id, updated_at DESC"""
        ):
            users[row["user_id"]]["last_error"] = row["error"]
            users[row["user_id"]]["last_error_at"] = _iso(row["updated_at"])
            if total["last_error_at"] is None or row["updated_at"] > total["_last_ts"]:
                total.update(last_error=row["error"], last_error_at=_iso(row["updated_at"]), _last_ts=row["updated_at"])
        total.pop("_last_ts", None)
        total["users"] = users
        return total


class Scrubber:
    """Rewrites hook_queue after turns are done, so the old versions of their rows (the text they
    were submitted with) leave the table's files; VACUUM alone marks that space free and keeps its
    bytes. Soon after a turn is done, at most once every SCRUB_INTERVAL_S, never waiting more than
    SCRUB_LOCK_TIMEOUT for the table (a busy queue is rewritten at the next chance)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._last = 0.0
        self._closed = False

    def soon(self) -> None:
        with self._lock:
            if self._closed or self._timer is not None:
                return
            delay = max(0.0, self._last + SCRUB_INTERVAL_S - time.monotonic())
            self._timer = threading.Timer(delay, self._run)
            self._timer.daemon = True
            self._timer.start()

    def _run(self) -> None:
        with self._lock:
            self._timer = None
            if self._closed:
                return
            self._last = time.monotonic()
        if not self.now():
            self.soon()  # the table was busy: try again after the interval

    def now(self) -> bool:
        """Rewrite the queue table now; False when it stayed busy past the lock timeout."""
        try:
            with self.db.pool().connection() as conn:
                conn.execute(f"SET lock_timeout = '{SCRUB_LOCK_TIMEOUT}'")
                try:
                    conn.execute("VACUUM FULL hook_queue")
                finally:
                    conn.execute("RESET lock_timeout")
        except Exception as exc:  # a busy table, a closing pool: the next done turn asks again
            log.debug("queue scrub skipped: %s", type(exc).__name__)
            return False
        return True

    def close(self) -> None:
        with self._lock:
            self._closed = True
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()


def insert_turn(
    db: Database, user_id: str, turn_id: str, conversation_id: str | None, payload: dict[str, Any], owner: str,
    now: float,
) -> int | None:
    """One queued row, committed (autocommit) before this returns; its seq, or None when (user, turn id)
    is there already. `owner`: SHARED_OWNER for the shared workers, else the hook instance."""
    with db.pool().connection() as conn:
        row = conn.execute(
            """INSERT INTO hook_queue (user_id, turn_id, conversation_id, status, payload, owner_pid, owner,
                                      submitted_at, updated_at)
               VALUES (%s, %s, %s, 'queued', %s, %s, %s, %s, %s)
               ON CONFLICT (user_id, turn_id) DO NOTHING RETURNING seq""",
            (user_id, turn_id, conversation_id, json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
             os.getpid(), owner, now, now),
        ).fetchone()
    return None if row is None else int(row["seq"])


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="seconds")


def _row(r: dict[str, Any]) -> QueueRow:
    return QueueRow(
        seq=int(r["seq"]), user_id=r["user_id"], turn_id=r["turn_id"], conversation_id=r["conversation_id"],
        payload=json.loads(r["payload"]) if r["payload"] else {}, attempts=int(r["attempts"]),
        submitted_at=float(r["submitted_at"]),
    )

"""The SQLite durable per-user turn queue behind PostTurnHook: one table (`hook_queue`, migration
m006_hook_queue in pipeline/store/migrations.py) in the store's db. Opened by
`SQLiteStore.open_hook_queue()`; the hook sees it as a `HookQueue` (pipeline/store/interface.py).

A row is one submitted turn. Its life: queued -> running -> done (payload cleared), or
running -> failed (a retry is scheduled; payload kept redacted only) -> ... -> parked (redacted).
`seq` (the rowid) is the submission order; a user's turns are processed in `seq` order.

Debounced turns that were processed together share `group_seq` (the leader's seq), written
before processing starts, so a restart re-forms exactly the same group and re-runs it under
the leader's turn id: the pipeline then sees a turn it already committed and answers
"duplicate_turn" instead of applying it twice.

Ownership: `owner_pid` is the process whose hook accepted (or adopted) the row, `owner` that
hook instance. A starting hook adopts the unfinished rows of processes that are gone (and of
its own pid: a restarted container often reuses it), so several app processes on one root
never run the same row; a closed hook whose worker was still inside a model call cannot
overwrite the row's status once a newer hook owns it (every update checks `owner`).

Two connections: `submit` (used only under the hook's submit lock) never waits in SQLite's
busy handler, whose first sleep is already 1 ms; it spins in 100 us steps instead and leaves
WAL checkpoints to the other connection, so a checkpoint never lands on a chat request.
`work` (workers, recovery, status) waits normally.

No raw text once a turn is applied: the pipeline clears the row's payload in the transaction that
applies the turn (SQLiteStore.mark_turn), every connection overwrites what it frees
(secure_delete), and after each settled group the hook truncates the WAL (`scrub`), whose old
frames still held the submitted text. A row found cleared but not done (its process was killed
in between) was applied: recovery marks it done.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pipeline.store.interface import QUEUE_STATUSES, QueuedTurn, pid_alive
from pipeline.store.private import FILE_MODE, make_private_dir

SPIN_SLEEP_S = 0.0001
OWNERS_DIR = ".memroute.owners"  # one lock file per open hook queue (its liveness)
BUSY_TIMEOUT_S = 30.0


def _iso(ts: float | None) -> str | None:
    return None if ts is None else datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="seconds")


def _connect(path: Path, *, busy_timeout_s: float) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
    # The store set WAL on the file already (it is persistent); NORMAL survives any process crash.
    conn.execute("PRAGMA synchronous = NORMAL")
    # Freed space (a cleared payload, a page a split left behind) is overwritten with zeros.
    conn.execute("PRAGMA secure_delete = ON")
    return conn


class SQLiteHookQueue:
    """The hook_queue table. Thread-safe; one instance per hook."""

    def __init__(
        self,
        db_path: Path,
        *,
        redact: Callable[[str], str],
        redact_payload: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        fsync_submits: bool = False,
    ) -> None:
        self.path = db_path
        self.redact = redact
        # A turn that failed (retry scheduled) or was parked keeps only its redacted text.
        self.redact_payload = redact_payload or (lambda payload: dict(_redact_json(payload, redact)))
        self._submit = _connect(db_path, busy_timeout_s=0)
        self._submit.execute("PRAGMA wal_autocheckpoint = 0")
        if fsync_submits:
            self._submit.execute("PRAGMA synchronous = FULL")
        self._work = _connect(db_path, busy_timeout_s=BUSY_TIMEOUT_S)
        self._work_lock = threading.Lock()
        self.pid = os.getpid()
        self.owner = f"{self.pid}-{os.urandom(6).hex()}"
        # Liveness: this queue holds an exclusive lock on a file named after its owner for as long as
        # it is open; the kernel drops it the moment the process dies (reaped or not), so "is that
        # owner alive?" is "is its lock held?" - no pid check, no pid reuse to fool it.
        self._owners_dir = db_path.parent / OWNERS_DIR
        make_private_dir(self._owners_dir)
        self._life_fd: int | None = os.open(self._owners_dir / self.owner, os.O_RDWR | os.O_CREAT, FILE_MODE)
        fcntl.flock(self._life_fd, fcntl.LOCK_EX)

    def close(self, *, truncate_wal: bool = True) -> None:
        with self._work_lock:
            if truncate_wal:
                # Old WAL frames can still hold cleared payloads; truncate them away (best effort).
                try:
                    self._work.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error:
                    pass
            self._work.close()
        self._submit.close()
        self.release()

    def release(self) -> None:
        """Let go of the owner lock: our unfinished rows may be adopted now (a closing hook whose
        worker is still inside a model call releases it too; every update checks `owner`)."""
        with self._work_lock:
            if self._life_fd is not None:
                (self._owners_dir / self.owner).unlink(missing_ok=True)
                os.close(self._life_fd)
                self._life_fd = None

    def _owner_alive(self, owner: str | None, pid: int | None) -> bool:
        """Whether the hook that owns a row still runs: its owner lock is held. A row of a version
        without owner locks (no lock file) falls back to its pid (zombies count as dead)."""
        if owner == self.owner:
            return True
        path = self._owners_dir / owner if owner and "/" not in owner else None
        if path is None or not path.exists():  # an older version's row
            return pid is not None and int(pid) != self.pid and pid_alive(int(pid))
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:  # closed just now
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        else:
            path.unlink(missing_ok=True)  # a dead owner's lock file: nobody holds it any more
            return False
        finally:
            os.close(fd)

    # ---- submit (caller holds the hook's submit lock) ---------------------------------

    def insert(self, user_id: str, turn_id: str, conversation_id: str | None, payload: dict[str, Any]) -> QueuedTurn | None:
        """Persist a new turn; None when this (user, turn id) was submitted before."""
        now = time.time()
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                cur = self._submit.execute(
                    """INSERT OR IGNORE INTO hook_queue
                       (user_id, turn_id, conversation_id, status, payload, owner_pid, owner, submitted_at, updated_at)
                       VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?)""",
                    (user_id, turn_id, conversation_id, data, self.pid, self.owner, now, now),
                )
                break
            except sqlite3.OperationalError as exc:
                if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() > deadline:
                    raise
                time.sleep(SPIN_SLEEP_S)
        if cur.rowcount == 0:
            return None
        seq = cur.lastrowid
        assert seq is not None
        return QueuedTurn(seq, user_id, turn_id, conversation_id, payload, submitted_at=now)

    # ---- worker side ------------------------------------------------------------------

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._work_lock:
            self._work.execute("BEGIN IMMEDIATE")
            try:
                yield self._work
            except BaseException:
                self._work.execute("ROLLBACK")
                raise
            self._work.execute("COMMIT")

    def start(self, rows: list[QueuedTurn], group_seq: int | None) -> None:
        """Mark rows running; a debounced group records its leader first (see module doc)."""
        now = time.time()
        with self._tx() as conn:
            conn.executemany(
                "UPDATE hook_queue SET status = 'running', group_seq = ?, updated_at = ? WHERE seq = ? AND owner = ?",
                [(group_seq, now, r.seq, self.owner) for r in rows],
            )

    def finish(self, rows: Iterable[QueuedTurn]) -> None:
        """Done: the payload is cleared so the turn's text does not stay at rest (the pipeline
        cleared it already, in the transaction that applied the turn); the hook then scrubs the
        WAL frames that still held it (`scrub`)."""
        now = time.time()
        with self._tx() as conn:
            conn.executemany(
                """UPDATE hook_queue SET status = 'done', payload = NULL, error = NULL, next_attempt_at = NULL,
                   attempts = attempts + 1, updated_at = ? WHERE seq = ? AND owner = ?""",
                [(now, r.seq, self.owner) for r in rows],
            )

    def scrub(self) -> bool:
        """Truncate the WAL: its old frames hold the text of turns since cleared (the database file
        holds only their cleared pages once checkpointed; secure_delete zeroed the rest). True when
        the WAL is empty now; False when a reader kept it (the next scrub catches up)."""
        with self._work_lock:
            try:
                row = self._work.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            except sqlite3.Error:
                return False
        return bool(row) and not row[0]

    def fail(self, rows: Iterable[QueuedTurn], error: str, next_attempt_at: float) -> None:
        now = time.time()
        with self._tx() as conn:
            conn.executemany(
                """UPDATE hook_queue SET status = 'failed', error = ?, attempts = attempts + 1,
                   next_attempt_at = ?, payload = ?, updated_at = ? WHERE seq = ? AND owner = ?""",
                [(self.redact(error), next_attempt_at, self._redacted(r), now, r.seq, self.owner) for r in rows],
            )

    def park(self, rows: Iterable[QueuedTurn], error: str) -> None:
        """Give up for now: keep the turn for `retry`, but only its redacted text."""
        now = time.time()
        with self._tx() as conn:
            conn.executemany(
                """UPDATE hook_queue SET status = 'parked', error = ?, attempts = attempts + 1,
                   next_attempt_at = NULL, payload = ?, updated_at = ? WHERE seq = ? AND owner = ?""",
                [(self.redact(error), self._redacted(r), now, r.seq, self.owner) for r in rows],
            )

    def _redacted(self, row: QueuedTurn) -> str:
        return json.dumps(self.redact_payload(row.payload), ensure_ascii=False, separators=(",", ":"))

    def adopt_orphans(self) -> list[QueuedTurn]:
        """Claim the unfinished rows of owners that died since; only rows we did not own, in seq order."""
        with self._work_lock:
            owners = list(self._work.execute(
                """SELECT DISTINCT owner, owner_pid FROM hook_queue
                   WHERE status IN ('queued', 'running', 'failed') AND owner IS NOT ?""",
                (self.owner,),
            ))
        dead = [(o, p) for o, p in owners if not self._owner_alive(o, p)]
        if not dead:
            return []
        taken: list[sqlite3.Row] = []
        with self._tx() as conn:
            conn.row_factory = sqlite3.Row
            try:
                for owner, _ in dead:
                    rows = list(conn.execute(
                        """SELECT * FROM hook_queue WHERE owner IS ? AND status IN ('queued', 'running', 'failed')
                           AND payload IS NOT NULL ORDER BY seq""",
                        (owner,),
                    ))
                    conn.execute(
                        """UPDATE hook_queue SET owner_pid = ?, owner = ?, status = CASE status WHEN 'running'
                           THEN 'queued' ELSE status END WHERE owner IS ? AND status IN ('queued', 'running', 'failed')""",
                        (self.pid, self.owner, owner),
                    )
                    taken += rows
            finally:
                conn.row_factory = None
        return sorted((_row_turn(r) for r in taken), key=lambda t: t.seq)

    def adopt_unfinished(self) -> list[QueuedTurn]:
        """At start: claim the unfinished rows of every owner that is gone (its lock free; a row of an
        older version: its pid dead, or ours - a restarted container often reuses it); return all
        the unfinished rows we own now, in seq order."""
        with self._work_lock:
            owners = list(self._work.execute(
                "SELECT DISTINCT owner, owner_pid FROM hook_queue WHERE status IN ('queued', 'running', 'failed')"
            ))
        dead = [o for o, p in owners if o != self.owner and (o is None or not self._owner_alive(o, p))]
        with self._tx() as conn:
            # A row whose payload the pipeline cleared was applied (in that same transaction) by a
            # process killed before it marked the row done: it is done.
            conn.execute(
                """UPDATE hook_queue SET status = 'done', error = NULL, next_attempt_at = NULL, updated_at = ?
                   WHERE status IN ('queued', 'running') AND payload IS NULL""",
                (time.time(),),
            )
            rows: list[sqlite3.Row] = []
            conn.row_factory = sqlite3.Row
            try:
                for owner in dead:
                    conn.execute(
                        """UPDATE hook_queue SET owner_pid = ?, owner = ?, status = CASE status WHEN 'running'
                           THEN 'queued' ELSE status END WHERE status IN ('queued', 'running', 'failed') AND owner IS ?""",
                        (self.pid, self.owner, owner),
                    )
                rows = list(conn.execute(
                    """SELECT * FROM hook_queue WHERE status IN ('queued', 'failed') AND owner = ?
                       ORDER BY seq""",
                    (self.owner,),
                ))
            finally:
                conn.row_factory = None
        self.scrub()  # frames a killed process left in the WAL
        return [_row_turn(r) for r in rows]

    def requeue_parked(self, user_id: str | None = None) -> list[QueuedTurn]:
        """Parked rows back to queued (owned by us, attempts reset), in seq order."""
        clause, params = ("AND user_id = ?", (user_id,)) if user_id is not None else ("", ())
        with self._tx() as conn:
            conn.row_factory = sqlite3.Row
            try:
                rows = list(conn.execute(f"SELECT * FROM hook_queue WHERE status = 'parked' {clause} ORDER BY seq", params))
                conn.executemany(
                    """UPDATE hook_queue SET status = 'queued', attempts = 0, owner_pid = ?, owner = ?, updated_at = ?
                       WHERE seq = ?""",
                    [(self.pid, self.owner, time.time(), r["seq"]) for r in rows],
                )
            finally:
                conn.row_factory = None
        turns = [_row_turn(r) for r in rows]
        for t in turns:
            t.attempts = 0
        return turns

    def prune_done(self, older_than_s: float) -> int:
        """Forget finished rows older than this (the pipeline's own turn log still knows they are done)."""
        with self._tx() as conn:
            cur = conn.execute(
                "DELETE FROM hook_queue WHERE status = 'done' AND updated_at < ?", (time.time() - older_than_s,)
            )
        return cur.rowcount

    def parked_count(self) -> int:
        with self._work_lock:
            return int(self._work.execute("SELECT COUNT(*) FROM hook_queue WHERE status = 'parked'").fetchone()[0])

    def settled_done(self, user_id: str, turn_id: str) -> bool:
        with self._work_lock:
            row = self._work.execute("SELECT 1 FROM hook_queue WHERE user_id = ? AND turn_id = ? AND status = 'done'",
                                     (user_id, turn_id)).fetchone()
        return row is not None


def _row_turn(row: sqlite3.Row) -> QueuedTurn:
    return QueuedTurn(
        seq=row["seq"],
        user_id=row["user_id"],
        turn_id=row["turn_id"],
        conversation_id=row["conversation_id"],
        payload=json.loads(row["payload"]) if row["payload"] else {},
        attempts=row["attempts"],
        next_attempt_at=row["next_attempt_at"],
        group_seq=row["group_seq"],
        submitted_at=row["submitted_at"],
    )


def _redact_json(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redact_json(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_json(v, redact) for v in value]
    return value


def queue_status(conn: sqlite3.Connection | None) -> dict[str, Any]:
    """Counts per status, overall and per user, and the most recent error (already redacted).
    `conn` None (a database without the table yet): all zeros."""
    zero = {s: 0 for s in QUEUE_STATUSES}
    total: dict[str, Any] = {**zero, "last_error": None, "last_error_at": None}
    users: dict[str, dict[str, Any]] = {}
    if conn is None:
        return {**total, "users": users}
    factory, conn.row_factory = conn.row_factory, sqlite3.Row
    try:
        for row in conn.execute("SELECT user_id, status, COUNT(*) AS n FROM hook_queue GROUP BY user_id, status"):
            user = users.setdefault(row["user_id"], {**zero, "last_error": None, "last_error_at": None})
            user[row["status"]] = row["n"]
            total[row["status"]] += row["n"]
        for row in conn.execute(
            """SELECT user_id, error, updated_at FROM hook_queue AS q WHERE error IS NOT NULL AND updated_at =
               (SELECT MAX(updated_at) FROM hook_queue WHERE user_id = q.user_id AND error IS NOT NULL)"""
        ):
            users[row["user_id"]]["last_error"] = row["error"]
            users[row["user_id"]]["last_error_at"] = _iso(row["updated_at"])
        last = conn.execute(
            "SELECT error, updated_at FROM hook_queue WHERE error IS NOT NULL ORDER BY updated_at DESC LIMIT 1"
        ).fetchone()
        if last is not None:
            total["last_error"], total["last_error_at"] = last["error"], _iso(last["updated_at"])
        total["users"] = users
        return total
    finally:
        conn.row_factory = factory

"""The SQLite side of memroute: one database per root, ROOT/memroute.db.

It holds what the two ledger files cannot: where every field and entry came from
(provenance), every change with its old and new value (history), every value that left a
file (archive, full-text searchable in any language via the FTS5 trigram tokenizer), every
routing decision with its usage (decision log), and the status of every turn (idempotency
and `memroute retry`).

Connections, transactions and migrations: pipeline/store/sqlite_db.py.

Privacy: every user-text column goes through `redact` (pipeline/guards/redaction.py, the one
redaction) before it is stored, except the history old/new values, provenance values and the
archive text, which are exactly what the ledger files held. A skipped statement keeps its route
and reason and only a digest of its quote, unless `log_quotes` (debugging) is on. `purge_user`,
`purge_text` and `compact` erase a user's values for `forget --purge` and `delete-user`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.store.hook_queue import SQLiteHookQueue, queue_status
from pipeline.store.interface import TARGETS, TURN_STATUSES, HookQueue, MemoryStore
from pipeline.store.migrations import MIGRATIONS
from pipeline.store.rules import (
    DECISION_COLUMNS,
    USER_TABLES,
    decision_rows,
    finish_usage,
    forgotten_rows,
    matches,
    needles_of_keys,
    norm,
    purge_action,
    redact_turn_payload,
    search_candidate_rows,
    stored_decision,
)
from pipeline.store.sqlite_db import (
    BUSY_TIMEOUT_S,
    DB_NAME,
    MIN_FTS_CHARS,
    SQLITE_VERSION,
    DatabaseError,
    SQLiteDatabase,
    utc_now,
)

if TYPE_CHECKING:  # annotations only: the store opens without the pydantic types
    from pipeline.types import Decision, Usage

__all__ = ["DB_NAME", "MIGRATIONS", "SQLITE_VERSION", "TARGETS", "TURN_STATUSES", "DatabaseError", "SQLiteStore"]


def _fts_query(query: str) -> str | None:
    """An FTS5 MATCH expression: each word of 3+ characters as a quoted phrase, OR-ed; None if none."""
    words = [w for w in query.split() if len(w) >= MIN_FTS_CHARS]
    if not words:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def _like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class SQLiteStore(SQLiteDatabase, MemoryStore):
    """Provenance, history, archive, decision log and turn status for every user under one root."""

    def __init__(
        self,
        root: str | Path,
        redact: Callable[[str], str] | None = None,
        *,
        migrations: Sequence[tuple[str, str]] | None = None,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        read_only: bool = False,
        log_quotes: bool = False,
    ) -> None:
        """`read_only`: see SQLiteDatabase. `redact`: what every user-text column goes through
        (default: pipeline/guards/redaction.py's redact_for_storage)."""
        self._default_redact = redact is None
        if redact is None:
            # Lazy: guards may import heavier things; fail closed if it is missing rather than store secrets.
            from pipeline.guards.redaction import redact_for_storage

            redact = redact_for_storage
        self.redact: Callable[[str], str] = redact
        self.log_quotes = log_quotes  # verbatim (still redacted) quotes of skipped statements: debugging only
        SQLiteDatabase.__init__(
            self, root, migrations=migrations, busy_timeout_s=busy_timeout_s, read_only=read_only
        )

    def __enter__(self) -> SQLiteStore:
        return self


    # ---- writes (inside transaction()) -------------------------------------------------

    def _r(self, text: str | None) -> str | None:
        return None if text is None else self.redact(text)

    def add_change(
        self,
        conn: sqlite3.Connection,
        *,
        user_id: str,
        target: str,
        op: str,
        key: str | None,
        old: str | None,
        new: str | None,
        why: str | None,
        turn_id: str | None,
        conversation_id: str | None,
        quote: str | None,
        engine: str | None,
        model: str | None,
        prompt_version: str | None,
        ts: str,
    ) -> None:
        """Record one change in history; when it sets a value, record where that value came from."""
        key_r = self._r(key)
        cur = conn.execute(
            """INSERT INTO history (user_id, target, op, key, old_value, new_value, why, turn_id,
                                    conversation_id, engine, model, prompt_version, ts)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (user_id, target, op, key_r, old, new, self._r(why), turn_id, conversation_id,
             engine, model, prompt_version, ts),
        )
        if new is None:
            return
        conn.execute(
            """INSERT INTO provenance (history_id, user_id, target, key, value, conversation_id, turn_id,
                                       quote, ts, engine, model, prompt_version)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (cur.lastrowid, user_id, target, key_r, new, conversation_id, turn_id, self._r(quote), ts,
             engine, model, prompt_version),
        )

    def add_archive(
        self,
        conn: sqlite3.Connection,
        *,
        user_id: str,
        target: str,
        text: str,
        why: str | None,
        ts: str,
        turn_id: str | None = None,
    ) -> None:
        conn.execute(
            "INSERT INTO archive (user_id, target, text, why, turn_id, ts) VALUES (?, ?, ?, ?, ?, ?)",
            (user_id, target, text, self._r(why), turn_id, ts),
        )

    def add_decisions(
        self,
        conn: sqlite3.Connection,
        *,
        user_id: str,
        turn_id: str,
        conversation_id: str | None,
        decisions: list[Decision],
        engine: str | None,
        model: str | None,
        prompt_version: str | None,
        usage: Usage | None,
        ts: str,
    ) -> None:
        """Log every decision of a turn (all text redacted: skipped values are often the sensitive ones;
        pipeline/store/rules.py decides what a skipped statement keeps)."""
        rows = decision_rows(decisions, user_id=user_id, turn_id=turn_id, conversation_id=conversation_id,
                             engine=engine, model=model, prompt_version=prompt_version, ts=ts, redact=self.redact,
                             log_quotes=self.log_quotes, digest_key=self._digest_key(conn))
        if rows:
            conn.executemany(
                f"INSERT INTO decisions ({DECISION_COLUMNS}) VALUES ({', '.join('?' * len(rows[0]))})", rows
            )
        if usage is not None:
            self.add_usage(conn, user_id=user_id, turn_id=turn_id, stage="classify", engine=engine,
                           model=model, prompt_version=prompt_version, usage=usage, ts=ts)

    def add_usage(
        self,
        conn: sqlite3.Connection,
        *,
        user_id: str,
        turn_id: str | None,
        stage: str,
        engine: str | None,
        model: str | None,
        prompt_version: str | None,
        usage: Usage,
        ts: str,
    ) -> None:
        """Usage of one stage (classify, consolidate) of a turn. An unknown cost stays NULL."""
        conn.execute(
            """INSERT INTO usage (user_id, turn_id, stage, engine, model, prompt_version, calls,
                                  input_tokens, output_tokens, cost_usd, latency_s, ts, cached_tokens)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (user_id, turn_id, stage, engine, model, prompt_version, usage.calls, usage.input_tokens,
             usage.output_tokens, usage.cost_usd, usage.latency_s, ts, usage.cached_tokens),
        )

    def mark_turn(
        self,
        conn: sqlite3.Connection,
        *,
        user_id: str,
        turn_id: str,
        conversation_id: str | None,
        status: str,
        error: str | None = None,
        payload: dict[str, Any] | None = None,
        ts: str,
    ) -> None:
        """Insert or update a turn's status. A turn marked again counts one more attempt."""
        if status not in TURN_STATUSES:
            raise ValueError(f"unknown turn status {status!r}; expected one of {', '.join(TURN_STATUSES)}")
        payload_json = (
            None if payload is None else json.dumps(self.redact_payload(payload), ensure_ascii=False, default=str)
        )
        conn.execute(
            """INSERT INTO turns (user_id, turn_id, conversation_id, status, error, payload, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (user_id, turn_id) DO UPDATE SET
                   conversation_id = COALESCE(excluded.conversation_id, turns.conversation_id),
                   status = excluded.status,
                   error = excluded.error,
                   payload = excluded.payload,
                   attempts = turns.attempts + 1,
                   updated_at = excluded.updated_at""",
            (user_id, turn_id, conversation_id, status, self._r(error), payload_json, ts, ts),
        )

        if status == "done":
            # The turn is applied in this transaction: its queued text goes in the same one (the
            # hook marks the row done after; a process killed in between leaves a cleared row).
            conn.execute(
                """UPDATE hook_queue SET payload = NULL
                   WHERE user_id = ? AND payload IS NOT NULL AND status IN ('queued', 'running', 'failed')
                     AND (turn_id = ? OR group_seq = (SELECT seq FROM hook_queue WHERE user_id = ? AND turn_id = ?))""",
                (user_id, turn_id, user_id, turn_id),
            )

    def redact_payload(self, payload: dict[str, Any]) -> dict[str, Any]:
        """A turn kept for retry: every string redacted, except the contact kinds the turn itself
        asked to store (a retried "please save my email ..." must still be able to save it)."""
        return redact_turn_payload(payload, self.redact, self._default_redact)

    # ---- reads (always scoped to one user) ---------------------------------------------

    def _rows(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        return [dict(row) for row in self.conn.execute(sql, params)]

    def turn_status(self, user_id: str, turn_id: str) -> str | None:
        row = self.conn.execute(
            "SELECT status FROM turns WHERE user_id = ? AND turn_id = ?", (user_id, turn_id)
        ).fetchone()
        return None if row is None else str(row[0])

    def turns(self, user_id: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        """Turns, oldest first, with their payload decoded. user_id=None means every user (for `retry`)."""
        clauses, params = [], []
        if user_id is not None:
            clauses.append("user_id = ?")
            params.append(user_id)
        if status is not None:
            clauses.append("status = ?")
            params.append(status)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._rows(f"SELECT * FROM turns {where} ORDER BY id", params)
        for row in rows:
            row["payload"] = None if row["payload"] is None else json.loads(row["payload"])
        return rows

    def failed_turns(self, user_id: str | None = None) -> list[dict[str, Any]]:
        return self.turns(user_id, status="failed")

    def history(self, user_id: str, limit: int | None = None) -> list[dict[str, Any]]:
        """Every change for the user, oldest first; with limit, the most recent `limit` of them."""
        if limit is None:
            return self._rows("SELECT * FROM history WHERE user_id = ? ORDER BY id", (user_id,))
        rows = self._rows("SELECT * FROM history WHERE user_id = ? ORDER BY id DESC LIMIT ?", (user_id, limit))
        return rows[::-1]

    def provenance(self, user_id: str, target: str | None = None, key: str | None = None) -> list[dict[str, Any]]:
        """Where each value came from, oldest first (the last row for a key is the current one)."""
        sql = "SELECT * FROM provenance WHERE user_id = ?"
        params: list[Any] = [user_id]
        if target is not None:
            sql += " AND target = ?"
            params.append(target)
        if key is not None:
            sql += " AND key = ? COLLATE NOCASE"
            params.append(key)
        return self._rows(sql + " ORDER BY id", params)

    def recall_archive(self, user_id: str, query: str, k: int = 5) -> list[dict[str, Any]]:
        """Archived values matching the query, best first (bm25). Each word of 3+ characters is a
        trigram substring match, in any script; shorter queries fall back to LIKE, newest first.
        A NUL (which SQLite's query parser takes as the end of the text) separates words."""
        query = query.replace("\x00", " ").strip()
        if not query or k <= 0:
            return []
        match = _fts_query(query)
        if match is None:
            return self._rows(
                """SELECT id, user_id, target, text, why, turn_id, ts, NULL AS score FROM archive
                   WHERE user_id = ? AND text LIKE ? ESCAPE '\\' ORDER BY id DESC LIMIT ?""",
                (user_id, _like_pattern(query), k),
            )
        rows = self._rows(
            """SELECT a.id, a.user_id, a.target, a.text, a.why, a.turn_id, a.ts, bm25(archive_fts) AS score
               FROM archive_fts JOIN archive AS a ON a.id = archive_fts.rowid
               WHERE archive_fts MATCH ? AND a.user_id = ?
               ORDER BY score, a.id DESC LIMIT ?""",
            (match, user_id, k * 20),
        )
        # Words too short for trigrams ("v2", "17") still count: rows holding more of the
        # query's words come first, bm25 breaks ties.
        words = [w.lower() for w in query.split()]
        rows.sort(key=lambda r: -sum(w in r["text"].lower() for w in words))
        return rows[:k]

    def archive(self, user_id: str, why: str | None = None) -> list[dict[str, Any]]:
        if why is not None:
            return self._rows("SELECT * FROM archive WHERE user_id = ? AND why = ? ORDER BY id", (user_id, why))
        return self._rows("SELECT * FROM archive WHERE user_id = ? ORDER BY id", (user_id,))

    def decisions(self, user_id: str, turn_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM decisions WHERE user_id = ?"
        params: list[Any] = [user_id]
        if turn_id is not None:
            sql += " AND turn_id = ?"
            params.append(turn_id)
        return [stored_decision(row) for row in self._rows(sql + " ORDER BY id", params)]

    def find_text(self, user_id: str, needle: str) -> list[str]:
        """Where `needle` (case-insensitive) is stored for this user, as "table.column" names.

        For leak checks (eval `never_written`): anything that should have been redacted or skipped.
        """
        wanted = needle.casefold()
        found: list[str] = []
        for table in ("turns", "history", "provenance", "archive", "decisions", "candidates"):
            for row in self.conn.execute(f"SELECT * FROM {table} WHERE user_id = ?", (user_id,)):
                for column in row.keys():
                    value = row[column]
                    place = f"{table}.{column}"
                    if isinstance(value, str) and wanted in value.casefold() and place not in found:
                        found.append(place)
        return found

    def usage_rows(self, user_id: str, turn_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM usage WHERE user_id = ?"
        params: list[Any] = [user_id]
        if turn_id is not None:
            sql += " AND turn_id = ?"
            params.append(turn_id)
        return self._rows(sql + " ORDER BY id", params)

    def usage_totals(self, user_id: str | None = None) -> dict[str, Any]:
        """Summed usage (one user, or every user when user_id is None), overall and per engine/model.

        cost_usd follows Usage addition: None as soon as one row's price is unknown; cost_usd_known
        sums the rows whose price is known, and cost_unknown_rows counts the others.
        """
        where, params = ("WHERE user_id = ?", [user_id]) if user_id is not None else ("", [])
        cols = """COUNT(DISTINCT turn_id) AS turns, COALESCE(SUM(calls), 0) AS calls,
                  COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS output_tokens,
                  COALESCE(SUM(cached_tokens), 0) AS cached_tokens,
                  COALESCE(SUM(cost_usd), 0.0) AS cost_usd_known, COUNT(*) - COUNT(cost_usd) AS cost_unknown_rows,
                  COALESCE(SUM(latency_s), 0.0) AS latency_s"""

        total = finish_usage(self._rows(f"SELECT {cols} FROM usage {where}", params)[0])
        total["by_model"] = [
            finish_usage(row)
            for row in self._rows(
                f"SELECT engine, model, {cols} FROM usage {where} GROUP BY engine, model ORDER BY engine, model",
                params,
            )
        ]
        # classify, compact, consolidate, and failed:<stage> for turns that failed (their cost too)
        total["by_stage"] = [
            finish_usage(row)
            for row in self._rows(f"SELECT stage, {cols} FROM usage {where} GROUP BY stage ORDER BY stage", params)
        ]
        return total

    # ---- erasure (forget --purge, delete-user, export --all) --------------------------

    USER_TABLES = USER_TABLES  # every table holding rows of one user, and its text columns (rules.py)

    def purge_user(self, conn: sqlite3.Connection, user_id: str) -> int:
        """Delete every row of the user in every table (inside transaction()); then compact()."""
        deleted = sum(
            conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,)).rowcount for table in self.USER_TABLES
        )
        return deleted + self.purge_candidates(conn, user_id)

    def _needles(self, conn: sqlite3.Connection, user_id: str, needles: Sequence[str],
                 keys: Sequence[str]) -> tuple[set[str], list[str]]:
        """The keys (case-folded) and the needles of a forget: the texts, and every value the keys ever had."""
        wanted_keys = {k.casefold() for k in keys}
        found = [n for n in needles if n]
        if wanted_keys:
            found += needles_of_keys(
                conn.execute(
                    """SELECT key, old_value, new_value FROM history WHERE user_id = ?
                       UNION ALL SELECT key, value, NULL FROM provenance WHERE user_id = ?""",
                    (user_id, user_id),
                ),
                wanted_keys,
            )
        return wanted_keys, found

    def forget_archived(self, conn: sqlite3.Connection, user_id: str, needles: Sequence[str], keys: Sequence[str],
                        why: str) -> int:
        wanted_keys, found = self._needles(conn, user_id, needles, keys)
        rows = conn.execute("SELECT id, text FROM archive WHERE user_id = ? AND why IS NOT ?", (user_id, why))
        ids = forgotten_rows(rows.fetchall(), wanted_keys, [n.casefold() for n in found])
        conn.executemany("UPDATE archive SET why = ? WHERE id = ?", [(why, i) for i in ids])
        return len(ids)

    def purge_text(
        self, conn: sqlite3.Connection, user_id: str, needles: Sequence[str], keys: Sequence[str] = ()
    ) -> int:
        """Delete every row of the user holding one of `needles` (case-insensitive) in any text
        column, or recording one of the USER.md `keys` (whose every past value goes too).
        Inside transaction(); then compact() so the bytes leave the file and its WAL."""
        wanted_keys, found = self._needles(conn, user_id, needles, keys)
        lowered = [n.casefold() for n in found]
        deleted = 0
        for table, columns in self.USER_TABLES.items():
            if not columns:
                continue
            rowid = "seq" if table == "hook_queue" else "id"
            doomed = []
            # The record of an erasure holds no value (op "purge"): it stays, to show that it happened.
            spare = " AND op != 'purge'" if table == "history" else ""
            for row in conn.execute(
                f"SELECT {rowid}, {', '.join(columns)} FROM {table} WHERE user_id = ?{spare}", (user_id,)
            ).fetchall():
                action = purge_action(table, columns, row[1:], wanted_keys, lowered, found)
                if action == "delete":
                    doomed.append((row[0],))
                elif isinstance(action, dict):  # a neighbour's record: the erased words blanked
                    sets = ", ".join(f"{c} = ?" for c in action)
                    conn.execute(f"UPDATE {table} SET {sets} WHERE {rowid} = ?", (*action.values(), row[0]))
            conn.executemany(f"DELETE FROM {table} WHERE {rowid} = ?", doomed)
            deleted += len(doomed)
        for needle in [*keys, *found]:
            deleted += self.purge_candidates(conn, user_id, needle)
        return deleted

    def everything_about(self, user_id: str) -> dict[str, list[dict[str, Any]]]:
        """Every row held about the user, per table (subject access: `memroute export USER --all`)."""
        out: dict[str, list[dict[str, Any]]] = {}
        for table in self.USER_TABLES:
            rows = self._rows(f"SELECT * FROM {table} WHERE user_id = ? ORDER BY rowid", (user_id,))
            for row in rows:
                if table in ("turns", "hook_queue") and isinstance(row.get("payload"), str):
                    row["payload"] = json.loads(row["payload"])
            out[table] = rows
        out["candidates"] = self.candidates(user_id)
        return out

    # ---- batch checkpoints (memroute batch) ---------------------------------------------

    def batch_status(self, user_id: str, conversation_key: str) -> str | None:
        row = self.conn.execute(
            "SELECT status FROM batch_conversations WHERE user_id = ? AND conversation_key = ?",
            (user_id, conversation_key),
        ).fetchone()
        return None if row is None else str(row[0])

    def checkpoint_batch(
        self,
        *,
        user_id: str,
        conversation_key: str,
        conversation_id: str | None,
        turns: int,
        status: str,
        source: str | None,
    ) -> None:
        with self.transaction() as conn:
            conn.execute(
                """INSERT INTO batch_conversations (user_id, conversation_key, conversation_id, turns, status,
                                                   source, updated_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (user_id, conversation_key) DO UPDATE SET
                       status = excluded.status, turns = excluded.turns, source = excluded.source,
                       updated_at = excluded.updated_at""",
                (user_id, conversation_key, conversation_id, turns, status, source, utc_now()),
            )

    def has_batch_trace(self) -> bool:
        (found,) = self.conn.execute(
            """SELECT EXISTS (SELECT 1 FROM batch_conversations)
                      OR EXISTS (SELECT 1 FROM turns WHERE turn_id LIKE 'b-%')"""
        ).fetchone()
        return bool(found)

    def has_turns(self) -> bool:
        (found,) = self.conn.execute("SELECT EXISTS (SELECT 1 FROM turns)").fetchone()
        return bool(found)

    # ---- the hook queue (pipeline/store/hook_queue.py) ---------------------------------

    def open_hook_queue(self, *, fsync_submits: bool = False) -> HookQueue:
        return SQLiteHookQueue(
            self.path, redact=self.redact, redact_payload=self.redact_payload, fsync_submits=fsync_submits
        )

    def hook_queue_status(self) -> dict[str, Any]:
        conn = self.conn
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'hook_queue'").fetchone() is None:
            return queue_status(None)
        return queue_status(conn)

    # ---- candidates (facts waiting for confirmation; pipeline/stages/candidates.py holds the rules) --

    def upsert_candidate(
        self,
        conn: sqlite3.Connection,
        *,
        user_id: str,
        section: str | None,
        key: str,
        value: str,
        quote: str | None,
        turn_id: str | None,
        conversation_id: str | None,
        seen_at: str,
    ) -> None:
        """Keep a candidate, or count one more sighting of the same key and value (the latest
        sighting's time, turn and quote are kept; the first sighting's too)."""
        now = utc_now()
        conn.execute(
            """INSERT INTO candidates (user_id, section, key, value, key_norm, value_norm, quote,
                                       first_turn_id, first_conversation_id, first_seen_at,
                                       last_turn_id, last_conversation_id, last_seen_at, times_seen,
                                       created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
               ON CONFLICT (user_id, key_norm, value_norm) DO UPDATE SET
                   quote = excluded.quote,
                   last_turn_id = excluded.last_turn_id,
                   last_conversation_id = excluded.last_conversation_id,
                   last_seen_at = MAX(candidates.last_seen_at, excluded.last_seen_at),
                   times_seen = candidates.times_seen + 1,
                   updated_at = excluded.updated_at""",
            (user_id, section, key, value, norm(key), norm(value), self._r(quote), turn_id, conversation_id,
             seen_at, turn_id, conversation_id, seen_at, now, now),
        )

    def delete_candidates(self, conn: sqlite3.Connection, user_id: str, ids: Sequence[int]) -> int:
        deleted = 0
        for cid in ids:
            deleted += conn.execute("DELETE FROM candidates WHERE user_id = ? AND id = ?", (user_id, cid)).rowcount
        return deleted

    def purge_candidates(self, conn: sqlite3.Connection, user_id: str, needle: str | None = None) -> int:
        """Erase candidates: all of the user's (needle None), or those a forget of `needle` covers
        (its key equals it, or its key, value or quote contains it; case-insensitive)."""
        if needle is None:
            return conn.execute("DELETE FROM candidates WHERE user_id = ?", (user_id,)).rowcount
        rows = [dict(r) for r in conn.execute("SELECT * FROM candidates WHERE user_id = ?", (user_id,))]
        return self.delete_candidates(conn, user_id, [r["id"] for r in rows if matches(r, needle)])

    def expire_candidates(self, conn: sqlite3.Connection, before: str, user_id: str | None = None) -> int:
        """Delete candidates last seen before `before` (ISO UTC); one user's, or everyone's."""
        if user_id is None:
            return conn.execute("DELETE FROM candidates WHERE last_seen_at < ?", (before,)).rowcount
        return conn.execute(
            "DELETE FROM candidates WHERE user_id = ? AND last_seen_at < ?", (user_id, before)
        ).rowcount

    # ---- annotations: pins and tags from the review page ------------------------------------

    def add_annotation(
        self, conn: sqlite3.Connection, *, user_id: str, target: str, ref: str, kind: str, value: str, ts: str
    ) -> bool:
        """Record one pin or tag (idempotent); True when it is new."""
        return conn.execute(
            "INSERT OR IGNORE INTO annotations (user_id, target, ref, kind, value, ts) VALUES (?, ?, ?, ?, ?, ?)",
            (user_id, target, ref, kind, value, ts),
        ).rowcount > 0

    def delete_annotations(
        self, conn: sqlite3.Connection, user_id: str, *, target: str | None = None, ref: str | None = None,
        kind: str | None = None, value: str | None = None,
    ) -> int:
        """Delete the user's annotations matching every filter given."""
        sql, params = "DELETE FROM annotations WHERE user_id = ?", [user_id]
        for column, wanted in (("target", target), ("ref", ref), ("kind", kind), ("value", value)):
            if wanted is not None:
                sql += f" AND {column} = ?"
                params.append(wanted)
        return conn.execute(sql, params).rowcount

    def annotations(self, user_id: str) -> list[dict[str, Any]]:
        """The user's pins and tags, oldest first."""
        if not self.exists():
            return []
        return self._rows("SELECT * FROM annotations WHERE user_id = ? ORDER BY id", (user_id,))

    def candidates(self, user_id: str) -> list[dict[str, Any]]:
        """The user's candidates, most recently seen first."""
        return self._rows(
            "SELECT * FROM candidates WHERE user_id = ? ORDER BY last_seen_at DESC, id DESC", (user_id,)
        )

    def search_candidates(self, user_id: str, query: str, k: int = 5) -> list[dict[str, Any]]:
        """Candidates whose section, key and value hold every word of the query (case-insensitive),
        most recently seen first."""
        return search_candidate_rows(self.candidates(user_id), query, k)

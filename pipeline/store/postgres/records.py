"""The PostgreSQL store's records: history, provenance, archive (pg_trgm recall), decisions, usage,
turn status, candidates and batch checkpoints. The same rows, redaction and answers as the SQLite
store; writes take the transaction's connection (`with store.transaction() as conn`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from pipeline.store.postgres.connection import Database
from pipeline.store.rules import (
    DECISION_COLUMNS,
    DIGEST_KEY_BYTES,
    DIGEST_KEY_NAME,
    USER_TABLES,
    decision_rows,
    finish_usage,
    matches,
    norm,
    redact_turn_payload,
    search_candidate_rows,
    stored_decision,
)
from pipeline.types import Decision, Usage

TURN_STATUSES = ("done", "failed", "pending")
MIN_TRGM_CHARS = 3  # as FTS5 trigram: a word shorter than a trigram cannot use the index


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def like_pattern(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class Records:
    """Rows about users. `db` is shared with the store; `redact` is the one redaction."""

    USER_TABLES = USER_TABLES

    db: Database
    redact: Callable[[str], str]
    log_quotes: bool
    _default_redact: bool

    def _r(self, text: str | None) -> str | None:
        return None if text is None else self.redact(text)

    _digest_key_cache: bytes | None = None

    def _digest_key(self, conn: Any) -> bytes:
        """The database's key for decision-log digests, made at first use (rules.DIGEST_KEY_NAME)."""
        if self._digest_key_cache is None:
            conn.execute("INSERT INTO store_keys (name, key) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING",
                         (DIGEST_KEY_NAME, secrets.token_bytes(DIGEST_KEY_BYTES)))
            row = conn.execute("SELECT key FROM store_keys WHERE name = %s", (DIGEST_KEY_NAME,)).fetchone()
            self._digest_key_cache = bytes(row["key"])
        return self._digest_key_cache

    # ---- writes ----------------------------------------------------------------------------

    def add_change(
        self, conn: Any, *, user_id: str, target: str, op: str, key: str | None, old: str | None, new: str | None,
        why: str | None, turn_id: str | None, conversation_id: str | None, quote: str | None, engine: str | None,
        model: str | None, prompt_version: str | None, ts: str,
    ) -> None:
        """Record one change in history; when it sets a value, record where that value came from."""
        key_r = self._r(key)
        row = conn.execute(
            """INSERT INTO history (user_id, target, op, key, old_value, new_value, why, turn_id,
                                    conversation_id, engine, model, prompt_version, ts)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id""",
            (user_id, target, op, key_r, old, new, self._r(why), turn_id, conversation_id, engine, model,
             prompt_version, ts),
        ).fetchone()
        if new is None:
            return
        conn.execute(
            """INSERT INTO provenance (history_id, user_id, target, key, value, conversation_id, turn_id,
                                       quote, ts, engine, model, prompt_version)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)""",
            (row["id"], user_id, target, key_r, new, conversation_id, turn_id, self._r(quote), ts, engine, model,
             prompt_version),
        )

    def add_archive(
        self, conn: Any, *, user_id: str, target: str, text: str, why: str | None, ts: str, turn_id: str | None = None
    ) -> None:
        conn.execute(
            "INSERT INTO archive (user_id, target, text, why, turn_id, ts) VALUES (%s, %s, %s, %s, %s, %s)",
            (user_id, target, text, self._r(why), turn_id, ts),
        )

    def add_decisions(
        self, conn: Any, *, user_id: str, turn_id: str, conversation_id: str | None, decisions: list[Decision],
        engine: str | None, model: str | None, prompt_version: str | None, usage: Usage | None, ts: str,
    ) -> None:
        """Every decision of a turn, redacted (pipeline/store/rules.py decides what is kept)."""
        rows = decision_rows(decisions, user_id=user_id, turn_id=turn_id, conversation_id=conversation_id,
                             engine=engine, model=model, prompt_version=prompt_version, ts=ts, redact=self.redact,
                             log_quotes=self.log_quotes, digest_key=self._digest_key(conn))
        if rows:
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO decisions ({DECISION_COLUMNS}) VALUES ({', '.join(['%s'] * len(rows[0]))})", rows
                )
        if usage is not None:
            self.add_usage(conn, user_id=user_id, turn_id=turn_id, stage="classify", engine=engine, model=model,
                           prompt_version=prompt_version, usage=usage, ts=ts)

    def add_usage(
        self, conn: Any, *, user_id: str, turn_id: str | None, stage: str, engine: str | None, model: str | None,
        prompt_version: str | None, usage: Usage, ts: str,
    ) -> None:
        conn.execute(
            """INSERT INTO usage (user_id, turn_id, stage, engine, model, prompt_version, calls, input_tokens,
                                  output_tokens, cost_usd, latency_s, ts, cached_tokens)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)""",
            (user_id, turn_id, stage, engine, model, prompt_version, usage.calls, usage.input_tokens,
             usage.output_tokens, usage.cost_usd, usage.latency_s, ts, usage.cached_tokens),
        )

    def mark_turn(
        self, conn: Any, *, user_id: str, turn_id: str, conversation_id: str | None, status: str,
        error: str | None = None, payload: dict[str, Any] | None = None, ts: str,
    ) -> None:
        """Insert or update a turn's status. A turn marked again counts one more attempt."""
        if status not in TURN_STATUSES:
            raise ValueError(f"unknown turn status {status!r}; expected one of {', '.join(TURN_STATUSES)}")
        payload_json = (
            None if payload is None else json.dumps(self.redact_payload(payload), ensure_ascii=False, default=str)
        )
        conn.execute(
            """INSERT INTO turns (user_id, turn_id, conversation_id, status, error, payload, created_at, updated_at)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
               ON CONFLICT (user_id, turn_id) DO UPDATE SET
                   conversation_id = COALESCE(excluded.conversation_id, turns.conversation_id),
                   status = excluded.status, error = excluded.error, payload = excluded.payload,
                   attempts = turns.attempts + 1, updated_at = excluded.updated_at""",
            (user_id, turn_id, conversation_id, status, self._r(error), payload_json, ts, ts),
        )
        if status == "done":
            # The turn is applied in this transaction: its queued text goes in the same one. A row a
            # shared worker holds (its claim's lock) is cleared by that claim as it commits.
            conn.execute(
                """UPDATE hook_queue SET payload = NULL WHERE seq IN (
                       SELECT seq FROM hook_queue
                       WHERE user_id = %s AND payload IS NOT NULL AND status IN ('queued', 'running', 'failed')
                         AND (turn_id = %s OR group_seq = (SELECT seq FROM hook_queue WHERE user_id = %s AND turn_id = %s))
                       FOR UPDATE SKIP LOCKED)""",
                (user_id, turn_id, user_id, turn_id),
            )

    def redact_payload(self, payload: dict[str, Any]) -> dict[str, Any]:
        return redact_turn_payload(payload, self.redact, self._default_redact)

    # ---- reads -----------------------------------------------------------------------------

    def turn_status(self, user_id: str, turn_id: str) -> str | None:
        row = self.db.one("SELECT status FROM turns WHERE user_id = %s AND turn_id = %s", (user_id, turn_id))
        return None if row is None else str(row["status"])

    def turns(self, user_id: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        clauses, params = [], []
        if user_id is not None:
            clauses.append("user_id = %s")
            params.append(user_id)
        if status is not None:
            clauses.append("status = %s")
            params.append(status)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.db.rows(f"SELECT * FROM turns {where} ORDER BY id", params)
        for row in rows:
            row["payload"] = None if row["payload"] is None else json.loads(row["payload"])
        return rows

    def failed_turns(self, user_id: str | None = None) -> list[dict[str, Any]]:
        return self.turns(user_id, status="failed")

    def history(self, user_id: str, limit: int | None = None) -> list[dict[str, Any]]:
        if limit is None:
            return self.db.rows("SELECT * FROM history WHERE user_id = %s ORDER BY id", (user_id,))
        rows = self.db.rows("SELECT * FROM history WHERE user_id = %s ORDER BY id DESC LIMIT %s", (user_id, limit))
        return rows[::-1]

    def provenance(self, user_id: str, target: str | None = None, key: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM provenance WHERE user_id = %s"
        params: list[Any] = [user_id]
        if target is not None:
            sql += " AND target = %s"
            params.append(target)
        if key is not None:
            sql += " AND lower(key) = lower(%s)"
            params.append(key)
        return self.db.rows(sql + " ORDER BY id", params)

    def recall_archive(self, user_id: str, query: str, k: int = 5) -> list[dict[str, Any]]:
        """Archived values matching the query, best first. Each word of 3+ characters is a substring
        match (ILIKE, served by the trigram index) in any script; rows holding more of the query's words
        come first, then trigram similarity, then the newest. Shorter queries: the whole query, newest first."""
        query = query.replace("\x00", " ").strip()
        if not query or k <= 0:
            return []
        cols = "id, user_id, target, text, why, turn_id, ts"
        words = [w for w in query.split() if len(w) >= MIN_TRGM_CHARS]
        if not words:
            return self.db.rows(
                f"""SELECT {cols}, NULL::float8 AS score FROM archive WHERE user_id = %s AND text ILIKE %s
                    ORDER BY id DESC LIMIT %s""",
                (user_id, like_pattern(query), k),
            )
        rows = self.db.rows(
            f"""SELECT {cols}, -word_similarity(%s, text) AS score FROM archive
                WHERE user_id = %s AND text ILIKE ANY(%s) ORDER BY score, id DESC LIMIT %s""",
            (query, user_id, [like_pattern(w) for w in words], k * 20),
        )
        # Words too short for trigrams ("v2", "17") still count, as in the SQLite store.
        every = [w.lower() for w in query.split()]
        rows.sort(key=lambda r: -sum(w in r["text"].lower() for w in every))
        return rows[:k]

    def archive(self, user_id: str, why: str | None = None) -> list[dict[str, Any]]:
        if why is not None:
            return self.db.rows("SELECT * FROM archive WHERE user_id = %s AND why = %s ORDER BY id", (user_id, why))
        return self.db.rows("SELECT * FROM archive WHERE user_id = %s ORDER BY id", (user_id,))

    def decisions(self, user_id: str, turn_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM decisions WHERE user_id = %s"
        params: list[Any] = [user_id]
        if turn_id is not None:
            sql += " AND turn_id = %s"
            params.append(turn_id)
        return [stored_decision(row) for row in self.db.rows(sql + " ORDER BY id", params)]

    def find_text(self, user_id: str, needle: str) -> list[str]:
        """Where `needle` (case-insensitive) is stored for this user, as "table.column" names."""
        wanted = needle.casefold()
        found: list[str] = []
        for table in ("turns", "history", "provenance", "archive", "decisions", "candidates", "documents"):
            for row in self.db.rows(f"SELECT * FROM {table} WHERE user_id = %s", (user_id,)):
                for column, value in row.items():
                    place = f"{table}.{column}"
                    if isinstance(value, str) and wanted in value.casefold() and place not in found:
                        found.append(place)
        return found

    def usage_rows(self, user_id: str, turn_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM usage WHERE user_id = %s"
        params: list[Any] = [user_id]
        if turn_id is not None:
            sql += " AND turn_id = %s"
            params.append(turn_id)
        return self.db.rows(sql + " ORDER BY id", params)

    def usage_totals(self, user_id: str | None = None) -> dict[str, Any]:
        """Summed usage, overall and per engine/model; cost_usd None as soon as one row's price is unknown."""
        where, params = ("WHERE user_id = %s", [user_id]) if user_id is not None else ("", [])
        cols = """COUNT(DISTINCT turn_id) AS turns, COALESCE(SUM(calls), 0) AS calls,
                  COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS output_tokens,
                  COALESCE(SUM(cached_tokens), 0) AS cached_tokens,
                  COALESCE(SUM(cost_usd), 0.0) AS cost_usd_known, COUNT(*) - COUNT(cost_usd) AS cost_unknown_rows,
                  COALESCE(SUM(latency_s), 0.0) AS latency_s"""

        def finish(row: dict[str, Any]) -> dict[str, Any]:
            for name in ("calls", "input_tokens", "output_tokens", "cached_tokens", "cost_unknown_rows", "turns"):
                row[name] = int(row[name])  # SUM over integers is numeric in PostgreSQL
            return finish_usage(row)

        total = finish(self.db.rows(f"SELECT {cols} FROM usage {where}", params)[0])
        total["by_model"] = [
            finish(row) for row in self.db.rows(
                f"SELECT engine, model, {cols} FROM usage {where} GROUP BY engine, model ORDER BY engine, model",
                params,
            )
        ]
        # classify, compact, consolidate, and failed:<stage> for turns that failed (their cost too)
        total["by_stage"] = [
            finish(row) for row in self.db.rows(
                f"SELECT stage, {cols} FROM usage {where} GROUP BY stage ORDER BY stage", params
            )
        ]
        return total

    # ---- batch checkpoints -------------------------------------------------------------

    def batch_status(self, user_id: str, conversation_key: str) -> str | None:
        row = self.db.one(
            "SELECT status FROM batch_conversations WHERE user_id = %s AND conversation_key = %s",
            (user_id, conversation_key),
        )
        return None if row is None else str(row["status"])

    def checkpoint_batch(
        self, *, user_id: str, conversation_key: str, conversation_id: str | None, turns: int, status: str,
        source: str | None,
    ) -> None:
        """Record (or update) a batch conversation's outcome, in its own transaction."""
        with self.db.transaction() as conn:
            conn.execute(
                """INSERT INTO batch_conversations (user_id, conversation_key, conversation_id, turns, status,
                                                   source, updated_at)
                   VALUES (%s, %s, %s, %s, %s, %s, %s)
                   ON CONFLICT (user_id, conversation_key) DO UPDATE SET status = excluded.status,
                       turns = excluded.turns, source = excluded.source, updated_at = excluded.updated_at""",
                (user_id, conversation_key, conversation_id, turns, status, source, now_iso()),
            )

    def has_batch_trace(self) -> bool:
        row = self.db.one(
            """SELECT EXISTS (SELECT 1 FROM batch_conversations)
                      OR EXISTS (SELECT 1 FROM turns WHERE turn_id LIKE 'b-%%') AS trace"""
        )
        return bool(row and row["trace"])

    def has_turns(self) -> bool:
        row = self.db.one("SELECT EXISTS (SELECT 1 FROM turns) AS any")
        return bool(row and row["any"])

    # ---- candidates (pipeline/stages/candidates.py holds the rules) ----------------------------------

    def upsert_candidate(
        self, conn: Any, *, user_id: str, section: str | None, key: str, value: str, quote: str | None,
        turn_id: str | None, conversation_id: str | None, seen_at: str,
    ) -> None:
        now = now_iso()
        conn.execute(
            """INSERT INTO candidates (user_id, section, key, value, key_norm, value_norm, quote, first_turn_id,
                                       first_conversation_id, first_seen_at, last_turn_id, last_conversation_id,
                                       last_seen_at, times_seen, created_at, updated_at)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 1, %s, %s)
               ON CONFLICT (user_id, key_norm, value_norm) DO UPDATE SET
                   quote = excluded.quote, last_turn_id = excluded.last_turn_id,
                   last_conversation_id = excluded.last_conversation_id,
                   last_seen_at = GREATEST(candidates.last_seen_at, excluded.last_seen_at),
                   times_seen = candidates.times_seen + 1, updated_at = excluded.updated_at""",
            (user_id, section, key, value, norm(key), norm(value), self._r(quote), turn_id, conversation_id,
             seen_at, turn_id, conversation_id, seen_at, now, now),
        )

    def delete_candidates(self, conn: Any, user_id: str, ids: Sequence[int]) -> int:
        if not ids:
            return 0
        cur = conn.execute("DELETE FROM candidates WHERE user_id = %s AND id = ANY(%s)", (user_id, list(ids)))
        return int(cur.rowcount)

    def purge_candidates(self, conn: Any, user_id: str, needle: str | None = None) -> int:
        if needle is None:
            return int(conn.execute("DELETE FROM candidates WHERE user_id = %s", (user_id,)).rowcount)
        rows = conn.execute("SELECT * FROM candidates WHERE user_id = %s", (user_id,)).fetchall()
        return self.delete_candidates(conn, user_id, [r["id"] for r in rows if matches(r, needle)])

    def expire_candidates(self, conn: Any, before: str, user_id: str | None = None) -> int:
        if user_id is None:
            return int(conn.execute("DELETE FROM candidates WHERE last_seen_at < %s", (before,)).rowcount)
        return int(conn.execute(
            "DELETE FROM candidates WHERE user_id = %s AND last_seen_at < %s", (user_id, before)
        ).rowcount)

    # ---- annotations: pins and tags from the review page ------------------------------------

    def add_annotation(
        self, conn: Any, *, user_id: str, target: str, ref: str, kind: str, value: str, ts: str
    ) -> bool:
        cur = conn.execute(
            """INSERT INTO annotations (user_id, target, ref, kind, value, ts) VALUES (%s, %s, %s, %s, %s, %s)
               ON CONFLICT (user_id, target, ref, kind, value) DO NOTHING""",
            (user_id, target, ref, kind, value, ts),
        )
        return int(cur.rowcount) > 0

    def delete_annotations(
        self, conn: Any, user_id: str, *, target: str | None = None, ref: str | None = None,
        kind: str | None = None, value: str | None = None,
    ) -> int:
        sql, params = "DELETE FROM annotations WHERE user_id = %s", [user_id]
        for column, wanted in (("target", target), ("ref", ref), ("kind", kind), ("value", value)):
            if wanted is not None:
                sql += f" AND {column} = %s"
                params.append(wanted)
        return int(conn.execute(sql, params).rowcount)

    def annotations(self, user_id: str) -> list[dict[str, Any]]:
        return self.db.rows("SELECT * FROM annotations WHERE user_id = %s ORDER BY id", (user_id,))

    def candidates(self, user_id: str) -> list[dict[str, Any]]:
        return self.db.rows(
            "SELECT * FROM candidates WHERE user_id = %s ORDER BY last_seen_at DESC, id DESC", (user_id,)
        )

    def search_candidates(self, user_id: str, query: str, k: int = 5) -> list[dict[str, Any]]:
        return search_candidate_rows(self.candidates(user_id), query, k)

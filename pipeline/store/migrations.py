"""The SQLite schema: named migrations, applied in order, each once (SQLiteStore._migrate).

Append new ones; never edit an applied one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

MIGRATIONS: list[tuple[str, str]] = [
    (
        "m001_turns",
        """
        CREATE TABLE turns (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            turn_id TEXT NOT NULL,
            conversation_id TEXT,
            status TEXT NOT NULL CHECK (status IN ('done', 'failed', 'pending')),
            error TEXT,
            payload TEXT,          -- redacted JSON of the turn, for retry
            attempts INTEGER NOT NULL DEFAULT 1,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (user_id, turn_id)
        );
        CREATE INDEX turns_status ON turns (status, user_id);
        """,
    ),
    (
        "m002_history_provenance",
        """
        CREATE TABLE history (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            target TEXT NOT NULL CHECK (target IN ('user', 'memory')),
            op TEXT NOT NULL,
            key TEXT,
            old_value TEXT,
            new_value TEXT,
            why TEXT,
            turn_id TEXT,
            conversation_id TEXT,
            engine TEXT,
            model TEXT,
            prompt_version TEXT,
            ts TEXT NOT NULL
        );
        CREATE INDEX history_user ON history (user_id, id);
        CREATE TABLE provenance (
            id INTEGER PRIMARY KEY,
            history_id INTEGER NOT NULL REFERENCES history (id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            target TEXT NOT NULL CHECK (target IN ('user', 'memory')),
            key TEXT,              -- USER.md field key, or the MEMORY.md entry
            value TEXT NOT NULL,   -- the value as written to the file
            conversation_id TEXT,
            turn_id TEXT,
            quote TEXT,            -- redacted source statement
            ts TEXT NOT NULL,
            engine TEXT,
            model TEXT,
            prompt_version TEXT
        );
        CREATE INDEX provenance_user ON provenance (user_id, target, id);
        """,
    ),
    (
        "m003_archive_fts",
        """
        CREATE TABLE archive (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            target TEXT NOT NULL CHECK (target IN ('user', 'memory')),
            text TEXT NOT NULL,
            why TEXT,
            turn_id TEXT,
            ts TEXT NOT NULL
        );
        CREATE INDEX archive_user ON archive (user_id, id);
        CREATE VIRTUAL TABLE archive_fts USING fts5 (
            text, content = 'archive', content_rowid = 'id', tokenize = 'trigram'
        );
        CREATE TRIGGER archive_ai AFTER INSERT ON archive BEGIN
            INSERT INTO archive_fts (rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER archive_ad AFTER DELETE ON archive BEGIN
            INSERT INTO archive_fts (archive_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER archive_au AFTER UPDATE OF text ON archive BEGIN
            INSERT INTO archive_fts (archive_fts, rowid, text) VALUES ('delete', old.id, old.text);
            INSERT INTO archive_fts (rowid, text) VALUES (new.id, new.text);
        END;
        """,
    ),
    (
        "m004_decisions_usage",
        """
        CREATE TABLE decisions (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            turn_id TEXT NOT NULL,
            conversation_id TEXT,
            position INTEGER NOT NULL,  -- order of the statement within its turn
            quote TEXT,
            route TEXT NOT NULL,
            op TEXT,
            reason TEXT,
            section TEXT,
            key TEXT,
            value TEXT,
            entry TEXT,
            date TEXT,
            topic TEXT,
            match_text TEXT,
            confidence REAL,
            detail TEXT,
            outcome TEXT,
            engine TEXT,
            model TEXT,
            prompt_version TEXT,
            ts TEXT NOT NULL
        );
        CREATE INDEX decisions_user_turn ON decisions (user_id, turn_id, id);
        CREATE TABLE usage (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            turn_id TEXT,
            stage TEXT NOT NULL,   -- classify | consolidate
            engine TEXT,
            model TEXT,
            prompt_version TEXT,
            calls INTEGER NOT NULL,
            input_tokens INTEGER NOT NULL,
            output_tokens INTEGER NOT NULL,
            cost_usd REAL,         -- NULL when the model's price is unknown, never 0 for unknown
            latency_s REAL NOT NULL,
            ts TEXT NOT NULL
        );
        CREATE INDEX usage_user ON usage (user_id, turn_id);
        """,
    ),
    (
        "m005_batch_checkpoints",
        """
        CREATE TABLE batch_conversations (
            user_id TEXT NOT NULL,
            conversation_key TEXT NOT NULL,  -- stable key of the input conversation (memroute batch)
            conversation_id TEXT,
            turns INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
            source TEXT,                     -- file:line it was read from
            updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, conversation_key)
        );
        """,
    ),
    (
        "m006_hook_queue",
        """
        -- PostTurnHook's durable per-user queue (pipeline/queue.py). seq = submission order.
        CREATE TABLE hook_queue (
            seq INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            turn_id TEXT NOT NULL,
            conversation_id TEXT,
            status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'failed', 'done', 'parked')),
            payload TEXT,              -- JSON turn: real text while unfinished, NULL once done, redacted when parked
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at REAL,      -- unix time of the next retry (status failed)
            error TEXT,                -- redacted
            group_seq INTEGER,         -- debounce: seq of the group's leader, recorded before processing
            owner_pid INTEGER,         -- the owning process, to tell whether it is still alive
            owner TEXT,                -- the owning hook instance: a closed hook's late updates are ignored
            submitted_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            UNIQUE (user_id, turn_id)
        );
        CREATE INDEX hook_queue_status ON hook_queue (status, user_id, seq);
        """,
    ),
    (
        "m007_candidates",
        """
        -- Facts stated too weakly to write (pipeline/candidates.py): never in USER.md until promoted.
        CREATE TABLE candidates (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            section TEXT,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            key_norm TEXT NOT NULL,        -- how a later statement of the same fact is recognised
            value_norm TEXT NOT NULL,
            quote TEXT,                    -- redacted source statement (the latest sighting)
            first_turn_id TEXT,
            first_conversation_id TEXT,
            first_seen_at TEXT NOT NULL,   -- the turn's own time (UTC), not the wall clock
            last_turn_id TEXT,
            last_conversation_id TEXT,
            last_seen_at TEXT NOT NULL,
            times_seen INTEGER NOT NULL DEFAULT 1,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (user_id, key_norm, value_norm)
        );
        CREATE INDEX candidates_user_seen ON candidates (user_id, last_seen_at);
        """,
    ),
    (
        "m008_annotations",
        """
        -- What a person says about a USER.md field or a MEMORY.md entry on the review page: a pin
        -- (never compacted or consolidated away) or a tag (project, task, free). `ref` is the field's
        -- normalised key or the entry's id (pipeline/annotations.py); the documents stay as they are.
        CREATE TABLE annotations (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL,
            target TEXT NOT NULL CHECK (target IN ('user', 'memory')),
            ref TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('pin', 'project', 'task', 'tag')),
            value TEXT NOT NULL DEFAULT '',
            ts TEXT NOT NULL,
            UNIQUE (user_id, target, ref, kind, value)
        );
        CREATE INDEX annotations_user ON annotations (user_id, target, ref);
        """,
    ),
    (
        "m009_store_keys",
        """
        -- Secrets of the store itself, never about a user: 'digest' keys the decision log's digest of a
        -- skipped statement (an HMAC, so a short code cannot be recovered from it by trying them all).
        CREATE TABLE store_keys (
            name TEXT PRIMARY KEY,
            key BLOB NOT NULL
        );
        """,
    ),
    (
        "m010_usage_cached_tokens",
        """
        -- Of input_tokens, those the model server read from its prompt cache (0 when it does not say).
        ALTER TABLE usage ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        "m011_store_facts",
        """
        -- Facts about the store itself, never about a user. 'unkeyed_ids': the store recorded turns,
        -- batch checkpoints or queued turns before ids made from what users wrote were keyed (such
        -- an id was then a plain sha256 of the words). Only such a store also looks a turn up under
        -- the id it had then, to recognise a turn applied before; no unkeyed id is written anew.
        CREATE TABLE store_facts (
            name TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        INSERT INTO store_facts (name, value) SELECT 'unkeyed_ids', 'yes'
        WHERE EXISTS (SELECT 1 FROM turns) OR EXISTS (SELECT 1 FROM batch_conversations)
           OR EXISTS (SELECT 1 FROM hook_queue);
        """,
    ),
    (
        "m012_decision_rule",
        """
        -- The typed decision next to its words (detail): `rule`, the stable id of what decided
        -- ("fact/role-noun", "model/extractor", "guard/<rule>"); `removal`, for op remove only, "forget"
        -- or "change_of_fact"; `asked`, 1 when the user asked in so many words to keep it. Our own
        -- constants, never the user's words. Rows logged before this migration keep NULL in all three.
        ALTER TABLE decisions ADD COLUMN rule TEXT;
        ALTER TABLE decisions ADD COLUMN removal TEXT CHECK (removal IN ('forget', 'change_of_fact'));
        ALTER TABLE decisions ADD COLUMN asked INTEGER CHECK (asked IN (0, 1));
        """,
    ),
]


def split_statements(sql: str) -> Iterator[str]:
    """Split a script into statements (triggers keep their inner semicolons).

    executescript() would COMMIT first, so a migration and its record could not share a transaction.
    """
    buf = ""
    for piece in sql.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            stmt = buf.strip()
            buf = ""
            if stmt != ";":
                yield stmt
    if buf.strip(" \n\t;"):
        raise ValueError(f"incomplete SQL statement in migration: {buf.strip()[:80]!r}")

"""Pure-text models of USER.md and MEMORY.md: parse, render, field/entry operations, caps, Hermes format.

No SQLite, no locks, no LLM: the commit protocol (lock, re-read, temp file, rename) sits on top.
"""

from __future__ import annotations

from pipeline.errors import CapExceeded, LedgerError, MatchError, UnparseableLedger, format_usage
from pipeline.ledgers._text import clean_entry_text, names_key, norm_key, split_label
from pipeline.ledgers.errors import check_cap
from pipeline.ledgers.hermes import (
    ENTRY_DELIMITER,
    log_from_entries,
    log_to_entries,
    profile_from_entries,
    profile_to_entries,
    read_hermes,
    write_hermes,
)
from pipeline.ledgers.memory_md import (
    CONSOLIDATE_AT,
    DEFAULT_MEMORY_LIMIT,
    MemoryEntry,
    MemoryLog,
    empty_memory_md,
    needs_consolidation,
)
from pipeline.ledgers.user_md import DEFAULT_USER_LIMIT, UserField, UserProfile, canonical_section, empty_user_md

__all__ = [
    "CONSOLIDATE_AT",
    "DEFAULT_MEMORY_LIMIT",
    "DEFAULT_USER_LIMIT",
    "ENTRY_DELIMITER",
    "CapExceeded",
    "LedgerError",
    "MatchError",
    "MemoryEntry",
    "MemoryLog",
    "UnparseableLedger",
    "clean_entry_text",
    "UserField",
    "UserProfile",
    "canonical_section",
    "check_cap",
    "clean_entry_text",
    "empty_memory_md",
    "empty_user_md",
    "format_usage",
    "log_from_entries",
    "log_to_entries",
    "names_key",
    "needs_consolidation",
    "norm_key",
    "profile_from_entries",
    "profile_to_entries",
    "read_hermes",
    "split_label",
    "write_hermes",
]

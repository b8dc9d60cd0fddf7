"""The Hermes Agent memory store: DIR/memories/USER.md and DIR/memories/MEMORY.md.

Hermes writes each file as its entries joined by "\\n§\\n" (a line holding only "§"), with
no trailing newline, and an empty file when there are no entries; it reads by splitting on
that delimiter and stripping each entry. We do the same, so write_hermes(read_hermes(d))
reproduces a Hermes-written store byte for byte. Entries may span several lines; in our
files their extra lines sit indented under the bullet, so import -> export is lossless.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from pathlib import Path

from pipeline.errors import LedgerError
from pipeline.ledgers.memory_md import DEFAULT_MEMORY_LIMIT, MemoryEntry, MemoryLog, empty_memory_md
from pipeline.ledgers.user_md import (
    DEFAULT_USER_LIMIT,
    UserProfile,
    canonical_section,
    empty_user_md,
    field_from_entry,
    guess_section,
)
from pipeline.sections import USER_SECTIONS

ENTRY_DELIMITER = "\n§\n"
USER_FILE = "USER.md"
MEMORY_FILE = "MEMORY.md"


def memories_dir(dir: Path) -> Path:
    """DIR/memories; DIR itself when it already is a memories folder (holds the files, no memories/)."""
    dir = Path(dir)
    sub = dir / "memories"
    if not sub.is_dir() and ((dir / USER_FILE).exists() or (dir / MEMORY_FILE).exists()):
        return dir
    return sub


def split_entries(raw: str) -> list[str]:
    if raw.startswith("\ufeff"):
        raw = raw[1:]
    if not raw.strip():
        return []
    return [e.strip() for e in raw.split(ENTRY_DELIMITER) if e.strip()]


def join_entries(entries: list[str]) -> str:
    for entry in entries:
        if entry != entry.strip() or not entry:
            raise LedgerError("a Hermes entry must be non-empty text without leading or trailing whitespace")
        if "§" in entry.split("\n"):
            raise LedgerError("a Hermes entry cannot contain a line holding only '§' (the entry delimiter)")
    return ENTRY_DELIMITER.join(entries)


def _read(path: Path) -> list[str]:
    if not path.exists():
        return []
    try:
        # Universal newlines, like Hermes' read_text: CRLF stores split the same way.
        with open(path, encoding="utf-8") as f:
            return split_entries(f.read())
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerError(f"cannot read Hermes memory file {path}: {exc}") from exc


def read_hermes(dir: Path) -> tuple[list[str], list[str]]:
    """(user_entries, memory_entries) of a Hermes store; a missing file has no entries, a missing DIR is an error."""
    if not Path(dir).is_dir():
        raise LedgerError(f"Hermes directory not found: {dir}")
    base = memories_dir(dir)
    return _read(base / USER_FILE), _read(base / MEMORY_FILE)


def write_hermes(dir: Path, user_entries: list[str], memory_entries: list[str]) -> None:
    """Write both files in Hermes' own format (DIR/memories/ is created)."""
    base = Path(dir) / "memories"
    texts = {USER_FILE: join_entries(list(user_entries)), MEMORY_FILE: join_entries(list(memory_entries))}
    base.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        with open(base / name, "w", encoding="utf-8", newline="") as f:
            f.write(text)


def profile_from_entries(
    entries: Iterable[str], limit: int | None = DEFAULT_USER_LIMIT, base: UserProfile | str | None = None
) -> tuple[UserProfile, list[str]]:
    """Build a USER.md from Hermes entries, in their order, within the cap.

    `base` (a profile, left untouched, or USER.md text) is what to import into; default an empty file.
    Returns the profile and the entries that did not fit (or were not valid text). Every entry is
    kept as its own field, even when two share a key. Sections are guessed (the vocabulary's section for a
    key it lists, pipeline/vocabulary.py; else Preferences) but never out of order, so exporting gives the same entry order.
    """
    profile = copy.deepcopy(base) if isinstance(base, UserProfile) else UserProfile.parse(base or empty_user_md())
    profile.limit = limit
    existing = set(profile.entries())
    last_rank = 0
    not_fit: list[str] = []
    for entry in entries:
        text = entry.replace("\r\n", "\n").strip()
        if not text or text in existing:
            continue  # Hermes drops empty and exactly repeated entries on load, too
        section = guess_section(field_from_entry("", text).key)
        rank = USER_SECTIONS.index(canonical_section(section) or "Preferences")
        if rank < last_rank:
            section, rank = USER_SECTIONS[last_rank], last_rank
        try:
            profile._append_imported(text, section)
        except LedgerError:  # CapExceeded, or text we cannot store
            not_fit.append(entry)
            continue
        existing.add(text)
        last_rank = rank
    return profile, not_fit


def log_from_entries(
    entries: Iterable[str], limit: int | None = DEFAULT_MEMORY_LIMIT, base: MemoryLog | str | None = None
) -> tuple[MemoryLog, list[str]]:
    """Build a MEMORY.md from Hermes entries, in order, within the cap; returns (log, entries that did not fit).

    Entries are parsed like our bullets ("[2026-07-30] topic: text" keeps its date and topic);
    `base` works as in profile_from_entries."""
    log = copy.deepcopy(base) if isinstance(base, MemoryLog) else MemoryLog.parse(base or empty_memory_md())
    log.limit = limit
    existing = set(log.entry_strings())
    not_fit: list[str] = []
    for entry in entries:
        text = entry.replace("\r\n", "\n").strip()
        if not text or text in existing:
            continue
        try:
            log.append(MemoryEntry.parse(text))
        except LedgerError:
            not_fit.append(entry)
            continue
        existing.add(text)
    return log, not_fit


def profile_to_entries(profile: UserProfile) -> list[str]:
    return profile.entries()


def log_to_entries(log: MemoryLog) -> list[str]:
    return log.entry_strings()

"""Pins and tags: what a person says about a USER.md field or a MEMORY.md entry on the review page.

They are store records (`MemoryStore.add_annotation` / `delete_annotations` / `annotations`), not
text in the documents, so a pin never costs a character of the caps. A field is referred to by its
normalised key, an entry by its id (a digest of its text, the id the HTTP API uses too).
A pinned field is never compacted away nor shortened; a pinned entry is never consolidated away.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from pipeline.ledgers import norm_key
from pipeline.ledgers.memory_md import MemoryEntry
from pipeline.store.interface import MemoryStore

KINDS = ("pin", "project", "task", "tag")


def entry_id(body: str) -> str:
    """The id of a MEMORY.md entry: stable while its text (the line without "- ") is unchanged."""
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:12]


def field_ref(key: str) -> str:
    return norm_key(key)


def pinned_keys(store: MemoryStore, user_id: str) -> set[str]:
    """Normalised USER.md keys the user pinned."""
    return {a["ref"] for a in store.annotations(user_id) if a["target"] == "user" and a["kind"] == "pin"}


def pinned_bodies(store: MemoryStore, user_id: str, entries: Iterable[MemoryEntry]) -> set[str]:
    """The bodies of the given MEMORY.md entries that the user pinned."""
    pins = {a["ref"] for a in store.annotations(user_id) if a["target"] == "memory" and a["kind"] == "pin"}
    if not pins:
        return set()
    return {e.body() for e in entries if entry_id(e.body()) in pins}


def by_ref(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Annotations grouped by (target, ref)."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        out.setdefault((row["target"], row["ref"]), []).append(row)
    return out

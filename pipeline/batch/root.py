"""The memory root a batch writes: moved aside on --restart (never deleted), and refused when it
holds memory no batch wrote."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

RESTART_PREFIX = ".before-restart-"


def move_aside(out: Path) -> Path | None:
    """--restart: move what the root holds into OUT/.before-restart-<time>/ (nothing is deleted)."""
    if not out.is_dir():
        return None
    entries = [p for p in out.iterdir() if not p.name.startswith(RESTART_PREFIX)]
    if not entries:
        return None
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = out / f"{RESTART_PREFIX}{stamp}"
    n = 1
    while target.exists():
        n += 1
        target = out / f"{RESTART_PREFIX}{stamp}-{n}"
    target.mkdir()
    for p in entries:
        p.rename(target / p.name)
    return target


def holds_foreign_memory(pipe: Any) -> bool:
    """Memory in the root and no trace of a batch (no checkpoint, no batch turn id) in its store."""
    store = pipe.store
    if store.has_batch_trace():
        return False
    if store.has_turns():
        return True
    return bool(pipe.documents.has_any_documents())  # files under the root, or rows in a database


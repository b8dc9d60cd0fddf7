"""Making room in a full file: the engine's USER.md compaction and MEMORY.md consolidation as the
write stage calls them (stages/write.py: Compactor, Consolidator), with the user's pins and hand-set
fields protected and the usage of every model call kept."""

from __future__ import annotations

import logging
from collections.abc import Callable

from pipeline import observe
from pipeline.engines.base import Engine
from pipeline.errors import CompactionError, ConsolidationError
from pipeline.ledgers import norm_key, split_label
from pipeline.ledgers.memory_md import MemoryLog
from pipeline.ledgers.user_md import UserProfile
from pipeline.ops.pins import pinned_bodies, pinned_keys
from pipeline.ops.usage import usage_of
from pipeline.stages.consolidate import archive_oldest, consolidate_log
from pipeline.stages.write import Change
from pipeline.store.interface import MemoryStore
from pipeline.types import Turn, Usage

log = logging.getLogger("memroute.pipeline")

COMPACT_AT = 0.9  # USER.md is compacted (without an LLM) once it reaches this share of its cap ...
COMPACT_GOAL = 0.8  # ... down to this share, so the next facts find room


def compactor(
    engine: Engine, store: MemoryStore, user_id: str, user_limit: int, usage_parts: list[Usage]
) -> Callable[[str, int], str | None]:
    """The engine's USER.md compaction (a model's, or the rule-based default); either way a field
    the user set by hand (tool, import: confirmed) or pinned never leaves."""

    def run(user_md: str, needed_chars: int) -> str | None:
        confirmed = confirmed_keys(store, user_id) | pinned_keys(store, user_id)  # both never leave
        try:
            done = engine.compact(user_md, needed_chars, protected=frozenset(confirmed),
                                  goal_chars=int(user_limit * COMPACT_GOAL))
        except Exception as e:  # the engine's (a model's) failure, told apart from the store's
            raise CompactionError(f"{type(e).__name__}: {e}", usage=usage_of(e)) from e
        usage_parts.append(done.usage.tagged("compact"))  # this call's own usage, failed attempts included
        rewritten = done.value
        if rewritten is not None and not (confirmed & _keys(user_md)) <= _keys(rewritten):
            return None  # the engine dropped a field the user confirmed
        return rewritten

    return run


def consolidator(
    engine: Engine,
    turn: Turn,
    memory_limit: int,
    usage_parts: list[Usage],
    store: MemoryStore | None = None,
    notes: list[str] | None = None,
) -> Callable[[MemoryLog], tuple[list[Change], list[Change]]]:
    """The engine's MEMORY.md consolidation; entries the user pinned (in `store`) stay as they are.
    When it fails (the model's plan invalid or too long, the model down) the rule-based one runs,
    and when that cannot shrink the file either, the oldest unpinned entries go to the archive. So
    a full log never fails the turn nor blocks its USER.md facts. `notes` collects one line per
    fallback taken (logged; the history says which engine ran)."""

    def run(memory: MemoryLog) -> tuple[list[Change], list[Change]]:
        with observe.stage("consolidate", engine.name):
            how, result = attempt(memory)
        observe.count_consolidation(engine.name, "turn", how)
        return result

    def attempt(memory: MemoryLog) -> tuple[str, tuple[list[Change], list[Change]]]:
        pinned = pinned_bodies(store, turn.user_id, memory.entries) if store is not None else set()
        spent: list[Usage] = []
        try:
            return "engine", consolidate_log(memory, engine, memory_limit=memory_limit, today=turn.today,
                                             usage_sink=spent, pinned=pinned)
        except ConsolidationError as e:
            spent.append(usage_of(e))
            _note(notes, f"{engine.name} consolidation failed ({e}); ")
        finally:
            usage_parts.extend(u.tagged("consolidate") for u in spent)  # failed plans cost too
        if engine.name != "offline":
            from pipeline.engines.offline.engine import OfflineEngine

            try:
                return "offline_fallback", consolidate_log(memory, OfflineEngine(), memory_limit=memory_limit,
                                                           today=turn.today, pinned=pinned)
            except ConsolidationError as e:
                _note(notes, f"offline consolidation failed ({e}); ")
        _note(notes, "archived the oldest entries")
        return "archived_oldest", archive_oldest(memory, memory_limit=memory_limit, pinned=pinned,
                                                 why="archived: MEMORY.md full and consolidation failed")

    return run


def _note(notes: list[str] | None, text: str) -> None:
    log.warning("consolidation fallback: %s", text.rstrip("; "))
    if notes is not None:
        notes.append(text)


def confirmed_keys(store: MemoryStore, user_id: str) -> set[str]:
    """USER.md keys whose current value the user set by hand (provenance: no engine decided it)."""
    latest: dict[str, str | None] = {}
    for row in store.provenance(user_id, target="user"):
        key = row.get("key") or split_label(str(row.get("value") or ""))[0]  # the tool records "Key: value"
        if key:
            latest[norm_key(key)] = row.get("engine")
    return {key for key, engine in latest.items() if engine == "manual"}


def _keys(user_md: str) -> set[str]:
    return {norm_key(f.key) for f in UserProfile.parse(user_md).fields() if f.key}


__all__ = ["COMPACT_AT", "COMPACT_GOAL", "CompactionError", "compactor", "confirmed_keys", "consolidator"]

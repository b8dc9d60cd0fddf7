"""Stage 3: rewrite MEMORY.md below its cap without losing anything.

The engine proposes a plan; this module checks it (under the target size, not empty, every
source entry kept, merged or archived) and applies it. Entries that leave the file go to the
archive. An invalid plan raises ConsolidationError and changes nothing.
"""

from __future__ import annotations

from datetime import date

from pipeline.engines.base import Engine
from pipeline.ledgers.memory_md import MemoryEntry, MemoryLog
from pipeline.stages.write import Change
from pipeline.types import ConsolidationPlan, MemoryItem, Usage

TARGET_SHARE = 0.75  # consolidation rewrites MEMORY.md to at most this share of its cap


class ConsolidationError(Exception):
    """The engine's plan was invalid or the engine failed; MEMORY.md is left as it was."""


def items_of(log: MemoryLog) -> list[MemoryItem]:
    return [MemoryItem(index=i, date=e.date, topic=e.topic, text=e.text) for i, e in enumerate(log.entries)]


def validate_plan(plan: ConsolidationPlan, items: list[MemoryItem], rendered: str, target_chars: int) -> None:
    if items and not plan.entries:
        raise ConsolidationError("consolidation produced no entries")
    if len(rendered) > target_chars:
        raise ConsolidationError(f"consolidated file is {len(rendered):,} chars, over the target {target_chars:,}")
    known = {item.index for item in items}
    covered: set[int] = set(plan.archived)
    for entry in plan.entries:
        if not entry.text.strip():
            raise ConsolidationError("consolidation produced an empty entry")
        if not entry.sources:
            raise ConsolidationError(f"entry {entry.text[:40]!r} names no source entries")
        covered.update(entry.sources)
    unknown = covered - known
    if unknown:
        raise ConsolidationError(f"consolidation names unknown source entries {sorted(unknown)}")
    missing = known - covered
    if missing:
        raise ConsolidationError(f"consolidation dropped entries {sorted(missing)} (neither kept, merged nor archived)")


def consolidate_log(
    log: MemoryLog, engine: Engine, *, memory_limit: int, today: date, usage_sink: list[Usage] | None = None
) -> tuple[list[Change], list[Change]]:
    """Apply a validated plan to `log` in place; return (history changes, archive records)."""
    items = items_of(log)
    target = int(memory_limit * TARGET_SHARE)
    try:
        plan = engine.consolidate(items, target_chars=target, today=today)
    except Exception as e:  # the engine's failure must not touch the file
        raise ConsolidationError(f"consolidation failed: {e}") from e
    if usage_sink is not None:
        usage_sink.append(plan.usage)
    candidate = MemoryLog.parse(log.render())
    candidate.set_entries([MemoryEntry(text=e.text.strip(), date=e.date, topic=e.topic) for e in plan.entries])
    rendered = candidate.render()
    validate_plan(plan, items, rendered, target)

    kept_lines = {e.line() for e in candidate.entries}
    changes: list[Change] = []
    archive: list[Change] = []
    why = f"consolidated by {plan.engine}" + (f" ({plan.model})" if plan.model else "")
    for item in items:
        old_line = log.entries[item.index].line()
        if old_line not in kept_lines:
            archive.append(Change("memory", "consolidated", None, log.entries[item.index].body(), None, why))
    for new_entry in candidate.entries:
        if new_entry.line() not in {e.line() for e in log.entries}:
            changes.append(Change("memory", "consolidate", None, None, new_entry.body(), why))
    changes.append(
        Change("memory", "consolidate", None, f"{len(items)} entries", f"{len(candidate.entries)} entries", why)
    )
    log.set_entries(candidate.entries)
    return changes, archive

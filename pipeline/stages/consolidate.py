"""Stage 3: rewrite MEMORY.md below its cap without losing anything.

The engine proposes a plan; this module checks it (under the target size, not empty, every
source entry kept, merged or archived, nothing re-dated) and applies it. Entries that leave the
file go to the archive. An invalid plan raises ConsolidationError and changes nothing.

Nothing re-dated: an entry's date is the date of one of its sources (a merged entry takes the newest),
and a merged entry cites in its text the date of every part dated otherwise, at that part's precision,
"A (2026-07-12); B (2026-06)", or the span they fall in, "sprints 1-27 finished (2026-07-01 to 2026-07-27)".
A cited day does not stand for its month: a part dated [2026-06] needs "2026-06" itself (or a span
covering the whole month), so no merge gives a month-precise fact a day.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import date

from pipeline.engines.base import Engine
from pipeline.errors import ConsolidationError
from pipeline.ledgers import entry_dates
from pipeline.ledgers.memory_md import MemoryEntry, MemoryLog
from pipeline.stages.write import Change
from pipeline.types import ConsolidatedEntry, ConsolidationPlan, MemoryItem, Usage

_STAMP = r"(\d{4}(?:-\d{2}){0,2})"
_SPAN = re.compile(rf"(?<![\d-]){_STAMP}\s*(?:to|until|through|–|—|-|\.\.|~|至|到|ถึง|sampai|hingga|s\.d\.)\s*{_STAMP}(?![\d-])")
TARGET_SHARE = 0.75  # consolidation rewrites MEMORY.md to at most this share of its cap


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
    by_index = {item.index: item for item in items}
    for entry in plan.entries:
        _check_dates(entry, [by_index[i] for i in entry.sources])


def _check_dates(entry: ConsolidatedEntry, sources: list[MemoryItem]) -> None:
    """No fact moves to another day: the entry's date is one of its sources', the others are cited."""
    days = {s.date for s in sources}
    if entry.date not in days:
        raise ConsolidationError(
            f"entry {entry.text[:40]!r} is dated {entry.date} but its sources are dated {sorted(d or '-' for d in days)}"
        )
    cited = set(entry_dates.stamps_in(entry.text))
    spans = [(m.group(1), m.group(2)) for m in _SPAN.finditer(entry.text)
             if entry_dates.is_stamp(m.group(1)) and entry_dates.is_stamp(m.group(2))]
    uncited = sorted(d for d in days if d and d != entry.date and d not in cited and not any(_within(d, a, b) for a, b in spans))
    if uncited:
        raise ConsolidationError(f"merged entry {entry.text[:40]!r} does not cite the dates of its parts {uncited}")


def _within(stamp: str, first: str, last: str) -> bool:
    """Every day of `stamp` falls between the start of `first` and the end of `last`."""
    start, end = entry_dates.bounds(stamp)
    return entry_dates.bounds(first)[0] <= start and end <= entry_dates.bounds(last)[1]


def with_pinned(entries: list[MemoryEntry], pinned: list[MemoryEntry]) -> list[MemoryEntry]:
    """`entries` with each pinned entry put back where its date falls (before the first later one)."""
    out = list(entries)
    for entry in pinned:
        at = next((i for i, e in enumerate(out) if (e.date or "") > (entry.date or "")), len(out))
        out.insert(at, entry)
    return out


def consolidate_log(
    log: MemoryLog, engine: Engine, *, memory_limit: int, today: date, usage_sink: list[Usage] | None = None,
    pinned: Collection[str] = (),
) -> tuple[list[Change], list[Change]]:
    """Apply a validated plan to `log` in place; return (history changes, archive records).
    `pinned`: bodies of entries the user pinned; the engine never sees them and they stay as they are."""
    kept = [e for e in log.entries if e.body() in pinned]
    free = [e for e in log.entries if e.body() not in pinned]
    items = [MemoryItem(index=i, date=e.date, topic=e.topic, text=e.text) for i, e in enumerate(free)]
    target = int(memory_limit * TARGET_SHARE)
    room = target - sum(len(e.line()) + 1 for e in kept)  # what the unpinned entries may take
    if kept and room <= 0:
        raise ConsolidationError("the pinned entries alone fill MEMORY.md's consolidation target; unpin some")
    try:
        plan = engine.consolidate(items, target_chars=room, today=today)
    except Exception as e:  # the engine's failure must not touch the file
        raise ConsolidationError(f"consolidation failed: {e}") from e
    if usage_sink is not None:
        usage_sink.append(plan.usage)
    candidate = MemoryLog.parse(log.render())
    planned = [MemoryEntry(text=e.text.strip(), date=e.date, topic=e.topic) for e in plan.entries]
    candidate.set_entries(with_pinned(planned, kept))
    rendered = candidate.render()
    validate_plan(plan, items, rendered, target)

    # Each list and set is built once: a hand-edited file of thousands of entries stays linear.
    old_entries = free
    new_entries = candidate.entries
    kept_lines = {e.line() for e in new_entries}
    old_lines = {e.line() for e in log.entries}  # pinned ones included: they are not new
    changes: list[Change] = []
    archive: list[Change] = []
    why = f"consolidated by {plan.engine}" + (f" ({plan.model})" if plan.model else "")
    for item in items:
        old = old_entries[item.index]
        if old.line() not in kept_lines:
            archive.append(Change("memory", "consolidated", None, old.body(), None, why))
    for new_entry in new_entries:
        if new_entry.line() not in old_lines:
            changes.append(Change("memory", "consolidate", None, None, new_entry.body(), why))
    changes.append(Change("memory", "consolidate", None, f"{len(log.entries)} entries", f"{len(new_entries)} entries", why))
    log.set_entries(new_entries)
    return changes, archive


def archive_oldest(
    log: MemoryLog, *, memory_limit: int, why: str, pinned: Collection[str] = ()
) -> tuple[list[Change], list[Change]]:
    """The last resort when no engine could consolidate: move the oldest entries (file order) to
    the archive until the file is at most TARGET_SHARE of its cap. Nothing is lost (recall finds
    them); the turn's new entries still land; a pinned entry never moves."""
    target = int(memory_limit * TARGET_SHARE)
    entries = log.entries
    keep = list(entries)
    while len(_rendered(log, keep)) > target:
        oldest = next((i for i, e in enumerate(keep) if e.body() not in pinned), None)
        if oldest is None:
            break  # only pinned entries left: they stay, over the target
        keep.pop(oldest)
    kept = {id(e) for e in keep}
    gone = [e for e in entries if id(e) not in kept]
    if not gone:
        return [], []
    log.set_entries(keep)
    archive = [Change("memory", "consolidated", None, e.body(), None, why) for e in gone]
    changes = [Change("memory", "consolidate", None, f"{len(entries)} entries", f"{len(keep)} entries", why)]
    return changes, archive


def _rendered(log: MemoryLog, entries: list[MemoryEntry]) -> str:
    trial = MemoryLog.parse(log.render())
    trial.set_entries(entries)
    return trial.render()

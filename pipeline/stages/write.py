"""Stage 2: apply a turn's (already guarded) decisions to the two ledgers, deterministically.

Works on parsed text models only; the caller commits the result. Each op is tried on its own
and kept only if the file stays under its cap, so one oversized fact never blocks the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pipeline.ledgers._text import norm_key
from pipeline.ledgers.errors import CapExceeded, LedgerError, MatchError
from pipeline.ledgers.memory_md import MemoryEntry, MemoryLog
from pipeline.ledgers.user_md import UserProfile
from pipeline.types import USER_SECTIONS, Decision


@dataclass
class Change:
    """One line of history: what changed in which file, and why."""

    target: str  # user | memory
    op: str  # upsert | append | remove | replace | consolidate
    key: str | None
    old: str | None
    new: str | None
    why: str
    quote: str | None = None


@dataclass
class WriteResult:
    profile: UserProfile
    log: MemoryLog
    changes: list[Change] = field(default_factory=list)
    archive: list[Change] = field(default_factory=list)  # values that left a file
    decisions: list[Decision] = field(default_factory=list)
    consolidated: bool = False


# Rewrites MEMORY.md to make room: returns the changes/archive records it produced.
Consolidator = Callable[[MemoryLog], tuple[list[Change], list[Change]]]
# Rewrites USER.md at least N characters shorter keeping every field, or returns None.
Compactor = Callable[[str, int], "str | None"]


def apply_decisions(
    decisions: list[Decision],
    profile: UserProfile,
    log: MemoryLog,
    *,
    consolidate: Consolidator | None = None,
    consolidate_at: float = 0.9,
    compact: Compactor | None = None,
) -> WriteResult:
    """The ledgers must be parsed with their caps (`limit=`): they refuse, and undo, any op that
    would leave a file over its cap, which is how an oversized fact becomes `over_cap`."""
    if profile.limit is None or log.limit is None:
        raise ValueError("apply_decisions needs USER.md and MEMORY.md parsed with their caps (limit=...)")
    result = WriteResult(profile=profile, log=log)
    for decision in decisions:
        d = decision.model_copy()
        if d.route == "user" and d.op == "upsert":
            d.outcome = _upsert(result, d)
            if d.outcome.startswith("over_cap") and compact is not None and _compact_profile(result, d, compact):
                d.outcome = _upsert(result, d)
        elif d.route == "user" and d.op == "remove":
            d.outcome = _forget_field(result, d)
        elif d.route == "memory" and d.op == "append":
            d.outcome = _append(result, d, consolidate)
        elif d.route == "memory" and d.op == "remove":
            d.outcome = _forget_entry(result, d)
        elif d.route == "skip":
            d.outcome = d.outcome or "skipped"
        else:
            d.outcome = f"ignored: route {d.route} with op {d.op}"
        result.decisions.append(d)
    if consolidate is not None and len(result.log.render()) >= consolidate_at * log.limit:
        _run_consolidation(result, consolidate)
    return result


def _upsert(result: WriteResult, d: Decision) -> str:
    if not d.key or d.value is None or not d.value.strip():
        return "ignored: no key or value"
    section = d.section if d.section in USER_SECTIONS else "Identity"
    existing = result.profile.get(d.key)
    if existing is not None and existing.value.strip() == d.value.strip():
        return "unchanged"
    try:
        old = result.profile.upsert(section, d.key, d.value.strip())
    except CapExceeded as e:
        return f"over_cap: user profile at {e.usage} chars"
    except LedgerError as e:
        return f"refused: {e}"
    key = existing.key if existing is not None and existing.key else d.key
    result.changes.append(Change("user", "upsert", key, old, d.value.strip(), d.detail or "profile fact", d.quote))
    if old is not None:
        result.archive.append(Change("user", "overwritten", key, old, None, f"overwritten by: {d.value.strip()}"))
    return "written"


def _compact_profile(result: WriteResult, d: Decision, compact: Compactor) -> bool:
    """Make room for `d` by having the engine shorten USER.md; accept only a rewrite that keeps
    every field (by key) and leaves enough room. Old values of shortened fields are archived."""
    limit = result.profile.limit or 0
    before = result.profile.render()
    trial = UserProfile.parse(before)  # uncapped: it measures the overflow
    trial.upsert(d.section if d.section in USER_SECTIONS else "Identity", d.key or "", (d.value or "").strip())
    needed = len(trial.render()) - limit
    rewritten = compact(before, needed)
    if rewritten is None or len(rewritten) > len(before) - needed:
        return False
    compacted = UserProfile.parse(rewritten, limit=limit)
    old_fields = {f.key.lower(): f for f in result.profile.fields() if f.key}
    new_fields = {f.key.lower(): f for f in compacted.fields() if f.key}
    if set(old_fields) != set(new_fields):
        return False
    for key, old in old_fields.items():
        new_value = new_fields[key].value
        if new_value != old.value:
            result.changes.append(Change("user", "compact", old.key, old.value, new_value, "USER.md compacted to make room"))
            result.archive.append(Change("user", "compacted", old.key, old.value, None, f"shortened to: {new_value}"))
    result.profile = compacted
    return True


def names_key(words: str, key: str) -> bool:
    """Do the words of a forget request name this USER.md key? "email" names Email, "phone number"
    names Phone: every word of the key is among the request's words (any case, any script)."""
    wanted, have = norm_key(words).split(), norm_key(key).split()
    return bool(have) and set(have) <= set(wanted)


def _forget_field(result: WriteResult, d: Decision) -> str:
    if not d.match:
        return "not_found"
    target = result.profile.get(d.match)
    if target is None:
        # "forget my phone number": the field whose key the words name (Phone), the longest such key.
        named = [f for f in result.profile.fields() if f.key and names_key(d.match, f.key)]
        longest = max((len(f.key.split()) for f in named if f.key), default=0)
        named = [f for f in named if f.key and len(f.key.split()) == longest]
        if len(named) > 1:
            return "ambiguous"
        target = named[0] if named else None
    if target is None:
        # "forget that I use Vue": match a unique field by its value instead of its key.
        hits = [f for f in result.profile.fields() if d.match.lower() in f.value.lower()]
        if len(hits) != 1:
            return "not_found" if not hits else "ambiguous"
        target = hits[0]
    label = target.key if target.key else target.value
    old = result.profile.remove(target.key) if target.key else result.profile.remove_entry(target.value)
    result.changes.append(Change("user", "remove", label, old, None, d.detail or "forget requested", d.quote))
    result.archive.append(Change("user", "removed", label, old, None, "forgotten at the user's request"))
    return "written"


def _append(result: WriteResult, d: Decision, consolidate: Consolidator | None) -> str:
    text = (d.entry or "").strip()
    if not text:
        return "ignored: empty entry"
    entry = MemoryEntry(text=text, date=d.date, topic=d.topic)
    if result.log.has_duplicate(entry):
        return "duplicate"
    try:
        result.log.append(entry)
    except CapExceeded as e:
        if consolidate is None:
            return f"over_cap: memory at {e.usage} chars"
        _run_consolidation(result, consolidate)
        try:
            result.log.append(entry)
        except CapExceeded as again:
            return f"over_cap: memory at {again.usage} chars after consolidation"
    except LedgerError as e:
        return f"refused: {e}"
    result.changes.append(Change("memory", "append", None, None, entry.body(), d.detail or "memory entry", d.quote))
    return "written"


def _forget_entry(result: WriteResult, d: Decision) -> str:
    if not d.match:
        return "not_found"
    try:
        old = result.log.remove(d.match)
    except MatchError as e:
        return "ambiguous" if e.ambiguous else "not_found"
    result.changes.append(Change("memory", "remove", None, old.body(), None, d.detail or "forget requested", d.quote))
    result.archive.append(Change("memory", "removed", None, old.body(), None, "forgotten at the user's request"))
    return "written"


def _run_consolidation(result: WriteResult, consolidate: Consolidator) -> None:
    changes, archive = consolidate(result.log)
    result.changes.extend(changes)
    result.archive.extend(archive)
    result.consolidated = True

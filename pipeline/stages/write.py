"""Stage 2: apply a turn's (already guarded) decisions to the two ledgers, deterministically.

Works on parsed text models only; the caller commits the result. Each op is tried on its own
and kept only if the file stays under its cap, so one oversized fact never blocks the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pipeline.errors import CapExceeded, LedgerError, MatchError
from pipeline.ledgers import names_key, norm_key
from pipeline.ledgers.memory_md import MemoryEntry, MemoryLog
from pipeline.ledgers.user_md import UserField, UserProfile
from pipeline.stages import clauses
from pipeline.types import CHANGE_OF_FACT, FORGOTTEN, USER_SECTIONS, Decision, Outcome

CONSOLIDATE_AT = 0.9  # MEMORY.md is consolidated once it reaches this share of its cap

# What an op did and why (Decision.settle's arguments).
Settled = tuple[Outcome, "str | None"]


@dataclass
class Change:
    """One line of history: what changed in which file, and why."""

    target: str  # user | memory
    op: str  # upsert | append | remove | replace | consolidate
    key: str | None
    old: str | None
    new: str | None
    why: str  # for people (history shows it); nothing reads it to decide
    quote: str | None = None
    # op remove: the user's own news ("I'm no longer a nurse", Decision.removal), kept in history and the archive
    # like any overwritten value; any other removal answers a forget request, and a forget erases every copy.
    change_of_fact: bool = False


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
    consolidate_at: float = CONSOLIDATE_AT,
    compact: Compactor | None = None,
    compact_at: float | None = None,
    later: dict[str, str] | None = None,
) -> WriteResult:
    """The ledgers must be parsed with their caps (`limit=`): they refuse, and undo, any op that
    would leave a file over its cap, which is how an oversized fact becomes `over_cap`. With
    `compact_at` (a share of the cap), USER.md is also compacted once it reaches that size.
    `later`: normalised USER.md keys a later turn set (see stages/order.py), with that turn's time: this
    turn neither overwrites nor removes them; its values go to history and the archive instead."""
    if profile.limit is None or log.limit is None:
        raise ValueError("apply_decisions needs USER.md and MEMORY.md parsed with their caps (limit=...)")
    result = WriteResult(profile=profile, log=log)
    for decision in decisions:
        d = decision.model_copy()
        newer = _set_later(d, result.profile, later or {})
        if newer is not None:
            d.settle(*_keep_stale(result, d, newer))
        elif d.route == "user" and d.op == "upsert":
            d.settle(*_upsert(result, d))
            if d.outcome is Outcome.OVER_CAP and compact is not None:
                moved = _compact_profile(result, d, compact)
                if moved is not None:
                    outcome, detail = _upsert(result, d)
                    d.settle(outcome, _joined(detail, f"after compacting USER.md ({moved})" if moved else
                                       "after compacting USER.md"))
            if d.outcome is Outcome.OVER_CAP:  # never silently lost: kept where recall finds it
                result.archive.append(Change("user", "over_cap", d.key, (d.value or "").strip(), None,
                                             "USER.md full: the fact did not fit, kept in the archive"))
                d.settle(Outcome.OVER_CAP, _joined(d.outcome_detail, "kept in the archive"))
        elif d.route == "user" and d.op == "remove":
            d.settle(*_forget_field(result, d))
        elif d.route == "memory" and d.op == "append":
            d.settle(*_append(result, d, consolidate))
        elif d.route == "memory" and d.op == "remove":
            d.settle(*_forget_entry(result, d))
        elif d.route == "skip":
            if d.outcome is None:
                d.settle(Outcome.SKIPPED)
        else:
            d.settle(Outcome.IGNORED, f"route {d.route} with op {d.op}")
        result.decisions.append(d)
    if consolidate is not None and len(result.log.render()) >= consolidate_at * log.limit:
        _run_consolidation(result, consolidate)
    if compact is not None and compact_at is not None and len(result.profile.render()) >= compact_at * profile.limit:
        written = [d for d in result.decisions if d.route == "user" and d.outcome is Outcome.WRITTEN]
        # near the cap: make room before the next fact needs it (the turn's last write tells what left)
        moved = _compact_profile(result, None, compact, told=written[-1] if written else None)
        if moved and written:
            last = written[-1]
            last.settle(Outcome.WRITTEN, _joined(last.outcome_detail, f"then USER.md compacted ({moved})"))
    return result


def _set_later(d: Decision, profile: UserProfile, later: dict[str, str]) -> str | None:
    """The time of the later turn that set the field this user decision would change, if any."""
    if d.route != "user" or not later:
        return None
    named = d.key if d.op == "upsert" else d.match
    if not named:
        return None
    field = profile.get(named)
    key = field.key if field is not None and field.key else named
    return later.get(norm_key(key))


def _keep_stale(result: WriteResult, d: Decision, newer: str) -> Settled:
    """A late turn's value: recorded under the newer one (history and archive), the file unchanged."""
    value = (d.value or "").strip() if d.op == "upsert" else None
    detail = f"{d.key or d.match} was set by a later turn ({newer})"
    why = f"{Outcome.STALE.value}: {detail}"
    if value:
        result.changes.append(Change("user", "stale", d.key, value, None, why, d.quote))
        result.archive.append(Change("user", "stale", d.key, value, None, why))
    return Outcome.STALE, detail


def _joined(detail: str | None, more: str) -> str:
    """An outcome's detail with one more thing that happened ("...; kept in the archive")."""
    return f"{detail}; {more}" if detail else more


def _upsert(result: WriteResult, d: Decision) -> Settled:
    """Set a field. A collecting field that grows past its cap sheds its least valuable clauses (clauses.py);
    a value that replaces another says so. Whatever leaves is in history and the archive, and in the outcome."""
    if not d.key or d.value is None or not d.value.strip():
        return Outcome.IGNORED, "no key or value"
    section = d.section if d.section in USER_SECTIONS else "Identity"
    existing = result.profile.get(d.key)
    key = existing.key if existing is not None and existing.key else d.key
    value = d.value.strip()
    evicted: list[clauses.Eviction] = []
    if existing is not None and clauses.extends(existing.value, value):
        parts, evicted = clauses.fit(key, clauses.split_clauses(value))
        value = clauses.join_clauses(parts)
    if existing is not None and existing.value.strip() == value:
        if not evicted:
            return Outcome.UNCHANGED, None
        _record_evictions(result, d, evicted)  # the new clause itself was the least valuable
        return Outcome.UNCHANGED, clauses.evicted_note(evicted) + ", kept in the archive"
    try:
        old = result.profile.upsert(section, d.key, value)
    except CapExceeded as e:
        return Outcome.OVER_CAP, f"user profile at {e.usage} chars"
    except LedgerError as e:
        return Outcome.REFUSED, str(e)
    d.value = value
    result.changes.append(Change("user", "upsert", key, old, value, d.detail or "profile fact", d.quote))
    if evicted:  # after the upsert row: an undo replays history newest first, so the full old value wins
        _record_evictions(result, d, evicted)
        return Outcome.WRITTEN, clauses.evicted_note(evicted) + ", kept in the archive"
    if old is not None and not clauses.extends(old, value):
        result.archive.append(Change("user", "overwritten", key, old, None, f"overwritten by: {value}"))
        d.evicted = [*d.evicted, clauses.REPLACED]
        return Outcome.WRITTEN, f"replaced {old!r} (kept in history and the archive)"
    return Outcome.WRITTEN, None


def _record_evictions(result: WriteResult, d: Decision, evicted: list[clauses.Eviction]) -> None:
    for e in evicted:
        why = f"{e.key} full ({clauses.MULTI_VALUE_CAP} characters): {e.reason}"
        result.changes.append(Change("user", "evict", e.key, e.clause, None, why, d.quote))
        result.archive.append(Change("user", "evicted", e.key, e.clause, None, why))
    d.evicted = [*d.evicted, *(e.reason for e in evicted)]


def _compact_profile(result: WriteResult, d: Decision | None, compact: Compactor, told: Decision | None = None) -> str | None:
    """Make room for `d` (or, with None, below the cap's compaction point) by having the engine shorten
    USER.md. Accept only a rewrite that invents no field and leaves enough room. Fields it moved out and
    old values of shortened fields go to the archive. Returns what moved ("" when only shortened), or None.
    `told` (default `d`): the decision whose `evicted` counts what left, with its reason."""
    told = told if told is not None else d
    limit = result.profile.limit or 0
    before = result.profile.render()
    if d is not None:
        trial = UserProfile.parse(before)  # uncapped: it measures the overflow
        trial.upsert(d.section if d.section in USER_SECTIONS else "Identity", d.key or "", (d.value or "").strip())
        needed = len(trial.render()) - limit
    else:
        needed = 1
    rewritten = compact(before, needed)
    if rewritten is None or len(rewritten) > len(before) - needed:
        return None
    compacted = UserProfile.parse(rewritten, limit=limit)
    old_fields = {_field_id(f): f for f in result.profile.fields()}
    new_fields = {_field_id(f): f for f in compacted.fields()}
    if not set(new_fields) <= set(old_fields):
        return None  # a compaction never invents or renames a field
    moved: list[str] = []
    reasons: list[str] = []
    for fid, old in old_fields.items():
        label = old.key or old.value
        if fid not in new_fields:  # moved out: the archive keeps it, recall finds it
            moved.append(label)
            reasons.append(clauses.MOVED_OUT)
            result.changes.append(Change("user", "compact", label, old.value, None, "moved to the archive: USER.md compacted to make room"))
            result.archive.append(Change("user", "compacted", old.key, old.value, None, "moved out of USER.md to make room"))
        elif new_fields[fid].value != old.value:
            new_value = new_fields[fid].value
            left = clauses.left_out(old.value, new_value)  # clauses of a collecting field that left, if any
            reasons += [clauses.junk_reason(c) or clauses.MOVED_OUT for c in left]
            why = "USER.md compacted to make room" + (f": {clauses.evicted_note(left_as(old.key or label, left))}" if left else "")
            result.changes.append(Change("user", "compact", old.key, old.value, new_value, why))
            result.archive.append(Change("user", "compacted", old.key, old.value, None, f"shortened to: {new_value}"))
    if told is not None:
        told.evicted = [*told.evicted, *reasons]
    result.profile = compacted
    return ("moved " + ", ".join(moved) + " to the archive") if moved else ""


def left_as(key: str, left: list[str]) -> list[clauses.Eviction]:
    return [clauses.Eviction(key, c, clauses.junk_reason(c) or clauses.MOVED_OUT) for c in left]


def _field_id(f: UserField) -> str:
    return f"key:{f.key.casefold()}" if f.key else f"note:{f.value}"


def _forget_field(result: WriteResult, d: Decision) -> Settled:
    if not d.match:
        return Outcome.NOT_FOUND, None
    target = result.profile.get(d.match)
    if target is None:
        # "forget my phone number": the field whose key the words name (Phone), the longest such key.
        named = [f for f in result.profile.fields() if f.key and names_key(d.match, f.key)]
        longest = max((len(f.key.split()) for f in named if f.key), default=0)
        named = [f for f in named if f.key and len(f.key.split()) == longest]
        if len(named) > 1:
            return Outcome.AMBIGUOUS, None
        target = named[0] if named else None
    if target is None:
        # "forget that I use Vue": match a unique field by its value instead of its key.
        hits = [f for f in result.profile.fields() if d.match.lower() in f.value.lower()]
        if len(hits) != 1:
            return (Outcome.AMBIGUOUS if hits else Outcome.NOT_FOUND), None
        target = hits[0]
    label = target.key if target.key else target.value
    old = result.profile.remove(target.key) if target.key else result.profile.remove_entry(target.value)
    changed = d.removal == "change_of_fact"
    result.changes.append(Change("user", "remove", label, old, None, d.detail or "forget requested", d.quote, changed))
    why = f"{CHANGE_OF_FACT}, the user said" if changed else FORGOTTEN
    result.archive.append(Change("user", "removed", label, old, None, why, change_of_fact=changed))
    return Outcome.WRITTEN, None


def _append(result: WriteResult, d: Decision, consolidate: Consolidator | None) -> Settled:
    text = (d.entry or "").strip()
    if not text:
        return Outcome.IGNORED, "empty entry"
    entry = MemoryEntry(text=text, date=d.date, topic=d.topic)
    if result.log.has_duplicate(entry):
        return Outcome.DUPLICATE, None
    try:
        result.log.append(entry)
    except CapExceeded as e:
        if consolidate is None:
            return Outcome.OVER_CAP, f"memory at {e.usage} chars"
        _run_consolidation(result, consolidate)
        try:
            result.log.append(entry)
        except CapExceeded as again:
            return Outcome.OVER_CAP, f"memory at {again.usage} chars after consolidation"
    except LedgerError as e:
        return Outcome.REFUSED, str(e)
    result.changes.append(Change("memory", "append", None, None, entry.body(), d.detail or "memory entry", d.quote))
    return Outcome.WRITTEN, None


def _forget_entry(result: WriteResult, d: Decision) -> Settled:
    if not d.match:
        return Outcome.NOT_FOUND, None
    try:
        old = result.log.remove(d.match)
    except MatchError as e:
        return (Outcome.AMBIGUOUS if e.ambiguous else Outcome.NOT_FOUND), None
    result.changes.append(Change("memory", "remove", None, old.body(), None, d.detail or "forget requested", d.quote))
    result.archive.append(Change("memory", "removed", None, old.body(), None, FORGOTTEN))
    return Outcome.WRITTEN, None


def _run_consolidation(result: WriteResult, consolidate: Consolidator) -> None:
    changes, archive = consolidate(result.log)
    result.changes.extend(changes)
    result.archive.extend(archive)
    result.consolidated = True

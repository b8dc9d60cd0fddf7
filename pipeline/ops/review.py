"""What a person does on the review page (and through the CLI or the API): correct a value,
delete it (or erase it everywhere), pin it, tag it, undo the last change. Each goes through
`Workspace.edit()`, the one write path: its history rows carry turn id "review-<random>" and a `why`
starting "review:", and the guards and caps apply as to a chat turn.

A USER.md field is named by its key (a keyless note by its text), a MEMORY.md entry by its id
(pipeline/ops/pins.entry_id). Team profiles are users under the reserved id "team+NAME".
"""

from __future__ import annotations

from typing import Any

from pipeline import guards
from pipeline.errors import ReviewConflict, ReviewNotFound, ReviewRefused
from pipeline.ledgers.memory_md import MemoryEntry
from pipeline.ledgers.user_md import guess_section
from pipeline.ops.edit import Ledgers
from pipeline.ops.erasure import Erased, purge_record
from pipeline.ops.pins import KINDS, entry_id, field_ref
from pipeline.ops.workspace import Workspace
from pipeline.stages.write import Change, WriteResult
from pipeline.store.files import validate_user_id
from pipeline.store.interface import Tx

KIND = "review"  # the edit kind: turn ids "review-<random>"
TEAM_PREFIX = "team+"
MAX_TAG_CHARS = 60
MAX_REF_CHARS = 2_000  # a field's key, or a keyless note's text (USER.md's whole cap is smaller)
TARGETS = ("user", "memory")
_ENTRY_ID_CHARS = frozenset("0123456789abcdef")


def team_user_id(team: str) -> str:
    """The id a team profile is stored under (a user in the reserved "team+" space)."""
    return validate_user_id(TEAM_PREFIX + team)


def check_ref(target: str, ref: str) -> str:
    """`ref` when it can name something in `target`: a USER.md key (or a keyless note's text), or a
    MEMORY.md entry id (12 hex digits, as `profile` shows). Else ReviewRefused (exit 2, HTTP 422):
    an empty ref, "." or ".." (which URLs turn into the folder above), control characters."""
    if target not in TARGETS:
        raise ReviewRefused(f"unknown target {target!r}: user or memory")
    if not isinstance(ref, str):
        raise ReviewRefused("a field key or an entry id is text")
    if target == "memory":
        if len(ref) != 12 or not set(ref) <= _ENTRY_ID_CHARS:
            raise ReviewRefused("not an entry id: an entry is named by its id, 12 hex digits (as profile shows)")
        return ref
    stripped = ref.strip()
    if not stripped or set(stripped) <= {"."} or not ref.isprintable() or len(ref) > MAX_REF_CHARS:
        raise ReviewRefused("not a field key: a key is a short label (not empty, not '.' or '..', "
                            f"no line breaks or control characters, at most {MAX_REF_CHARS:,} characters)")
    return ref


def _refuse_unsafe(current: Ledgers, target: str) -> None:
    refused = current.user_refused if target == "user" else current.memory_refused
    if refused:
        raise ReviewConflict(refused)


def _checked(value: str, what: str, policy: guards.GuardPolicy) -> str:
    value = " ".join(value.split())
    if not value:
        raise ReviewRefused(f"{what} is empty")
    verdict = guards.check_text(value, turn_text=value, policy=policy)
    if not verdict.allowed:
        raise ReviewRefused(f"{what} refused: {verdict.message}")
    return value


def _field(current: Ledgers, ref: str) -> tuple[str | None, str, str]:
    """(key, value, section) of the USER.md field named by `ref` (a key, or a keyless note's text)."""
    wanted = field_ref(ref)
    for f in current.profile.fields():
        if (f.key is not None and field_ref(f.key) == wanted) or (f.key is None and f.value == ref):
            return f.key, f.value, f.section
    raise ReviewNotFound(f"no field {ref!r} in USER.md")


def _entry(current: Ledgers, ref: str) -> MemoryEntry:
    for e in current.log.entries:
        if entry_id(e.body()) == ref:
            return e
    raise ReviewNotFound(f"no MEMORY.md entry {ref!r} (an entry's id changes when its text does)")


def _ref_of(target: str, key: str | None, value: str) -> str:
    return field_ref(key) if key is not None else field_ref(value)


def correct(ws: Workspace, user_id: str, target: str, ref: str, value: str) -> dict[str, Any]:
    """Set a field's value (target "user", ref its key) or an entry's text (target "memory", ref its
    id; its date and topic stay). Pins and tags follow the entry to its new id."""
    check_ref(target, ref)
    value = _checked(value, "the new value", ws.guard_policy)
    with ws.edit(user_id, kind=KIND) as tx:
        current = tx.current
        _refuse_unsafe(current, target)
        written = WriteResult(profile=current.profile, log=current.log)
        new_ref = ref
        if target == "user":
            key, old, section = _field(current, ref)
            if key is None:
                current.profile.replace_entry(old, value)
            else:
                current.profile.upsert(section or guess_section(key), key, value)
            written.changes = [Change("user", "replace", key, old, value, "review: corrected")]
            written.archive = [Change("user", "replaced", key, old, None, "review: corrected")]
        else:
            entry = _entry(current, ref)
            at = [e.body() for e in current.log.entries].index(entry.body())
            current.log.replace(entry.body(), MemoryEntry(text=value, date=entry.date, topic=entry.topic))
            new = current.log.entries[at]  # as the ledger cleaned it
            new_ref = entry_id(new.body())
            written.changes = [Change("memory", "replace", None, entry.body(), new.body(), "review: corrected")]
            written.archive = [Change("memory", "replaced", None, entry.body(), None, "review: corrected")]

        def move_annotations(t: Tx) -> None:
            if new_ref == ref:
                return
            for a in ws.store.annotations(user_id):
                if a["target"] == target and a["ref"] == ref:
                    ws.store.add_annotation(t, user_id=user_id, target=target, ref=new_ref, kind=a["kind"],
                                              value=a["value"], ts=a["ts"])
            ws.store.delete_annotations(t, user_id, target=target, ref=ref)

        tx.stage(written, records=move_annotations)
    return {"success": True, "target": target, "ref": new_ref, "value": value, "turn_id": tx.turn_id}


def delete(ws: Workspace, user_id: str, target: str, ref: str, *, purge: bool = False) -> dict[str, Any]:
    """Take one field or entry out. Without `purge` its value goes to the archive (recall finds
    it); with `purge` every stored copy is erased (history keeps only that an erasure happened),
    exactly as `memroute forget --purge`, but of this one item only."""
    check_ref(target, ref)
    with ws.edit(user_id, kind=KIND) as tx:
        current = tx.current
        _refuse_unsafe(current, target)
        erased = Erased()
        if target == "user":
            key, old, _ = _field(current, ref)
            if key is not None:
                current.profile.remove(key)
                erased.keys.append(key)
            else:
                current.profile.remove_entry(old)
            erased.add_needle(old)
            change = Change("user", "remove", key, old, None, "review: deleted")
            annotation_ref = _ref_of("user", key, old)
        else:
            entry = _entry(current, ref)
            current.log.remove(entry.body())
            erased.add_needle(entry.body())
            erased.add_needle(entry.text)
            change = Change("memory", "remove", None, entry.body(), None, "review: deleted")
            annotation_ref = ref
        erased.labels.append(f"{target} {ref}")
        written = WriteResult(profile=current.profile, log=current.log)

        def drop_annotations(t: Tx) -> None:
            ws.store.delete_annotations(t, user_id, target=target, ref=annotation_ref)

        if purge:
            written.changes = [purge_record(change)]
            tx.stage(written, records=drop_annotations, purge=erased)
        else:
            written.changes = [change]
            written.archive = [Change(target, "removed", change.key, change.old, None, "review: deleted")]
            tx.stage(written, records=drop_annotations)
    return {"success": True, "target": target, "ref": ref, "purged": purge, "rows_erased": tx.rows_erased,
            "turn_id": tx.turn_id}


def annotate(
    ws: Workspace, user_id: str, target: str, ref: str, kind: str, value: str = "", *, remove: bool = False
) -> dict[str, Any]:
    """Pin (kind "pin") or tag (kind "project", "task" or "tag", with a value) a field or an entry;
    `remove` takes the pin or tag off. Recorded in history (op "pin"/"unpin"/"tag"/"untag")."""
    check_ref(target, ref)
    if kind not in KINDS:
        raise ReviewRefused(f"unknown annotation {kind!r}: one of {', '.join(KINDS)}")
    if kind == "pin":
        value = ""
    else:
        value = _checked(value, "the tag", ws.guard_policy)
        if len(value) > MAX_TAG_CHARS:
            raise ReviewRefused(f"a tag is at most {MAX_TAG_CHARS} characters")
    with ws.edit(user_id, kind=KIND) as tx:
        current = tx.current
        if target == "user":
            key, old, _ = _field(current, ref)
            stored_ref, label = _ref_of("user", key, old), key
        else:
            _entry(current, ref)
            stored_ref, label = ref, None
        op = ("un" if remove else "") + ("pin" if kind == "pin" else "tag")
        why = f"review: {op} {kind}: {value}" if value else f"review: {op}"  # "review: pin", "review: tag project: x"
        written = WriteResult(profile=current.profile, log=current.log,
                              changes=[Change(target, op, label, None, None, why)])
        changed = [False]

        def record(t: Tx) -> None:
            if remove:
                changed[0] = ws.store.delete_annotations(
                    t, user_id, target=target, ref=stored_ref, kind=kind, value=value) > 0
            else:
                changed[0] = ws.store.add_annotation(
                    t, user_id=user_id, target=target, ref=stored_ref, kind=kind, value=value, ts=tx.ts)

        tx.stage(written, files={}, records=record)
    return {"success": True, "target": target, "ref": stored_ref, "kind": kind, "value": value,
            "removed": remove, "changed": changed[0], "turn_id": tx.turn_id}


def drop_candidate(ws: Workspace, user_id: str, candidate_id: int) -> dict[str, Any]:
    """The user says a candidate is wrong: it is deleted (never promoted), and history says so."""
    with ws.edit(user_id, kind=KIND) as tx:
        found = [r for r in ws.store.candidates(user_id) if r["id"] == candidate_id]
        if not found:
            raise ReviewNotFound(f"no candidate {candidate_id}")
        current = tx.current
        written = WriteResult(profile=current.profile, log=current.log, changes=[
            Change("user", "drop candidate", str(found[0]["key"]), None, None, "review: candidate dropped")])

        def drop(t: Tx) -> None:
            ws.store.delete_candidates(t, user_id, [candidate_id])

        tx.stage(written, files={}, records=drop)
    return {"success": True, "dropped": candidate_id, "turn_id": tx.turn_id}


# ---- undo -------------------------------------------------------------------------------------

UNDO_WHY = "review: undo of "
NOT_UNDOABLE = ("purge", "consolidate")
NOT_FILE_CHANGES = ("pin", "unpin", "tag", "untag", "drop candidate")


def _last_change_set(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]] | None:
    """The newest change set (rows of one turn id) not yet undone and not itself an undo."""
    undone = {str(r["why"])[len(UNDO_WHY):] for r in rows if str(r.get("why") or "").startswith(UNDO_WHY)}
    seen: set[str] = set()
    for row in reversed(rows):
        turn = str(row.get("turn_id") or "")
        if turn in seen or turn in undone or str(row.get("why") or "").startswith(UNDO_WHY):
            seen.add(turn)
            continue
        if row["op"] in NOT_FILE_CHANGES:  # annotations have their own buttons; files unchanged
            continue
        return turn, [r for r in rows if r.get("turn_id") == turn]
    return None


def undo(ws: Workspace, user_id: str) -> dict[str, Any]:
    """Put both files back as they were before the last change (a turn's or a review action's),
    through the write path: the undo is itself a change in history ("review: undo of <turn id>").
    An erasure (purge) or a consolidation cannot be undone: they are refused with a reason."""
    with ws.edit(user_id, kind=KIND) as tx:
        current = tx.current
        found = _last_change_set(ws.store.history(user_id))
        if found is None:
            raise ReviewConflict("nothing to undo")
        turn, rows = found
        if any(r["op"] in NOT_UNDOABLE for r in rows):
            raise ReviewConflict(f"the last change ({turn}) was an erasure or a consolidation: it cannot be undone")
        why = UNDO_WHY + turn
        changes: list[Change] = []
        for row in reversed(rows):  # newest first: each row is undone on the state it left
            old, new, key = row.get("old_value"), row.get("new_value"), row.get("key")
            if row["target"] == "user":
                _refuse_unsafe(current, "user")
                if key:
                    if old is None:
                        current.profile.remove(key)
                    else:
                        existing = current.profile.get(key)
                        section = existing.section if existing is not None else guess_section(key)
                        current.profile.upsert(section, key, old)
                elif new is not None and old is None:
                    current.profile.remove_entry(new)
                elif old is not None and new is None:
                    current.profile.add_entry(old)
                elif old is not None and new is not None:
                    current.profile.replace_entry(new, old)
            else:
                _refuse_unsafe(current, "memory")
                if new is not None and old is None:
                    current.log.remove(new)
                elif old is not None and new is None:
                    current.log.append(MemoryEntry.parse(old))
                elif old is not None and new is not None:
                    current.log.replace(new, MemoryEntry.parse(old))
            changes.append(Change(row["target"], "undo", key, new, old, why))
        written = WriteResult(profile=current.profile, log=current.log, changes=changes)
        tx.stage(written)
    return {"success": True, "undone": turn, "changes": len(changes), "turn_id": tx.turn_id}

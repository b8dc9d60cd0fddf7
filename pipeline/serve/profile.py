"""The profile view: both files as text and parsed, with their usage against the caps, and each
USER.md field and MEMORY.md entry with where it came from (turn, quote, time, engine, confidence, rule).

Read through the pipeline's public API (show) and the store's read methods (provenance,
decisions); the files are parsed with the ledgers' own parsers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from pipeline.ledgers import norm_key, split_label
from pipeline.ledgers.memory_md import MemoryLog
from pipeline.ledgers.user_md import UserProfile
from pipeline.ops.pins import entry_id
from pipeline.ops.review import UNDO_WHY

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline


class Provenance(BaseModel):
    turn_id: str | None = None
    conversation_id: str | None = None
    quote: str | None = None  # redacted, as stored
    time: str | None = None  # when memroute recorded it
    said_at: str | None = None  # when the user said it: the turn's own time (None for a change by hand)
    engine: str | None = None  # "manual": set by hand (tool, API, import)
    model: str | None = None
    confidence: float | None = None  # the engine's confidence in the decision; None for manual edits
    rule: str | None = None  # the id of the rule, model or guard that decided (None: manual, or logged before rules)


class FieldView(BaseModel):
    section: str
    key: str | None
    value: str
    provenance: Provenance | None = None


class EntryView(BaseModel):
    id: str  # stable while the entry's text is unchanged: DELETE .../entries/{id}
    date: str | None
    topic: str | None
    text: str
    provenance: Provenance | None = None


class FileView(BaseModel):
    text: str
    chars: int
    limit: int
    usage: str  # "1,024/1,375"


class ProfileView(BaseModel):
    user_id: str
    user_md: FileView
    memory_md: FileView
    fields: list[FieldView]
    entries: list[EntryView]
    warnings: list[str] = []


def _provenance(row: dict[str, Any], decision: dict[str, Any] | None, said_at: str | None) -> Provenance:
    """Where a value came from: its provenance row and, when an engine wrote it, the logged decision that did."""
    confidence = None if decision is None or decision.get("confidence") is None else float(decision["confidence"])
    return Provenance(
        turn_id=row.get("turn_id"), conversation_id=row.get("conversation_id"), quote=row.get("quote"),
        time=row.get("ts"), said_at=said_at, engine=row.get("engine"), model=row.get("model"), confidence=confidence,
        rule=None if decision is None else decision.get("rule"),
    )


def _turn_times(pipe: MemoryPipeline, user_id: str) -> dict[str, str]:
    """turn id -> the time the user said it (a chat turn's timestamp), for the turns that had one."""
    from pipeline.stages.order import TURN_TIME

    out = {}
    for row in pipe.store.turns(user_id):
        payload = row.get("payload")
        when = payload.get(TURN_TIME) if isinstance(payload, dict) else None
        if isinstance(when, str) and row.get("turn_id"):
            out[str(row["turn_id"])] = when
    return out


def profile_view(pipe: MemoryPipeline, user_id: str) -> ProfileView:
    shown = pipe.show(user_id)
    profile = UserProfile.parse(shown["user_md"])
    log = MemoryLog.parse(shown["memory_md"])
    decisions = pipe.store.decisions(user_id)
    rows = pipe.store.provenance(user_id)
    # An undo puts a value back; where the value came from is where it first came from, not the undo.
    undos = {h.get("id") for h in pipe.store.history(user_id) if str(h.get("why") or "").startswith(UNDO_WHY)}
    said = _turn_times(pipe, user_id)

    # Per USER.md key and per MEMORY.md entry body, the rows that set each value, oldest first: the
    # current value's origin is the latest of them that is not an undo (else the undo itself).
    by_key: dict[str, list[dict[str, Any]]] = {}
    by_body: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        value = str(row.get("value") or "")
        if row.get("target") == "user":
            key, rest = (row.get("key"), value) if row.get("key") else split_label(value)  # the tool records "Key: value"
            by_key.setdefault(norm_key(key or value), []).append({**row, "value": rest})
        else:
            by_body.setdefault(value, []).append(row)

    def origin(found: list[dict[str, Any]], value: str, *, check_value: bool) -> dict[str, Any] | None:
        if not found or (check_value and found[-1]["value"] != value):
            return None  # the file says otherwise: changed by hand in the file
        same = [r for r in found if not check_value or r["value"] == value]
        return next((r for r in reversed(same) if r.get("history_id") not in undos), same[-1])

    def when_said(row: dict[str, Any]) -> str | None:
        return said.get(str(row.get("turn_id"))) if row.get("engine") != "manual" else None

    def decided(row: dict[str, Any], match: Any) -> dict[str, Any] | None:
        """The logged decision that wrote the row's value (None for a change by hand)."""
        if row.get("engine") == "manual":
            return None
        return next((d for d in decisions if d.get("turn_id") == row.get("turn_id") and match(d)), None)

    fields: list[FieldView] = []
    for f in profile.fields():
        found = origin(by_key.get(norm_key(f.key or f.value), []), f.value, check_value=True)
        prov = None
        if found is not None:
            wanted = norm_key(f.key or "")
            prov = _provenance(found, decided(
                found, lambda d, wanted=wanted: d.get("route") == "user" and norm_key(d.get("key") or "") == wanted),
                when_said(found))
        fields.append(FieldView(section=f.section, key=f.key, value=f.value, provenance=prov))

    entries: list[EntryView] = []
    for e in log.entries:
        body = e.body()
        seen = origin(by_body.get(body, []), body, check_value=False)
        prov = None
        if seen is not None:
            prov = _provenance(seen, decided(
                seen, lambda d, body=body: d.get("route") == "memory" and (d.get("entry") or "\0") in body),
                when_said(seen))
        entries.append(EntryView(id=entry_id(body), date=e.date, topic=e.topic, text=e.text, provenance=prov))

    def file_view(text: str, limit: int) -> FileView:
        return FileView(text=text, chars=len(text), limit=limit, usage=f"{len(text):,}/{limit:,}")

    return ProfileView(
        user_id=user_id,
        user_md=file_view(shown["user_md"], pipe.user_limit),
        memory_md=file_view(shown["memory_md"], pipe.memory_limit),
        fields=fields,
        entries=entries,
        warnings=list(shown.get("warnings") or []),
    )


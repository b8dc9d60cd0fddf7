"""The profile view: both files as text and parsed, with their usage against the caps, and each
USER.md field and MEMORY.md entry with where it came from (turn, quote, time, engine, confidence).

Read through the pipeline's public API (show) and the store's read methods (provenance,
decisions); the files are parsed with the ledgers' own parsers."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from pipeline.ledgers._text import norm_key, split_label
from pipeline.ledgers.memory_md import MemoryLog
from pipeline.ledgers.user_md import UserProfile

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline


class Provenance(BaseModel):
    turn_id: str | None = None
    conversation_id: str | None = None
    quote: str | None = None  # redacted, as stored
    time: str | None = None
    engine: str | None = None  # "manual": set by hand (tool, API, import)
    model: str | None = None
    confidence: float | None = None  # the engine's confidence in the decision; None for manual edits


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


def entry_id(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:12]


def _provenance(row: dict[str, Any], confidence: float | None) -> Provenance:
    return Provenance(
        turn_id=row.get("turn_id"), conversation_id=row.get("conversation_id"), quote=row.get("quote"),
        time=row.get("ts"), engine=row.get("engine"), model=row.get("model"), confidence=confidence,
    )


def profile_view(pipe: MemoryPipeline, user_id: str) -> ProfileView:
    shown = pipe.show(user_id)
    profile = UserProfile.parse(shown["user_md"])
    log = MemoryLog.parse(shown["memory_md"])
    decisions = pipe.store.decisions(user_id)
    rows = pipe.store.provenance(user_id)

    # The latest provenance row of each USER.md key and each MEMORY.md entry body is the current one.
    by_key: dict[str, dict[str, Any]] = {}
    by_body: dict[str, dict[str, Any]] = {}
    for row in rows:
        value = str(row.get("value") or "")
        if row.get("target") == "user":
            key, rest = (row.get("key"), value) if row.get("key") else split_label(value)  # the tool records "Key: value"
            by_key[norm_key(key or value)] = {**row, "value": rest}
        else:
            by_body[value] = row

    def confidence(row: dict[str, Any], match: Any) -> float | None:
        if row.get("engine") == "manual":
            return None
        for d in decisions:
            if d.get("turn_id") == row.get("turn_id") and match(d):
                value = d.get("confidence")
                return float(value) if value is not None else None
        return None

    fields: list[FieldView] = []
    for f in profile.fields():
        found = by_key.get(norm_key(f.key or f.value))
        prov = None
        if found is not None and found["value"] == f.value:
            wanted = norm_key(f.key or "")
            prov = _provenance(found, confidence(
                found, lambda d, wanted=wanted: d.get("route") == "user" and norm_key(d.get("key") or "") == wanted))
        fields.append(FieldView(section=f.section, key=f.key, value=f.value, provenance=prov))

    entries: list[EntryView] = []
    for e in log.entries:
        body = e.body()
        seen = by_body.get(body)
        prov = None
        if seen is not None:
            prov = _provenance(seen, confidence(
                seen, lambda d, body=body: d.get("route") == "memory" and (d.get("entry") or "\0") in body))
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


def find_field(pipe: MemoryPipeline, user_id: str, key: str) -> tuple[str | None, str] | None:
    """(key as written, value) of the USER.md field named `key` (case and spacing ignored), or None."""
    wanted = norm_key(key)
    for f in UserProfile.parse(pipe.show(user_id)["user_md"]).fields():
        if f.key is not None and norm_key(f.key) == wanted:
            return f.key, f.value
    return None


def find_entry(pipe: MemoryPipeline, user_id: str, wanted_id: str) -> str | None:
    """The body of the MEMORY.md entry with this id, or None."""
    for e in MemoryLog.parse(pipe.show(user_id)["memory_md"]).entries:
        if entry_id(e.body()) == wanted_id:
            return e.body()
    return None

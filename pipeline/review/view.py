"""What the review page shows of one user: the profile (each field with where it came from, when it
last changed and its earlier values), the memory log by date with tags and, for consolidated
entries, the entries they merged; candidates; usage against both caps. Read through the pipeline's
public API, the store's read methods and the HTTP API's profile view (one provenance logic)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from pipeline.ledgers.entry_dates import stamps_in
from pipeline.ledgers.memory_md import MemoryEntry
from pipeline.ops.pins import by_ref, field_ref
from pipeline.serve.profile import Provenance, profile_view
from pipeline.store.rules import ERASED
from pipeline.vocabulary import section_rank

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def shown_quote(quote: str | None) -> str | None:
    """What the page quotes of where a fact came from: the user's words, unless an erasure took part of them
    out (a neighbour's value erased everywhere leaves "[erased]" in this quote): then nothing, not a fragment."""
    if not quote or ERASED in quote:
        return None
    return quote


def human_time(value: object) -> str:
    """An ISO date or time as people read it: "2 Nov 2026", "Nov 2026" or "2026" for a date at the
    precision the user gave, "1 Dec 2026, 22:19 UTC" for a time (the page's script shows times in
    the viewer's own zone; this is what shows without it). Anything else as is."""
    text = str(value or "")
    try:
        if len(text) == 4 and text.isdigit():
            return text
        if len(text) == 7:
            month = datetime.strptime(text, "%Y-%m")
            return f"{MONTHS[month.month - 1]} {month.year}"
        if len(text) == 10:
            day = datetime.strptime(text, "%Y-%m-%d")
            return f"{day.day} {MONTHS[day.month - 1]} {day.year}"
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    when = (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    return f"{when.day} {MONTHS[when.month - 1]} {when.year}, {when:%H:%M} UTC"


@dataclass
class Usage:
    chars: int
    limit: int

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.chars / self.limit)) if self.limit else 0

    @property
    def label(self) -> str:
        return f"{self.chars:,}/{self.limit:,}"


@dataclass
class Annotated:
    pinned: bool = False
    tags: list[tuple[str, str]] = field(default_factory=list)  # (kind, value)


@dataclass
class FieldRow:
    section: str
    key: str | None
    value: str
    ref: str  # what the actions name it by
    provenance: Provenance | None
    last_change: str | None
    earlier: list[tuple[str, str]]  # (time, value), newest first
    notes: Annotated


@dataclass
class EntryRow:
    id: str
    date: str | None
    topic: str | None
    text: str
    body: str
    provenance: Provenance | None
    notes: Annotated
    parts: list[MemoryEntry]  # the entries a consolidation merged into this one
    consolidated_at: str | None


@dataclass
class UserView:
    user_id: str
    fields: list[FieldRow]
    days: list[tuple[str, list[EntryRow]]]  # newest day first
    user_usage: Usage
    memory_usage: Usage
    candidates: list[dict[str, Any]]
    warnings: list[str]

    @property
    def sections(self) -> list[tuple[str, list[FieldRow]]]:
        """The fields by section, in USER.md's canonical order (Identity first; pipeline/vocabulary.py), then
        hand-made sections as the file has them, then the notes before any section. File order within each."""
        groups: dict[str, list[FieldRow]] = {}
        for f in self.fields:
            groups.setdefault(f.section, []).append(f)
        order = {name: i for i, name in enumerate(groups)}
        return sorted(groups.items(), key=lambda kv: (not kv[0], section_rank(kv[0]), order[kv[0]]))


def _notes(rows: list[dict[str, Any]] | None) -> Annotated:
    notes = Annotated()
    for row in rows or []:
        if row["kind"] == "pin":
            notes.pinned = True
        else:
            notes.tags.append((row["kind"], row["value"]))
    return notes


def _parts(body: str, history: list[dict[str, Any]], archive: list[dict[str, Any]]) -> tuple[list[MemoryEntry], str | None]:
    """The archived entries a consolidation merged into `body`: same consolidation run, same topic,
    and dated the entry's date or a date the entry cites (a day, a month or a year) (consolidation cites every part's date)."""
    run = next((r for r in reversed(history) if r["op"] == "consolidate" and r.get("new_value") == body), None)
    if run is None:
        return [], None
    merged = MemoryEntry.parse(body)
    cited = set(stamps_in(merged.text)) | {merged.date}
    parts = []
    for row in archive:
        if row.get("turn_id") != run["turn_id"] or not str(row.get("why") or "").startswith("consolidated"):
            continue
        part = MemoryEntry.parse(str(row["text"]))
        if part.topic == merged.topic and part.date in cited:
            parts.append(part)
    return parts, str(run["ts"])


def user_view(pipe: MemoryPipeline, user_id: str) -> UserView:
    shown = profile_view(pipe, user_id)
    history = pipe.history(user_id)
    archive = pipe.store.archive(user_id) if pipe.store.exists() else []
    notes = by_ref(pipe.annotations(user_id))

    fields = []
    for f in shown.fields:
        ref = f.key if f.key is not None else f.value
        rows = [r for r in history if r["target"] == "user" and r.get("key") is not None and f.key is not None
                and field_ref(str(r["key"])) == field_ref(f.key)]
        valued = [r for r in rows if r["op"] not in ("pin", "unpin", "tag", "untag")]
        earlier = [(str(r["ts"]), str(r["old_value"])) for r in reversed(valued) if r.get("old_value")]
        fields.append(FieldRow(
            section=f.section, key=f.key, value=f.value, ref=ref, provenance=f.provenance,
            last_change=str(valued[-1]["ts"]) if valued else None, earlier=earlier,
            notes=_notes(notes.get(("user", field_ref(ref)))),
        ))

    days: dict[str, list[EntryRow]] = {}
    for e in shown.entries:
        body = (f"[{e.date}] " if e.date else "") + (f"{e.topic}: " if e.topic else "") + e.text
        parts, when = _parts(body, history, archive)
        days.setdefault(e.date or "undated", []).append(EntryRow(
            id=e.id, date=e.date, topic=e.topic, text=e.text, body=body, provenance=e.provenance,
            notes=_notes(notes.get(("memory", e.id))), parts=parts, consolidated_at=when,
        ))
    return UserView(
        user_id=user_id,
        fields=fields,
        days=sorted(days.items(), key=lambda kv: (kv[0] != "undated", kv[0]), reverse=True),
        user_usage=Usage(shown.user_md.chars, shown.user_md.limit),
        memory_usage=Usage(shown.memory_md.chars, shown.memory_md.limit),
        candidates=pipe.candidates(user_id),
        warnings=shown.warnings,
    )


# The index shows at most this many people (most recently changed first); "Find" narrows the rest.
PEOPLE_SHOWN = 200


@dataclass
class Person:
    """One person on the index: who they are in a line, how full each file is, when it last changed."""

    user_id: str
    name: str | None
    summary: str  # "Frontend engineer · Lyon": the profile's first identity facts
    user_usage: Usage
    memory_usage: Usage
    last_change: str | None


def people(pipe: MemoryPipeline, summaries: list[dict[str, Any]], prefix: str = "") -> list[Person]:
    """The index's cards for these users (`DocumentStore.user_summaries()` rows), newest change first;
    `prefix` is taken off each id (team profiles)."""
    rows = sorted(summaries, key=lambda r: str(r.get("last_change") or ""), reverse=True)[:PEOPLE_SHOWN]
    out = []
    for row in rows:
        profile = pipe.load(row["user_id"], reader=True).profile
        found = {k: (f.value if (f := profile.get(k)) is not None else None) for k in ("Name", "Role", "Location")}
        out.append(Person(
            user_id=row["user_id"][len(prefix):], name=found["Name"],
            summary=" · ".join(v[:1].upper() + v[1:] for v in (found["Role"], found["Location"]) if v),
            user_usage=Usage(int(row.get("user_chars") or 0), pipe.user_limit),
            memory_usage=Usage(int(row.get("memory_chars") or 0), pipe.memory_limit),
            last_change=row.get("last_change"),
        ))
    return out

"""Just enough reading of USER.md and MEMORY.md for the engine: fields, entries and topics.

The ledgers package owns the real parser; the engine only needs to look things up (overwrite vs new
field, duplicates, what "forget X" points at), so a light line reader keeps it independent.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.lazy_re import lazy_compile

_FIELD = lazy_compile(r"^\s*[-*]\s+(?P<key>[^:\n]{1,60}?)\s*:\s*(?P<value>.*\S)\s*$")
_SECTION = lazy_compile(r"^\s*##\s+(?P<name>.+?)\s*$")
_ENTRY = lazy_compile(r"^\s*[-*]\s+(?:\[(?P<date>\d{4}-\d{2}-\d{2})\]\s*)?(?P<rest>.+?)\s*$")
_TOPIC = lazy_compile(r"^(?P<topic>[\w./-]{1,40}(?:\s[\w./-]{1,20})?):\s+(?P<text>.+)$")


@dataclass(frozen=True)
class Field:
    section: str
    key: str
    value: str


@dataclass(frozen=True)
class Entry:
    date: str | None
    topic: str | None
    text: str


def parse_user(text: str) -> dict[str, Field]:
    """Fields of USER.md by lower-cased key."""
    fields: dict[str, Field] = {}
    section = ""
    for line in text.splitlines():
        sm = _SECTION.match(line)
        if sm:
            section = sm.group("name")
            continue
        fm = _FIELD.match(line)
        if fm and section:
            fields[fm.group("key").strip().lower()] = Field(section, fm.group("key").strip(), fm.group("value").strip())
    return fields


def parse_memory(text: str) -> list[Entry]:
    entries: list[Entry] = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        m = _ENTRY.match(line)
        if not m:
            continue
        rest = m.group("rest")
        tm = _TOPIC.match(rest)
        if tm:
            entries.append(Entry(m.group("date"), tm.group("topic"), tm.group("text")))
        else:
            entries.append(Entry(m.group("date"), None, rest))
    return entries

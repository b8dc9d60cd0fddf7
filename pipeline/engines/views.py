"""What an engine is shown of the two files: read-only views, parsed once by the pipeline.

A view IS the (capped) markdown text, a `str`, so a model-backed engine puts it in its prompt and
an engine written against the plain-text contract keeps working; beside the text it carries the
file parsed by the ledgers' parser (pipeline/ledgers), so a rule-based engine looks fields and
entries up without parsing again. Views are immutable: a str, a read-only mapping and tuples of
frozen records; setting an attribute raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pipeline.ledgers.memory_md import MemoryLog
from pipeline.ledgers.user_md import UserProfile


@dataclass(frozen=True)
class ViewField:
    """A keyed USER.md field under a section."""

    section: str
    key: str
    value: str


@dataclass(frozen=True)
class ViewEntry:
    """A MEMORY.md entry: its date and topic label when it has them."""

    date: str | None
    topic: str | None
    text: str


class _View(str):
    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __reduce__(self) -> tuple[Any, tuple[str]]:  # pickled as its text, parsed again on load
        return (type(self), (str(self),))


class UserView(_View):
    """USER.md as shown to the engine; `fields`: its keyed fields by lower-cased key (a later
    duplicate key wins, as a reader going down the file would see it)."""

    fields: Mapping[str, ViewField]

    def __new__(cls, text: str) -> UserView:
        view = super().__new__(cls, text)
        fields = {
            f.key.strip().lower(): ViewField(f.section, f.key.strip(), f.value.strip())
            for f in UserProfile.parse(text).fields()
            if f.key is not None and f.section
        }
        object.__setattr__(view, "fields", MappingProxyType(fields))
        return view


class MemoryView(_View):
    """MEMORY.md as shown to the engine; `entries`: its entries in file order."""

    entries: tuple[ViewEntry, ...]

    def __new__(cls, text: str) -> MemoryView:
        view = super().__new__(cls, text)
        entries = tuple(ViewEntry(e.date, e.topic, e.text) for e in MemoryLog.parse(text).entries)
        object.__setattr__(view, "entries", entries)
        return view


__all__ = ["MemoryView", "UserView", "ViewEntry", "ViewField"]

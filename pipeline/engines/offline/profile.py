"""Fields, entries and topics of USER.md and MEMORY.md for the engine (overwrite vs new field,
duplicates, what "forget X" points at). One parser for the format: the ledgers', through the
read-only views the pipeline passes (pipeline/engines/views.py); plain text from a direct caller
(tests, library use) is parsed into the same view here.
"""

from __future__ import annotations

from pipeline.engines.views import MemoryView, UserView, ViewEntry, ViewField

Field = ViewField
Entry = ViewEntry


def fields_of(user_md: str) -> dict[str, Field]:
    """USER.md's keyed fields by lower-cased key."""
    view = user_md if isinstance(user_md, UserView) else UserView(user_md)
    return dict(view.fields)


def entries_of(memory_md: str) -> list[Entry]:
    """MEMORY.md's entries in file order."""
    view = memory_md if isinstance(memory_md, MemoryView) else MemoryView(memory_md)
    return list(view.entries)

"""The cap check shared by USER.md and MEMORY.md. Its error, CapExceeded, and the ledgers' other errors
live in pipeline/errors.py with every error of memroute's (the over-cap error mirrors the Hermes Agent memory
tool, so an agent that knows Hermes can read it and consolidate on its own)."""

from __future__ import annotations

from pipeline.errors import CapExceeded


def check_cap(
    target: str,
    old_text: str,
    new_text: str,
    limit: int,
    current_entries: list[str],
    adding: int | None = None,
) -> None:
    """Raise CapExceeded if new_text (the whole file) is longer than limit code points.

    `adding` is the size reported in the message (Hermes reports the new entry's length);
    by default it is how much the file grows.
    """
    if len(new_text) <= limit:
        return
    grow = adding if adding is not None else max(0, len(new_text) - len(old_text))
    raise CapExceeded(target, len(old_text), limit, grow, current_entries)

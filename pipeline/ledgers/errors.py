"""Errors raised by the ledgers, and the cap check shared by USER.md and MEMORY.md.

The over-cap error mirrors the Hermes Agent memory tool, so an agent that knows Hermes
can read it and consolidate on its own.
"""

from __future__ import annotations

from typing import Any

from pipeline.errors import Conflict

_LABELS = {"user": "User profile", "memory": "Memory"}
_ADVICE = {
    "user": (
        "Consolidate now: use 'replace' to shorten or merge fields, or 'remove' fields that no "
        "longer hold (see current_entries below), then retry."
    ),
    "memory": (
        "Consolidate now: use 'replace' to merge overlapping entries into shorter ones or 'remove' "
        "stale or less important entries (see current_entries below), then retry."
    ),
}


def format_usage(current: int, limit: int) -> str:
    """"2,100/2,200": the usage string of the Hermes payloads."""
    return f"{current:,}/{limit:,}"


class LedgerError(Conflict):
    """Base of every ledger error (a conflict: HTTP 409); str(e) is a one-line message fit for a user."""


class CapExceeded(LedgerError):
    """A write would leave a file over its cap. Nothing was changed."""

    api_code = "over_cap"

    def __init__(self, target: str, current: int, limit: int, adding: int, current_entries: list[str]) -> None:
        self.target = target
        self.current = current
        self.limit = limit
        self.adding = adding
        self.current_entries = list(current_entries)
        label = _LABELS.get(target, target)
        advice = _ADVICE.get(target, _ADVICE["memory"])
        super().__init__(
            f"{label} at {format_usage(current, limit)} chars. "
            f"Adding this entry ({adding} chars) would exceed the limit. {advice}"
        )

    @property
    def usage(self) -> str:
        return format_usage(self.current, self.limit)

    def payload(self) -> dict[str, Any]:
        return {
            "success": False,
            "error": str(self),
            "current_entries": list(self.current_entries),
            "usage": self.usage,
        }


class MatchError(LedgerError):
    """replace/remove matched no entry, or several different ones."""

    def __init__(self, message: str, current_entries: list[str], ambiguous: bool = False) -> None:
        self.current_entries = list(current_entries)
        self.ambiguous = ambiguous  # True: several different entries matched; False: none did
        super().__init__(message)

    def payload(self) -> dict[str, Any]:
        return {"success": False, "error": str(self), "current_entries": list(self.current_entries)}


class UnparseableLedger(LedgerError):
    """The text does not round-trip through the parser; rewriting it could lose hand edits."""


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

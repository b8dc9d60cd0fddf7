"""The root of every exception memroute raises on purpose.

`except MemrouteError` catches them all; each class also keeps its builtin base (ValueError,
LookupError, ...) so existing `except ValueError` clauses keep working. This module imports
nothing, so any module may import it. The CLI maps these types to exit codes in one place
(pipeline/cli/errors.py)."""

from __future__ import annotations


class MemrouteError(Exception):
    """Base class of memroute's own exceptions."""


__all__ = ["MemrouteError"]

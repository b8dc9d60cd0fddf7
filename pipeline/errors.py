"""The root of every exception memroute raises on purpose.

`except MemrouteError` catches them all; each class also keeps its builtin base (ValueError,
LookupError, ...) so existing `except ValueError` clauses keep working. This module imports
nothing, so any module may import it. The CLI maps these types to exit codes in one place
(pipeline/cli/errors.py)."""

from __future__ import annotations


class MemrouteError(Exception):
    """Base class of memroute's own exceptions."""


class ModelConfigError(MemrouteError, ValueError):
    """The model cannot be called as configured (no API key): a usage error. The turn is not kept
    for retry (retrying cannot help); the CLI exits 2."""


class StoreUnreachable(MemrouteError, ConnectionError):
    """The store's database server cannot be reached or refuses the connection (one line naming
    the host, the port and the cause): the command fails, exit 1."""


__all__ = ["MemrouteError", "ModelConfigError", "StoreUnreachable"]

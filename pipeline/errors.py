"""Every exception memroute raises on purpose, in one family, and the one mapping from an error to
what each way in answers: the CLI's exit code (0 ok, 1 the work failed, 2 usage) and the HTTP
API's status and stable error code.

`except MemrouteError` catches them all. Each error belongs to one sub-family, which fixes its exit
code and HTTP status (`FAMILIES`); an error type may name a finer API code (`api_code`) and keeps its
builtin base (ValueError, LookupError, ...) so existing `except ValueError` clauses keep working.
The CLI (pipeline/cli/errors.py), the HTTP server (pipeline/serve/errors.py) and the MCP server
read the answer here, through `exit_code`, `http_status` and `error_code`; tests/test_errors.py
checks them against each other for every error type. This module imports nothing.
"""

from __future__ import annotations

from typing import ClassVar


class MemrouteError(Exception):
    """Base class of memroute's own exceptions: the work failed (exit 1); a server fault (HTTP 500)."""

    api_code: ClassVar[str | None] = None  # a finer stable API code than the family's, if any


class UsageError(MemrouteError, ValueError):
    """The caller must fix the input (a flag, user id, message, file, setting, tool call): exit 2, HTTP 422."""


class NotFound(MemrouteError, LookupError):
    """What the request names does not exist (a user, a field, an entry, a candidate): exit 1, HTTP 404."""


class Conflict(MemrouteError):
    """The request is well formed but the memory's state refuses it (a file over its cap or that does
    not round-trip, a match on several items, nothing to undo): exit 1, HTTP 409."""


class ModelError(MemrouteError):
    """The model failed (down, too slow, an answer that never validated): exit 1, HTTP 502."""


class StoreError(MemrouteError):
    """The store failed or cannot be opened (database unreachable, a copy refused): exit 1, HTTP 503."""


class StoreUnreachable(StoreError, ConnectionError):
    """The store's database server cannot be reached or refuses the connection (one line naming
    the host, the port and the cause): the command fails, exit 1."""


class Busy(MemrouteError):
    """No room now (a full queue, a server shutting down); nothing was stored, retry later: exit 1, HTTP 503."""


class EncoderError(MemrouteError):
    """The offline engine's encoder is missing, of another version, damaged or cannot load on this platform:
    a broken install (exit 1, HTTP 500), named in one line with the command that mends it."""


class ModelConfigError(UsageError):
    """The model cannot be called as configured (no API key): a usage error. The turn is not kept
    for retry (retrying cannot help); the CLI exits 2."""

    api_code = "model_not_configured"


# family -> (exit code, HTTP status, API code). The most specific family in an error's MRO answers.
FAMILIES: dict[type[MemrouteError], tuple[int, int, str]] = {
    UsageError: (2, 422, "invalid_request"),
    NotFound: (1, 404, "not_found"),
    Conflict: (1, 409, "conflict"),
    ModelError: (1, 502, "model_error"),
    StoreError: (1, 503, "store_error"),
    Busy: (1, 503, "busy"),
    MemrouteError: (1, 500, "internal_error"),
}


def family(error: type[BaseException] | BaseException) -> type[MemrouteError] | None:
    """The sub-family an error belongs to (MemrouteError itself for one in no sub-family); None for
    an exception that is not memroute's."""
    kind = error if isinstance(error, type) else type(error)
    for base in kind.__mro__:
        if base in FAMILIES:
            return base
    return None


def exit_code(error: BaseException) -> int:
    """The CLI's exit code: 2 for a usage error, else 1 (any failure that is not memroute's too)."""
    kind = family(error)
    return FAMILIES[kind][0] if kind is not None else 1


def http_status(error: BaseException) -> int:
    """The HTTP API's status: by family; 500 for an exception that is not memroute's."""
    kind = family(error)
    return FAMILIES[kind][1] if kind is not None else 500


def error_code(error: BaseException) -> str:
    """The stable API code a client branches on: the error type's own, else its family's."""
    kind = family(error)
    if kind is None:
        return "internal_error"
    own = getattr(error, "api_code", None)
    return own if isinstance(own, str) else FAMILIES[kind][2]


__all__ = [
    "FAMILIES",
    "Busy",
    "Conflict",
    "EncoderError",
    "MemrouteError",
    "ModelConfigError",
    "ModelError",
    "NotFound",
    "StoreError",
    "StoreUnreachable",
    "UsageError",
    "error_code",
    "exit_code",
    "family",
    "http_status",
]

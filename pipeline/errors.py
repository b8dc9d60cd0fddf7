"""Every exception memroute raises on purpose, in one family, and the one mapping from an error to
what each way in answers: the CLI's exit code (0 ok, 1 the work failed, 2 usage) and the HTTP
API's status and stable error code.

`except MemrouteError` catches them all. Each error belongs to one sub-family, which fixes its exit
code and HTTP status (`FAMILIES`); an error type may name a finer API code (`api_code`) and keeps its
builtin base (ValueError, LookupError, ...) so existing `except ValueError` clauses keep working.
The CLI (pipeline/cli/errors.py), the HTTP server (pipeline/serve/errors.py) and the MCP server
read the answer here, through `exit_code`, `http_status` and `error_code`; tests/test_errors.py
checks them against each other for every error type. Every exception memroute raises on purpose is
defined here, in its family (a module that raises one imports it from here); this module imports
nothing of memroute's when it loads (a model error that carries its usage builds an empty one lazily).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:
    from pipeline.types import Usage


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


def _no_usage() -> Usage:
    from pipeline.types import Usage

    return Usage()


def format_usage(current: int, limit: int) -> str:
    """"2,100/2,200": the usage string of the Hermes payloads."""
    return f"{current:,}/{limit:,}"


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


# --- Usage errors (exit 2, HTTP 422): the caller must fix the input.


class BadTurn(UsageError):
    """Messages or a timestamp that cannot be a turn; the message says what is wrong."""

    api_code = "invalid_turn"


class InvalidUserId(UsageError):
    """A user id that is empty, too long, could escape the root, or collides with the store's files."""

    api_code = "invalid_user_id"


class SettingsError(UsageError):
    """A setting that cannot be used (bad value, unreadable or malformed config file): exit code 2."""


class EngineConfigError(UsageError):
    """An engine name or model setting that cannot work."""


class ToolUsageError(UsageError):
    """A tool call whose words are off (unknown action/target, missing content): exit code 2."""

    api_code = "invalid_tool_call"


class NothingToForget(UsageError):
    """The request is empty or too short to match safely."""

    api_code = "nothing_to_forget"


class ImportFormatError(UsageError):
    """An export that is not what the command reads (a usage error: exit code 2)."""


class EvalInputError(UsageError):
    """A suite file that cannot be read or a case that breaks the contract (file:line in the message)."""


class JSONLError(UsageError):
    """A line that is not one JSON value; the message names the file and the line."""


class InputError(UsageError):
    """An input path that cannot be read at all (a usage error, not a bad line)."""


class NoFormat(InputError):
    """A file that fits no supported format."""


class BadInput(UsageError):
    """What is wrong with one line; the reader turns it into a BadLine."""


class ServeConfigError(UsageError):
    """A configuration the server refuses to start with (exit 2)."""


class LiteLLMMissing(ModelConfigError):
    """A model that only litellm reaches, and litellm is not installed (exit 2: install the extra)."""



class BadKeyFile(UsageError):
    """A server key file that is empty, too short or not a file: refused at start (exit 2), never used
    as a key (an empty HMAC key lets anyone sign)."""


class SystemUnavailable(UsageError):
    """A system that cannot be built as asked (unknown name, no model, its package not installed)."""

# --- Not found (exit 1, HTTP 404).


class CandidateNotFound(NotFound):
    """confirm_candidate: no candidate, or more than one, answers to the reference."""


# --- Conflicts (exit 1, HTTP 409): the memory's state refuses the request. The ledgers' errors mirror the Hermes
# Agent memory tool's, so an agent that knows Hermes reads an over-cap error and consolidates on its own.


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


class UnreadableFile(Conflict):
    """A ledger file that is not valid UTF-8: it is backed up and never overwritten."""


# --- The review page's actions, each kind in its family.


class ReviewError(MemrouteError):
    """A review action that cannot be done; each kind in its family (pipeline/errors.py)."""


class ReviewNotFound(ReviewError, NotFound):
    """No such field, entry or candidate (exit 1, HTTP 404)."""


class ReviewRefused(ReviewError, UsageError):
    """A value or tag the guards refuse, an empty one, an unknown annotation (exit 2, HTTP 422)."""


class ReviewConflict(ReviewError, Conflict):
    """The memory's state refuses it: a document that may not be rewritten, nothing to undo (exit 1, HTTP 409)."""


# --- Model errors (exit 1, HTTP 502).


class LLMError(ModelError):
    """A stage that still failed after its transport retries and validation re-asks."""

    def __init__(
        self,
        message: str,
        attempts: int = 0,
        usage: Usage | None = None,
        last_completion: str | None = None,
        *,
        kind: Literal["transport", "validation", "other"] = "other",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.attempts = attempts  # model requests sent, failed ones included
        self.usage = usage if usage is not None else _no_usage()
        # The model's last raw answer, for debugging only: it may quote the user, never persist it.
        self.last_completion = last_completion
        self.kind = kind


class DeadlinePassed(ModelError, TimeoutError):
    """The turn's total time for model calls ran out (LLMEngine `deadline`): no further request."""


class TransportSetupError(ModelError):
    """A mistake in how a transport was set up (requests disabled, a fake with no answer left), not a
    model failure: the engine raises it as is instead of wrapping it in LLMError."""


class ModelRequestsDisabled(TransportSetupError, MemrouteError, RuntimeError):
    """A real model request was attempted while model requests are disabled (tests)."""


class FakeQueueEmpty(TransportSetupError, MemrouteError, AssertionError):
    """The engine asked a FakeModel for more answers than the test enqueued."""


class ModelHTTPError(ModelError):
    """The server answered with an error status."""

    def __init__(self, status_code: int, message: str, headers: Mapping[str, str]) -> None:
        super().__init__(f"HTTP {status_code}: {message}")
        self.status_code = status_code
        self.headers = dict((k.lower(), v) for k, v in headers.items())


class ModelConnectionError(ModelError, ConnectionError):
    """The request never got an answer: refused, reset, DNS, TLS."""


class ModelAnswerError(ModelError):
    """The server answered 2xx with nothing to read (no `choices`): says what it sent."""


class WrongMode(ModelError):
    """The server answered in another form than the mode asked for (no tool call; text that is no
    JSON): under `auto`, the stage call is sent again in the next mode."""

    def __init__(self, mode: str, what: str) -> None:
        super().__init__(f"{mode}: {what}")
        self.mode = mode
        self.what = what


class CompactionError(ModelError):
    """The engine failed while compacting USER.md (nothing was written); `usage` is what it spent."""

    def __init__(self, message: str, *, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage if usage is not None else _no_usage()


class ConsolidationError(ModelError):
    """The engine's plan was invalid or the engine failed; MEMORY.md is left as it was."""


# --- Store errors (exit 1, HTTP 503).


class StoreOpenError(StoreError):
    """The store cannot be opened: psycopg missing, the server unreachable, bad credentials (one line,
    never the password)."""


class TransferError(StoreError):
    """The copy cannot be made (target not empty, a value PostgreSQL cannot hold, ...); nothing was written."""


# --- Busy (exit 1, HTTP 503): nothing was stored, retry later.


class HookQueueFull(Busy, RuntimeError):
    """submit() found no room in the in-memory queue within full_timeout_s; the turn was not stored."""

    api_code = "queue_full"


class HookClosed(Busy, RuntimeError):
    """submit() after close()."""

    api_code = "shutting_down"


# --- The work failed (exit 1, HTTP 500).


class CommandFailed(MemrouteError):
    """The command could not do its work (an unknown user, a read-only root): exit code 1."""


class ServeError(MemrouteError):
    """The server cannot start (its port is taken, the address is not this host's): exit 1."""


class TracingUnavailable(MemrouteError):
    """Tracing was asked for without the opentelemetry packages."""


class PromptNotFound(MemrouteError, FileNotFoundError):
    """No prompt file of that name in the wheel or the source tree."""


class PackError(MemrouteError, ImportError):
    """A language folder that does not provide what a pack must (the message names the missing part): an install
    that is broken, so memroute's internal-error family (exit 1, HTTP 500)."""


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
    "BadInput",
    "BadKeyFile",
    "BadTurn",
    "Busy",
    "CandidateNotFound",
    "CapExceeded",
    "CommandFailed",
    "CompactionError",
    "Conflict",
    "ConsolidationError",
    "DeadlinePassed",
    "EncoderError",
    "EngineConfigError",
    "EvalInputError",
    "FakeQueueEmpty",
    "HookClosed",
    "HookQueueFull",
    "ImportFormatError",
    "InputError",
    "InvalidUserId",
    "JSONLError",
    "LLMError",
    "LedgerError",
    "LiteLLMMissing",
    "MatchError",
    "MemrouteError",
    "ModelAnswerError",
    "ModelConfigError",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelRequestsDisabled",
    "NoFormat",
    "NotFound",
    "NothingToForget",
    "PackError",
    "PromptNotFound",
    "ReviewConflict",
    "ReviewError",
    "ReviewNotFound",
    "ReviewRefused",
    "ServeConfigError",
    "ServeError",
    "SettingsError",
    "StoreError",
    "StoreOpenError",
    "StoreUnreachable",
    "SystemUnavailable",
    "ToolUsageError",
    "TracingUnavailable",
    "TransferError",
    "TransportSetupError",
    "UnparseableLedger",
    "UnreadableFile",
    "UsageError",
    "WrongMode",
    "error_code",
    "exit_code",
    "family",
    "format_usage",
    "http_status",
]

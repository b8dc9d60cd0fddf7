"""What memroute needs from a store: the interface every backend implements.

Two sides, so a backend can keep the ledger documents where it likes:

- `MemoryStore`: the records (turn status, history, provenance, decisions, usage, archive with
  recall, candidates, erasure), batch checkpoints and the hook queue. Today: `SQLiteStore`
  (pipeline/store/sqlite.py, one database per root). Issue 19: a PostgreSQL store.
- `DocumentStore` / `UserDocuments`: one user's USER.md / MEMORY.md text, the per-user lock and the
  crash-safe commit of both documents together with the records. Today: files under the root
  (`FileDocuments`, pipeline/store/files.py). A database backend keeps them as rows and makes the
  lock an advisory lock and the commit one transaction.

Writes happen inside `MemoryStore.transaction()`: it yields an opaque handle (`Tx`) that the
write methods take as their first argument; everything written under one handle lands together
or not at all, and a nested `transaction()` on the same thread joins the outer one (savepoint).
Every user-text column goes through the store's `redact` before it is stored, except history
old/new values, provenance values and archive text (exactly what the documents held).
Core code never sees SQL: it calls these methods only.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # annotations only: opening a store (and the CLI's start) need not load the pydantic types
    from pipeline.types import Decision, Usage

# An open transaction, as yielded by MemoryStore.transaction(): a sqlite3.Connection for SQLite,
# a psycopg connection for PostgreSQL. Only the store that made it knows what it is.
Tx = Any

TARGETS = ("user", "memory")
TURN_STATUSES = ("done", "failed", "pending")
BATCH_STATUSES = ("done", "failed")
QUEUE_STATUSES = ("queued", "running", "failed", "done", "parked")


def empty_queue_status() -> dict[str, Any]:
    """MemoryStore.hook_queue_status() of a store that holds nothing yet: all zeros."""
    return {**{s: 0 for s in QUEUE_STATUSES}, "last_error": None, "last_error_at": None, "users": {}}


# ---- the hook queue --------------------------------------------------------------------------


@dataclass
class QueuedTurn:
    """One queued turn as the hook holds it in memory."""

    seq: int
    user_id: str
    turn_id: str
    conversation_id: str | None
    payload: dict[str, Any]
    attempts: int = 0
    next_attempt_at: float | None = None
    group_seq: int | None = None
    submitted_at: float = 0.0


def pid_alive(pid: int) -> bool:
    """Whether a process of this host is still running (a queue row's owner). A process that has
    exited but was not reaped yet (a zombie: /proc/PID/stat state Z or X) is dead: it holds no
    lock and will run nothing more, though `kill(pid, 0)` still finds it."""
    if pid <= 0:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except FileNotFoundError:
        return False
    except OSError:
        stat = b""  # no /proc here (macOS): ask the kernel
    if stat:
        state = stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3]  # the field after "(comm)"
        return state not in (b"Z", b"X", b"x")
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


class HookQueue(Protocol):
    """PostTurnHook's durable per-user queue (one instance per hook; thread-safe).

    A row: queued -> running -> done (payload cleared), or running -> failed (retry scheduled;
    payload kept redacted only) -> ... -> parked (redacted). `seq` is the submission order.
    Every update names `owner`: a closed hook's late updates must not touch rows a newer hook owns.
    """

    pid: int
    owner: str
    redact: Callable[[str], str]

    def insert(
        self, user_id: str, turn_id: str, conversation_id: str | None, payload: dict[str, Any]
    ) -> QueuedTurn | None:
        """Persist a new turn durably before returning; None when (user, turn id) was submitted before."""
        ...

    def start(self, rows: list[QueuedTurn], group_seq: int | None) -> None: ...

    def finish(self, rows: Iterable[QueuedTurn]) -> None: ...

    def fail(self, rows: Iterable[QueuedTurn], error: str, next_attempt_at: float) -> None: ...

    def park(self, rows: Iterable[QueuedTurn], error: str) -> None: ...

    def adopt_orphans(self) -> list[QueuedTurn]:
        """Claim the unfinished rows of owners that died since (another process on the root);
        only rows this queue did not own. Called from time to time while the hook runs."""
        ...

    def adopt_unfinished(self) -> list[QueuedTurn]:
        """Claim the unfinished rows of dead owners (and our own pid); in seq order."""
        ...

    def requeue_parked(self, user_id: str | None = None) -> list[QueuedTurn]: ...

    def prune_done(self, older_than_s: float) -> int: ...

    def parked_count(self) -> int: ...

    def settled_done(self, user_id: str, turn_id: str) -> bool:
        """Whether (user, turn id) is done here: applied, or found applied before (under the plain id an
        older version gave it, when the turn log holds nothing under this one)."""
        ...

    def scrub(self) -> bool:
        """Remove what finished turns left in the queue's storage (WAL frames, old row versions)."""
        ...

    def close(self, *, truncate_wal: bool = True) -> None: ...

    def release(self) -> None:
        """Let go of the owner's liveness lock (its unfinished rows become adoptable)."""
        ...


# ---- the documents ---------------------------------------------------------------------------


@dataclass
class LedgerTexts:
    """The two documents as read; `None` when a document does not exist yet."""

    user: str | None
    memory: str | None
    user_raw: bytes | None
    memory_raw: bytes | None


class UserDocuments(Protocol):
    """One user's USER.md and MEMORY.md, their lock and their commit."""

    user_id: str

    def read(self) -> LedgerTexts:
        """Both documents; raises UnreadableFile for one that is not UTF-8 (kept aside, never rewritten)."""
        ...

    def read_lenient(self) -> tuple[LedgerTexts, list[str]]:
        """For readers: never raises for one bad document; one warning line per problem."""
        ...

    def has_pending_commit(self) -> bool: ...

    def lock(self, recover: Callable[[str], bool] | None = None) -> AbstractContextManager[None]:
        """Exclusive per-user lock across threads and processes (hosts, for a database backend).
        `recover(turn_id)` says whether an interrupted commit reached the store."""
        ...

    def commit(self, turn_id: str, files: dict[str, str], store_commit: Callable[[], None]) -> None:
        """Replace the named documents ({"USER.md": text, ...}) and run `store_commit` (which writes the
        records in one `MemoryStore.transaction()`) as one unit: both land, or neither. Under lock()."""
        ...

    def keep_copy(self, name: str, raw: bytes) -> str:
        """Keep a copy of a document that will not be rewritten (it does not round-trip); its name."""
        ...

    def copies(self) -> dict[str, str]:
        """The kept copies, by name (subject access)."""
        ...

    def erase_from_copies(self, needles: list[str]) -> int:
        """Scrub erased values out of the kept copies (forget --purge)."""
        ...

    def delete_all(self) -> None:
        """Delete both documents and every copy (delete-user). Under lock()."""
        ...

    def drop(self) -> None:
        """After delete_all() and the lock's release: whatever still names the user goes."""
        ...


class DocumentStore(Protocol):
    def documents(self, user_id: str) -> UserDocuments:
        """The user's documents (validates the id; raises InvalidUserId)."""
        ...

    def has_any_documents(self) -> bool:
        """Whether any user holds a USER.md or MEMORY.md."""
        ...

    def user_summaries(self) -> list[dict[str, Any]]:
        """Every user here, by id (team profiles "team+NAME" too): user_id, user_chars, memory_chars,
        last_change (ISO time or None). `memroute users` and the review page's index list them."""
        ...

    def has_user(self, user_id: str) -> bool:
        """Whether the user exists here (a validated id; what a server answers 404 for)."""
        ...


# ---- the records -----------------------------------------------------------------------------


class MemoryStore(ABC):
    """Records of every user under one root. Implementations: SQLiteStore (today), PostgreSQL (issue 19)."""

    redact: Callable[[str], str]
    read_only: bool

    # -- lifecycle --

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def exists(self) -> bool:
        """Whether the store holds anything yet (a read-only store of a fresh root does not)."""

    @abstractmethod
    def transaction(self) -> AbstractContextManager[Tx]:
        """One atomic write; nested use on the same thread joins the outer transaction."""

    @abstractmethod
    def secret_key(self, name: str) -> bytes:
        """The store's own secret `name` (32 random bytes, never about a user), made at first use and the
        same for every process on this store: the key of ids made from user text (pipeline/_util/keyed.py)."""

    @abstractmethod
    def holds_unkeyed_ids(self) -> bool:
        """Whether the store recorded turns before ids made from user text were keyed (store_facts
        'unkeyed_ids', set by the migration that added the table): only then is a turn also looked up
        under the plain id it had then (pipeline/ops/turn.py applied_before). Never true of a new store."""

    @abstractmethod
    def quick_check(self) -> str:
        """"ok", or the first consistency problem found (`memroute doctor`)."""

    @abstractmethod
    def applied_migrations(self) -> list[str]: ...

    # -- writes (inside transaction()) --

    @abstractmethod
    def add_change(
        self,
        tx: Tx,
        *,
        user_id: str,
        target: str,
        op: str,
        key: str | None,
        old: str | None,
        new: str | None,
        why: str | None,
        turn_id: str | None,
        conversation_id: str | None,
        quote: str | None,
        engine: str | None,
        model: str | None,
        prompt_version: str | None,
        ts: str,
    ) -> None:
        """One history row; when it sets a value (`new`), its provenance row too."""

    @abstractmethod
    def add_archive(
        self, tx: Tx, *, user_id: str, target: str, text: str, why: str | None, ts: str, turn_id: str | None = None
    ) -> None: ...

    @abstractmethod
    def add_decisions(
        self,
        tx: Tx,
        *,
        user_id: str,
        turn_id: str,
        conversation_id: str | None,
        decisions: list[Decision],
        engine: str | None,
        model: str | None,
        prompt_version: str | None,
        usage: Usage | None,
        ts: str,
    ) -> None:
        """The turn's decisions (a skip keeps only a digest of its quote unless log_quotes) and its usage."""

    @abstractmethod
    def add_usage(
        self,
        tx: Tx,
        *,
        user_id: str,
        turn_id: str | None,
        stage: str,
        engine: str | None,
        model: str | None,
        prompt_version: str | None,
        usage: Usage,
        ts: str,
    ) -> None: ...

    @abstractmethod
    def mark_turn(
        self,
        tx: Tx,
        *,
        user_id: str,
        turn_id: str,
        conversation_id: str | None,
        status: str,
        error: str | None = None,
        payload: dict[str, Any] | None = None,
        ts: str,
    ) -> None:
        """Insert or update a turn's status (one of TURN_STATUSES); payload stored redacted."""

    @abstractmethod
    def redact_payload(self, payload: dict[str, Any]) -> dict[str, Any]: ...

    # -- reads (scoped to one user unless said) --

    @abstractmethod
    def turn_status(self, user_id: str, turn_id: str) -> str | None: ...

    @abstractmethod
    def turns(self, user_id: str | None = None, status: str | None = None) -> list[dict[str, Any]]: ...

    @abstractmethod
    def failed_turns(self, user_id: str | None = None) -> list[dict[str, Any]]: ...

    @abstractmethod
    def history(self, user_id: str, limit: int | None = None) -> list[dict[str, Any]]: ...

    @abstractmethod
    def provenance(self, user_id: str, target: str | None = None, key: str | None = None) -> list[dict[str, Any]]: ...

    @abstractmethod
    def recall_archive(self, user_id: str, query: str, k: int = 5) -> list[dict[str, Any]]:
        """Archived values matching the query in any script (3+ character words as substrings), best first."""

    @abstractmethod
    def archive(self, user_id: str, why: str | None = None) -> list[dict[str, Any]]:
        """The user's archived values, oldest first (only those archived for `why`, when given)."""

    @abstractmethod
    def decisions(self, user_id: str, turn_id: str | None = None) -> list[dict[str, Any]]:
        """The decision log, oldest first (rules.stored_decision: every column, `match`, and the typed
        decision: `rule`, `removal`, `asked`, None in rows logged before the store kept them)."""

    @abstractmethod
    def find_text(self, user_id: str, needle: str) -> list[str]:
        """Where `needle` is stored for this user, as "table.column" names (leak checks)."""

    @abstractmethod
    def usage_rows(self, user_id: str, turn_id: str | None = None) -> list[dict[str, Any]]: ...

    @abstractmethod
    def usage_totals(self, user_id: str | None = None) -> dict[str, Any]: ...

    # -- erasure --

    @abstractmethod
    def purge_user(self, tx: Tx, user_id: str) -> int: ...

    @abstractmethod
    def forget_archived(self, tx: Tx, user_id: str, needles: Sequence[str], keys: Sequence[str], why: str) -> int:
        """Mark the user's archived rows a forget of `needles` / `keys` covers (those purge_text would delete
        from the archive) as archived for `why`; how many. Recall leaves them out; history keeps them."""

    @abstractmethod
    def purge_text(self, tx: Tx, user_id: str, needles: Sequence[str], keys: Sequence[str] = ()) -> int: ...

    @abstractmethod
    def compact(self) -> None:
        """Make deleted rows unrecoverable (outside any transaction)."""

    @abstractmethod
    def everything_about(self, user_id: str) -> dict[str, list[dict[str, Any]]]: ...

    # -- candidates --

    @abstractmethod
    def upsert_candidate(
        self,
        tx: Tx,
        *,
        user_id: str,
        section: str | None,
        key: str,
        value: str,
        quote: str | None,
        turn_id: str | None,
        conversation_id: str | None,
        seen_at: str,
    ) -> None: ...

    @abstractmethod
    def delete_candidates(self, tx: Tx, user_id: str, ids: Sequence[int]) -> int: ...

    @abstractmethod
    def purge_candidates(self, tx: Tx, user_id: str, needle: str | None = None) -> int: ...

    @abstractmethod
    def expire_candidates(self, tx: Tx, before: str, user_id: str | None = None) -> int: ...

    # ---- annotations: pins and tags (the review page) ---------------------------------------
    # One generic table: (user_id, target "user"|"memory", ref, kind "pin"|"project"|"task"|"tag",
    # value, ts), unique on all but ts. purge_user and purge_text cover it like the other tables.

    @abstractmethod
    def add_annotation(self, tx: Tx, *, user_id: str, target: str, ref: str, kind: str, value: str, ts: str) -> bool:
        """Record one pin or tag (idempotent); True when it is new."""

    @abstractmethod
    def delete_annotations(
        self, tx: Tx, user_id: str, *, target: str | None = None, ref: str | None = None,
        kind: str | None = None, value: str | None = None,
    ) -> int:
        """Delete the user's annotations matching every filter given; how many went."""

    @abstractmethod
    def annotations(self, user_id: str) -> list[dict[str, Any]]:
        """The user's annotations (id, user_id, target, ref, kind, value, ts), oldest first."""

    @abstractmethod
    def candidates(self, user_id: str) -> list[dict[str, Any]]: ...

    @abstractmethod
    def search_candidates(self, user_id: str, query: str, k: int = 5) -> list[dict[str, Any]]: ...

    # -- batch checkpoints (memroute batch) --

    @abstractmethod
    def batch_status(self, user_id: str, conversation_key: str) -> str | None:
        """"done" / "failed" for a checkpointed input conversation, None if never seen."""

    @abstractmethod
    def checkpoint_batch(
        self,
        *,
        user_id: str,
        conversation_key: str,
        conversation_id: str | None,
        turns: int,
        status: str,
        source: str | None,
    ) -> None:
        """Record (or update) a batch conversation's outcome, in its own transaction."""

    @abstractmethod
    def has_batch_trace(self) -> bool:
        """Any batch checkpoint, or any turn id a batch makes ("b-...")."""

    @abstractmethod
    def has_turns(self) -> bool: ...

    # -- the hook queue --

    @abstractmethod
    def open_hook_queue(self, *, fsync_submits: bool = False) -> HookQueue: ...

    def shared_queue(self, *, workers: int = 1) -> Any | None:
        """The queue app servers submit turns to and any number of `memroute worker` processes, on any
        hosts, work (a PgQueue: claim, settle, pending, submit), with room for `workers` threads of this
        process; None where there is none (a root: its turns go through the post-turn hook or batch)."""
        return None

    @abstractmethod
    def hook_queue_status(self) -> dict[str, Any]:
        """Counts per status (overall and per user) and the last (redacted) error; zeros when empty."""


"""The one write path: `with workspace.edit(user_id) as tx:` locks the user, loads both documents
(parsed, `tx.current`), lets the caller change them and `tx.stage(...)` the result, then commits
the changed documents together with history, provenance, archive and the turn record in one
unit when the block ends. An exception inside the block writes nothing at all.

Chat turns, the tool, consolidation, Hermes import, candidate confirmation and forget all go
through it; only the store knows how records are kept, only the document store how text is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from pipeline.ledgers.memory_md import MemoryLog, empty_memory_md
from pipeline.ledgers.user_md import UserProfile, empty_user_md
from pipeline.ops.erasure import Erased
from pipeline.stages.order import turn_time_payload
from pipeline.stages.write import WriteResult
from pipeline.store.files import MEMORY_FILE, USER_FILE
from pipeline.store.interface import LedgerTexts, MemoryStore, Tx, UserDocuments
from pipeline.types import Classification, Outcome


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Ledgers:
    """Both documents of one user, parsed, plus what was read."""

    profile: UserProfile
    log: MemoryLog
    texts: LedgerTexts
    user_refused: str | None = None  # why USER.md may not be rewritten (does not round-trip)
    memory_refused: str | None = None
    warnings: list[str] = field(default_factory=list)  # readers: what could not be read as is


def committed_check(store: MemoryStore, user_id: str) -> Callable[[str], bool]:
    """Whether an interrupted commit of this user reached the store (asked under the lock)."""
    return lambda turn_id: store.turn_status(user_id, turn_id) == "done"


def load_ledgers(
    docs: UserDocuments,
    store: MemoryStore,
    *,
    user_limit: int,
    memory_limit: int,
    reuse: Ledgers | None = None,
    reader: bool = False,
) -> Ledgers:
    """Both documents, parsed with their caps. A `reader` (show, context, recall, export) never
    raises for a bad document (it gets a warning instead), and first rolls forward a commit a killed
    writer left between the store's commit and the documents, so it never sees history ahead of them.
    `reuse`: what was loaded before, returned as is when nothing changed since."""
    warnings: list[str] = []
    if reader:
        if docs.has_pending_commit():
            with docs.lock(recover=committed_check(store, docs.user_id)):
                pass
        texts, warnings = docs.read_lenient()
    else:
        texts = docs.read()
    if reuse is not None and (texts.user_raw, texts.memory_raw) == (reuse.texts.user_raw, reuse.texts.memory_raw):
        return reuse
    user_text = texts.user if texts.user is not None else empty_user_md()
    memory_text = texts.memory if texts.memory is not None else empty_memory_md()
    # Parsed with their caps: every growing op checks the cap and undoes itself when over.
    profile = UserProfile.parse(user_text, limit=user_limit)
    memory = MemoryLog.parse(memory_text, limit=memory_limit)
    current = Ledgers(profile=profile, log=memory, texts=texts, warnings=warnings)
    if texts.user_raw is not None and not profile.round_trips:
        copy = docs.keep_copy(USER_FILE, texts.user_raw)
        current.user_refused = f"{USER_FILE} does not round-trip; left as is (copy at {copy}); fix it by hand"
    if texts.memory_raw is not None and not memory.round_trips:
        copy = docs.keep_copy(MEMORY_FILE, texts.memory_raw)
        current.memory_refused = f"{MEMORY_FILE} does not round-trip; left as is (copy at {copy}); fix it by hand"
    return current


def changed_files(current: Ledgers, written: WriteResult) -> dict[str, str]:
    """The documents whose text changed (never one that does not round-trip; never a new empty one)."""
    files: dict[str, str] = {}
    new_user = written.profile.render()
    if current.user_refused is None and new_user != (current.texts.user or ""):
        if current.texts.user is not None or written.profile.fields():
            files[USER_FILE] = new_user
    new_memory = written.log.render()
    if current.memory_refused is None and new_memory != (current.texts.memory or ""):
        if current.texts.memory is not None or written.log.entries:
            files[MEMORY_FILE] = new_memory
    return files


def refuse_unsafe_rewrites(written: WriteResult, current: Ledgers) -> None:
    """A document that does not round-trip is never rewritten: mark the decisions that would have."""
    for d in written.decisions:
        if d.outcome is not Outcome.WRITTEN:
            continue
        refusal = current.user_refused if d.route == "user" else current.memory_refused
        if refusal:
            d.settle(Outcome.REFUSED, refusal)
    if current.user_refused:
        written.changes = [c for c in written.changes if c.target != "user"]
        written.archive = [c for c in written.archive if c.target != "user"]
    if current.memory_refused:
        written.changes = [c for c in written.changes if c.target != "memory"]
        written.archive = [c for c in written.archive if c.target != "memory"]


class Edit:
    """One user's write in progress (see the module doc). Made by Workspace.edit()."""

    def __init__(
        self,
        store: MemoryStore,
        docs: UserDocuments,
        current: Ledgers,
        turn_id: str,
        conversation_id: str | None = None,
    ) -> None:
        self.store = store
        self.docs = docs
        self.current = current
        self.turn_id = turn_id
        self.conversation_id = conversation_id
        self.rows_erased = 0  # filled by the commit when a purge was staged
        self.ts = now_iso()  # the commit's time (set again when it starts)
        self.committed = False
        self.turn_time: str | None = None  # a chat turn's own time (None: the commit's), see stages/order.py
        self._written: WriteResult | None = None
        self._files: dict[str, str] = {}
        self._source: Classification | None = None
        self._records: Callable[[Tx], object] | None = None
        self._purge: Erased | None = None

    @property
    def user_id(self) -> str:
        return self.docs.user_id

    def stage(
        self,
        written: WriteResult,
        *,
        files: dict[str, str] | None = None,
        source: Classification | None = None,
        records: Callable[[Tx], object] | None = None,
        purge: Erased | None = None,
    ) -> None:
        """What to commit when the block ends. `files`: the documents to replace (default: the ones
        whose text `written` changed). `source`: the classification a chat turn's changes came from
        (None: a manual change, recorded as engine "manual"). `records(tx)`: more records of the
        caller's in the same transaction, written first. `purge`: erase every stored copy of these
        values (after the records), then scrub the kept copies and compact the store."""
        self._written = written
        self._files = changed_files(self.current, written) if files is None else files
        self._source = source
        self._records = records
        self._purge = purge

    def commit(self) -> None:
        """Write what was staged (Workspace.edit() calls this when the block ends without error)."""
        if self._written is None or self.committed:
            return
        written, purge = self._written, self._purge
        ts = self.ts = now_iso()

        def store_commit() -> None:
            with self.store.transaction() as tx:
                if self._records is not None:
                    self._records(tx)
                self._record(tx, written, ts)
                if purge is not None:
                    self.rows_erased = self.store.purge_text(tx, self.user_id, purge.needles, purge.keys)
                self.store.mark_turn(
                    tx, user_id=self.user_id, turn_id=self.turn_id, conversation_id=self.conversation_id,
                    status="done", ts=ts, payload=turn_time_payload(self.turn_time or ts),
                )

        self.docs.commit(self.turn_id, self._files, store_commit)
        self.committed = True
        if purge is not None:
            self.docs.erase_from_copies(purge.needles)
            self.store.compact()

    @property
    def files(self) -> dict[str, str]:
        """The documents the staged change replaces."""
        return dict(self._files)

    def _record(self, tx: Tx, written: WriteResult, ts: str) -> None:
        source = self._source
        engine = source.engine if source else "manual"
        model = source.model if source else None
        prompt_version = source.prompt_version if source else None
        for c in written.changes:
            self.store.add_change(
                tx, user_id=self.user_id, target=c.target, op=c.op, key=c.key, old=c.old, new=c.new, why=c.why,
                turn_id=self.turn_id, conversation_id=self.conversation_id, quote=c.quote, engine=engine,
                model=model, prompt_version=prompt_version, ts=ts,
            )
        for a in written.archive:
            text = f"{a.key}: {a.old}" if a.key and a.old else (a.old or "")
            self.store.add_archive(
                tx, user_id=self.user_id, target=a.target, text=text, why=a.why, ts=ts, turn_id=self.turn_id
            )

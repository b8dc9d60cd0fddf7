"""What every write operation needs, and nothing more: the store, the documents, the caps, the
guard policy, and the one write path (`edit()`) with its reader (`load()`).

The operations (turn, manual, review, tool) take a Workspace, never the MemoryPipeline facade,
so the facade imports them and they import nothing of it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pipeline.guards import GuardPolicy
from pipeline.ops.edit import Edit, Ledgers, committed_check, load_ledgers
from pipeline.store.interface import DocumentStore, MemoryStore, UserDocuments


@dataclass
class Workspace:
    store: MemoryStore
    documents: DocumentStore
    user_limit: int
    memory_limit: int
    guard_policy: GuardPolicy = field(default_factory=GuardPolicy)

    @contextmanager
    def edit(
        self,
        user_id: str,
        *,
        kind: str = "edit",
        turn_id: str | None = None,
        conversation_id: str | None = None,
        reuse: Ledgers | None = None,
    ) -> Iterator[Edit]:
        """Lock the user, load both documents (`tx.current`), and commit what the block stages
        with `tx.stage(...)` (documents, history, provenance, archive, turn record: one unit) when it
        ends. An exception in the block writes nothing. `kind` names the record of a manual change
        ("tool", "forget", ...: its turn id is "<kind>-<random>")."""
        docs = self.documents.documents(user_id)
        with docs.lock(recover=committed_check(self.store, user_id)):
            current = self.read(docs, reuse=reuse)
            tx = Edit(self.store, docs, current, turn_id or f"{kind}-{uuid.uuid4().hex[:12]}", conversation_id)
            yield tx
            tx.commit()

    def load(self, user_id: str, *, reader: bool = False) -> Ledgers:
        """Both documents of the user, parsed (read-only use; writes go through edit()). A `reader`
        never raises for a bad document: `warnings` says what could not be read as is."""
        return self.read(self.documents.documents(user_id), reader=reader)

    def read(self, docs: UserDocuments, reuse: Ledgers | None = None, *, reader: bool = False) -> Ledgers:
        """load() of documents already opened (`reuse`: what was read before, kept when unchanged)."""
        return load_ledgers(
            docs, self.store, user_limit=self.user_limit, memory_limit=self.memory_limit, reuse=reuse, reader=reader
        )


def usage_line(text: str, limit: int) -> str:
    """A file's size against its cap, as people read it: "1,234/2,200"."""
    return f"{len(text):,}/{limit:,}"


__all__ = ["Workspace", "usage_line"]

"""What "forget" takes out of the two ledgers, and the words the store must then erase.

A forget request names a key ("email", "phone number") or a piece of text ("Vue", an address).
Every USER.md field whose key it names, or whose value holds it, and every MEMORY.md entry
holding it, leaves the files; `Erased` then lists the values that left (the needles) and the
keys, so the store can delete every other copy (history, provenance, archive, decisions,
failed turns, queue, candidates) and the backups can be scrubbed. Ledgers only: no SQL here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.errors import NothingToForget
from pipeline.ledgers import names_key
from pipeline.ledgers.memory_md import MemoryEntry, MemoryLog
from pipeline.ledgers.user_md import UserProfile
from pipeline.stages.write import Change, WriteResult

# Text shorter than this matches too much to erase by ("a", "42"); a key of any length is fine.
MIN_TEXT_CHARS = 3


@dataclass
class Erased:
    keys: list[str] = field(default_factory=list)  # USER.md keys that left (all their past values go too)
    needles: list[str] = field(default_factory=list)  # every value that left, and the request itself
    labels: list[str] = field(default_factory=list)  # what to tell the user: keys, or "MEMORY.md entry"
    changes: list[Change] = field(default_factory=list)  # as ordinary removals (forget without --purge)

    def __bool__(self) -> bool:
        return bool(self.labels)

    def add_needle(self, text: str | None) -> None:
        text = (text or "").strip()
        if len(text) >= MIN_TEXT_CHARS and text.casefold() not in (n.casefold() for n in self.needles):
            self.needles.append(text)


def erase_from_ledgers(profile: UserProfile, log: MemoryLog, request: str) -> Erased:
    """Take every field and entry that `request` names out of the parsed ledgers (in place)."""
    request = " ".join(request.split())
    if not request:
        raise NothingToForget("nothing to forget: give a key (e.g. Email) or some text")
    text_ok = len(request) >= MIN_TEXT_CHARS
    wanted = request.casefold()
    erased = Erased()
    for fld in profile.fields():
        by_key = fld.key is not None and names_key(request, fld.key)
        if not by_key and not (text_ok and (wanted in fld.value.casefold() or wanted in (fld.key or "").casefold())):
            continue
        if fld.key is not None:
            old = profile.remove(fld.key)
            erased.keys.append(fld.key)
            erased.labels.append(f"USER.md {fld.key}")
        else:
            old = profile.remove_entry(fld.value)
            erased.labels.append("USER.md entry")
        erased.add_needle(old)
        erased.changes.append(Change("user", "remove", fld.key or fld.value, old, None, "forget requested"))
    if text_ok:
        for entry in list(log.entries):
            if wanted not in entry.body().casefold():
                continue
            gone = log.remove(entry.body())
            erased.add_needle(gone.body())
            erased.add_needle(gone.text)
            erased.labels.append("MEMORY.md entry")
            erased.changes.append(Change("memory", "remove", None, gone.body(), None, "forget requested"))
    if not erased and not text_ok:
        raise NothingToForget(f"{request!r} is too short to forget by text (at least {MIN_TEXT_CHARS} characters)")
    if text_ok:
        erased.add_needle(request)
    return erased


def erased_by_turn(written: WriteResult) -> Erased:
    """The values a turn's forget decisions took out of the files (a forget in a turn purges)."""
    erased = Erased()
    for c in written.changes:
        if c.op != "remove" or c.change_of_fact:
            continue
        if c.target == "user":
            if c.key and c.old is not None and c.key != c.old:
                erased.keys.append(c.key)
            erased.labels.append(f"USER.md {c.key}")
            erased.add_needle(c.old)
        else:
            erased.labels.append("MEMORY.md entry")
            erased.add_needle(c.old)
            erased.add_needle(MemoryEntry.parse(c.old or "").text)
    return erased


def purge_record(c: Change) -> Change:
    """History keeps that something was erased (and its key), never what."""
    key = c.key if c.target == "user" and c.key != c.old else None
    return Change(c.target, "purge", key, None, None, "erased at the user's request")


__all__ = ["Erased", "NothingToForget", "erase_from_ledgers", "erased_by_turn", "purge_record"]

"""MEMORY.md: a dated log, one "- [YYYY-MM-DD] topic: text" bullet per entry.

An entry's date has the precision the user gave: "[2023-07-14]", "[2023-07]" or "[2023]"
(see entry_dates for how they sort among each other); an entry without one has no brackets.

Same approach as USER.md: lines the parser does not own, and entries nobody changed,
render from their original text, so hand edits survive and canonical files round-trip.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, replace
from typing import Literal, TypeVar

from pipeline.errors import LedgerError, MatchError
from pipeline.ledgers import entry_dates
from pipeline.ledgers._document import LedgerDocument
from pipeline.ledgers._text import (
    bullet_body,
    bullet_lines,
    clean_entry_text,
    is_blank,
    split_label,
    split_text,
    take_continuation,
)

DEFAULT_MEMORY_LIMIT = 2200
CONSOLIDATE_AT = 0.9
HEADING = "# MEMORY"
_DATED = re.compile(r"\[(\d{4}(?:-\d{2}(?:-\d{2})?)?)\] (.+)", re.DOTALL)
_TRAILING_PUNCT = ".!?;,…。！？；，、"

T = TypeVar("T")


def empty_memory_md() -> str:
    return HEADING + "\n"


def needs_consolidation(text: str, limit: int, threshold: float = CONSOLIDATE_AT) -> bool:
    """True once the file reaches `threshold` of its cap (90% by default)."""
    return len(text) >= threshold * limit


@dataclass
class MemoryEntry:
    """One MEMORY.md entry.

    Parsing recognises a topic when the text before the first ": " is a short label (<= 40 chars,
    <= 4 words, letters/digits/marks of any script plus spaces and - _ / . & + # '), so
    "Related project: agent-demo / global site" parses as topic "Related project". Either way
    line() renders the same bytes, so the choice never changes a file.
    """

    text: str
    date: str | None = None  # YYYY-MM-DD, YYYY-MM or YYYY (entry_dates)
    topic: str | None = None  # a short label; see _text.is_label for what parses back as one

    @classmethod
    def parse(cls, body: str) -> MemoryEntry:
        """An entry from its body (the bullet without "- "): "[2026-07-30] agent-demo: text"."""
        day = None
        dated = _DATED.fullmatch(body)
        if dated:
            day, body = dated.group(1), dated.group(2)
        first, *rest = body.split("\n")
        topic, first = split_label(first)
        return cls(text="\n".join([first, *rest]), date=day, topic=topic)

    def body(self) -> str:
        """The entry as one string, as Hermes and current_entries show it: the line without "- "."""
        prefix = f"[{self.date}] " if self.date else ""
        topic = f"{self.topic}: " if self.topic else ""
        return prefix + topic + self.text

    def line(self) -> str:
        """"- [2026-07-30] agent-demo: hero ..."; extra lines of a multi-line entry indented by two spaces."""
        return "\n".join(bullet_lines(self.body()))


def entry_matches(body: str, terms: list[str]) -> bool:
    """Every (lower-case) term is in the entry, or is a date the entry's date overlaps: a month entry
    answers a question about one of its days, and a day entry a question about its month."""
    entry = MemoryEntry.parse(body)
    lowered = body.lower()
    return bool(terms) and all(
        t in lowered or (entry.date is not None and entry_dates.is_stamp(t) and entry_dates.overlaps(t, entry.date))
        for t in terms
    )


def _clean(entry: MemoryEntry) -> MemoryEntry:
    text = clean_entry_text(entry.text, "entry text")
    day = entry.date.strip() if entry.date else None
    if day:
        try:
            entry_dates.check_stamp(day)
        except ValueError as e:
            raise LedgerError(f"invalid entry date: {e}") from None
    topic = " ".join(entry.topic.split()) if entry.topic else None
    return MemoryEntry(text=text, date=day or None, topic=topic or None)


def _same(old: MemoryEntry, new: MemoryEntry) -> bool:
    try:
        return _clean(old) == new
    except LedgerError:  # a hand-written entry our checks would refuse (e.g. 2026-02-30)
        return False


def _dedup_key(entry: MemoryEntry) -> str:
    text = f"{entry.topic}: {entry.text}" if entry.topic else entry.text
    return " ".join(text.split()).casefold().rstrip(_TRAILING_PUNCT + " ")


@dataclass
class _Block:
    kind: Literal["text", "entry"]
    raw: list[str] | None  # original lines; None = render canonically
    entry: MemoryEntry | None = field(default=None)

    def lines(self) -> list[str]:
        if self.raw is not None:
            return self.raw
        assert self.entry is not None
        return bullet_lines(self.entry.body())

    def __deepcopy__(self, memo: dict[int, object]) -> _Block:
        # The undo snapshot of every capped change (see user_md._Block.__deepcopy__).
        raw = None if self.raw is None else list(self.raw)
        return _Block(self.kind, raw, None if self.entry is None else replace(self.entry))

    @property
    def blank(self) -> bool:
        return self.kind == "text" and all(is_blank(line) for line in self.lines())


class MemoryLog(LedgerDocument[_Block]):
    """A parsed MEMORY.md. Every write checks `limit` and changes nothing when over it."""

    FILE_NAME = "MEMORY.md"
    TARGET = "memory"

    @classmethod
    def parse(cls, text: str, limit: int | None = None) -> MemoryLog:
        """Tolerant: never raises. Pass `limit` (e.g. DEFAULT_MEMORY_LIMIT) to make every growing
        operation check the cap; with None (the default) the caller checks it."""
        split = split_text(text)
        lines = split.lines
        blocks: list[_Block] = []
        i = 0
        while i < len(lines):
            body = bullet_body(lines[i])
            if body is None:
                blocks.append(_Block("text", [lines[i]]))
                i += 1
                continue
            end = take_continuation(lines, i + 1)
            full = "\n".join([body] + [cont[2:] for cont in lines[i + 1 : end]])
            blocks.append(_Block("entry", lines[i:end], MemoryEntry.parse(full)))
            i = end
        log = cls(blocks, split.newline, split.final_newline, split.had_bom, True, limit)
        original = text[1:] if split.had_bom else text
        log._round_trips = not split.normalized and log.render() == original
        return log

    # -- reading --------------------------------------------------------------------------
    def _entry_blocks(self) -> list[_Block]:
        return [b for b in self._blocks if b.kind == "entry"]

    @property
    def entries(self) -> list[MemoryEntry]:
        """Copies of the entries, in file order (change them through the methods)."""
        return [copy.copy(b.entry) for b in self._entry_blocks() if b.entry is not None]

    def entry_strings(self) -> list[str]:
        """Each entry's body ("[2026-07-30] topic: text"): current_entries and the Hermes export."""
        return [b.entry.body() for b in self._entry_blocks() if b.entry is not None]

    def find(self, match: str) -> int:
        """Index of the entry: exact text first (body, "topic: text" or text), else a unique
        case-insensitive substring of the body. MatchError (with current_entries) otherwise."""
        entries = self.entries
        bodies = [e.body() for e in entries]
        wanted = (match or "").strip()
        if not wanted:
            raise MatchError("match is empty: give the exact entry or a unique part of it.", bodies)
        for i, e in enumerate(entries):
            if wanted in (bodies[i], e.text, f"{e.topic}: {e.text}" if e.topic else e.text):
                return i
        hits = [i for i, b in enumerate(bodies) if wanted.casefold() in b.casefold()]
        if not hits:
            raise MatchError(f"No entry matched '{wanted}'. Use the exact text of one of current_entries.", bodies)
        if len({bodies[i] for i in hits}) > 1:
            raise MatchError(f"Several entries ({len(hits)}) matched '{wanted}'. Be more specific.", bodies, ambiguous=True)
        return hits[0]

    def has_duplicate(self, entry: MemoryEntry) -> bool:
        """Same text as an existing entry, ignoring case, whitespace, trailing punctuation and date."""
        wanted = _dedup_key(entry)
        return any(_dedup_key(e) == wanted for e in self.entries)

    # -- guarded mutation -----------------------------------------------------------------
    def _current_entries(self) -> list[str]:
        return self.entry_strings()

    def _ensure_heading(self) -> None:
        if all(b.blank for b in self._blocks):
            self._blocks = [_Block("text", [HEADING])]

    def _insert_at_end_of_entries(self, new: list[_Block], at: int | None = None) -> None:
        """Insert entry blocks at `at`, else after the last entry, else at the end after a blank line."""
        if at is None:
            last = [i for i, b in enumerate(self._blocks) if b.kind == "entry"]
            at = last[-1] + 1 if last else None
        if at is not None:
            self._blocks[at:at] = new
            return
        self._ensure_heading()
        if not self._blocks[-1].blank:
            self._blocks.append(_Block("text", [""]))
        self._blocks.extend(new)

    def _drop_trailing_blanks(self) -> None:
        while self._blocks and self._blocks[-1].blank:
            self._blocks.pop()

    # -- operations -----------------------------------------------------------------------
    def append(self, entry: MemoryEntry) -> None:
        """Add an entry after the last one, or, when it is dated before entries already at the end
        (a late turn: a retry, a replay), before them, so the log stays in date order.
        No duplicate check: ask has_duplicate first."""
        entry = _clean(entry)
        at: int | None = None
        if entry.date:
            for i in range(len(self._blocks) - 1, -1, -1):
                block = self._blocks[i]
                if block.kind != "entry" or block.entry is None:
                    continue
                if not block.entry.date or block.entry.date <= entry.date:
                    break
                at = i  # a later-dated entry: the new one goes before it
        block = _Block("entry", None, entry)
        self._guarded(lambda: self._insert_at_end_of_entries([block], at), len(entry.body()))

    def replace(self, match: str, new: MemoryEntry) -> MemoryEntry:
        """Replace the matched entry in place; returns the old one."""
        new = _clean(new)
        self.require_round_trip()
        block = self._entry_blocks()[self.find(match)]
        assert block.entry is not None
        old = copy.copy(block.entry)

        def swap() -> None:
            block.entry = new
            block.raw = None

        self._guarded(swap, len(new.body()))
        return old

    def remove(self, match: str) -> MemoryEntry:
        self.require_round_trip()
        block = self._entry_blocks()[self.find(match)]
        assert block.entry is not None
        idx = next(i for i, b in enumerate(self._blocks) if b is block)
        del self._blocks[idx]
        if all(b.blank for b in self._blocks[idx:]):
            self._drop_trailing_blanks()
        self._final_newline = True
        return block.entry

    @staticmethod
    def _reuse(unused: list[_Block], entry: MemoryEntry) -> _Block:
        """An entry kept as it was keeps its original lines (hand-written form included)."""
        for i, block in enumerate(unused):
            if block.entry is not None and _same(block.entry, entry):
                return unused.pop(i)
        return _Block("entry", None, entry)

    def set_entries(self, entries: list[MemoryEntry]) -> None:
        """Replace all entries (consolidation). The heading and hand-written non-entry lines stay
        where they are; the new entries go where the first old entry was."""
        cleaned = [_clean(e) for e in entries]
        self.require_round_trip()

        def rewrite() -> None:
            first = next((i for i, b in enumerate(self._blocks) if b.kind == "entry"), None)
            unused = self._entry_blocks()
            self._blocks = [b for b in self._blocks if b.kind != "entry"]
            new = [self._reuse(unused, e) for e in cleaned]
            if new:
                self._insert_at_end_of_entries(new, first)
            if first is not None and all(b.blank for b in self._blocks[first + len(new):]):
                self._drop_trailing_blanks()

        self._guarded(rewrite, sum(len(e.body()) for e in cleaned))

"""USER.md: the user's profile, one "- Key: value" bullet per field under canonical sections.

The model is a list of blocks (one per line, a field being its bullet plus continuation
lines). Blocks the parser does not own, and fields nobody changed, render from their
original lines, so hand edits survive and a canonical file round-trips byte for byte.
Only the block an operation touches is re-rendered canonically.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Literal, TypeVar

from pipeline.errors import LedgerError, MatchError
from pipeline.ledgers._document import LedgerDocument
from pipeline.ledgers._text import (
    bullet_body,
    bullet_lines,
    clean_entry_text,
    is_blank,
    is_label,
    norm_key,
    split_label,
    split_text,
    take_continuation,
)
from pipeline.sections import USER_SECTIONS
from pipeline.vocabulary import section_of

DEFAULT_USER_LIMIT = 1375
HEADING = "# USER"
DEFAULT_SECTION = "Preferences"

T = TypeVar("T")


def empty_user_md() -> str:
    return HEADING + "\n"


@dataclass
class UserField:
    section: str  # the heading it sits under as written ("" before any section)
    key: str | None  # None: a keyless bullet "- free text"
    value: str

    def entry(self) -> str:
        """The field as one Hermes-style entry string."""
        return f"{self.key}: {self.value}" if self.key is not None else self.value


@dataclass
class _Block:
    kind: Literal["text", "h1", "section", "field"]
    raw: list[str] | None  # original lines; None = render canonically (a field we changed)
    name: str = ""  # section name for kind="section"
    fld: UserField | None = field(default=None)

    def lines(self) -> list[str]:
        if self.raw is not None:
            return self.raw
        assert self.fld is not None
        return bullet_lines(self.fld.entry())

    def __deepcopy__(self, memo: dict[int, object]) -> _Block:
        # The undo snapshot of every capped change (LedgerDocument._guarded): strings are immutable,
        # so copying the lists and the field is a deep copy, at a fraction of copy.deepcopy's cost.
        raw = None if self.raw is None else list(self.raw)
        return _Block(self.kind, raw, self.name, None if self.fld is None else replace(self.fld))

    @property
    def blank(self) -> bool:
        return self.kind == "text" and all(is_blank(line) for line in self.lines())


def canonical_section(name: str) -> str | None:
    """The canonical spelling of a known section name (case-insensitive), else None."""
    wanted = norm_key(name)
    for known in USER_SECTIONS:
        if norm_key(known) == wanted:
            return known
    return None


def guess_section(key: str | None) -> str:
    """The section of a field added with none named (Hermes entries, `tool add`): the vocabulary's for a key it
    lists (under any spelling), else Preferences."""
    return section_of(key) or DEFAULT_SECTION


def _section_rank(name: str) -> int | None:
    known = canonical_section(name)
    return USER_SECTIONS.index(known) if known else None


def _clean_key(key: str) -> str:
    key = " ".join(str(key).split())
    if not is_label(key):
        raise LedgerError(
            f"invalid key {key!r}: use a short label (<= 40 chars, <= 4 words, letters, digits, spaces, - _ / . & + # ')"
        )
    return key


def _clean_value(value: str) -> str:
    if not isinstance(value, str):
        raise LedgerError("value must be text")
    if "\n" in value or "\r" in value:
        raise LedgerError("a USER.md value must be a single line")
    value = value.strip()
    if not value:
        raise LedgerError("value is empty; use remove to delete a field")
    return value


def _clean_section(section: str) -> str:
    section = " ".join(str(section).split())
    if "#" in section:
        raise LedgerError(f"invalid section name {section!r}")
    return canonical_section(section) or section


def field_from_entry(section: str, content: str) -> UserField:
    first, *rest = content.split("\n")
    key, value = split_label(first)
    if key is None:
        return UserField(section, None, content)
    return UserField(section, key, "\n".join([value, *rest]))


class UserProfile(LedgerDocument[_Block]):
    """A parsed USER.md. Every mutating operation checks `limit` and changes nothing when over it."""

    FILE_NAME = "USER.md"
    TARGET = "user"

    # -- parse / render -------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str, limit: int | None = None) -> UserProfile:
        """Tolerant: never raises on odd text. Pass `limit` (e.g. DEFAULT_USER_LIMIT) to make every
        growing operation check the cap; with None (the default) the caller checks it."""
        split = split_text(text)
        lines = split.lines
        blocks: list[_Block] = []
        section = ""
        i = 0
        while i < len(lines):
            line = lines[i]
            body = bullet_body(line)
            if line.startswith("## "):
                section = line[3:].strip()
                blocks.append(_Block("section", [line], name=section))
                i += 1
            elif line.startswith("# "):
                section = ""
                blocks.append(_Block("h1", [line]))
                i += 1
            elif body is not None:
                end = take_continuation(lines, i + 1)
                content = "\n".join([body] + [cont[2:] for cont in lines[i + 1 : end]])
                blocks.append(_Block("field", lines[i:end], fld=field_from_entry(section, content)))
                i = end
            else:
                blocks.append(_Block("text", [line]))
                i += 1
        profile = cls(blocks, split.newline, split.final_newline, split.had_bom, True, limit)
        original = text[1:] if split.had_bom else text
        profile._round_trips = not split.normalized and profile.render() == original
        return profile

    # -- reading --------------------------------------------------------------------------
    def _field_blocks(self) -> list[_Block]:
        return [b for b in self._blocks if b.kind == "field"]

    def fields(self) -> list[UserField]:
        return [copy.copy(b.fld) for b in self._field_blocks() if b.fld is not None]

    def entries(self) -> list[str]:
        return [b.fld.entry() for b in self._field_blocks() if b.fld is not None]

    def _find_key(self, key: str) -> _Block | None:
        wanted = norm_key(key)
        for block in self._field_blocks():
            if block.fld is not None and block.fld.key is not None and norm_key(block.fld.key) == wanted:
                return block
        return None

    def get(self, key: str) -> UserField | None:
        block = self._find_key(key)
        return copy.copy(block.fld) if block is not None else None

    # -- guarded mutation -----------------------------------------------------------------
    def _current_entries(self) -> list[str]:
        return self.entries()

    # -- structure helpers ----------------------------------------------------------------
    def _boundary(self, start: int) -> int:
        """Index of the next heading at or after start (or len)."""
        for i in range(start, len(self._blocks)):
            if self._blocks[i].kind in ("section", "h1"):
                return i
        return len(self._blocks)

    def section_named(self, name: str) -> str | None:
        """The heading of the section called `name` in this file (any case), as the file spells it."""
        i = self._find_section(name)
        return None if i is None else self._blocks[i].name

    def _find_section(self, name: str) -> int | None:
        wanted = norm_key(name)
        for i, block in enumerate(self._blocks):
            if block.kind == "section" and norm_key(block.name) == wanted:
                return i
        return None

    def _new_section_index(self, name: str) -> int:
        """Where a new section heading goes: canonical order, unknown sections after known ones."""
        rank = _section_rank(name)
        headings = [(i, _section_rank(b.name)) for i, b in enumerate(self._blocks) if b.kind == "section"]
        if rank is None:
            return len(self._blocks)
        earlier = [i for i, r in headings if r is not None and r < rank]
        if earlier:
            return self._boundary(earlier[-1] + 1)
        later = [i for i, r in headings if r is not None and r > rank]
        if later:
            return later[0]
        unknown = [i for i, r in headings if r is None]
        return unknown[0] if unknown else len(self._blocks)

    def _ensure_heading(self) -> None:
        if all(b.blank for b in self._blocks):
            self._blocks = [_Block("h1", [HEADING])]

    def _insert_field(self, section: str, fld: UserField) -> None:
        section = _clean_section(section) if section.strip() else guess_section(fld.key)
        self._ensure_heading()
        block = _Block("field", None, fld=fld)
        at = self._find_section(section)
        if at is not None:
            fld.section = self._blocks[at].name
            end = self._boundary(at + 1)
            pos = at + 1
            for i in range(at + 1, end):
                if not self._blocks[i].blank:
                    pos = i + 1
            self._blocks.insert(pos, block)
            nxt = self._blocks[pos + 1] if pos + 1 < len(self._blocks) else None
            if nxt is not None and nxt.kind in ("section", "h1"):
                self._blocks.insert(pos + 1, _Block("text", [""]))
            return
        fld.section = section
        heading = _Block("section", [f"## {section}"], name=section)
        pos = self._new_section_index(section)
        if pos >= len(self._blocks):
            if self._blocks and not self._blocks[-1].blank:
                self._blocks.append(_Block("text", [""]))
            self._blocks.extend([heading, block])
            return
        new = [heading, block, _Block("text", [""])]
        if pos > 0 and not self._blocks[pos - 1].blank:
            new.insert(0, _Block("text", [""]))
        self._blocks[pos:pos] = new

    def _delete_block(self, block: _Block) -> None:
        """Remove a field; drop its section heading too when nothing but blank lines is left."""
        idx = next(i for i, b in enumerate(self._blocks) if b is block)
        del self._blocks[idx]
        head = idx - 1
        while head >= 0 and self._blocks[head].kind not in ("section", "h1"):
            head -= 1
        if head >= 0 and self._blocks[head].kind == "section":
            end = self._boundary(head + 1)
            if all(b.blank for b in self._blocks[head + 1 : end]):
                del self._blocks[head:end]
        while self._blocks and self._blocks[-1].blank and idx >= len(self._blocks):
            self._blocks.pop()
        self._final_newline = True

    # -- field operations (the router's path) ---------------------------------------------
    def upsert(self, section: str, key: str, value: str) -> str | None:
        """Set key to value: in place wherever the key already is (returns the old value),
        else at the end of `section` (created at its canonical position). Keys match case-insensitively."""
        key, value = _clean_key(key), _clean_value(value)
        block = self._find_key(key)
        adding = len(f"{key}: {value}")
        if block is not None and block.fld is not None:
            old = block.fld.value
            if old == value:
                return old
            self.require_round_trip()

            def overwrite() -> None:
                assert block.fld is not None
                block.fld.value = value
                block.raw = None

            self._guarded(overwrite, adding)
            return old
        self._guarded(lambda: self._insert_field(section or "", UserField(section or "", key, value)), adding)
        return None

    def remove(self, key: str) -> str | None:
        """Delete the field with this key (case-insensitive). Returns its value, or None if absent."""
        block = self._find_key(key)
        if block is None or block.fld is None:
            return None
        self.require_round_trip()
        old = block.fld.value
        self._delete_block(block)
        return old

    # -- Hermes-tool operations on entry strings ------------------------------------------
    def _match(self, old_text: str) -> _Block:
        entries = self.entries()
        blocks = self._field_blocks()
        wanted = (old_text or "").strip()
        if not wanted:
            raise MatchError("old_text is empty: give the exact entry or a unique part of it.", entries)
        for block, entry in zip(blocks, entries, strict=True):
            if entry == wanted:
                return block
        hits = [(b, e) for b, e in zip(blocks, entries, strict=True) if wanted.casefold() in e.casefold()]
        if not hits:
            raise MatchError(f"No entry matched '{wanted}'. Use the exact text of one of current_entries.", entries)
        if len({e for _, e in hits}) > 1:
            raise MatchError(f"Several entries ({len(hits)}) matched '{wanted}'. Be more specific.", entries, ambiguous=True)
        return hits[0][0]

    def add_entry(self, content: str, section: str | None = None) -> None:
        """`tool add`: "Key: value" upserts that key (in place if present); other text adds a keyless
        bullet. Multi-line content is kept, its extra lines indented under the bullet. An identical
        keyless entry is not added twice."""
        content = clean_entry_text(content)
        fld = field_from_entry("", content)
        if fld.key is not None:
            block = self._find_key(fld.key)
            if block is not None and block.fld is not None:
                if block.fld.value == fld.value:
                    return
                self.require_round_trip()

                def overwrite() -> None:
                    assert block.fld is not None
                    block.fld.value = fld.value
                    block.raw = None

                self._guarded(overwrite, len(content))
                return
        elif content in self.entries():
            return
        self._guarded(lambda: self._insert_field(section or "", fld), len(content))

    def replace_entry(self, old_text: str, content: str) -> str:
        """Replace the matched entry (exact first, else unique case-insensitive substring) in place.
        Returns the old entry string."""
        content = clean_entry_text(content)
        self.require_round_trip()
        block = self._match(old_text)
        assert block.fld is not None
        old = block.fld.entry()
        new = field_from_entry(block.fld.section, content)
        if new.key is not None:
            other = self._find_key(new.key)
            if other is not None and other is not block:
                raise LedgerError(f"another field already has the key '{new.key}'; replace or remove that one")

        def swap() -> None:
            block.fld = new
            block.raw = None

        self._guarded(swap, len(content))
        return old

    def remove_entry(self, old_text: str) -> str:
        self.require_round_trip()
        block = self._match(old_text)
        assert block.fld is not None
        old = block.fld.entry()
        self._delete_block(block)
        return old

    def _append_imported(self, content: str, section: str) -> None:
        """Import path: add a field as given, never overwriting (keeps every Hermes entry)."""
        content = clean_entry_text(content)
        fld = field_from_entry("", content)
        self._guarded(lambda: self._insert_field(section, fld), len(content))

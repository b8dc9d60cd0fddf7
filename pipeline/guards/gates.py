"""Cheap gates: a detector or rule runs only when one of its words occurs in the text.

All gates share one index, so a text is looked at once (its words, a few ASCII substrings, one
regex over the non-ASCII gate words) however many detectors and rules ask."""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile

_WORD_RE = lazy_compile(r"[a-z0-9_]+")


class Text:
    """A text with what the gates look at, computed once."""

    __slots__ = ("raw", "low", "words", "ascii", "_hits")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.low = raw.lower()
        self.words = set(_WORD_RE.findall(self.low))
        self.ascii = raw.isascii()
        self._hits: set[int] | None = None

    def hits(self) -> set[int]:
        if self._hits is None:
            self._hits = _GATES.hits(self)
        return self._hits


class _GateIndex:
    """All gates in one index, so a text is looked at once: by its words (a dict lookup each),
    a few ASCII substrings (punctuation), and one regex over the non-ASCII gate words."""

    def __init__(self) -> None:
        self.by_word: dict[str, set[int]] = {}
        self.subs: list[tuple[str, int]] = []
        self.foreign: dict[str, set[int]] = {}
        self.count = 0
        self._foreign_re: re.Pattern[str] | None = None
        self._within: dict[str, set[int]] = {}

    def add(self, items: tuple[str, ...]) -> int:
        gid = self.count
        self.count += 1
        for item in items:
            if not item.isascii():
                self.foreign.setdefault(item, set()).add(gid)
            elif re.fullmatch(r"[a-z0-9_ ]+", item) and item.strip():
                self.by_word.setdefault(item.split()[0], set()).add(gid)  # a phrase is gated by its first word
            else:
                self.subs.append((item, gid))
        self._foreign_re = None
        return gid

    def hits(self, t: Text) -> set[int]:
        found: set[int] = set()
        for word in t.words:
            ids = self.by_word.get(word)
            if ids:
                found |= ids
        for sub, gid in self.subs:
            if sub in t.low:
                found.add(gid)
        if not t.ascii:
            foreign_re, within = self._foreign_re, self._within
            if foreign_re is None:
                foreign = dict(self.foreign)
                alts = sorted(foreign, key=len, reverse=True)
                # A match hides the shorter gate words inside it ("超级管理员" holds "管理员"): each
                # word answers for those too.
                within = {w: set().union(*(ids for v, ids in foreign.items() if v in w)) for w in foreign}
                foreign_re = lazy_compile("|".join(map(re.escape, alts)))
                self._within, self._foreign_re = within, foreign_re  # the map first: threads read both
            for word in set(foreign_re.findall(t.low)):
                found |= within.get(word, set())
        return found


_GATES = _GateIndex()


class Gate:
    __slots__ = ("gid",)

    def __init__(self, *items: str) -> None:
        self.gid = _GATES.add(items)

    def hit(self, t: Text) -> bool:
        return self.gid in t.hits()

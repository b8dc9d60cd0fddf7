"""Cutting a long message into pieces the engine reads one at a time.

A chat turn is a few sentences; a pasted log or a runaway client can send a megabyte. The engine's work on
one stretch of text grows faster than the stretch (a value is weighed against its whole clause, a date is
looked for around it), so a long message is read in pieces of at most PIECE_CHARS characters, each cut
where a sentence ends when one ends late enough in the piece, else at a space, else (a script written
without spaces) at the limit. The cost of a turn is then the number of pieces times a bounded cost: linear
in the message. A message under the limit is one piece, read exactly as before.
"""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile

# Far above any chat message of the corpora and suites (the longest is under 200 characters).
PIECE_CHARS = 2_000
# A cut at a sentence end or a space is taken only in the piece's second half: never a sliver of a piece.
_SENTENCE_END = lazy_compile(r"[.!?。！？；;\n]+[\"')\]]*\s*")
_SPACE = lazy_compile(r"\s+")


def pieces(text: str, limit: int = PIECE_CHARS) -> list[tuple[int, int]]:
    """(start, end) offsets covering `text` in order, each piece at most `limit` characters. Each step reads
    only its own window, so the whole cut is linear in the text."""
    if limit < 2:
        raise ValueError("limit must be at least 2")
    out: list[tuple[int, int]] = []
    start, n = 0, len(text)
    while n - start > limit:
        window_end = start + limit
        cut = _last_end(_SENTENCE_END, text, start + limit // 2, window_end)
        if cut is None:
            cut = _last_end(_SPACE, text, start + limit // 2, window_end)
        if cut is None:
            cut = window_end
        out.append((start, cut))
        start = cut
    if start < n or not out:
        out.append((start, n))
    return out


def _last_end(pattern: re.Pattern[str], text: str, lo: int, hi: int) -> int | None:
    """The end of the last match of `pattern` inside text[lo:hi] (None when there is none)."""
    last = None
    for m in pattern.finditer(text, lo, hi):
        last = m.end()
    return last if last is not None and last > lo else None


__all__ = ["PIECE_CHARS", "pieces"]

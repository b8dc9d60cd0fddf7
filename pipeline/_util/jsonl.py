"""The one JSONL reader: a line ends at "\\n" and nowhere else.

`str.splitlines()` also splits at U+2028, U+2029, U+0085, \\v, \\f and \\x1c-\\x1e, which are
legal inside a JSON string, so a valid line would be cut in two. Every JSONL file memroute
reads (eval suites, batch transcripts) goes through here. Files are read in binary and each
line is decoded on its own, so invalid UTF-8 spoils one line, not the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from pipeline.errors import JSONLError

MAX_LINE_BYTES = 8 * 1024 * 1024  # a longer line is reported and skipped unread
_CHUNK = 1024 * 1024


def read_lines(fh: IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[int, int, bytes | None]]:
    """(line number, byte offset, raw line) for each non-blank line; raw is None when the line is
    longer than `max_bytes` (it is drained in bounded chunks, never held in memory)."""
    number = 0
    offset = fh.tell()
    while True:
        raw = fh.readline(max_bytes + 1)  # binary readline: ends at b"\n" only
        if not raw:
            return
        number += 1
        start = offset
        offset += len(raw)
        if len(raw) > max_bytes and not raw.endswith(b"\n"):
            while True:
                rest = fh.readline(_CHUNK)
                offset += len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, start, None
            continue
        if raw.strip():
            yield number, start, raw


def split_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) for each non-blank line of text already in memory, split at "\\n" only."""
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, line.removesuffix("\r")


def decode_line(raw: bytes, where: str) -> Any:
    """One line's JSON value; JSONLError says where and what is wrong."""
    try:
        text = raw.decode("utf-8-sig")  # a BOM at the start of a file is not an error
    except UnicodeDecodeError as e:
        raise JSONLError(f"{where}: invalid UTF-8 at byte {e.start}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise JSONLError(f"{where}: invalid JSON ({e.msg} at column {e.colno})") from None


def read_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line of a file; JSONLError on the first bad line."""
    name = str(path)
    with Path(path).open("rb") as fh:
        for number, _offset, raw in read_lines(fh):
            if raw is None:
                raise JSONLError(f"{name}:{number}: line longer than {MAX_LINE_BYTES:,} bytes")
            yield number, decode_line(raw, f"{name}:{number}")


__all__ = ["MAX_LINE_BYTES", "JSONLError", "decode_line", "read_jsonl", "read_lines", "split_lines"]

"""Leak search: a case's `never_written` words are looked for in the files, every text column of
the database and the memroute log records captured while the case ran."""

from __future__ import annotations

import contextvars
import logging
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


log = logging.getLogger("memroute.evals")


DB_NAME = "memroute.db"


def _other_files(root: Path, skip: set[Path]) -> dict[str, str]:
    """Every other file under the root (backups, queues, lock files), for the leak search."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path in skip or path.name.startswith(DB_NAME):
            continue
        try:
            out[str(path.relative_to(root))] = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
    return out


# A number is leaked as that number, not as a run of digits inside a longer number, a clock reading or a hex digest
# ("4821" is in "0.004821337" and in "a4821f" by chance): a needle of digits counts only where no digit or hex
# letter stands right before or after it.
_ALONE = "(?<![0-9a-f]){}(?![0-9a-f])"


def needle_pattern(needle: str, form: bytes | None = None) -> re.Pattern[bytes]:
    """`form` of `needle` (default: its UTF-8 bytes) in stored bytes, any ASCII case; a number only standing alone."""
    body = re.escape(form if form is not None else needle.encode("utf-8"))
    return re.compile(_ALONE.encode().replace(b"{}", body) if needle.isdigit() else body, re.IGNORECASE)


def _text_pattern(needle: str) -> re.Pattern[str]:
    """`needle` in text compared casefolded (any script's case), by the same rule for numbers."""
    body = re.escape(needle.casefold())
    return re.compile(_ALONE.format(body) if needle.isdigit() else body)


def find_leaks(needles: Sequence[str], places: dict[str, str]) -> list[tuple[str, str]]:
    """(needle, where) for every case-insensitive occurrence of a needle in a place."""
    found: list[tuple[str, str]] = []
    folded = {where: text.casefold() for where, text in places.items()}
    for needle in needles:
        pattern = _text_pattern(needle)
        found += [(needle, where) for where, text in folded.items() if pattern.search(text)]
    return found


# Log capture: the current case's buffer travels in a context variable, so concurrent cases
# don't see each other's records. Records from threads without it are checked against all cases.
_CASE_LOGS: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("memroute_eval_logs", default=None)


class _CaptureHandler(logging.Handler):
    def __init__(self, forward_level: int) -> None:
        super().__init__(logging.DEBUG)
        self.forward_level = forward_level
        self.unattributed: list[str] = []
        self._lock_unattributed = threading.Lock()
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:  # a broken log call must not break the eval
            text = str(record.msg)
        buf = _CASE_LOGS.get()
        if buf is not None:
            buf.append(text)
        else:
            with self._lock_unattributed:
                self.unattributed.append(text)
        if record.levelno >= self.forward_level:
            _forward(record, logging.getLogger("memroute").parent)


def _forward(record: logging.LogRecord, logger: logging.Logger | None) -> None:
    """Hand a record on to the handlers above "memroute", as propagation would have."""
    found = 0
    while logger is not None:
        for handler in logger.handlers:
            found += 1
            if record.levelno >= handler.level:
                handler.handle(record)
        if not logger.propagate:
            break
        logger = logger.parent
    if found == 0 and logging.lastResort is not None and record.levelno >= logging.lastResort.level:
        logging.lastResort.handle(record)


@contextmanager
def capture_memroute_logs() -> Iterator[_CaptureHandler]:
    """Capture every "memroute" record, DEBUG included (a leak at DEBUG is still a leak).

    The logger is lowered to DEBUG for the run; records below the level it had before are
    captured but not passed on, so the user's console sees what it saw before.
    """
    logger = logging.getLogger("memroute")
    old_level, old_propagate = logger.level, logger.propagate
    forward_level = logger.getEffectiveLevel()
    # Handlers already on "memroute" (a CLI's console handler) must not start printing DEBUG.
    own_levels = [(h, h.level) for h in logger.handlers]
    for h, level in own_levels:
        h.setLevel(max(level, forward_level))
    handler = _CaptureHandler(forward_level=forward_level)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate
        for h, level in own_levels:
            h.setLevel(level)



SQLITE_HEADER = b"SQLite format 3\x00"


def _needle_forms(needle: str) -> list[bytes]:
    """The byte forms a stored needle may take: UTF-8, and JSON's \\uXXXX escapes of it."""
    import json

    forms = [needle.encode("utf-8")]
    escaped = json.dumps(needle, ensure_ascii=True)[1:-1].encode("ascii")
    if escaped not in forms:
        forms.append(escaped)
    return forms


def search_bytes(needles: Sequence[str], roots: Sequence[Path], *, base: Path | None = None) -> list[tuple[str, str]]:
    """(needle, where) for every file under `roots` whose bytes hold a needle (ASCII letters in any
    case; UTF-8 or JSON-escaped), and for SQLite files every table whose text holds it (casefolded).
    `where` names the file relative to `base` when it is under it."""
    from pipeline.store import StoreError, database_texts

    found: list[tuple[str, str]] = []
    if not needles:
        return found
    forms = {n: [needle_pattern(n, f) for f in _needle_forms(n)] for n in needles}
    files: list[Path] = []
    for root in roots:
        if root.is_file():
            files.append(root)
        elif root.is_dir():
            files += sorted(p for p in root.rglob("*") if p.is_file())
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        name = str(path.relative_to(base)) if base is not None and path.is_relative_to(base) else str(path)
        hits = {n for n, fs in forms.items() if any(f.search(data) for f in fs)}
        found += [(n, f"file {name}") for n in needles if n in hits]
        if data.startswith(SQLITE_HEADER):
            try:
                tables = database_texts(path)
            except StoreError:
                continue
            found += [(n, f"{w} of {name}") for n, w in find_leaks(needles, {f"table {k}": v for k, v in tables.items()})]
    return found

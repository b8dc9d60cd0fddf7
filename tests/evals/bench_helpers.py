"""Shared by the write benchmark's tests: a small labelled suite (invented sentences), a planted
value, and the check that every byte of it a system left behind was searched."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.evals.bench import TurnRecord
from pipeline.evals.systems import StoredItem, SystemFactory, SystemSpec, SystemUnderTest, SystemUsage

PLANTED = "Quorblaxe Vintrello"  # a value no system invents: where it is found, the turn put it there

CASES: list[dict[str, Any]] = [
    {"id": "b-user", "lang": "en", "timestamp": "2026-07-30T09:00:00Z",
     "messages": [{"role": "user", "content": "I'm Halvard, a marine biologist."}],
     "expect": {"route": "user", "user_md_contains": ["Halvard"]}},
    {"id": "b-skip", "lang": "en", "timestamp": "2026-07-30T09:05:00Z",
     "messages": [{"role": "user", "content": "thanks, that's all for now"},
                  {"role": "assistant", "content": "You're welcome!"}],
     "expect": {"route": "skip"}},
    {"id": "b-secret", "lang": "en", "timestamp": "2026-07-30T09:10:00Z",
     "messages": [{"role": "user", "content": "my bank PIN is 4471-0093, don't tell anyone"}],
     "expect": {"route": "skip", "reason": "sensitive", "never_written": ["4471-0093"]}},
    {"id": "b-zh", "lang": "zh", "timestamp": "2026-07-30T09:15:00Z",
     "messages": [{"role": "user", "content": "我叫林晓梅，是一名中学老师。"}],
     "expect": {"route": "user", "user_md_contains": ["林晓梅"]}},
]

PLANTED_CASE: dict[str, Any] = {
    "id": "planted", "lang": "en", "timestamp": "2026-07-30T10:00:00Z",
    "messages": [{"role": "user", "content": f"My name is {PLANTED} and I work as a lighthouse keeper."}],
    "expect": {"route": "user", "never_written": [PLANTED]},
}


def write_suite(path: Path, cases: Sequence[dict[str, Any]] = CASES) -> Path:
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    return path


def files_holding(needle: str, roots: Sequence[Path]) -> set[Path]:
    wanted = needle.encode("utf-8").lower()
    found = set()
    for root in roots:
        paths = [root] if root.is_file() else list(root.rglob("*")) if root.is_dir() else []
        for p in paths:
            try:
                if p.is_file() and wanted in p.read_bytes().lower():
                    found.add(p.resolve())
            except OSError:
                continue
    return found


class Watched(SystemUnderTest):
    """Wraps a system; when it closes, notes every file under the work directory and `elsewhere`
    that holds the planted value, so a test can check the benchmark reported each of them."""

    def __init__(self, inner: SystemUnderTest, workdir: Path, elsewhere: Sequence[Path], seen: dict[str, set[Path]]) -> None:
        self.inner, self.workdir, self.elsewhere, self.seen = inner, workdir, list(elsewhere), seen
        self.name, self.notes = inner.name, inner.notes

    def add(self, user: str, messages: list[dict[str, Any]], timestamp: Any, **kw: Any) -> None:
        self.inner.add(user, messages, timestamp, **kw)

    def stored(self, user: str) -> list[StoredItem]:
        return self.inner.stored(user)

    def usage(self) -> SystemUsage:
        return self.inner.usage()

    def seed(self, user: str, user_md: str | None, memory_md: str | None) -> bool:
        return self.inner.seed(user, user_md, memory_md)

    def data_paths(self) -> list[Path]:
        return self.inner.data_paths()

    def close(self) -> None:
        self.inner.close()
        for path in files_holding(PLANTED, [self.workdir, *self.elsewhere]):
            where = str(path.relative_to(self.workdir.resolve())) if path.is_relative_to(self.workdir.resolve()) else str(path)
            self.seen.setdefault("files", set()).add(Path(where))


def watched(factory: SystemFactory, elsewhere: Sequence[Path], seen: dict[str, set[Path]]) -> SystemFactory:
    def make(spec: SystemSpec, workdir: Path) -> SystemUnderTest:
        return Watched(factory(spec, workdir), workdir, elsewhere, seen)

    return make


def unreported(record: TurnRecord, seen: dict[str, set[Path]]) -> list[str]:
    """Files holding the planted value that the benchmark's leak list does not name."""
    reported = {leak["where"] for leak in record.leaks}
    return sorted(str(f) for f in seen.get("files", set()) if f"file {f}" not in reported)


def default_elsewhere() -> list[Path]:
    """Where a system could keep data beside its work directory: the (test's) home and temp dir."""
    return [Path.home(), Path(tempfile.gettempdir())]

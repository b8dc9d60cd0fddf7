"""Memory is private on disk (issue 24, item 7).

Under the usual umask (022), what memroute creates under a root is its owner's only: folders
0700, USER.md, MEMORY.md and the database (with its -wal and -shm files) 0600, and a rewrite keeps
the mode. Through a chat turn, `memroute tool`, `import-hermes` and the hook.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.core import MemoryPipeline


@pytest.fixture(autouse=True)
def _usual_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _assert_private(root: Path, created_above: Path | None = None) -> None:
    files = [p for p in root.rglob("*") if p.is_file()]
    folders = [root, *(p for p in root.rglob("*") if p.is_dir())]
    names = {p.name for p in files}
    assert "memroute.db" in names and names & {"USER.md", "MEMORY.md"}, files
    for p in files:
        assert _mode(p) == 0o600, (p, oct(_mode(p)))
    for p in folders:
        assert _mode(p) == 0o700, (p, oct(_mode(p)))
    if created_above is not None:
        assert _mode(created_above) == 0o700  # a folder memroute made on the way to the root


def test_a_turn_leaves_nothing_readable_by_others(tmp_path: Path) -> None:
    root = tmp_path / "made" / "root"
    with MemoryPipeline(root) as pipe:
        pipe.process_turn("ola", [{"role": "user", "content": "I'm a glassblower and I live in Bergen"}],
                          timestamp="2026-08-02T10:00:00Z")
        pipe.process_turn("ola", [{"role": "user", "content": "Yesterday we fired the new furnace for the first time"}],
                          timestamp="2026-08-02T11:00:00Z")
        _assert_private(root, created_above=tmp_path / "made")


def test_a_rewrite_keeps_the_files_private(tmp_path: Path) -> None:
    with MemoryPipeline(tmp_path / "root") as pipe:
        for i, text in enumerate(["I'm a glassblower", "Last week we fired the furnace", "Actually I'm a potter now",
                                  "Today we glazed forty mugs"]):
            pipe.process_turn("ola", [{"role": "user", "content": text}], timestamp=f"2026-08-0{i + 1}T10:00:00Z")
            for name in ("USER.md", "MEMORY.md"):
                path = tmp_path / "root" / "ola" / name
                if path.exists():
                    assert _mode(path) == 0o600, (i, name)


def test_tool_and_import_create_private_files(tmp_path: Path) -> None:
    from pipeline.ops.tool import import_hermes

    store = tmp_path / "hermes" / "memories"
    store.mkdir(parents=True)
    (store / "USER.md").write_text("Name: Ola\n§\nRole: glassblower", encoding="utf-8")
    (store / "MEMORY.md").write_text("[2026-07-01] studio: new furnace", encoding="utf-8")
    root = tmp_path / "root"
    with MemoryPipeline(root) as pipe:
        assert pipe.tool("kim", "add", "user", content="Likes: figs")["success"]
        assert pipe.tool("kim", "add", "memory", content="[2026-08-01] garden: figs picked")["success"]
        import_hermes(pipe, tmp_path / "hermes", "ola")
    _assert_private(root)


def test_the_hook_creates_private_files(tmp_path: Path) -> None:
    from pipeline.hook.post_turn import PostTurnHook

    root = tmp_path / "root"
    with MemoryPipeline(root) as pipe:
        hook = PostTurnHook(pipe, workers=1)
        try:
            hook.submit("ola", [{"role": "user", "content": "I'm a glassblower in Bergen"}], timestamp="2026-08-02T10:00:00Z")
            hook.submit("ola", [{"role": "user", "content": "Yesterday we fired the furnace"}], timestamp="2026-08-02T11:00:00Z")
            assert hook.drain(timeout=60)
        finally:
            hook.close()
    _assert_private(root)

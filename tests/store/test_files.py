"""The per-user folder: ids that could escape the root, locks, and crash-safe commits."""

from __future__ import annotations

import multiprocessing
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pipeline.core import MemoryPipeline
from pipeline.errors import InvalidUserId
from pipeline.store.files import MAX_USER_ID_LENGTH, UserDir, validate_user_id


@pytest.mark.parametrize(
    "bad",
    ["", "..", "../etc", "a/b", "a\\b", "/abs", "x\x00y", ".hidden", "a" * (MAX_USER_ID_LENGTH + 1), "a..b"],
)
def test_ids_that_could_escape_the_root_are_rejected(bad: str, tmp_path: Path) -> None:
    with pytest.raises(InvalidUserId):
        validate_user_id(bad)
    with pytest.raises(InvalidUserId):
        UserDir(tmp_path, bad)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("good", ["jasmin", "user-42", "a.b_c@example", "ผู้ใช้", "用户1"])
def test_ordinary_ids_are_accepted(good: str, tmp_path: Path) -> None:
    assert UserDir(tmp_path, good).path == tmp_path / good


def _add_entries(root: str, user: str, prefix: str, count: int) -> None:
    with MemoryPipeline(root=root, memory_limit=200_000) as pipe:
        for i in range(count):
            result = pipe.tool(user, "add", "memory", content=f"[2026-07-30] note {prefix}-{i}")
            assert result["success"], result


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    writers, per_writer = 4, 25
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_add_entries, args=(str(tmp_path), "jasmin", f"w{w}", per_writer)) for w in range(writers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    memory = (tmp_path / "jasmin" / "MEMORY.md").read_text("utf-8")
    for w in range(writers):
        for i in range(per_writer):
            assert f"note w{w}-{i}\n" in memory
    with MemoryPipeline(root=tmp_path) as pipe:
        appended = [h for h in pipe.history("jasmin") if h["op"] == "add"]
    assert len(appended) == writers * per_writer


_CRASHING_CHILD = textwrap.dedent(
    """
    import os, sys
    from pipeline.core import MemoryPipeline
    import pipeline.store.files as files
    mode = sys.argv[2]
    pipe = MemoryPipeline(root=sys.argv[1])
    pipe.tool("jasmin", "add", "memory", content="[2026-07-30] first fact")
    if mode == "before_store_commit":
        real_tx = pipe.store.transaction
        def dying_tx():
            os._exit(9)
        pipe.store.transaction = dying_tx
    else:  # after the store commit, before the files are renamed into place
        files.os.replace = lambda *a, **k: os._exit(9)
    pipe.tool("jasmin", "add", "memory", content="[2026-07-31] second fact")
    """
)


@pytest.mark.parametrize("mode, survives", [("before_store_commit", False), ("after_store_commit", True)])
def test_a_writer_that_dies_mid_commit_leaves_old_or_new_never_torn(tmp_path: Path, mode: str, survives: bool) -> None:
    proc = subprocess.run([sys.executable, "-c", _CRASHING_CHILD, str(tmp_path), mode], capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr
    folder = tmp_path / "jasmin"
    # A killed writer leaves its journal and temp files; the files themselves are the old ones.
    assert "second fact" not in (folder / "MEMORY.md").read_text("utf-8")
    with MemoryPipeline(root=tmp_path) as pipe:
        pipe.tool("jasmin", "add", "memory", content="[2026-08-01] third fact")  # next writer recovers
        memory = pipe.show("jasmin")["memory_md"]
        history_news = [h["new_value"] for h in pipe.history("jasmin")]
    assert "first fact" in memory and "third fact" in memory
    assert ("second fact" in memory) is survives
    # The files and the history agree: a change is in both or in neither.
    assert any("second fact" in (n or "") for n in history_news) is survives
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and p.name != ".lock") == []


_LOOPING_CHILD = textwrap.dedent(
    """
    import sys
    from pipeline.core import MemoryPipeline
    pipe = MemoryPipeline(root=sys.argv[1], memory_limit=10_000_000)
    i = 0
    while True:
        pipe.tool("jasmin", "add", "memory", content=f"[2026-07-30] round {sys.argv[2]} entry {i}")
        i += 1
    """
)


def test_sigkill_at_random_moments_never_tears_a_file(tmp_path: Path) -> None:
    for round_ in range(3):
        child = subprocess.Popen([sys.executable, "-c", _LOOPING_CHILD, str(tmp_path), str(round_)])
        time.sleep(1.5 + 0.37 * round_)
        child.send_signal(signal.SIGKILL)
        child.wait()
        with MemoryPipeline(root=tmp_path, memory_limit=10_000_000) as pipe:
            pipe.tool("jasmin", "add", "memory", content=f"[2026-07-31] after kill {round_}")
            memory = pipe.show("jasmin")["memory_md"]
            added = [h for h in pipe.history("jasmin") if h["op"] == "add"]
        lines = [line for line in memory.splitlines() if line.startswith("- ")]
        assert memory.startswith("# MEMORY\n") and memory.endswith("\n")
        # Every entry in the file has its history row, and every history row its entry.
        assert len(lines) == len(added)
        assert len(set(lines)) == len(lines)
    leftovers = [p.name for p in (tmp_path / "jasmin").iterdir() if p.name.startswith(".") and p.name != ".lock"]
    assert leftovers == []


def test_invalid_utf8_file_is_backed_up_and_never_overwritten(tmp_path: Path) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    raw = b"# USER\n\n## Identity\n- Name: \xff\xfe broken\n"
    (folder / "USER.md").write_bytes(raw)
    with MemoryPipeline(root=tmp_path) as pipe:
        with pytest.raises(Exception, match="not valid UTF-8"):
            pipe.tool("jasmin", "add", "user", content="Role: engineer", section="Identity")
    assert (folder / "USER.md").read_bytes() == raw
    assert (folder / "USER.md.bak").read_bytes() == raw


def test_cli_rejects_traversal_id_with_exit_2(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "show", "../escape", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "invalid user id" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path.parent / "escape").exists()


@pytest.mark.parametrize("bad", ["memroute.db", "memroute.db-journal", "memroute.db-wal", "Memroute.db-shm", "memroute.x"])
def test_ids_that_collide_with_the_store_files_are_rejected_and_the_root_keeps_working(bad: str, tmp_path: Path) -> None:
    cli = [sys.executable, "-m", "pipeline.cli"]
    proc = subprocess.run([*cli, "turn", bad, "--text", "I live in Lisbon", "--root", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "reserved" in proc.stderr
    assert not (tmp_path / bad).is_dir()
    proc = subprocess.run([*cli, "turn", "bob", "--text", "I live in Lisbon", "--root", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "Lisbon" in (tmp_path / "bob" / "USER.md").read_text("utf-8")


def test_a_non_utf8_file_keeps_the_turn_for_retry_and_show_degrades(tmp_path: Path) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    raw = b"# USER\n\n## Identity\n- Name: \xff\xfe broken\n"
    (folder / "USER.md").write_bytes(raw)
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "I work at Tokopedia"}])
        assert result.status == "failed" and "UTF-8" in (result.error or "")
        assert len(pipe.store.failed_turns("jasmin")) == 1
        shown = pipe.show("jasmin")
        assert shown["warnings"] and "not valid UTF-8" in shown["warnings"][0]
        assert "broken" in shown["user_md"]
        assert "broken" in pipe.context("jasmin")
        assert (folder / "USER.md").read_bytes() == raw
        (folder / "USER.md").write_text("# USER\n\n## Identity\n- Name: Jasmin\n", encoding="utf-8")
        assert [r.status for r in pipe.retry("jasmin")] == ["done"]
        assert "Tokopedia" in pipe.show("jasmin")["user_md"]


def test_an_unreadable_file_keeps_the_turn_for_retry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pipeline.store.files as files

    real = files._read_if_there

    def denied(path: Path) -> bytes | None:
        if path.name == "USER.md":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        monkeypatch.setattr(files, "_read_if_there", denied)
        result = pipe.process_turn("kim", [{"role": "user", "content": "I work at Grab"}])
        assert result.status == "failed"
        assert "Permission denied" in pipe.show("kim")["warnings"][0]
        monkeypatch.setattr(files, "_read_if_there", real)
        assert [r.status for r in pipe.retry("kim")] == ["done"]


def test_readers_roll_forward_a_commit_a_killed_writer_left(tmp_path: Path) -> None:
    """Killed between the store's commit and the rename: history already says the turn is done."""
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        pipe.process_turn("lee", [{"role": "user", "content": "I live in Penang"}])
        udir = UserDir(tmp_path, "lee")
        new = (udir.user_path.read_text("utf-8")).replace("Penang", "Ipoh")
        (udir.path / ".USER.md.abc123.tmp").write_text(new, encoding="utf-8")
        (udir.path / ".commit-abc123").write_text(
            '{"turn_id": "t-killed", "renames": {".USER.md.abc123.tmp": "USER.md"}}', encoding="utf-8"
        )
        with pipe.store.transaction() as conn:
            pipe.store.mark_turn(conn, user_id="lee", turn_id="t-killed", conversation_id=None, status="done", ts="now")
        assert "Ipoh" in pipe.show("lee")["user_md"]
        assert not (udir.path / ".commit-abc123").exists()


def test_a_commit_keeps_the_file_mode(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        pipe.process_turn("max", [{"role": "user", "content": "I live in Hanoi"}])
        path = tmp_path / "max" / "USER.md"
        path.chmod(0o600)
        pipe.process_turn("max", [{"role": "user", "content": "I work at VNG"}])
        assert "VNG" in path.read_text("utf-8")
        assert path.stat().st_mode & 0o777 == 0o600


def test_an_oversized_file_is_capped_in_the_engine_prompt(tmp_path: Path) -> None:
    from pipeline.engines.offline import OfflineEngine

    seen: list[str] = []

    class Watching(OfflineEngine):  # type: ignore[misc]
        def classify(self, turn, user_md, memory_md):  # type: ignore[no-untyped-def]
            seen.append(user_md)
            return super().classify(turn, user_md, memory_md)

    folder = tmp_path / "ola"
    folder.mkdir()
    lines = "".join(f"- Note {i}: something the user wrote by hand\n" for i in range(25_000))
    (folder / "USER.md").write_text("# USER\n\n## Identity\n" + lines, encoding="utf-8")
    with MemoryPipeline(root=tmp_path, engine=Watching()) as pipe:
        pipe.process_turn("ola", [{"role": "user", "content": "I like kayaking"}])
        assert len(seen[0]) <= 2 * pipe.user_limit + 200
        assert "not shown" in seen[0].splitlines()[-1]


def test_an_oversized_file_is_capped_in_context(tmp_path: Path) -> None:
    folder = tmp_path / "pia"
    folder.mkdir()
    lines = "".join(f"- Note {i}: something the user wrote by hand\n" for i in range(25_000))
    (folder / "USER.md").write_text("# USER\n\n## Identity\n" + lines, encoding="utf-8")
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        block = pipe.context("pia")
    assert len(block) < 2 * (pipe.user_limit + pipe.memory_limit) + 1_000
    assert "more characters of USER.md not shown" in block

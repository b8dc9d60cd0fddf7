"""Erasure: `forget --purge`, a forget request in a turn, `delete-user`, and `export --all`.

"Erased" is checked the way an attacker holding a copy of the root would: a byte search of
every file under it, the SQLite database, its -wal and -shm included, while the store is open.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.core import MemoryPipeline
from pipeline.errors import NothingToForget
from pipeline.testing import UnreachableEngine

EMAIL_OLD = "lintang.old@example.org"
EMAIL = "lintang.sari@example.org"
CITY = "Yogyakarta"


def found(root: Path, *needles: str) -> list[str]:
    blob = b"\n".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()).lower()
    return [n for n in needles if n.lower().encode("utf-8") in blob]


def say(pipe: MemoryPipeline, user: str, text: str, day: int) -> None:
    result = pipe.process_turn(user, [{"role": "user", "content": text}], timestamp=f"2026-04-{day:02d}T09:00:00Z")
    assert result.status == "done", result.error


def seed(root: Path) -> None:
    """The email in the file, its old value in history and archive, a failed turn and a queued
    hook turn that hold it, and another user who must keep everything."""
    with MemoryPipeline(root=root, engine="offline") as pipe:
        say(pipe, "lintang", f"please save my email {EMAIL_OLD}", 1)
        say(pipe, "lintang", f"please save my email {EMAIL}", 2)
        say(pipe, "lintang", f"I live in {CITY}", 3)
        say(pipe, "other", f"please save my email {EMAIL}", 4)
        assert EMAIL in pipe.show("lintang")["user_md"]
    with MemoryPipeline(root=root, engine=UnreachableEngine()) as pipe:
        failed = pipe.process_turn("lintang", [{"role": "user", "content": f"please save my email {EMAIL} again"}])
        assert failed.status == "failed"
        queue = pipe.store.open_hook_queue()
        queue.insert("lintang", "t-queued", None, {"messages": [{"role": "user", "content": f"mail {EMAIL}"}]})
        queue.close(truncate_wal=False)


def test_forget_purge_erases_every_copy_from_the_root(tmp_path: Path) -> None:
    seed(tmp_path)
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        pipe.show("lintang")
        assert found(tmp_path, EMAIL, EMAIL_OLD) == [EMAIL, EMAIL_OLD]  # the search sees the db and WAL
        report = pipe.forget("lintang", "email", purge=True)
        assert report["removed"] == ["USER.md Email"]
        assert report["rows_erased"] > 0
        shown = pipe.show("lintang")
        assert "Email" not in shown["user_md"] and CITY in shown["user_md"]
        assert pipe.recall("lintang", "lintang") == []
        assert pipe.store.failed_turns("lintang") == []
        # The other user keeps theirs: erasure is per user.
        assert EMAIL in pipe.show("other")["user_md"]
        other_files = (tmp_path / "other" / "USER.md").read_bytes()
        (tmp_path / "other" / "USER.md").unlink()
        assert pipe.store.find_text("other", EMAIL)
        with pipe.store.transaction() as conn:
            pipe.store.purge_text(conn, "other", [EMAIL])
        pipe.store.compact()
        assert found(tmp_path, EMAIL, EMAIL_OLD) == []
        (tmp_path / "other" / "USER.md").write_bytes(other_files)


def test_forget_by_text_erases_entries_and_the_words(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        assert pipe.tool("kai", "add", "memory", content="moved the staging cluster to Hetzner Falkenstein")["success"]
        assert pipe.tool("kai", "add", "memory", content="release notes are due every Friday")["success"]
        report = pipe.forget("kai", "hetzner falkenstein", purge=True)
        assert report["removed"] == ["MEMORY.md entry"]
        assert "Friday" in pipe.show("kai")["memory_md"]
        assert found(tmp_path, "Falkenstein") == []


def test_forget_without_purge_keeps_the_value_in_history_and_archive_but_no_read_returns_it(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        say(pipe, "mia", f"I live in {CITY}", 1)
        report = pipe.forget("mia", "location")
        assert report["removed"] == ["USER.md Location"] and not report["purged"]
        assert CITY not in pipe.show("mia")["user_md"]
        assert pipe.recall("mia", CITY) == []
        assert [row["why"] for row in pipe.store.archive("mia")] == ["forgotten at the user's request"]
        assert any(c["old_value"] == CITY for c in pipe.history("mia"))


def test_a_forget_request_in_a_turn_purges(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        say(pipe, "noor", f"please save my email {EMAIL}", 1)
        say(pipe, "noor", "forget my email", 2)
        assert "Email" not in pipe.show("noor")["user_md"]
        assert pipe.recall("noor", EMAIL) == []
        assert found(tmp_path, EMAIL) == []
        history = pipe.history("noor")
        assert history[-1]["op"] == "purge" and history[-1]["old_value"] is None


def test_delete_user_leaves_no_trace_and_spares_the_others(tmp_path: Path) -> None:
    seed(tmp_path)
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        say(pipe, "lintang", "I prefer answers in Bahasa Indonesia", 5)
        report = pipe.delete_user("lintang")
        assert report["rows_erased"] > 0
        assert not (tmp_path / "lintang").exists()
        assert pipe.export_all("lintang")["store"]["history"] == []
        (tmp_path / "other" / "USER.md").unlink()  # the other user's copy, to search for lintang's values
        assert found(tmp_path, EMAIL_OLD, CITY, "Bahasa Indonesia") == []
        assert all(rows == [] for rows in pipe.store.everything_about("lintang").values())
        assert pipe.store.find_text("other", EMAIL)  # the other user's records stay


def test_nothing_to_forget_is_a_usage_error(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        with pytest.raises(NothingToForget):
            pipe.forget("zed", "  ")
        with pytest.raises(NothingToForget):
            pipe.forget("zed", "ab", purge=True)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True)


def test_cli_forget_export_all_and_delete_user(tmp_path: Path) -> None:
    root = str(tmp_path)
    assert _cli("turn", "rui", "--text", f"please save my email {EMAIL}", "--root", root).returncode == 0
    assert _cli("turn", "rui", "--text", f"I live in {CITY}", "--root", root).returncode == 0

    proc = _cli("export", "rui", "--all", "--root", root)
    assert proc.returncode == 0, proc.stderr
    held = json.loads(proc.stdout)
    assert EMAIL in held["files"]["USER.md"]
    assert {"turns", "history", "provenance", "archive", "decisions", "hook_queue", "candidates"} <= set(held["store"])
    assert any(row["new_value"] == EMAIL for row in held["store"]["history"])

    proc = _cli("forget", "rui", "email", "--purge", "--yes", "--json", "--root", root)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["removed"] == ["USER.md Email"]
    assert found(tmp_path, EMAIL) == []

    proc = _cli("forget", "rui", "x", "--root", root)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "too short" in proc.stderr

    proc = _cli("export", "rui", "--root", root)
    assert proc.returncode == 2 and "--all" in proc.stderr

    assert _cli("delete-user", "rui", "--yes", "--root", root).returncode == 0
    assert found(tmp_path, CITY, "rui") == []


def test_forget_my_phone_number_in_a_turn_names_the_phone_field_and_purges_it(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        say(pipe, "ravi", "please save my phone number +62 812 5555 0101", 1)
        assert "5555" in pipe.show("ravi")["user_md"]
        result = pipe.process_turn("ravi", [{"role": "user", "content": "forget my phone number"}])
        assert [d.outcome for d in result.decisions] == ["written"]
        assert "Phone" not in pipe.show("ravi")["user_md"]
        assert found(tmp_path, "5555 0101") == []


def test_a_change_of_fact_is_archived_not_purged(tmp_path: Path) -> None:
    # "I'm no longer a nurse" is the user's news, not a request to forget: the old value stays findable.
    with MemoryPipeline(root=tmp_path) as pipe:
        pipe.process_turn("ana", [{"role": "user", "content": "I'm a nurse."}])
        result = pipe.process_turn("ana", [{"role": "user", "content": "I'm no longer a nurse"}])
        assert [d.op for d in result.decisions] == ["remove"]
        assert "nurse" not in pipe.show("ana")["user_md"]
        assert any("nurse" in hit["text"] for hit in pipe.recall("ana", "nurse"))


def test_a_purged_value_leaves_no_trace_in_the_outcome_that_named_it_when_it_was_replaced(tmp_path: Path) -> None:
    """Issue 29: a replaced value is named in the turn's outcome ("replaced 'Yogyakarta'"); a purge of it
    clears that record too."""
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        say(pipe, "ayu", f"I live in {CITY}", 1)
        say(pipe, "ayu", "I live in Semarang now", 2)
        outcomes = [d["outcome"] for d in pipe.store.decisions("ayu")]
        assert any(CITY in (o or "") and "replaced" in (o or "") for o in outcomes)
        pipe.forget("ayu", CITY, purge=True)
        assert not any(CITY in (d["outcome"] or "") for d in pipe.store.decisions("ayu"))
    assert found(tmp_path, CITY) == []

"""The `memroute` command as a user runs it: payloads, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.testing import UnreachableEngine


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_tool_add_replace_remove_payloads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ("--root", str(tmp_path))
    code, out, _ = run(capsys, "tool", "jasmin", "--action", "add", "--target", "user", "--content", "Name: Jasmin", *root)
    payload = json.loads(out)
    assert code == 0 and payload["success"] is True and payload["target"] == "user"
    assert payload["usage"] == f"{len((tmp_path / 'jasmin' / 'USER.md').read_text('utf-8')):,}/1,375"
    assert payload["entry_count"] == 1
    code, out, _ = run(capsys, "tool", "jasmin", "--action", "replace", "--target", "user", "--old-text", "Jasmin", "--content", "Name: Jasmine", *root)
    assert code == 0 and json.loads(out)["success"]
    assert "- Name: Jasmine\n" in (tmp_path / "jasmin" / "USER.md").read_text("utf-8")
    run(capsys, "tool", "jasmin", "--action", "add", "--target", "memory", "--content", "[2026-07-30] agent-demo: hero changed", *root)
    code, out, _ = run(capsys, "tool", "jasmin", "--action", "remove", "--target", "memory", "--old-text", "nothing like this", *root)
    payload = json.loads(out)
    assert code == 1 and payload["success"] is False and payload["current_entries"] == ["[2026-07-30] agent-demo: hero changed"]
    code, out, _ = run(capsys, "history", "jasmin", "--json", *root)
    ops = [(h["target"], h["op"]) for h in json.loads(out)]
    assert ops == [("user", "add"), ("user", "replace"), ("memory", "add")]


def test_over_cap_write_fails_with_the_hermes_payload_and_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ("--root", str(tmp_path), "--memory-limit", "120")
    run(capsys, "tool", "u1", "--action", "add", "--target", "memory", "--content", "[2026-07-30] first entry of a small log", *root)
    before = (tmp_path / "u1" / "MEMORY.md").read_text("utf-8")
    code, out, _ = run(capsys, "tool", "u1", "--action", "add", "--target", "memory", "--content", "[2026-07-31] " + "x" * 100, *root)
    payload = json.loads(out)
    assert code == 1 and payload["success"] is False
    assert payload["error"].startswith(f"Memory at {len(before)}/120 chars. Adding this entry (")
    assert "would exceed the limit. Consolidate now" in payload["error"]
    assert payload["current_entries"] == ["[2026-07-30] first entry of a small log"]
    assert payload["usage"] == f"{len(before)}/120"
    assert (tmp_path / "u1" / "MEMORY.md").read_text("utf-8") == before


@pytest.mark.parametrize(
    "argv, code, fragment",
    [
        (["tool", "u", "--action", "explode", "--target", "user", "--content", "x"], 2, "unknown action"),
        (["tool", "u", "--action", "add", "--target", "diary", "--content", "x"], 2, "unknown target"),
        (["tool", "u", "--action", "add", "--target", "user"], 2, "--content is required"),
        (["tool", "u", "--action", "remove", "--target", "memory"], 2, "--old-text is required"),
        (["show", "../../etc"], 2, "invalid user id"),
        (["turn", "u", "--text", "hi", "--timestamp", "yesterday-ish"], 2, "invalid timestamp"),
        (["turn", "u", "--messages", "/nonexistent/messages.json"], 2, "cannot read messages"),
        (["turn", "u", "--engine", "llm", "--text", "hi"], 2, "needs a model"),
        (["show", "u", "--user-limit", "0"], 2, "must be a positive number"),
    ],
)
def test_bad_input_is_one_line_and_the_right_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: int, fragment: str
) -> None:
    got, _, err = run(capsys, *argv, "--root", str(tmp_path))
    assert got == code
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err


def test_unreadable_root_is_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    got, _, err = run(capsys, "show", "u", "--root", str(not_a_dir))
    assert got == 1 and err.startswith("memroute: error:") and err.count("\n") == 1


def test_turn_show_and_recall_on_the_offline_engine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ("--root", str(tmp_path))
    code, out, _ = run(capsys, "turn", "jasmin", "--text", "I work as a data engineer.", "--timestamp", "2026-07-30T09:00:00Z", "--json", *root)
    result = json.loads(out)
    assert code == 0 and result["status"] == "done" and result["user_changed"]
    assert "data engineer" in (tmp_path / "jasmin" / "USER.md").read_text("utf-8")
    code, out, _ = run(capsys, "show", "jasmin", "--json", *root)
    assert code == 0 and "data engineer" in json.loads(out)["user_md"]
    messages = tmp_path / "messages.json"
    messages.write_text(json.dumps([{"role": "user", "content": "Yesterday we migrated agent-demo to Postgres."}]))
    code, _, _ = run(capsys, "turn", "jasmin", "--messages", str(messages), "--timestamp", "2026-07-30T09:00:00Z", *root)
    assert code == 0
    code, out, _ = run(capsys, "recall", "jasmin", "postgres", "--json", *root)
    hits = json.loads(out)
    assert code == 0 and any("Postgres" in h["text"] and "2026-07-29" in h["text"] for h in hits)


def test_hermes_import_export_round_trip_via_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "hermes" / "memories"
    store.mkdir(parents=True)
    (store / "USER.md").write_text("Name: Jasmin\n§\nPrefers conclusion-first answers", "utf-8")
    (store / "MEMORY.md").write_text("[2026-07-30] agent-demo: hero changed to a gradient\n§\nDocs live on Vercel", "utf-8")
    root = ("--root", str(tmp_path / "root"))
    code, out, _ = run(capsys, "import-hermes", "--json", str(tmp_path / "hermes"), "--user", "jasmin", *root)
    assert code == 0 and json.loads(out)["imported_memory"] == 2
    code, _, _ = run(capsys, "export", "jasmin", "--format", "hermes", "--out", str(tmp_path / "out"), *root)
    assert code == 0
    for name in ("USER.md", "MEMORY.md"):
        assert (tmp_path / "out" / "memories" / name).read_bytes() == (store / name).read_bytes()


def test_hermes_import_reports_what_does_not_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "hermes" / "memories"
    store.mkdir(parents=True)
    (store / "USER.md").write_text("", "utf-8")
    entries = [f"[2026-07-{d:02d}] release note number {d} with enough words to take room" for d in range(1, 29)]
    (store / "MEMORY.md").write_text("\n§\n".join(entries), "utf-8")
    code, out, _ = run(capsys, "import-hermes", "--json", str(tmp_path / "hermes"), "--user", "u", "--memory-limit", "600", "--root", str(tmp_path / "root"))
    report = json.loads(out)
    assert code == 1 and report["did_not_fit"]["memory"]
    assert len((tmp_path / "root" / "u" / "MEMORY.md").read_text("utf-8")) <= 600
    assert report["imported_memory"] + len(report["did_not_fit"]["memory"]) == len(entries)


def test_help_does_not_import_litellm() -> None:
    code = (
        "import sys; from pipeline.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "import pipeline; from pipeline.engines.offline import OfflineEngine\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_demo_runs_the_bundled_conversation_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--root", str(tmp_path))
    assert code == 0
    assert "on the offline engine" in out and "USER.md" in out and "MEMORY.md" in out
    assert "reason=mood" in out and "reason=sensitive" in out
    # The email in the conversation was skipped: it is nowhere at rest.
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b"jasmin.k@example.com" not in path.read_bytes(), path


def test_retry_runs_turns_that_failed_while_the_model_was_down(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.core import MemoryPipeline
    with MemoryPipeline(root=tmp_path, engine=UnreachableEngine("down", None)) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "I work as a data engineer."}])
    assert result.status == "failed"
    code, _, _ = run(capsys, "status", "--root", str(tmp_path))
    assert code == 0
    code, _, err = run(capsys, "retry", "--json", "--root", str(tmp_path))  # failed on "down": which engine reruns it?
    assert code == 2 and "down" in err
    code, out, _ = run(capsys, "retry", "--json", "--root", str(tmp_path), "--engine", "offline")
    assert code == 0 and json.loads(out)["retried"] == 1
    assert "data engineer" in (tmp_path / "jasmin" / "USER.md").read_text("utf-8")
    code, out, _ = run(capsys, "retry", "--json", "--root", str(tmp_path))
    assert json.loads(out)["retried"] == 0


def test_consolidate_on_demand_archives_what_leaves_and_a_no_op_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    lines = [f"- [2026-07-{d:02d}] agent-demo: sprint {d} review done, perf budget holds and QA signed off" for d in range(1, 27)]
    (folder / "MEMORY.md").write_text("# MEMORY\n\n" + "\n".join(lines) + "\n", "utf-8")
    code, out, _ = run(capsys, "consolidate", "--json", "jasmin", "--root", str(tmp_path))
    report = json.loads(out)
    text = (folder / "MEMORY.md").read_text("utf-8")
    assert code == 0 and report["success"] and len(text) <= 0.75 * 2200
    code, out, _ = run(capsys, "recall", "jasmin", "sprint 3 review", "--json", "--root", str(tmp_path))
    assert any("sprint 3 review" in hit["text"] for hit in json.loads(out))
    # Nothing left to merge: a second run changes nothing and records nothing.
    code, out, _ = run(capsys, "history", "jasmin", "--json", "--root", str(tmp_path))
    before = len(json.loads(out))
    run(capsys, "consolidate", "--json", "jasmin", "--root", str(tmp_path))
    code, out, _ = run(capsys, "history", "jasmin", "--json", "--root", str(tmp_path))
    assert (folder / "MEMORY.md").read_text("utf-8") == text and len(json.loads(out)) == before

"""What a user reads when something small is off: each message says what is wrong, in the command's own
words, once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
from servers import free_port, running, serve_argv


def memroute(tmp_path: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *argv], input=stdin, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)


def test_messages_that_are_not_a_list_say_what_they_are(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_text('{"messages": "hi"}\n')
    done = memroute(tmp_path, "batch", "bad.jsonl", "--out", "out", "--user", "x")
    assert done.returncode == 2
    assert """'messages' is a string ("hi"), not a list of messages""" in done.stderr
    assert "keys:" not in done.stderr
    done = memroute(tmp_path, "turn", "u", "--messages", "-", "--root", "r", stdin='{"messages": {"role": "user"}}')
    assert done.returncode == 2 and "'messages' is an object, not a list of messages" in done.stderr


def test_a_missing_export_file_is_no_such_file(tmp_path: Path) -> None:
    done = memroute(tmp_path, "import-mem0", "nope.json", "--root", "r")
    assert done.returncode == 2 and done.stderr == "memroute: error: nope.json: no such file\n"
    (tmp_path / "folder").mkdir()
    done = memroute(tmp_path, "import-letta", "folder", "--user", "u", "--root", "r")
    assert done.returncode == 2 and "folder is a directory, not an export file" in done.stderr


def test_a_misspelt_option_is_the_commands_own_usage_with_a_suggestion(tmp_path: Path) -> None:
    done = memroute(tmp_path, "show", "jasmin", "--jsn", "--root", "r")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: memroute show ")
    assert done.stderr.rstrip().endswith("memroute show: error: unrecognized arguments: --jsn (did you mean --json?)")


def test_a_skip_reason_is_not_said_twice(tmp_path: Path) -> None:
    done = memroute(tmp_path, "turn", "kim", "--text", "I have diabetes.", "--root", "r")
    assert done.returncode == 0, done.stderr
    assert "reason=sensitive (health)" in done.stdout and "sensitive: sensitive" not in done.stdout
    from pipeline import MemoryPipeline
    from pipeline.integrations.remember import remember

    with MemoryPipeline(root=tmp_path / "r") as pipe:
        answer = remember(pipe, "kim", "I have asthma.")
    assert answer["skipped"][0]["why"] == "health" and "sensitive: sensitive" not in answer["summary"]


def test_one_user_is_one_user(tmp_path: Path) -> None:
    (tmp_path / "ana.jsonl").write_text(json.dumps({"messages": [{"role": "user", "content": "I am a nurse."}]}) + "\n")
    done = memroute(tmp_path, "batch", "ana.jsonl", "--out", "out")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("memroute batch: 1 user, 1 conversation (")
    assert "1 conversation had no timestamp" in done.stdout


def test_putting_a_field_that_exists_says_replaced_and_archives_the_old_value(tmp_path: Path) -> None:
    port = free_port()
    with running(serve_argv(tmp_path / "root", port), tmp_path / "home", port) as url, \
            httpx.Client(base_url=url, timeout=30) as http:
        first = http.put("/v1/users/edith/fields/Role", json={"value": "nurse"}).json()
        assert first["message"] == "Entry added."
        second = http.put("/v1/users/edith/fields/Role", json={"value": "midwife"}).json()
        assert second["message"] == "Entry replaced." and second["value"] == "midwife"
        same = http.put("/v1/users/edith/fields/Role", json={"value": "midwife"}).json()
        assert same["message"] == "Already there: nothing changed."
        hits = http.get("/v1/users/edith/recall", params={"q": "nurse"}).json()["hits"]
        assert [h["source"] for h in hits] == ["archive"] and hits[0]["text"] == "Role: nurse"

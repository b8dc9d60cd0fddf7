"""The review actions from the command line: correct, pin, tag, undo, annotations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_correct_pin_tag_undo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ("--root", str(tmp_path))
    user_md = tmp_path / "ana" / "USER.md"
    run(capsys, "tool", "ana", "--action", "add", "--target", "user", "--content", "Role: frontend engineer", *root)
    run(capsys, "tool", "ana", "--action", "add", "--target", "memory", "--content", "[2026-11-02] moved to Stripe", *root)
    code, out, _ = run(capsys, "correct", "--json", "ana", "role", "staff engineer", *root)
    assert code == 0 and json.loads(out)["success"] and "- Role: staff engineer" in user_md.read_text("utf-8")
    assert run(capsys, "pin", "--json", "ana", "Role", *root)[0] == 0
    assert run(capsys, "tag", "--json", "ana", "Stripe", "--entry", "--project", "billing", *root)[0] == 0
    code, out, _ = run(capsys, "annotations", "--json", "ana", *root)
    assert {(a["target"], a["kind"], a["value"]) for a in json.loads(out)} == {("user", "pin", ""),
                                                                                ("memory", "project", "billing")}
    code, out, _ = run(capsys, "undo", "--json", "ana", *root)
    assert code == 0 and "- Role: frontend engineer" in user_md.read_text("utf-8")


def test_bad_references_are_one_line_and_change_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ("--root", str(tmp_path))
    run(capsys, "tool", "ana", "--action", "add", "--target", "user", "--content", "Role: frontend engineer", *root)
    before = (tmp_path / "ana" / "USER.md").read_text("utf-8")
    code, out, err = run(capsys, "pin", "--json", "ana", "nothing here", "--entry", *root)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "correct", "--json", "ana", "Nope", "x", *root)
    assert code == 1 and "no field 'Nope'" in err
    code, _, err = run(capsys, "undo", "--json", "nobody", *root)
    assert code == 1 and "no user" in err
    assert (tmp_path / "ana" / "USER.md").read_text("utf-8") == before


def test_show_and_context_with_a_team_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ("--root", str(tmp_path))
    run(capsys, "tool", "ana", "--action", "add", "--target", "user", "--content", "Role: frontend engineer", *root)
    run(capsys, "tool", "team+web", "--action", "add", "--target", "user", "--content", "Stack: Next.js", *root)
    code, out, _ = run(capsys, "context", "ana", *root)
    assert code == 0 and "Role: frontend engineer" in out and "Next.js" not in out
    code, out, _ = run(capsys, "context", "ana", "--team", "web", *root)
    assert code == 0 and "TEAM PROFILE web" in out and "Stack: Next.js" in out
    code, out, _ = run(capsys, "show", "ana", "--team", "web", *root)
    assert code == 0 and "── team web: USER.md" in out and "Stack: Next.js" in out

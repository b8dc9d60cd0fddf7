"""`memroute label`: a model's decisions on a user's transcripts, in the training format the gate's
trainer reads (issue 28, item 7)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline.batch.label import expect_of
from pipeline.cli import main
from pipeline.testing import ChatServer
from pipeline.types import Decision

ROOT = Path(__file__).resolve().parents[2]


def answer(body: dict[str, Any]) -> dict[str, Any]:
    said = body["messages"][-1]["content"].rsplit("user: ", 1)[-1]
    if "nurse" in said:
        return {"statements": [{"quote": "I'm a nurse", "route": "user", "key": "Role", "value": "nurse"}]}
    if "moved" in said:
        return {"statements": [{"quote": said, "route": "memory", "entry": "Moved to Medan."}]}
    if "password" in said:
        return {"statements": [{"quote": said, "route": "skip", "reason": "sensitive"}]}
    return {"statements": [{"quote": said, "route": "skip", "reason": "one_off"}]}


def test_label_writes_one_training_case_per_user_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    transcripts = tmp_path / "t.jsonl"
    transcripts.write_text(json.dumps({"id": "c1", "user_id": "jasmin", "timestamp": "2026-07-30T09:00:00Z", "messages": [
        {"role": "user", "content": "hi there"},
        {"role": "assistant", "content": "hello! what do you do?"},
        {"role": "user", "content": "I'm a nurse, mail me at jasmin@example.com"},
        {"role": "assistant", "content": "nice"},
        {"role": "user", "content": "we moved to Medan last week"},
        {"role": "user", "content": "my password is hunter2"},
    ]}) + "\n", "utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    out = tmp_path / "labeled.jsonl"
    with ChatServer("llamacpp", answer) as srv:
        code = main(["label", str(transcripts), "--out", str(out), "--model", "openai/qwen", "--api-base", srv.api_base])
    assert code == 0, capsys.readouterr().err
    cases = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [c["expect"].get("route") for c in cases] == ["skip", "user", "memory", "skip"]
    assert cases[1]["expect"] == {"route": "user", "user_md_contains": ["nurse"]}
    assert cases[1]["messages"][0] == {"role": "assistant", "content": "hello! what do you do?"}
    assert cases[1]["history"] == [{"role": "user", "content": "hi there"}]
    assert "jasmin@example.com" not in out.read_text("utf-8") and "hunter2" not in out.read_text("utf-8")
    assert cases[3]["expect"] == {"route": "skip", "reason": "sensitive"}
    assert all(c["lang"] == "en" and c["source"] == "memroute-label" for c in cases)
    assert all(c["labeled_by"] == {"engine": "llm", "model": "openai/qwen"} for c in cases)  # the engine says its name
    # the extractor's trainer reads them: labels in training/KEYS.md's format, sound by its corpus check
    assert [c["labels"] for c in cases] == [{"skip": "one_off"}, {"fields": [["Role", "nurse"]]},
                                            {"entries": [["Moved to Medan.", ""]]}, {"skip": "sensitive"}]
    sys.path.insert(0, str(ROOT / "training"))
    import corpus

    assert all(corpus.label_errors(c["labels"], c["messages"][-1]["content"]) == [] for c in cases)
    read = list(corpus.all_labeled_turns([out], real_train=None))
    assert [r["id"] for r in read] == [c["id"] for c in cases]


def test_label_needs_a_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t.jsonl").write_text("", "utf-8")
    assert main(["label", str(tmp_path / "t.jsonl"), "--out", str(tmp_path / "o.jsonl"), "--engine", "offline"]) == 2
    assert "needs a model" in capsys.readouterr().err


def test_both_files_is_a_case_without_a_route() -> None:
    both = [Decision(quote="q", route="user", section="Identity", key="Role", value="nurse"),
            Decision(quote="q", route="memory", entry="Moved to Medan.")]
    assert expect_of(both) == {"user_md_contains": ["nurse"], "memory_md_contains": ["Moved to Medan."]}

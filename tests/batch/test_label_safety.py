"""`memroute label` keeps no health detail in its output (the model's decisions pass the turn path's
guards, and a message the shared detectors find a health detail in is labeled as a sensitive skip
only), in English, Indonesian, Chinese and Thai; and `--out` is written through a temporary file
that replaces it at the end: a run whose calls all fail, or whose input has no readable line,
leaves an existing file as it was."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from pipeline import guards
from pipeline.cli import main
from pipeline.testing import ChatServer

# (message, the words that must not reach the labeled file)
HEALTH = {
    "en": ("I take insulin for my diabetes every morning", ("insulin", "diabetes")),
    "id": ("Saya menderita diabetes sejak kecil", ("menderita", "diabetes")),
    "zh": ("我有糖尿病，每天打胰岛素", ("糖尿病", "胰岛素")),
    "th": ("ฉันเป็นเบาหวานมาตั้งแต่เด็ก", ("เบาหวาน",)),
}
OLD = '{"id": "an earlier run", "kept": true}\n'


def writes_everything(body: dict[str, Any]) -> dict[str, Any]:
    """A model that stores whatever it is told, health included."""
    prompt = next(m["content"] for m in body["messages"] if "TURN:" in str(m.get("content")))
    said = prompt.rsplit("TURN:", 1)[-1].split("user: ", 1)[-1].split("\n", 1)[0].strip()
    return {"statements": [{"quote": said, "route": "user", "section": "Identity", "key": "Role", "value": said}]}


def transcripts(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def conversation(*texts: str) -> str:
    messages: list[dict[str, str]] = []
    for text in texts:
        messages += [{"role": "user", "content": text}, {"role": "assistant", "content": "noted: " + text}]
    return json.dumps({"id": "c1", "user_id": "ivy", "timestamp": "2026-07-30T09:00:00Z", "messages": messages},
                      ensure_ascii=False)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")


@pytest.mark.parametrize("lang", list(HEALTH))
def test_label_output_holds_no_health_detail(tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str) -> None:
    said, words = HEALTH[lang]
    src = transcripts(tmp_path, [conversation("I'm a nurse in Lyon", said, "we moved to Medan last week")])
    out = tmp_path / "labeled.jsonl"
    with ChatServer("llamacpp", writes_everything) as srv:
        code = main(["label", str(src), "--out", str(out), "--model", "openai/qwen", "--api-base", srv.api_base])
    assert code == 0, capsys.readouterr().err
    text = out.read_text("utf-8")
    for word in words:
        assert word not in text, (word, text)
    cases = [json.loads(line) for line in text.splitlines()]
    assert len(cases) == 3
    health = cases[1]
    assert health["expect"] == {"route": "skip", "reason": "sensitive"} and health["labels"] == {"skip": "sensitive"}
    assert health["messages"][-1]["content"] == "[REDACTED:sensitive]"
    assert cases[0]["messages"][-1]["content"] == "I'm a nurse in Lyon"  # the other turns are kept as they were


def test_label_goes_through_the_shared_guards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    guarded: list[str] = []
    scanned: list[str] = []
    real_guard, real_find = guards.guard_decisions, guards.find_sensitive

    def guard_spy(decisions: Any, turn_text: str, policy: Any = None) -> Any:
        guarded.append(turn_text)
        return real_guard(decisions, turn_text, policy)

    def find_spy(text: str, *args: Any, **kwargs: Any) -> Any:
        scanned.append(text)
        return real_find(text, *args, **kwargs)

    monkeypatch.setattr(guards, "guard_decisions", guard_spy)
    monkeypatch.setattr(guards, "find_sensitive", find_spy)
    said = HEALTH["en"][0]
    src = transcripts(tmp_path, [conversation(said)])
    with ChatServer("llamacpp", writes_everything) as srv:
        assert main(["label", str(src), "--out", str(tmp_path / "o.jsonl"), "--model", "openai/qwen",
                     "--api-base", srv.api_base]) == 0, capsys.readouterr().err
    assert guarded == [said] and said in scanned


def dead_api_base() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_an_existing_out_file_survives_a_run_whose_calls_all_fail(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("MEMROUTE_MAX_RETRIES", "0")
    src = transcripts(tmp_path, [conversation("I'm a nurse in Lyon", "we moved to Medan")])
    out = tmp_path / "labeled.jsonl"
    out.write_text(OLD, "utf-8")
    code = main(["label", str(src), "--out", str(out), "--model", "openai/qwen", "--api-base", dead_api_base()])
    assert code == 1
    assert out.read_text("utf-8") == OLD
    assert "left as it was" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("lines", [["{not json", "[1, 2]", "\ufffd\ufffd"], [""]])
def test_an_existing_out_file_survives_input_with_no_readable_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[str]) -> None:
    src = transcripts(tmp_path, lines)
    out = tmp_path / "labeled.jsonl"
    out.write_text(OLD, "utf-8")
    with ChatServer("llamacpp", writes_everything) as srv:
        code = main(["label", str(src), "--out", str(out), "--model", "openai/qwen", "--api-base", srv.api_base])
    assert code in (0, 1)
    assert out.read_text("utf-8") == OLD
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    capsys.readouterr()


def test_a_successful_run_replaces_the_file_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = transcripts(tmp_path, [conversation("I'm a nurse in Lyon")])
    out = tmp_path / "labeled.jsonl"
    out.write_text(OLD * 50, "utf-8")
    with ChatServer("llamacpp", writes_everything) as srv:
        assert main(["label", str(src), "--out", str(out), "--model", "openai/qwen", "--api-base", srv.api_base]) == 0
    cases = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(cases) == 1 and "kept" not in cases[0]
    assert out.stat().st_mode & 0o777 == 0o600
    capsys.readouterr()

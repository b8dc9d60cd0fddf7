"""Input and output contracts of the CLI (issue 18): JSONL split at "\\n" only, content-part
messages everywhere, `--json` on stdout, and `--root` where it means something."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline._util.jsonl import read_jsonl, split_lines
from pipeline.cli import main

TS = "2026-07-30T09:00:00Z"
LS = "\u2028"  # LINE SEPARATOR: legal inside a JSON string, and a line break to str.splitlines()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write_jsonl(path: Path, *rows: object) -> Path:
    # ensure_ascii=False writes U+2028 as the raw character, as many JSON writers do
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


# ---- JSONL: "\n" only ------------------------------------------------------------------------


def test_the_reader_splits_at_newline_only(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "x.jsonl", {"a": f"one{LS}two\u2029three\x85four"}, {"b": 2})
    assert [value for _, value in read_jsonl(path)] == [{"a": f"one{LS}two\u2029three\x85four"}, {"b": 2}]
    assert list(split_lines(f'{{"a": "x{LS}y"}}\r\n\n{{"b": 1}}')) == [(1, f'{{"a": "x{LS}y"}}'), (3, '{"b": 1}')]


def test_eval_reads_a_case_whose_message_holds_u2028(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = {
        "id": "t-1",
        "lang": "en",
        "timestamp": TS,
        "messages": [{"role": "user", "content": f"I work as a data engineer.{LS}Thanks!"}],
        "expect": {"route": "user", "user_md_contains": ["data engineer"]},
    }
    suite = write_jsonl(tmp_path / "suite.jsonl", case)
    code, out, err = run(capsys, "eval", str(suite), "--json", str(tmp_path / "r.json"))
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["cases"] == 1 and report["route_correct"] == 1 and report["assertions_passed"] == report["assertions_total"]


def test_batch_reads_a_conversation_whose_message_holds_u2028(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = {"id": "c1", "user_id": "ana", "timestamp": TS, "messages": [{"role": "user", "content": f"I work as a data engineer.{LS}Thanks!"}]}
    src = write_jsonl(tmp_path / "in.jsonl", line)
    code, _, err = run(capsys, "batch", str(src), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert "data engineer" in (tmp_path / "out" / "ana" / "USER.md").read_text("utf-8")


# ---- one message parser: content parts everywhere --------------------------------------------

PARTS = [{"role": "user", "content": [{"type": "text", "text": "I work as a data engineer."}, {"type": "image_url", "image_url": {"url": "x"}}]}]


def test_turn_accepts_openai_content_parts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messages = tmp_path / "m.json"
    messages.write_text(json.dumps(PARTS), "utf-8")
    code, out, err = run(capsys, "turn", "ana", "--messages", str(messages), "--timestamp", TS, "--root", str(tmp_path))
    assert code == 0, err
    assert "data engineer" in (tmp_path / "ana" / "USER.md").read_text("utf-8")


def test_process_turn_accepts_content_parts_and_names_a_bad_message(tmp_path: Path) -> None:
    from pipeline.core import MemoryPipeline
    from pipeline.errors import BadTurn

    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        assert pipe.process_turn("ana", PARTS, timestamp=TS).user_changed
        with pytest.raises(BadTurn, match="message 0: content must be text or a list of content parts"):
            pipe.process_turn("ana", [{"role": "user", "content": 42}])
        # ShareGPT's role names mean the same in every entry point
        assert pipe.process_turn("bo", [{"role": "human", "content": "I work as a nurse."}], timestamp=TS).user_changed


def test_turn_with_a_bad_message_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messages = tmp_path / "m.json"
    messages.write_text(json.dumps([{"role": "user", "content": {"text": "x"}}]), "utf-8")
    code, out, err = run(capsys, "turn", "ana", "--messages", str(messages), "--root", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "content must be text" in err
    assert not (tmp_path / "ana").exists()


# ---- --json on stdout ------------------------------------------------------------------------


def test_demo_json_is_one_json_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--json")
    data = json.loads(out)  # nothing but JSON on stdout
    assert code == 0 and data["engine"] == "offline" and len(data["turns"]) >= 5
    assert all(t["status"] == "done" for t in data["turns"]) and "# USER" in data["user_md"]
    assert any(d["reason"] == "sensitive" for t in data["turns"] for d in t["decisions"])


def test_eval_json_dash_writes_the_report_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    suite = write_jsonl(
        tmp_path / "s.jsonl",
        {"id": "c1", "lang": "en", "timestamp": TS, "messages": [{"role": "user", "content": "I work as a data engineer."}], "expect": {"route": "user"}},
    )
    code, out, err = run(capsys, "eval", str(suite), "--json", "-")
    report = json.loads(out)  # nothing but the report on stdout; the table went to stderr
    assert code == 0 and report["cases"] == 1 and report["suites"] == [str(suite)] and "route" in err
    assert not (tmp_path / "-").exists()


# ---- --root: honoured by batch, refused by eval ----------------------------------------------


def test_batch_writes_to_root_and_refuses_a_root_that_disagrees_with_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = {"id": "c1", "user_id": "ana", "timestamp": TS, "messages": [{"role": "user", "content": "I work as a data engineer."}]}
    src = write_jsonl(tmp_path / "in.jsonl", line)
    code, _, err = run(capsys, "batch", str(src), "--root", str(tmp_path / "root"))
    assert code == 0, err
    assert "data engineer" in (tmp_path / "root" / "ana" / "USER.md").read_text("utf-8")
    code, _, err = run(capsys, "batch", str(src), "--root", str(tmp_path / "a"), "--out", str(tmp_path / "b"))
    assert code == 2 and err.count("\n") == 1 and "disagree" in err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_eval_refuses_root_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "eval", "evals/core_en.jsonl", "--root", str(tmp_path))
    assert code == 2 and out == "" and err.count("\n") == 1 and "every case runs in its own temporary root" in err

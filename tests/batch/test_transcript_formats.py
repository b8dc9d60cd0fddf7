"""Transcripts as people already have them (issue 26): OpenAI chat JSONL without user ids, ShareGPT
JSON and JSONL, a folder of JSON files, a plain-text chat log, ChatGPT's data export, gzip and
standard input, for `memroute batch` and `memroute turn`; a file that fits no format is one line,
exit 2, nothing written. The fixtures in tests/fixtures/transcripts/ are written by the project."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from pipeline.batch.sources import FILE_FORMATS, parse_text_log, prepare, turn_messages
from pipeline.cli import main
from pipeline.errors import BadTurn, InputError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def batch(capsys: pytest.CaptureFixture[str], out: Path, *argv: str) -> tuple[int, dict[str, object], str]:
    code, stdout, err = run(capsys, "batch", *argv, "--out", str(out), "--json", "--engine", "offline")
    return code, (json.loads(stdout) if stdout.strip() else {}), err


def text(path: Path) -> str:
    return path.read_text("utf-8") if path.exists() else ""


class Stdin:
    """sys.stdin with a .buffer, as `-` reads it."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def read(self) -> str:
        return self.buffer.read().decode("utf-8")


# ---- batch: each format ---------------------------------------------------------------------


def test_openai_chat_jsonl_without_user_ids_goes_to_the_user_named_by_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, summary, err = batch(capsys, tmp_path / "out", str(FIXTURES / "openai_finetune.jsonl"), "--user", "maya")
    assert code == 0, err
    user_md = text(tmp_path / "out" / "maya" / "USER.md")
    assert "Name: Maya" in user_md and "pediatric nurse" in user_md and "short answers" in user_md
    assert "helpful travel assistant" not in user_md  # the system message is context, never routed


def test_openai_chat_jsonl_takes_the_user_from_the_file_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(FIXTURES / "openai_finetune.jsonl", tmp_path / "maya.jsonl")
    code, summary, err = batch(capsys, tmp_path / "out", str(tmp_path / "maya.jsonl"))
    assert code == 0, err
    assert "pediatric nurse" in text(tmp_path / "out" / "maya" / "USER.md")


def test_sharegpt_json_array_and_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, summary, err = batch(capsys, tmp_path / "out", str(FIXTURES / "sharegpt.json"),
                               str(FIXTURES / "sharegpt.jsonl"), "--user", "chef")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir()) == ["chef", "tomas"]
    assert "Porto" in text(tmp_path / "out" / "tomas" / "USER.md")
    # dated from the message's own time: "yesterday" of 2026-05-14
    assert "[2026-05-13]" in text(tmp_path / "out" / "tomas" / "MEMORY.md")
    assert "vegetarian" in text(tmp_path / "out" / "chef" / "USER.md")  # user_id from --user: the file has none
    assert summary["skips"] == {"one_off": 1}  # "thanks!"


def test_a_folder_of_json_files_one_user_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, summary, err = batch(capsys, tmp_path / "out", str(FIXTURES / "folder"))
    assert code == 0, err
    assert "data engineer" in text(tmp_path / "out" / "ana" / "USER.md")
    assert "[2026-05-29] We moved the docs site to Vercel." in text(tmp_path / "out" / "bo" / "MEMORY.md")


def test_a_plain_text_log_with_user_speaker(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, summary, err = batch(capsys, tmp_path / "out", str(FIXTURES / "lena.txt"), "--user-speaker", "Lena")
    assert code == 0, err
    user_md = text(tmp_path / "out" / "lena" / "USER.md")
    assert "Name: Lena" in user_md and "chemistry" in user_md and "bullet points" in user_md
    assert "Hi Lena" not in user_md  # the bot's lines are context
    assert summary["conversations"]["total"] == 2  # type: ignore[index]  # "---" splits the log


def test_a_text_log_without_a_known_user_speaker_asks_for_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = batch(capsys, tmp_path / "out", str(FIXTURES / "lena.txt"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--user-speaker" in err and "Lena, Bot" in err
    assert not (tmp_path / "out").exists()


def test_text_log_parsing_continuations_times_and_roles() -> None:
    log = "User: I'm Jo.\nI work nights.\nAssistant: Hi Jo!\n---\n2026-04-01T10:00:00Z User: thanks"
    conversations = parse_text_log(log, "x.txt", None)
    assert [[m["role"] for m in c] for c in conversations] == [["user", "assistant"], ["user"]]
    assert conversations[0][0]["content"] == "I'm Jo.\nI work nights."
    assert conversations[1][0]["timestamp"] == "2026-04-01T10:00:00+00:00"


def test_a_chatgpt_export_follows_the_current_branch_of_each_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    export = str(FIXTURES / "chatgpt" / "conversations.json")
    code, _, err = batch(capsys, tmp_path / "none", export)
    assert code == 2 and "--user" in err and not (tmp_path / "none").exists()  # an export names no user
    code, summary, err = batch(capsys, tmp_path / "out", export, "--user", "maria", "--decisions",
                               str(tmp_path / "d.jsonl"))
    assert code == 0, err
    user_md = text(tmp_path / "out" / "maria" / "USER.md")
    assert "UX researcher" in user_md and "Lisbon" in user_md and "two cats" in user_md
    assert "dog" not in user_md  # the edited-away branch is not the conversation
    sources = {json.loads(line)["source"] for line in (tmp_path / "d.jsonl").read_text().splitlines()}
    assert sources == {f"{export}:1", f"{export}:2"}  # reports name the export, conversation by position
    assert summary["skips"] == {"one_off": 1} and summary["conversations"]["untimed"] == 0  # type: ignore[index]


def test_gzip_and_stdin(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    gz = tmp_path / "tomas.json.gz"
    gz.write_bytes(gzip.compress((FIXTURES / "sharegpt.json").read_bytes()))
    code, _, err = batch(capsys, tmp_path / "a", str(gz))
    assert code == 0, err
    assert "Porto" in text(tmp_path / "a" / "tomas" / "USER.md")

    monkeypatch.setattr(sys, "stdin", Stdin(gzip.compress((FIXTURES / "openai_finetune.jsonl").read_bytes())))
    code, _, err = batch(capsys, tmp_path / "b", "-", "--user", "maya")
    assert code == 0, err
    assert "pediatric nurse" in text(tmp_path / "b" / "maya" / "USER.md")


def test_stdin_without_a_user_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", Stdin((FIXTURES / "openai_finetune.jsonl").read_bytes()))
    code, _, err = batch(capsys, tmp_path / "out", "-")
    assert code == 2 and "give --user" in err and not (tmp_path / "out").exists()


def test_a_rerun_over_converted_files_finds_its_conversations_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(2):
        code, summary, err = batch(capsys, tmp_path / "out", str(FIXTURES / "sharegpt.json"),
                                   str(FIXTURES / "chatgpt" / "conversations.json"), "--user", "maria")
        assert code == 0, err
    assert summary["conversations"]["skipped_already_done"] == 4  # type: ignore[index]


# ---- a file that fits no format -------------------------------------------------------------


@pytest.mark.parametrize("content, line", [
    ("id,name,email\n1,Ana,ana@example.com\n", 1),  # a CSV
    ('{"title": "notes", "body": "x"}\n', 1),  # JSON of another kind
    ('\n\n{"name": "package", "version": "1.0"}\n{"name": "b"}\n', 3),  # JSONL of another kind, after blank lines
    ('[{"title": "a"}, {"title": "b"}]', 1),  # a JSON array of something else
])
def test_a_file_of_no_format_is_one_line_exit_2_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, line: int
) -> None:
    good = FIXTURES / "sharegpt.json"
    wrong = tmp_path / "wrong.dat"
    wrong.write_text(content)
    code, _, err = batch(capsys, tmp_path / "out", str(good), str(wrong))  # the good file is not written either
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert f"{wrong}:{line}: fits no transcript format" in err
    for name in ("turns", "openai", "sharegpt", "ChatGPT export", "Speaker: text"):
        assert name in err
    assert not (tmp_path / "out").exists()


def test_the_fixture_csv_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = batch(capsys, tmp_path / "out", str(FIXTURES / "not_a_transcript.csv"))
    assert code == 2 and "not_a_transcript.csv:1: fits no transcript format" in err


def test_a_forced_format_that_does_not_fit_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"sharegpt\.json:1: .*not openai format"):
        prepare([str(FIXTURES / "sharegpt.json")], tmp_path, fmt="openai")
    with pytest.raises(InputError, match="not a ChatGPT export"):
        prepare([str(FIXTURES / "sharegpt.json")], tmp_path, fmt="chatgpt")
    assert set(FILE_FORMATS) == {"turns", "openai", "sharegpt", "chatgpt", "text"}


# ---- memroute turn --------------------------------------------------------------------------


def test_turn_messages_takes_the_http_body_shape_and_text_from_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = str(tmp_path / "root")
    body = tmp_path / "body.json"
    body.write_text(json.dumps({"messages": [{"role": "user", "content": "I am Jasmin, a frontend engineer."}]}))
    code, out, err = run(capsys, "turn", "jasmin", "--root", root, "--messages", str(body))
    assert code == 0, err
    monkeypatch.setattr(sys, "stdin", Stdin(b"I prefer short answers"))
    code, out, err = run(capsys, "turn", "jasmin", "--root", root, "--text", "-")
    assert code == 0, err
    user_md = text(tmp_path / "root" / "jasmin" / "USER.md")
    assert "frontend engineer" in user_md and "short answers" in user_md


def test_turn_messages_reads_sharegpt_and_text_logs_and_refuses_the_rest(tmp_path: Path) -> None:
    assert turn_messages(b'[{"from": "human", "value": "hi"}]', "x") == [{"role": "user", "content": "hi"}]
    assert turn_messages(b'{"conversations": [{"from": "gpt", "value": "a"}, {"from": "human", "value": "b"}]}',
                         "x")[-1] == {"role": "user", "content": "b"}
    log = turn_messages((FIXTURES / "lena.txt").read_bytes(), "lena.txt", user_speaker="lena")
    assert log[-2]["role"] == "user" and log[-2]["content"] == "ok thanks"
    with pytest.raises(BadTurn, match=r"x:1: messages fit no format"):
        turn_messages(b"garbage", "x")
    with pytest.raises(BadTurn, match="keys: 'foo'"):
        turn_messages(b'{"foo": 1}', "x")


def test_turn_with_an_empty_stdin_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", Stdin(b"  \n"))
    code, _, err = run(capsys, "turn", "jasmin", "--root", str(tmp_path / "root"), "--text", "-")
    assert code == 2 and "empty" in err and not (tmp_path / "root" / "jasmin").exists()

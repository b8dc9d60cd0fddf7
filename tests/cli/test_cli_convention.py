"""One CLI convention: --json prints exactly what the library returned and text is text (no
Python reprs); engine options only on commands that run an engine; destructive commands ask (or
take --yes); completion scripts generated from the parser complete what the parser accepts; the
demo says where it wrote."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.batch.sources import FILE_FORMATS
from pipeline.cli import build_parser, main

TS = "2026-07-30T09:00:00Z"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def seed(where: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, _, err = run(capsys, "turn", "ana", "--text", "I'm Ana, a data engineer.", "--timestamp", TS,
                       "--root", str(where))
    assert code == 0, err
    return where


@pytest.fixture
def root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    return seed(tmp_path / "root", capsys)


# ---- --json and text -------------------------------------------------------------------------

COMMANDS = [
    ["consolidate", "ana"],
    ["forget", "ana", "Name"],
    ["correct", "ana", "Name", "Anna"],
    ["pin", "ana", "Name"],
    ["tag", "ana", "Name", "--project", "onboarding"],
    ["annotations", "ana"],
    ["undo", "ana"],
    ["context", "ana"],
    ["history", "ana"],
    ["decisions", "ana"],
    ["show", "ana"],
    ["recall", "ana", "Ana"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=[a[0] for a in COMMANDS])
def test_every_command_prints_text_and_with_json_prints_json(
        root: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, text, err = run(capsys, *argv, "--root", str(root))
    assert code == 0, err
    with pytest.raises(ValueError):
        json.loads(text)  # text, not a JSON document
    assert "None" not in text and "{'" not in text  # no Python reprs
    twin = seed(root.parent / "twin", capsys)  # the same state, for the same command with --json
    code, out, err = run(capsys, *argv, "--root", str(twin), "--json")
    assert code == 0, err
    json.loads(out)


def test_context_json_is_the_block_itself(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, text, _ = run(capsys, "context", "ana", "--root", str(root))
    _, out, _ = run(capsys, "context", "ana", "--root", str(root), "--json")
    assert json.loads(out) == {"user_id": "ana", "team": None, "context": text}


def test_history_is_text_without_python_reprs(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "correct", "ana", "Name", "Anna", "--root", str(root))
    run(capsys, "pin", "ana", "Name", "--root", str(root))
    code, out, _ = run(capsys, "history", "ana", "--root", str(root))
    lines = out.splitlines()
    assert code == 0 and any(" user upsert Name: (none) -> Ana " in line for line in lines), out
    assert any(" user replace Name: Ana -> Anna (review: corrected)" in line for line in lines), out
    assert any(line.endswith(" user pin Name (review: pin)") for line in lines), out
    assert "None" not in out and "'Ana'" not in out


# ---- options where they apply ----------------------------------------------------------------


def _options(command: str) -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, __import__("argparse")._SubParsersAction))
    return {o for action in sub.choices[command]._actions for o in action.option_strings}


ENGINE_OPTIONS = {"--engine", "--model", "--api-base", "--timeout", "--deadline", "--max-retries"}


@pytest.mark.parametrize("command", ["users", "show", "history", "decisions", "status", "annotations", "pin", "export", "forget",
                                     "delete-user", "context", "tool", "recall"])
def test_commands_that_run_no_engine_take_no_engine_options(command: str) -> None:
    assert not _options(command) & ENGINE_OPTIONS
    assert {"--root", "--store", "--json"} <= _options(command)


@pytest.mark.parametrize("command", ["turn", "retry", "consolidate", "batch", "eval", "serve", "worker", "demo", "doctor",
                                     "label", "import-mem0", "import-letta", "mcp"])
def test_commands_that_run_an_engine_take_the_engine_options(command: str) -> None:
    assert ENGINE_OPTIONS <= _options(command)


def test_an_engine_option_on_a_command_without_one_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["users", "--model", "openai/gpt-4o-mini"])
    assert exit_.value.code == 2 and "unrecognized arguments: --model" in capsys.readouterr().err


# ---- destructive commands ask ----------------------------------------------------------------


@pytest.mark.parametrize("argv", [["delete-user", "ana"], ["forget", "ana", "Name", "--purge"]])
def test_destructive_commands_need_yes_without_a_terminal(root: Path, argv: list[str]) -> None:
    before = {p: p.read_bytes() for p in (root / "ana").iterdir()}
    memroute = str(Path(sys.executable).parent / "memroute")
    proc = subprocess.run([memroute, *argv, "--root", str(root)], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("memroute: error: erase ") and proc.stderr.endswith(
        ": pass --yes to confirm (nothing was changed)\n")
    assert {p: p.read_bytes() for p in (root / "ana").iterdir()} == before
    done = subprocess.run([memroute, *argv, "--root", str(root), "--yes"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "erase" in done.stdout or "removed" in done.stdout


# ---- completion, generated from the parser ---------------------------------------------------


def _bash_complete(script: str, line: str, home: Path) -> list[str]:
    words = line.split(" ")
    program = (
        f"{script}\nCOMP_LINE={json.dumps(line)}; COMP_POINT=${{#COMP_LINE}}\n"
        f"COMP_WORDS=({' '.join(json.dumps(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        "_shtab_memroute; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
    )
    proc = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=30,
                          env={"PATH": "/usr/bin:/bin", "MEMROUTE_HOME": str(home), "HOME": str(home)})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_bash_script_completes_exactly_what_the_parser_accepts(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, script, _ = run(capsys, "completion", "bash")
    assert code == 0
    assert sorted(_bash_complete(script, "memroute batch --format ", root)) == sorted(FILE_FORMATS)
    assert _bash_complete(script, "memroute u", root) == ["undo", "users"]
    assert _bash_complete(script, "memroute turn ana --engine h", root) == ["hybrid"]
    assert _bash_complete(script, "memroute completion ", root) == ["bash", "zsh", "fish"]
    (root / "bo").mkdir()
    (root / "bo" / "MEMORY.md").write_text("# MEMORY\n", "utf-8")
    (root / "not-a-user").mkdir()
    assert _bash_complete(script, "memroute show ", root) == ["ana", "bo"]  # users, not files
    assert "--model" not in _bash_complete(script, "memroute users --", root)


def test_zsh_and_fish_scripts_come_from_the_same_parser(capsys: pytest.CaptureFixture[str]) -> None:
    code, zsh, _ = run(capsys, "completion", "zsh")
    assert code == 0 and zsh.startswith("#compdef memroute")
    assert "turns" in zsh and "sharegpt" in zsh and "_shtab_memroute_users" in zsh
    code, fish, _ = run(capsys, "completion", "fish")
    assert code == 0
    batch_formats = next(line for line in fish.splitlines() if "subcommand_from batch' -l format" in line)
    assert sorted(batch_formats.split(" -a '")[1].split("'")[0].split()) == sorted(FILE_FORMATS)
    assert "complete -c memroute -n '__fish_seen_subcommand_from show' -x -a '(__memroute_users)'" in fish
    for shell, text in (("zsh", zsh), ("fish", fish)):
        if shutil.which(shell):
            proc = subprocess.run([shell, "-n" if shell == "zsh" else "--no-execute", "-c", text],
                                  capture_output=True, text=True, timeout=30)
            assert proc.returncode == 0, proc.stderr


# ---- the demo --------------------------------------------------------------------------------


def test_the_demo_says_where_it_wrote_and_takes_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--root", str(tmp_path))
    assert code == 0 and f"The files are in {tmp_path / 'jasmin'}" in out
    code, shown, _ = run(capsys, "show", "jasmin", "--root", str(tmp_path))
    assert code == 0 and "Jasmin" in shown
    code, out, _ = run(capsys, "demo", "--json")
    where = Path(json.loads(out)["root"])
    assert (where / "jasmin" / "USER.md").is_file()  # kept, and said where
    shutil.rmtree(where)

"""A memroute.toml that cannot be used is one line naming the file (and the setting, where one is at
fault), exit 2, for every command that reads it: a file that is not UTF-8, one nested thousands
deep, a setting of the wrong type (`cache_dir = 5`), and a boolean where a number belongs
(`user_limit = true` is no cap of 1 character). `read_config` is the one reader."""

from __future__ import annotations

from pathlib import Path

import pytest

import pipeline.settings as settings_module
from pipeline.cli import main
from pipeline.errors import SettingsError
from pipeline.settings import Settings, read_config, resolve

CASES: dict[str, tuple[bytes, str | None, str]] = {
    # name: (file bytes, the setting the message names, a phrase of the message)
    "latin-1": ('engine = "caf\xe9"\n'.encode("latin-1"), None, "is not UTF-8"),
    "utf-16": ('engine = "offline"\n'.encode("utf-16"), None, "is not UTF-8"),
    "deep": (("x = " + "[" * 3000 + "]" * 3000 + "\n").encode(), None, "nested too deeply"),
    "deep table": (("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n").encode(), None, "nested too deeply"),
    "cache_dir int": (b"cache_dir = 5\n", "cache_dir", "is not text (a folder path)"),
    "user_limit bool": (b"user_limit = true\n", "user_limit", "not a whole number"),
    "memory_limit float": (b"memory_limit = 2.5\n", "memory_limit", "not a whole number"),
    "timeout bool": (b"timeout = false\n", "timeout", "not a number of seconds"),
    "engine list": (b'engine = ["llm"]\n', "engine", "is not text"),
    "slow_model text": (b'slow_model = "yes"\n', "slow_model", "true or false"),
    "store number": (b"store = 5\n", "store", "is not text"),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("command", [["doctor"], ["show", "ivy"], ["turn", "ivy", "--text", "I'm a nurse"]])
def test_a_bad_settings_file_is_one_line_naming_it_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        case: str, command: list[str]) -> None:
    monkeypatch.delenv("MEMROUTE_CONFIG", raising=False)
    content, setting, phrase = CASES[case]
    config = tmp_path / "memroute.toml"
    config.write_bytes(content)
    code = main([*command, "--root", str(tmp_path)])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and str(config) in lines[0] and phrase in lines[0], lines
    if setting is not None:
        assert f"setting {setting} = " in lines[0]
    assert "Traceback" not in err and "recursion" not in err.lower() and "codec" not in err
    assert not (tmp_path / "ivy").exists() and not (tmp_path / "memroute.db").exists()


def test_the_named_config_file_gets_the_same_messages(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "elsewhere.toml"
    config.write_bytes(b"user_limit = true\n")
    monkeypatch.setenv("MEMROUTE_CONFIG", str(config))
    assert main(["doctor", "--root", str(tmp_path / "root")]) == 2
    assert f"config file {config}: setting user_limit = true" in capsys.readouterr().err


def test_good_values_of_every_type_are_read(tmp_path: Path) -> None:
    config = tmp_path / "memroute.toml"
    config.write_text('engine = "offline"\nuser_limit = 900\ntimeout = 20\ndeadline = 45.5\nslow_model = false\n'
                      'cache_dir = "~/cache"\ncandidate_ttl_days = 30\n', "utf-8")
    got = resolve({}, {"MEMROUTE_HOME": str(tmp_path)})
    assert (got.user_limit, got.timeout, got.deadline, got.candidate_ttl_days) == (900, 20.0, 45.5, 30.0)
    assert got.cache_dir == Path("~/cache").expanduser()


def test_a_bool_is_no_number_for_python_callers_either() -> None:
    for name in ("user_limit", "memory_limit", "max_retries", "timeout", "deadline", "candidate_ttl_days"):
        with pytest.raises(ValueError, match="not true or false"):
            Settings(**{name: True})


def test_resolve_reads_the_file_through_the_one_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Path] = []

    def spy(path: Path) -> dict[str, object]:
        seen.append(path)
        return read_config(path)

    monkeypatch.setattr(settings_module, "read_config", spy)
    (tmp_path / "memroute.toml").write_bytes(b"cache_dir = 5\n")
    with pytest.raises(SettingsError):
        resolve({}, {"MEMROUTE_HOME": str(tmp_path)})
    assert seen == [tmp_path / "memroute.toml"]

"""Settings reach the library only through the CLI: flags, MEMROUTE_* and memroute.toml are resolved
once (pipeline/settings.py) and passed down explicitly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.settings import resolve

TS = "2026-03-02T10:00:00Z"
MOOD = "I feel exhausted about the Zanzibar paperwork today"


def _decision_log_text(root: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["export", "ana", "--all", "--root", str(root)]) == 0
    out, _ = capsys.readouterr()
    return json.dumps(json.loads(out)).lower()


@pytest.mark.parametrize("how", ["file", "env", "flag"])
def test_log_quotes_from_the_config_file_env_or_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.delenv("MEMROUTE_LOG_QUOTES", raising=False)
    extra: list[str] = []
    if how == "file":
        (tmp_path / "memroute.toml").write_text("log_quotes = true\n", "utf-8")
    elif how == "env":
        monkeypatch.setenv("MEMROUTE_LOG_QUOTES", "1")
    else:
        extra = ["--log-quotes"]
    assert main(["turn", "ana", "--text", MOOD, "--timestamp", TS, "--root", str(tmp_path), *extra]) == 0
    capsys.readouterr()
    assert "zanzibar" in _decision_log_text(tmp_path, capsys)


def test_without_log_quotes_the_words_of_a_skip_are_not_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMROUTE_LOG_QUOTES", raising=False)
    assert main(["turn", "ana", "--text", MOOD, "--timestamp", TS, "--root", str(tmp_path)]) == 0
    capsys.readouterr()
    assert "zanzibar" not in _decision_log_text(tmp_path, capsys)


def test_a_bad_setting_in_the_environment_is_a_usage_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMROUTE_CANDIDATE_TTL_DAYS", "soon")
    code = main(["turn", "ana", "--text", "I work as a nurse.", "--root", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 2 and "MEMROUTE_CANDIDATE_TTL_DAYS" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "ana").exists()


def test_the_eval_cache_follows_memroute_cache_then_xdg(tmp_path: Path) -> None:
    assert resolve({}, {"MEMROUTE_CACHE": str(tmp_path / "c")}).cache_dir == tmp_path / "c"
    assert resolve({}, {"XDG_CACHE_HOME": str(tmp_path)}).cache_dir == tmp_path / "memroute" / "evals"

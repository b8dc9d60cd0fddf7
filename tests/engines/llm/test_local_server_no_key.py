"""A local OpenAI-compatible server that needs no key (llama.cpp, vLLM, Ollama, LM Studio on this machine):
`--model openai/NAME --api-base http://127.0.0.1:P/v1` works with no OPENAI_API_KEY set, sends no
Authorization header, and `memroute doctor` agrees; a hosted server still stops at once with
"no API key" (exit 2, nothing kept)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import MemoryPipeline
from pipeline.cli import main
from pipeline.engines.llm.openai_http import Endpoint, on_this_machine
from pipeline.errors import ModelConfigError
from pipeline.testing import ChatServer, allow_model_requests

NURSE = {"statements": [{"quote": "I am a nurse", "route": "user", "key": "Role", "value": "nurse"}]}


def memroute(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items()
               if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "MEMROUTE_MODEL", "MEMROUTE_CONFIG")}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *argv, "--root", str(root)], env=environ,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1",
                                 "http://127.0.0.2:1234/v1", "http://LOCALHOST./v1"])
def test_a_server_on_this_machine_needs_no_key(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert on_this_machine(url)
    endpoint = Endpoint.resolve(None, url, 5.0)
    assert "Authorization" not in endpoint.headers and endpoint.url.endswith("/v1/chat/completions")


@pytest.mark.parametrize("url", [None, "https://api.openai.com/v1", "https://llm.example.com/v1",
                                 "http://10.0.0.5:8000/v1", "http://127.0.0.1.example.com/v1", "not a url"])
def test_any_other_server_still_needs_a_key(url: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ModelConfigError, match="no API key for the openai/ model: set OPENAI_API_KEY"):
        Endpoint.resolve(None, url, 5.0)


def test_a_key_that_is_set_is_still_sent_to_a_local_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-server")
    assert Endpoint.resolve(None, "http://127.0.0.1:8080/v1", 5.0).headers["Authorization"] == "Bearer sk-local-server"


def test_memroute_turn_on_a_local_server_with_no_key_writes_the_fact(tmp_path: Path) -> None:
    with ChatServer("llamacpp", lambda body: NURSE) as server:
        done = memroute(tmp_path, "turn", "ana", "--text", "I am a nurse.", "--model", "openai/local",
                        "--api-base", server.api_base)
        assert done.returncode == 0, done.stderr
        assert server.headers and all("authorization" not in h for h in server.headers)
        doctor = memroute(tmp_path, "doctor", "--model", "openai/local", "--api-base", server.api_base)
    assert "- Role: nurse" in MemoryPipeline(root=tmp_path).show("ana")["user_md"]
    assert "[ok]   API key: no OPENAI_API_KEY: none is needed for a server on this machine" in doctor.stdout
    assert "[FAIL]" not in doctor.stdout and doctor.returncode == 0, doctor.stdout


def test_a_hosted_server_with_no_key_is_exit_2_in_one_line_and_keeps_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    with allow_model_requests(True):  # the key check refuses first (the test-wide socket guard would stop a request)
        code = main(["turn", "ana", "--text", "I am a nurse.", "--root", str(tmp_path), "--model", "openai/gpt-4o-mini",
                     "--api-base", "https://llm.example.com/v1"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no API key" in err, err
    with MemoryPipeline(root=tmp_path) as pipe:
        assert pipe.store.failed_turns() == []
    doctor = memroute(tmp_path, "doctor", "--model", "openai/gpt-4o-mini")  # api.openai.com: not probed
    assert doctor.returncode == 1 and "[FAIL] API key: openai/gpt-4o-mini needs OPENAI_API_KEY" in doctor.stdout

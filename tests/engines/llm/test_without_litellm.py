"""litellm is an extra (memroute[litellm]): without it the offline engine and `openai/` models work
(priced from the bundled copy of litellm's OpenAI prices), and a model that needs litellm fails in
one line naming the extra. litellm is hidden from a child process (sys.modules["litellm"] = None)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engines.llm.test_llm_http import CLASSIFIED, Reply, ScriptedServer

HIDE = "import sys; sys.modules['litellm'] = None\n"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def without_litellm(tmp_path: Path, code: str, *argv: str) -> subprocess.CompletedProcess[str]:
    hider = tmp_path / "hide"
    hider.mkdir(exist_ok=True)
    (hider / "sitecustomize.py").write_text(HIDE, "utf-8")
    env = {"PYTHONPATH": str(hider), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MEMROUTE_HOME": str(tmp_path / "m"),
           "MEMROUTE_ALLOW_MODEL_REQUESTS": "1", "OPENAI_API_KEY": "sk-test-not-a-key"}
    cmd = [sys.executable, "-c", code, *argv] if code else [str(Path(sys.executable).parent / "memroute"), *argv]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


def test_an_openai_model_runs_and_is_priced_without_litellm(server: ScriptedServer, tmp_path: Path) -> None:
    server.then(Reply(arguments=CLASSIFIED, prompt_tokens=900, completion_tokens=80))
    code = (
        "import sys\n"
        "from pipeline import MemoryPipeline\n"
        f"pipe = MemoryPipeline(root={str(tmp_path / 'root')!r}, model='openai/gpt-4o-mini', api_base={server.api_base!r})\n"
        "r = pipe.process_turn('jasmin', [{'role': 'user', 'content': 'I am Jasmin, a frontend engineer.'}])\n"
        "assert r.status == 'done', r.error\n"
        "assert sys.modules['litellm'] is None\n"
        "print(r.usage.cost_usd)\n"
    )
    proc = without_litellm(tmp_path, code)
    assert proc.returncode == 0, proc.stderr
    # gpt-4o-mini's rates from the bundled copy: 900 input and 80 output tokens cost a fraction of a cent
    assert 0 < float(proc.stdout.strip()) < 0.01


def test_a_model_that_needs_litellm_says_which_extra_to_install(tmp_path: Path) -> None:
    proc = without_litellm(tmp_path, "", "turn", "jasmin", "--text", "I'm Jasmin.", "--engine", "llm",
                           "--model", "anthropic/claude-3-5-haiku-latest")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("memroute: error: anthropic/claude-3-5-haiku-latest goes through litellm, which is not "
                           "installed: pip install 'memroute[litellm]' (openai/ models and OpenAI-compatible servers "
                           "need no extra)\n")


def test_the_offline_engine_needs_no_litellm(tmp_path: Path) -> None:
    proc = without_litellm(tmp_path, "", "turn", "jasmin", "--text", "I work as a data engineer.")
    assert proc.returncode == 0, proc.stderr
    assert "Role: data engineer" in (tmp_path / "m" / "jasmin" / "USER.md").read_text("utf-8")

"""How the LLM path fails: a missing API key is a usage error (exit 2, nothing queued), an answer
without choices says what the server sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pipeline import testing
from pipeline.cli import main
from pipeline.core import MemoryPipeline
from pipeline.engines.llm import LLMEngine, LLMError
from pipeline.errors import ModelConfigError


class Server:
    """A local OpenAI-compatible server answering every POST with `body` (after `delay` s)."""

    def __init__(self, body: dict[str, Any], delay: float = 0.0) -> None:
        self.body, self.delay, self.posts = body, delay, 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.posts += 1
                if outer.delay:
                    threading.Event().wait(outer.delay)
                data = json.dumps(outer.body).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def no_choices() -> Iterator[Server]:
    srv = Server({"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [],
                  "error_hint": "content filtered"})
    yield srv
    srv.close()


def test_a_missing_api_key_is_a_usage_error_and_nothing_is_queued(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], no_choices: Server
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # a hosted server (a local one needs no key: tests/engines/llm/test_local_server_no_key.py): refused before any
    # request (the test-wide socket guard would stop one anyway)
    with testing.allow_model_requests(True):
        code = main(["turn", "u1", "--text", "I'm a nurse", "--root", str(tmp_path), "--model", "openai/gpt-4o-mini",
                     "--api-base", "https://llm.example.com/v1"])
    out, err = capsys.readouterr()
    assert code == 2 and no_choices.posts == 0
    assert "OPENAI_API_KEY" in err and len(err.strip().splitlines()) == 1 and out == ""
    with MemoryPipeline(root=tmp_path) as pipe:
        assert pipe.store.failed_turns() == []


def test_the_library_raises_a_missing_key_instead_of_keeping_the_turn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    engine = LLMEngine("openai/gpt-4o-mini", api_base="https://llm.example.com/v1")  # hosted: a key is needed
    with testing.allow_model_requests(True), MemoryPipeline(root=tmp_path, engine=engine) as pipe:
        with pytest.raises(ModelConfigError):
            pipe.process_turn("u1", [{"role": "user", "content": "I'm a nurse"}])
        assert pipe.store.failed_turns() == []


def test_an_answer_without_choices_says_what_the_server_sent(no_choices: Server) -> None:
    from datetime import datetime, timezone

    from pipeline.types import Message, Turn

    turn = Turn(user_id="u", turn_id="t", timestamp=datetime(2026, 8, 1, tzinfo=timezone.utc),
                messages=[Message(role="user", content="I'm a nurse")])
    engine = LLMEngine("openai/gpt-4o-mini", api_base=no_choices.api_base, api_key="sk-test", max_retries=0)
    with pytest.raises(LLMError) as info:
        engine.classify(turn, "", "")
    assert "without choices" in str(info.value) and "content filtered" in str(info.value)
    assert "IndexError" not in str(info.value)


def closed_port() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there: connection refused


def test_a_failed_turn_is_one_line_on_stderr_and_retry_names_or_refuses_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    root = ["--root", str(tmp_path)]
    code = main(["turn", "u1", "--text", "I'm a nurse", *root, "--model", "openai/gpt-4o-mini",
                 "--api-base", closed_port(), "--max-retries", "0"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and "turn failed" in err and "memroute retry u1" in err
    # Without --engine/--model the offline default would rerun a model's turn: refused, nothing run.
    assert main(["retry", *root]) == 2
    assert "llm (openai/gpt-4o-mini)" in capsys.readouterr().err
    with MemoryPipeline(root=tmp_path) as pipe:
        assert len(pipe.store.failed_turns()) == 1
    # Choosing the engine runs them, and says which.
    assert main(["retry", *root, "--engine", "offline"]) == 0
    assert "on the offline engine" in capsys.readouterr().err


def classify_answer() -> dict[str, Any]:
    from pipeline.testing import completion_body

    args = json.dumps({"statements": [{"quote": "I'm a nurse", "route": "user", "section": "Identity", "key": "Role", "value": "nurse"}]})
    return completion_body(model="m", arguments=args, tool="Statements", prompt_tokens=100, completion_tokens=20)


def test_the_response_cache_is_keyed_by_server_and_engine_settings(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    from pipeline.types import Message, Turn

    turn = Turn(user_id="u", turn_id="t", timestamp=datetime(2026, 8, 1, tzinfo=timezone.utc),
                messages=[Message(role="user", content="I'm a nurse")])
    one, two = Server(classify_answer()), Server(classify_answer())
    try:
        def run(srv: Server, **kw: Any) -> None:
            LLMEngine("openai/gpt-4o-mini", api_base=srv.api_base, api_key="sk-test", cache_dir=tmp_path, **kw).classify(turn, "", "")

        run(one)
        run(one)
        assert one.posts == 1  # the same server and settings: a cache hit
        run(two)
        assert two.posts == 1  # another --api-base: asked, not answered from the first server's cache
        run(two, max_reasks=0)
        assert two.posts == 2  # other engine settings: asked again
    finally:
        one.close()
        two.close()


def test_a_slow_server_is_cut_off_by_the_turns_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import time

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    slow = Server(classify_answer(), delay=20.0)
    try:
        started = time.monotonic()
        # The answer takes 20 s (30 s allowed per request, 5 retries); the deadline stops it at 1.5 s
        # after the first request (the imports before it do not count).
        code = main(["turn", "u1", "--text", "I'm a nurse", "--root", str(tmp_path), "--model", "openai/gpt-4o-mini",
                     "--api-base", slow.api_base, "--timeout", "30", "--max-retries", "5", "--deadline", "1.5"])
        took = time.monotonic() - started
    finally:
        slow.close()
    err = capsys.readouterr().err
    assert code == 1 and took < 10 and slow.posts == 1
    assert "turn failed" in err and "1.5 s" in err


def test_the_deadline_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from argparse import Namespace

    from pipeline.cli.common import resolve_settings

    monkeypatch.setenv("MEMROUTE_DEADLINE", "7.5")
    assert resolve_settings(Namespace(command="turn")).deadline == 7.5


def test_an_openai_direct_turn_never_imports_litellm(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    srv = Server(classify_answer())
    code = (
        "import sys\nfrom pipeline.cli import main\n"
        f"rc = main(['turn', 'u1', '--text', \"I'm a nurse\", '--root', {str(tmp_path)!r}, '--model', 'openai/gpt-4o-mini',"
        f" '--api-base', {srv.api_base!r}])\n"
        "assert rc == 0, rc\nprint(sorted(m for m in sys.modules if m == 'litellm' or m.startswith('litellm.')))\n"
    )
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "OPENAI_API_KEY": "sk-test"})
    finally:
        srv.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]" and srv.posts == 1

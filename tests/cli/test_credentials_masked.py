"""Credentials are never printed: `memroute doctor` masks `user:password@` in MEMROUTE_API_BASE /
--api-base / api_base in memroute.toml and OPENAI_BASE_URL in every line it prints (the settings
table, the API key check, the model probe and its error), text and --json; `memroute serve
--otlp-endpoint http://user:pass@...` masks it in its banner. One helper (store.location.shown_url)
does it everywhere; a test per door that it is the one called."""

from __future__ import annotations

import http.server
import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.cli import main
from pipeline.store import location
from pipeline.store.location import shown_url

SECRET = "s3cr3t-pw-9911"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class _Models(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        body = b'{"data": []}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def live_port() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MEMROUTE_API_BASE", "OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_KEY", "MEMROUTE_MODEL",
                 "MEMROUTE_CONFIG", "MEMROUTE_ENGINE"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize("alive", [True, False])
@pytest.mark.parametrize("how", ["env", "flag", "file", "openai_env"])
def test_doctor_never_prints_the_password_of_the_model_url(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        live_port: int, alive: bool, how: str) -> None:
    port = live_port if alive else dead_port()
    url = f"http://alice:{SECRET}@127.0.0.1:{port}/v1"
    argv = ["doctor", "--root", str(tmp_path), "--model", "openai/local"]
    if how == "env":
        monkeypatch.setenv("MEMROUTE_API_BASE", url)
    elif how == "flag":
        argv += ["--api-base", url]
    elif how == "file":
        (tmp_path / "memroute.toml").write_text(f'api_base = "{url}"\n', "utf-8")
    else:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-printed")
    for extra in ([], ["--json"]):
        code, out, err = run(capsys, *argv, *extra)
        assert SECRET not in out + err and "sk-test-not-printed" not in out + err, out
        assert "alice:***@127.0.0.1" in out
        if extra:
            data = json.loads(out)
            assert SECRET not in json.dumps(data)
    assert code == (0 if alive else 1)


def test_the_one_helper_masks_urls_and_messages_holding_them() -> None:
    assert shown_url("postgresql://me:pw@db:5432/mem") == "postgresql://me:***@db:5432/mem"
    assert shown_url("http://u:p@ss:w@h:1/v1") == "http://u:***@h:1/v1"  # a password holding "@"
    assert shown_url("http://:tok@h/v1") == "http://:***@h/v1"
    assert shown_url("https://h/v1?api_key=abc&x=1") == "https://h/v1?api_key=***&x=1"
    assert shown_url(f"ConnectError at http://a:{SECRET}@h:1/v1 and https://c:d@e/") == \
        "ConnectError at http://a:***@h:1/v1 and https://c:***@e/"
    for plain in ("http://u@h/x", "/tmp/root", "offline", "http://127.0.0.1:8750"):
        assert shown_url(plain) == plain


@pytest.mark.usefixtures("clean_env")
def test_doctor_calls_the_one_helper_for_every_url_it_prints(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import pipeline.cli.doctor as doctor
    import pipeline.settings as settings

    seen: list[str] = []

    def spy(text: str) -> str:
        seen.append(text)
        return location.shown_url(text)

    monkeypatch.setattr(doctor, "shown_url", spy)
    monkeypatch.setattr(settings, "shown_url", spy)
    url = f"http://alice:{SECRET}@127.0.0.1:{dead_port()}/v1"
    run(capsys, "doctor", "--root", str(tmp_path), "--model", "openai/local", "--api-base", url)
    assert url in seen  # the settings table
    assert any(url in s and s != url for s in seen)  # the probe's message
    assert sum(s == url for s in seen) >= 2  # and the API key check


def test_an_otlp_endpoint_is_masked_in_the_serve_banner_and_its_errors(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    from servers import env, free_port, serve_argv

    from pipeline.observe import tracing

    with pytest.raises(ValueError) as refused:
        tracing.traces_url(f"ftp://u:{SECRET}@h")
    assert SECRET not in str(refused.value)
    port = free_port()
    argv = serve_argv(tmp_path / "root", port, "--otlp-endpoint", f"http://bob:{SECRET}@127.0.0.1:{dead_port()}")
    proc = subprocess.Popen(argv, env=env(tmp_path / "home"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=60)
    assert "traces to http://bob:***@127.0.0.1:" in err, err
    assert SECRET not in out + err


def test_the_serve_banner_calls_the_one_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    from pipeline.core import MemoryPipeline
    from pipeline.observe import tracing
    from pipeline.serve import run as serve_run
    from pipeline.serve.config import ServeConfig

    seen: list[str] = []

    def spy(text: str) -> str:
        seen.append(text)
        return location.shown_url(text)

    class Stop(Exception):
        pass

    def no_server(*args: Any, **kwargs: Any) -> Any:
        raise Stop

    monkeypatch.setattr(serve_run, "shown_url", spy)
    import uvicorn

    monkeypatch.setattr(uvicorn, "Server", no_server)
    endpoint = f"http://bob:{SECRET}@127.0.0.1:{dead_port()}"
    try:
        with pytest.raises(Stop):
            serve_run.serve(ServeConfig(root=tmp_path, port=0, otlp_endpoint=endpoint), lambda: MemoryPipeline(root=tmp_path))
    finally:
        tracing.disable()
    assert seen == [endpoint]
    assert SECRET not in capsys.readouterr().err

"""Real servers for the serve/mcp tests: `memroute serve` (or a script around create_app) in a
subprocess on a free loopback port, waited for over HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

BIN = Path(sys.executable).parent
MEMROUTE = str(BIN / "memroute")
ADMIN = "admin-token-0123456789abcdef"
ALICE = "alice-token-0123456789abcdef"
BOB = "bob-token-0123456789abcdef"
TOKENS = f"{ADMIN} *\n{ALICE} alice\n# bob has his own\n{BOB} bob,bob2\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def env(home: Path) -> dict[str, str]:
    out = {**os.environ, "MEMROUTE_HOME": str(home), "MEMROUTE_ENGINE": "offline", "MEMROUTE_ALLOW_MODEL_REQUESTS": "0"}
    out.pop("MEMROUTE_MODEL", None)
    out.pop("MEMROUTE_CONFIG", None)
    out.pop("MEMROUTE_SERVE_TOKENS", None)
    return out


def wait_until_up(url: str, proc: subprocess.Popen[str], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"server at {url} did not answer within {timeout} s")


@contextmanager
def running(argv: list[str], home: Path, port: int) -> Iterator[str]:
    """Start the server process, yield its base URL, stop it with SIGTERM (a graceful shutdown)."""
    proc = subprocess.Popen(argv, env=env(home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, proc)
        yield url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def serve_argv(root: Path, port: int, *extra: str) -> list[str]:
    return [MEMROUTE, "serve", "--root", str(root), "--port", str(port), *extra]


def bytes_under(root: Path, needle: str) -> list[str]:
    """Files under root whose bytes hold `needle` (UTF-8)."""
    wanted = needle.encode("utf-8")
    return [str(p) for p in root.rglob("*") if p.is_file() and wanted in p.read_bytes()]

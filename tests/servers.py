"""Real servers for tests: `memroute serve` (or a script around create_app) in a subprocess on a
free loopback port, waited for over HTTP; and the fake OpenAI-compatible model server."""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from pipeline.testing import completion_body

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


# ---------------------------------------------------------------------------------------------
# The fake model server: an OpenAI-compatible endpoint on 127.0.0.1 that answers chat completions
# from a script (or, once the script is empty, from `answer(body)`) and /v1/embeddings with
# deterministic vectors. Shared by the LLM engine's HTTP tests and the write benchmark's tests.


@dataclass
class Reply:
    status: int = 200
    arguments: Any = None  # dict -> JSON tool-call arguments; str -> sent as is (garbage)
    delay: float = 0.0
    retry_after: str | None = None
    prompt_tokens: int = 120
    completion_tokens: int = 30


def embedding(text: str, dims: int) -> list[float]:
    """A deterministic unit vector: the text's words hashed into `dims` buckets (similar texts, near vectors)."""
    vec = [0.0] * dims
    for word in text.casefold().split() or [text]:
        digest = hashlib.sha256(word.encode("utf-8")).digest()
        vec[int.from_bytes(digest[:4], "big") % dims] += 1.0 if digest[4] % 2 else -1.0
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return [x / norm for x in vec]


class ScriptedServer:
    def __init__(self, answer: Callable[[dict[str, Any]], Reply] | None = None, embed_dims: int = 1536) -> None:
        self.script: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.answer = answer
        self.embed_dims = embed_dims
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, so a client's connection reuse shows

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                server.requests.append(
                    {
                        "path": self.path,
                        "body": body,
                        "auth": self.headers.get("Authorization"),
                        "at": time.monotonic(),
                        "port": self.client_address[1],  # the client's end: one per connection
                    }
                )
                if self.path.rstrip("/").endswith("/embeddings"):
                    reply, payload = Reply(), server.embeddings(body)
                else:
                    if server.script:
                        reply = server.script.popleft()
                    elif server.answer is not None:
                        reply = server.answer(body)
                    else:
                        reply = Reply(status=500)
                    if reply.delay:
                        time.sleep(reply.delay)
                    payload = server.payload(reply, body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    if reply.retry_after is not None:
                        self.send_header("Retry-After", reply.retry_after)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"].endswith("/chat/completions")]

    def embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body.get("input") or []
        texts = [texts] if isinstance(texts, str) else texts
        dims = int(body.get("dimensions") or self.embed_dims)
        tokens = sum(max(1, len(str(t)) // 4) for t in texts)
        return {
            "object": "list",
            "model": body.get("model", "fake-embedder"),
            "data": [{"object": "embedding", "index": i, "embedding": embedding(str(t), dims)} for i, t in enumerate(texts)],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def payload(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        if reply.status != 200:
            kind = "rate_limit_exceeded" if reply.status == 429 else "server_error"
            return {"error": {"message": f"scripted {reply.status}", "type": kind, "code": kind}}
        # Like OpenAI: a forced tool call is answered with that tool call, response_format with content.
        tool = None if "response_format" in body else body.get("tool_choice", {}).get("function", {}).get("name", "Statements")
        args = reply.arguments if isinstance(reply.arguments, str) else json.dumps(reply.arguments)
        return completion_body(
            model=body.get("model", "gpt-4o-mini"),
            arguments=args,
            tool=tool,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            completion_id=f"chatcmpl-{len(self.requests)}",
            created=int(time.time()),
        )

    def then(self, *replies: Reply) -> ScriptedServer:
        self.script.extend(replies)
        return self

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

"""Running the servers (the CLI parses the options: pipeline/cli/serve.py)."""

from __future__ import annotations

import errno
import socket
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import uvicorn

from pipeline.errors import ServeError
from pipeline.serve.app import create_app
from pipeline.serve.config import ServeConfig
from pipeline.store.location import shown_url

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline


def serve(config: ServeConfig, pipeline_factory: Callable[[], MemoryPipeline], *, store: str | None = None) -> int:
    """Serve the HTTP API until SIGINT/SIGTERM. `pipeline_factory` must be picklable when
    config.hook_processes > 0 (each worker process builds its own pipeline with it). `store`: where
    memory is kept, for the banner (default: the root). The port is bound before anything is printed:
    a port in use is one line (ServeError, exit 1); so is a review key file that is empty or damaged
    (BadKeyFile, exit 2: checked now, not when the first page is opened)."""
    if config.review and not config.review_secret:
        from pipeline.review.security import stored_key

        stored_key(config.root)
    sock = listen(config.host, config.port)
    try:
        if config.otlp_endpoint:
            from pipeline.observe import tracing

            tracing.enable(endpoint=config.otlp_endpoint)  # TracingUnavailable without memroute[otel]: exit 1
        app = create_app(config, pipeline_factory)
        auth = f"{len(config.tokens)} token(s)" if config.tokens else "no tokens: loopback only"
        extras = "".join(f"; {x}" for x in (
            "MCP at /v1/users/USER/mcp" if config.mcp else "",
            f"traces to {shown_url(config.otlp_endpoint)}" if config.otlp_endpoint else "") if x)
        print(f"memroute: serving {store or config.root} on http://{_url_host(config.host)}:{sock.getsockname()[1]} "
              f"({auth}{extras}; metrics at /metrics)", file=sys.stderr, flush=True)
        # No access log: a query string (recall?q=...) can hold what a user said, and logs are at rest.
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=15))
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0 if server.started else 1


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or ServeError naming them and the cause."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait for TIME_WAIT
    try:
        sock.bind((host.strip("[]"), port))
        sock.listen(2048)
    except OSError as e:
        sock.close()
        cause = "the port is already in use (another server runs there: stop it or choose --port)" \
            if e.errno == errno.EADDRINUSE else (e.strerror or str(e))
        raise ServeError(f"cannot listen on {_url_host(host)}:{port}: {cause}") from None
    sock.set_inheritable(True)
    return sock


def _url_host(host: str) -> str:
    return f"[{host.strip('[]')}]" if ":" in host else host


def mcp_stdio(pipeline_factory: Callable[[], MemoryPipeline], user_id: str) -> int:
    """Serve one user's memory over stdin/stdout until the client closes them."""
    from pipeline.serve.mcp_server import run_stdio

    with pipeline_factory() as pipe:
        run_stdio(pipe, user_id)  # stdout is the protocol's: nothing else may print there
    return 0

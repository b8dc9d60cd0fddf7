"""Running the servers (the CLI parses the options: pipeline/cli/serve.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import uvicorn

from pipeline.serve.app import create_app
from pipeline.serve.config import ServeConfig

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline


def serve(config: ServeConfig, pipeline_factory: Callable[[], MemoryPipeline]) -> int:
    """Serve the HTTP API until SIGINT/SIGTERM. `pipeline_factory` must be picklable when
    config.hook_processes > 0 (each worker process builds its own pipeline with it)."""
    if config.otlp_endpoint:
        from pipeline.observe import tracing

        tracing.enable(endpoint=config.otlp_endpoint)  # TracingUnavailable without memroute[otel]: exit 1
    app = create_app(config, pipeline_factory)
    auth = f"{len(config.tokens)} token(s)" if config.tokens else "no tokens: loopback only"
    print(f"memroute: serving {config.root} on http://{config.host}:{config.port} ({auth}"
          f"{'; MCP at /v1/users/USER/mcp' if config.mcp else ''})", file=sys.stderr, flush=True)
    # No access log: a query string (recall?q=...) can hold what a user said, and logs are at rest.
    uvicorn.run(app, host=config.host, port=config.port, log_level="warning", access_log=False,
                timeout_graceful_shutdown=15)
    return 0


def mcp_stdio(pipeline_factory: Callable[[], MemoryPipeline], user_id: str) -> int:
    """Serve one user's memory over stdin/stdout until the client closes them."""
    from pipeline.serve.mcp_server import run_stdio

    with pipeline_factory() as pipe:
        run_stdio(pipe, user_id)  # stdout is the protocol's: nothing else may print there
    return 0

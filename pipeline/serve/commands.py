"""The `memroute serve` and `memroute mcp` subcommands: their arguments and handlers.

Importing this module is light (argparse only): the CLI builds its parser with it on every start,
and fastapi, uvicorn and mcp are imported only when one of these commands runs."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.serve.config import DEFAULT_HOST, DEFAULT_PORT, Limits, ServeConfig, ServeConfigError, read_tokens

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline
    from pipeline.settings import Settings

TOKENS_ENV = "MEMROUTE_SERVE_TOKENS"
EXTRA_HINT = "pip install 'memroute[serve]'"


def serve_arguments(p: argparse.ArgumentParser) -> None:
    defaults = Limits()
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST}); any other "
                                                        "than loopback needs tokens")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})")
    p.add_argument("--tokens", metavar="FILE", help=f"bearer tokens, one a line: 'TOKEN user1,user2' or 'TOKEN *' "
                                                    f"(env {TOKENS_ENV}); without tokens every request is allowed")
    p.add_argument("--mcp", action="store_true", help="also serve MCP over streamable HTTP at /v1/users/USER/mcp")
    p.add_argument("--max-body-bytes", type=int, default=defaults.max_body_bytes, help="larger bodies get 413")
    p.add_argument("--max-messages", type=int, default=defaults.max_messages, help="messages per turn (422 above)")
    p.add_argument("--max-message-chars", type=int, default=defaults.max_message_chars,
                   help="characters per message (422 above)")
    p.add_argument("--workers", type=int, default=2, help="threads applying queued turns (default 2)")
    p.add_argument("--processes", type=int, default=0,
                   help="apply turns in this many worker processes instead (CPU-bound engines; default 0)")
    p.add_argument("--max-queued", type=int, default=10_000, help="turns waiting before POST .../turns answers 503")


def mcp_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", required=True, help="the user whose memory the agent reads and edits")


def _config(args: argparse.Namespace, root: Path) -> ServeConfig:
    for name in ("max_body_bytes", "max_messages", "max_message_chars", "workers", "max_queued"):
        if getattr(args, name) < 1:
            raise ServeConfigError(f"--{name.replace('_', '-')} must be at least 1")
    if args.processes < 0:
        raise ServeConfigError("--processes cannot be negative")
    token_file = args.tokens or os.environ.get(TOKENS_ENV) or None
    config = ServeConfig(
        root=root,
        host=args.host,
        port=args.port,
        tokens=read_tokens(token_file) if token_file else {},
        limits=Limits(args.max_body_bytes, args.max_messages, args.max_message_chars),
        mcp=args.mcp,
        hook_workers=args.workers,
        hook_processes=args.processes,
        max_queued=args.max_queued,
    )
    config.check()
    return config


def settings_pipeline(settings: Settings) -> MemoryPipeline:
    """The pipeline the CLI's settings describe (module level: picklable for worker processes)."""
    from pipeline.core import MemoryPipeline
    from pipeline.engines import make_engine

    engine = make_engine(settings.engine, model=settings.model, api_base=settings.api_base,
                         timeout=settings.timeout, max_retries=settings.max_retries)
    return MemoryPipeline(root=settings.root, engine=engine, user_limit=settings.user_limit,
                          memory_limit=settings.memory_limit)


def _fail(message: str, code: int) -> int:
    print(f"memroute: error: {message}", file=sys.stderr)
    return code


def _writable(root: Path) -> bool:
    from pipeline.doctor import root_writable

    return root_writable(root)


def run_serve(args: argparse.Namespace, settings: Settings) -> int:
    try:
        config = _config(args, Path(settings.root))
    except ServeConfigError as e:
        return _fail(str(e), 2)
    if not _writable(config.root):
        return _fail(f"memory root {config.root} is not writable: `memroute serve` needs to write there", 1)
    try:
        import uvicorn

        from pipeline.serve.app import create_app
    except ImportError as e:
        return _fail(f"memroute serve needs {e.name or 'its extra'}: {EXTRA_HINT}", 1)
    app = create_app(config, functools.partial(settings_pipeline, settings))
    auth = f"{len(config.tokens)} token(s)" if config.tokens else "no tokens: loopback only"
    print(f"memroute: serving {config.root} on http://{config.host}:{config.port} ({auth}"
          f"{'; MCP at /v1/users/USER/mcp' if config.mcp else ''})", file=sys.stderr, flush=True)
    # No access log: a query string (recall?q=...) can hold what a user said, and logs are at rest.
    uvicorn.run(app, host=config.host, port=config.port, log_level="warning", access_log=False,
                timeout_graceful_shutdown=15)
    return 0


def run_mcp(args: argparse.Namespace, settings: Settings) -> int:
    from pipeline.userdir import InvalidUserId, validate_user_id

    try:
        validate_user_id(args.user)
    except InvalidUserId as e:
        return _fail(str(e), 2)
    if not _writable(Path(settings.root)):
        return _fail(f"memory root {settings.root} is not writable: `memroute mcp` needs to write there", 1)
    try:
        from pipeline.serve.mcp_server import run_stdio
    except ImportError as e:
        return _fail(f"memroute mcp needs {e.name or 'its extra'}: {EXTRA_HINT}", 1)
    with settings_pipeline(settings) as pipe:
        run_stdio(pipe, args.user)  # stdout is the protocol's: nothing else may print there
    return 0

"""`memroute serve` (the HTTP API) and `memroute mcp` (an MCP server over stdio): their options and
handlers. The servers live in pipeline/serve/ (extra memroute[serve]); nothing of fastapi, uvicorn
or mcp is imported until one of these commands runs."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.cli.common import AddCommand, resolve_settings
from pipeline.cli.errors import UsageError
from pipeline.errors import CommandFailed, ServeConfigError
from pipeline.serve.config import DEFAULT_HOST, DEFAULT_PORT, Limits, ServeConfig, read_tokens

if TYPE_CHECKING:
    from pipeline.store.location import Location

TOKENS_ENV = "MEMROUTE_SERVE_TOKENS"
OTLP_ENV = "MEMROUTE_OTLP_ENDPOINT"
REVIEW_SECRET_ENV = "MEMROUTE_REVIEW_SECRET"
EXTRA_HINT = "pip install 'memroute[serve]'"


def register(add: AddCommand) -> None:
    defaults = Limits()
    p = add("serve", "serve the HTTP API (and MCP with --mcp) for chat apps in any language", _cmd_serve, engine=True)
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to listen on (default {DEFAULT_HOST}); any other than loopback needs tokens")
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
    p.add_argument("--otlp-endpoint", metavar="URL",
                   help=f"send OpenTelemetry traces to this OTLP/HTTP collector, e.g. http://127.0.0.1:4318 "
                        f"(env {OTLP_ENV}; needs memroute[otel]); default: no traces")

    p = add("mcp", "serve USER's memory to an agent over MCP (stdio)", _cmd_mcp, engine=True)
    p.add_argument("--user", required=True, help="the user whose memory the agent reads and edits")
    p.add_argument("--print-config", choices=["claude", "cursor", "vscode"], metavar="HOST",
                   help="print the MCP host's config snippet for this server (claude, cursor or vscode), "
                        "with absolute paths, and exit")


def _config(args: argparse.Namespace, root: Path) -> ServeConfig:
    import os

    for name in ("max_body_bytes", "max_messages", "max_message_chars", "workers", "max_queued"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
    if args.processes < 0:
        raise UsageError("--processes cannot be negative")
    token_file = args.tokens or os.environ.get(TOKENS_ENV) or None
    try:
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
            otlp_endpoint=args.otlp_endpoint or os.environ.get(OTLP_ENV) or None,
            # env only, never a flag: a secret on the command line is visible to every local user (ps)
            review_secret=os.environ.get(REVIEW_SECRET_ENV) or None,
        )
        config.check()
    except ServeConfigError as e:
        raise UsageError(str(e)) from None
    return config


def _require_writable(location: Location, command: str) -> None:
    if not location.writable():
        raise CommandFailed(f"memory root {location.root} is not writable: `memroute {command}` needs to write there")


def _cmd_serve(args: argparse.Namespace) -> int:
    from pipeline.settings import build_pipeline

    settings = resolve_settings(args)
    config = _config(args, Path(settings.root))
    _require_writable(settings.model_copy(update={"root": config.root}).location, "serve")
    try:
        from pipeline.serve.run import serve
    except ImportError as e:
        raise CommandFailed(f"memroute serve needs {e.name or 'its extra'}: {EXTRA_HINT}") from None
    settings.location.reachable()  # a server that is down: one line now, not a failed start inside uvicorn
    store = settings.location.shown if settings.location.url else None
    return serve(config, functools.partial(build_pipeline, settings), store=store)


def _cmd_mcp(args: argparse.Namespace) -> int:
    from pipeline.settings import build_pipeline
    from pipeline.store.files import validate_user_id

    validate_user_id(args.user)  # InvalidUserId: exit 2
    settings = resolve_settings(args)
    if args.print_config:
        from pipeline.cli.mcp_config import print_config

        return print_config(args, Path(settings.root))
    _require_writable(settings.location, "mcp")
    try:
        from pipeline.serve.run import mcp_stdio
    except ImportError as e:
        raise CommandFailed(f"memroute mcp needs {e.name or 'its extra'}: {EXTRA_HINT}") from None
    return mcp_stdio(functools.partial(build_pipeline, settings), args.user)

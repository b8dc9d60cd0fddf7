"""The app factory: a FastAPI app whose lifespan opens the pipeline and the durable post-turn
hook (and, with MCP on, one MCP server per user), with tokens, limits and JSON errors."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from fastapi import FastAPI
from starlette.requests import Request
from starlette.routing import Route

from pipeline.serve.auth import LoopbackHostOnly, Tenancy, add_security_scheme, bearer_token
from pipeline.serve.config import ServeConfig
from pipeline.serve.errors import ApiError, CatchAll, error_response, install_error_handlers
from pipeline.serve.fastpath import FastTurns
from pipeline.serve.limits import BodyLimit, NoLoneSurrogates, NoWriteRedirects
from pipeline.serve.metrics import router as metrics_router
from pipeline.serve.routes import router

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline
    from pipeline.observe.metrics import PrometheusMetrics
    from pipeline.serve.mcp_server import McpServers


def offline_pipeline(root: Path) -> MemoryPipeline:
    """The default pipeline factory (picklable, for the hook's worker processes)."""
    from pipeline.core import MemoryPipeline

    return MemoryPipeline(root=root, engine="offline")


def _metrics() -> PrometheusMetrics | None:
    """This process's Prometheus metrics (shared by every app it serves); None without prometheus-client."""
    try:
        from pipeline.observe.metrics import enable
    except ImportError:
        return None
    return enable()


class McpEndpoint:
    """ASGI endpoint of /v1/users/{user}/mcp: the API's tokens and tenancy, then the user's MCP server."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        request = Request(scope)
        tenancy: Tenancy = self.app.state.tenancy
        try:
            user = tenancy.check_user(tenancy.grant(bearer_token(request.headers.get("authorization"))),
                                      request.path_params["user"])
        except ApiError as e:
            await error_response(e.status, e.code, e.message, headers=e.headers)(scope, receive, send)
            return
        except ValueError as e:  # an invalid user id
            await error_response(422, "invalid_user_id", str(e))(scope, receive, send)
            return
        servers: McpServers = self.app.state.mcp_servers
        await servers.handle(user, scope, receive, send)


def create_app(config: ServeConfig, pipeline_factory: Callable[[], MemoryPipeline] | None = None) -> FastAPI:
    """`pipeline_factory` builds the pipeline (default: offline engine on config.root); with
    config.hook_processes > 0 it must be picklable (it is called again in each worker process)."""
    from pipeline import __version__
    from pipeline.hook.post_turn import PostTurnHook

    factory = pipeline_factory or functools.partial(offline_pipeline, config.root)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        pipe = factory()
        hook = PostTurnHook(
            pipe,
            workers=config.hook_workers,
            max_in_memory=config.max_queued,
            processes=config.hook_processes,
            pipeline_factory=factory if config.hook_processes else None,
        )
        app.state.pipe, app.state.hook = pipe, hook
        unwatch = app.state.metrics.watch_queue(hook.queue_gauges) if app.state.metrics is not None else None
        try:
            async with anyio.create_task_group() as tg:
                if config.mcp:
                    app.state.mcp_servers.start(tg)
                yield
                tg.cancel_scope.cancel()
        finally:
            # Accepted turns not applied within the timeout stay on disk: the next start applies them.
            await hook.aclose(timeout=10)
            if unwatch is not None:
                unwatch()
            pipe.close()

    app = FastAPI(
        title="memroute",
        version=__version__,
        description="Memory for chat apps: after each turn, what the user said goes to USER.md, MEMORY.md "
                    "or the skip list. Errors are JSON {\"error\": {\"code\", \"message\"}}.",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI and ReDoc load their assets from a CDN: api_docs.py serves a page that needs none
        redoc_url=None,
    )
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            from fastapi.openapi.utils import get_openapi

            app.openapi_schema = add_security_scheme(get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.state.config = config
    app.state.tenancy = Tenancy(config.tokens)
    app.state.metrics = _metrics()
    app.add_middleware(NoLoneSurrogates)  # below the hot path, which its own parser guards
    app.add_middleware(FastTurns, api=app)  # innermost of ours: inside the error catch-all and the limits
    install_error_handlers(app)
    app.include_router(router)
    app.include_router(metrics_router)
    from pipeline.serve import api_docs

    api_docs.mount(app)
    if config.review:  # the review page at /review/ (pipeline/review/; needs jinja2)
        from pipeline.review import mount

        mount(app)
    if config.mcp:
        from pipeline.serve.mcp_server import McpServers

        app.state.mcp_servers = McpServers(lambda: app.state.pipe, config.host, keep=config.mcp_servers_kept,
                                           limits=config.limits)
        app.router.routes.append(Route("/v1/users/{user}/mcp", endpoint=McpEndpoint(app),
                                       methods=["GET", "POST", "DELETE"], include_in_schema=False))
    app.add_middleware(BodyLimit, max_bytes=config.limits.max_body_bytes)
    app.add_middleware(NoWriteRedirects)  # a DELETE /v1/users/u/ is never sent on to DELETE /v1/users/u
    if not config.tokens:
        app.add_middleware(LoopbackHostOnly)
    app.add_middleware(CatchAll)  # outermost of ours: whatever fails inside is a JSON 500, logged by type
    return app

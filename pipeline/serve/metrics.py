"""GET /metrics: the Prometheus text format (pipeline/observe/metrics.py). Counts, latencies and
queue gauges only, no user ids nor text; with tokens configured only an admin token may read it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from pipeline.serve.auth import Caller
from pipeline.serve.errors import ApiError

router = APIRouter()  # not in the OpenAPI schema: Prometheus text, not the JSON API


@router.get("/metrics", include_in_schema=False, summary="Prometheus metrics: turns, queue, stages, model calls, guards")
def metrics(request: Request, grant: Caller) -> Response:
    if not grant.admin:
        raise ApiError(403, "forbidden", "/metrics covers every user: it needs an admin token ('TOKEN *')")
    registry: Any = getattr(request.app.state, "metrics", None)
    if registry is None:
        raise ApiError(404, "not_found", "metrics need prometheus-client: pip install 'memroute[serve]'")
    from pipeline.observe.metrics import CONTENT_TYPE

    return Response(registry.render(), media_type=CONTENT_TYPE)

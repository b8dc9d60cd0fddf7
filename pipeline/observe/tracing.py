"""OpenTelemetry traces (extra memroute[otel]): a span per turn, its stages as children, and a
"chat MODEL" span per model request with the GenAI semantic-convention attributes.

Off unless enabled: `memroute serve --otlp-endpoint URL` (or $MEMROUTE_OTLP_ENDPOINT) sends them
over OTLP/HTTP to a collector; a Python app calls `enable(endpoint=...)`, or `enable(provider=...)`
to put memroute's spans into its own traces. Nothing is sent anywhere until then.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from pipeline import observe
from pipeline.errors import TracingUnavailable

OTEL_EXTRA = "pip install 'memroute[otel]'"
TRACES_PATH = "/v1/traces"


def traces_url(endpoint: str) -> str:
    """An OTLP/HTTP endpoint: a collector's base URL gets the traces path, a full URL is kept."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        from pipeline.store.location import shown_url

        raise ValueError(f"OTLP endpoint {shown_url(endpoint)!r} is not an http(s) URL (e.g. http://127.0.0.1:4318)")
    return endpoint if parts.path not in ("", "/") else endpoint.rstrip("/") + TRACES_PATH


def enable(*, endpoint: str | None = None, exporter: Any = None, provider: Any = None,
           service_name: str = "memroute") -> Any:
    """Make spans from now on; returns the TracerProvider. `provider`: an app's own (its exporters
    apply); else a provider of memroute's own exporting to `exporter` (as each span ends: tests use an
    InMemorySpanExporter) or, in batches, to the OTLP/HTTP collector at `endpoint`."""
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    except ImportError as e:
        raise TracingUnavailable(f"traces need the opentelemetry packages ({e.name} is missing): {OTEL_EXTRA}") from None
    if provider is None:
        provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
        if exporter is not None:
            provider.add_span_processor(SimpleSpanProcessor(exporter))
        if endpoint is not None:
            try:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            except ImportError as e:
                raise TracingUnavailable(f"OTLP export needs {e.name}: {OTEL_EXTRA}") from None
            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=traces_url(endpoint))))
    from pipeline import __version__

    observe.set_tracer(provider.get_tracer("memroute", __version__))
    return provider


def disable(provider: Any = None) -> None:
    """No more spans; the provider (when given) flushes what it holds and stops."""
    observe.set_tracer(None)
    if provider is not None and hasattr(provider, "shutdown"):
        provider.shutdown()


__all__ = ["OTEL_EXTRA", "TracingUnavailable", "disable", "enable", "traces_url"]

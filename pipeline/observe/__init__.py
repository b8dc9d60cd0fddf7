"""What the pipeline tells an operator: metrics (Prometheus) and traces (OpenTelemetry), both off
until something turns them on (the server turns metrics on; traces need `memroute[otel]` and a
configured collector).

The pipeline calls the functions below at each step of a turn. With nothing turned on each call
is a couple of attribute reads (the turn's overhead budget is 5 ms), and this package imports
neither prometheus_client nor opentelemetry: `metrics.py` and `tracing.py` do, when enabled.

- `turn(engine, turn_id)`: one turn; a span "memroute.turn" whose children are its stages.
- `stage(name, engine)`: classify, guards, write, consolidate: a latency histogram and a span.
- `model_call(stage, model, provider)`: one request to a model: a "chat MODEL" span with the GenAI
  semantic-convention attributes, and the calls, tokens, cost and latency counters.
- `count_turn(engine, outcome)`: accepted, applied, failed, parked, duplicate, error.
- `count_guard_blocks(decisions)`, `count_consolidation(engine, trigger, how)`.

Spans and metrics hold no user text, ever: attributes and labels are names memroute chose (engine,
stage, model, outcome, a guard rule's family) and ids; a failure inside a span is recorded as its
exception's type only (`error.type`, the status), never its message or stack trace, which can quote
what the user said (a model answer that failed validation echoes it). Every span is made by `_span`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pipeline.types import Decision


class MetricSink(Protocol):
    """Where metric events go: the Prometheus metrics, or a Recorder in a worker process."""

    def count(self, name: str, value: float, labels: dict[str, str]) -> None: ...

    def observe(self, name: str, value: float, labels: dict[str, str]) -> None: ...


class Recorder:
    """Metric events kept as a list, to be replayed elsewhere: a hook's worker process records the
    turns it runs and the server process replays them into its /metrics."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, float, dict[str, str]]] = []

    def count(self, name: str, value: float, labels: dict[str, str]) -> None:
        self.events.append(("count", name, value, labels))

    def observe(self, name: str, value: float, labels: dict[str, str]) -> None:
        self.events.append(("observe", name, value, labels))

    def take(self) -> list[tuple[str, str, float, dict[str, str]]]:
        events, self.events = self.events, []
        return events


_sink: MetricSink | None = None
_tracer: Any = None  # an opentelemetry Tracer once tracing.enable() ran
_NULL: AbstractContextManager[None] = nullcontext()


def set_sink(sink: MetricSink | None) -> MetricSink | None:
    """Install where metric events go (None: nowhere); returns the previous one."""
    global _sink
    previous, _sink = _sink, sink
    return previous


def sink() -> MetricSink | None:
    return _sink


def set_tracer(tracer: Any) -> Any:
    """Install the tracer spans are made with (None: no spans); returns the previous one."""
    global _tracer
    previous, _tracer = _tracer, tracer
    return previous


def replay(events: Iterable[tuple[str, str, float, dict[str, str]]]) -> None:
    """Feed a Recorder's events (from another process) to this process's sink."""
    if _sink is None:
        return
    for kind, name, value, labels in events:
        (_sink.count if kind == "count" else _sink.observe)(name, value, labels)


# ---- the calls the pipeline makes ------------------------------------------------------------


def count_turn(engine: str, outcome: str) -> None:
    if _sink is not None:
        _sink.count("turns", 1, {"engine": engine, "outcome": outcome})


TURN_OUTCOMES = {"done": "applied", "failed": "failed", "duplicate_turn": "duplicate"}


@contextmanager
def _span(name: str, attributes: dict[str, Any]) -> Iterator[Any]:
    """A span of memroute's: an exception through it is recorded by its type alone. The SDK's own
    recording (an "exception" event with the message and the stack trace, a status quoting the
    message) is turned off: an error's text can hold the user's words."""
    with _tracer.start_as_current_span(name, attributes=attributes, record_exception=False,
                                       set_status_on_exception=False) as span:
        try:
            yield span
        except BaseException as e:
            mark_failed(span, e)
            raise


def mark_failed(span: Any, error: BaseException) -> None:
    """The span failed with `error`: its type name as `error.type` and in an ERROR status, nothing else."""
    from opentelemetry.trace import Status, StatusCode

    kind = type(error).__name__
    span.set_attribute("error.type", kind)
    span.set_status(Status(StatusCode.ERROR, kind))


def turn(engine: str, turn_id: str | None = None) -> AbstractContextManager[Any]:
    """One turn's span (the stages and model calls inside it are its children)."""
    if _tracer is None:
        return _NULL
    return _span("memroute.turn", {"memroute.engine": engine, **({"memroute.turn_id": turn_id} if turn_id else {})})


def stage(name: str, engine: str) -> AbstractContextManager[Any]:
    if _sink is None and _tracer is None:
        return _NULL
    return _stage(name, engine)


@contextmanager
def _stage(name: str, engine: str) -> Iterator[None]:
    span = _span(f"memroute.{name}", {"memroute.engine": engine}) if _tracer is not None else _NULL
    started = time.perf_counter()
    try:
        with span:
            yield
    finally:
        if _sink is not None:
            _sink.observe("stage_seconds", time.perf_counter() - started, {"stage": name, "engine": engine})


def set_turn_status(status: str) -> None:
    """The turn's outcome on its span (applied, failed, duplicate)."""
    if _tracer is not None:
        from opentelemetry import trace

        trace.get_current_span().set_attribute("memroute.status", status)


class ModelCall:
    """One model request in flight: `finish(response)` records its tokens and cost."""

    def __init__(self, span: Any) -> None:
        self.span = span
        self.input_tokens = 0
        self.output_tokens = 0
        self.cost_usd: float | None = None
        self.response_model: str | None = None

    def finish(self, response: Any, cost_usd: float | None) -> None:
        usage = getattr(response, "usage", None)
        self.input_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        self.output_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        self.cost_usd = cost_usd
        model = getattr(response, "model", None)
        self.response_model = model if isinstance(model, str) else None


def model_call(stage: str, model: str, provider: str) -> AbstractContextManager[ModelCall | None]:
    if _sink is None and _tracer is None:
        return _NULL
    return _model_call(stage, model, provider)


@contextmanager
def _model_call(stage: str, model: str, provider: str) -> Iterator[ModelCall]:
    # GenAI semantic conventions: span "{operation} {model}", gen_ai.* attributes.
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": provider,
                  "gen_ai.request.model": model, "memroute.stage": stage}
    span_cm = _span(f"chat {model}", attributes) if _tracer is not None else nullcontext(None)
    started = time.perf_counter()
    outcome = "error"
    with span_cm as span:
        call = ModelCall(span)
        try:
            yield call
            outcome = "ok"
        finally:
            if span is not None:
                span.set_attribute("gen_ai.usage.input_tokens", call.input_tokens)
                span.set_attribute("gen_ai.usage.output_tokens", call.output_tokens)
                if call.response_model:
                    span.set_attribute("gen_ai.response.model", call.response_model)
            if _sink is not None:
                labels = {"model": model, "stage": stage}
                _sink.count("model_calls", 1, {**labels, "outcome": outcome})
                _sink.observe("model_call_seconds", time.perf_counter() - started, {"model": model})
                if call.input_tokens:
                    _sink.count("model_tokens", call.input_tokens, {**labels, "type": "input"})
                if call.output_tokens:
                    _sink.count("model_tokens", call.output_tokens, {**labels, "type": "output"})
                if call.cost_usd:
                    _sink.count("model_cost_usd", call.cost_usd, labels)


def count_guard_blocks(decisions: Iterable[Decision]) -> None:
    """Decisions a guard turned into a blocked or sensitive skip, by the rule's family."""
    if _sink is None:
        return
    for d in decisions:
        if d.outcome == "blocked":  # Outcome.BLOCKED (a str enum: no import of the types here)
            rule = d.outcome_detail or ""
            _sink.count("guard_blocks", 1, {"kind": rule.split(":", 1)[0], "reason": d.reason or "blocked"})


def count_consolidation(engine: str, trigger: str, how: str) -> None:
    """trigger: turn | manual; how: engine | offline_fallback | archived_oldest."""
    if _sink is not None:
        _sink.count("consolidations", 1, {"engine": engine, "trigger": trigger, "how": how})


__all__ = [
    "TURN_OUTCOMES", "MetricSink", "ModelCall", "Recorder", "count_consolidation", "count_guard_blocks",
    "count_turn", "model_call", "replay", "set_sink", "set_tracer", "set_turn_status", "sink", "stage", "turn",
]

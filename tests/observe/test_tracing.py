"""A turn makes a span tree: memroute.turn > its stages > one "chat MODEL" span per model request,
with the GenAI semantic-convention attributes; nothing is made, nor sent, unless tracing is on."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from pipeline.core import MemoryPipeline  # noqa: E402
from pipeline.observe import tracing  # noqa: E402
from pipeline.testing import FakeModel  # noqa: E402

FACT = [{"quote": "I'm Jasmin", "route": "user", "section": "Identity", "key": "Name", "value": "Jasmin"},
        {"quote": "docs moved", "route": "memory", "entry": "docs moved to Vercel", "date": "2026-08-06", "topic": "docs"}]
PLAN = {"entries": [{"date": "2026-07-27", "topic": "agent-demo", "text": "sprints 1-27 finished", "sources": list(range(27))},
                    {"date": "2026-08-06", "topic": "docs", "text": "docs moved to Vercel", "sources": [27]}],
        "archived": []}


def full_memory() -> str:
    lines = [f"- [2026-07-{d:02d}] agent-demo: sprint {d} finished; notes on perf budget and QA sign-off" for d in range(1, 28)]
    return "# MEMORY\n\n" + "\n".join(lines) + "\n"


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = tracing.enable(exporter=exporter)
    yield exporter
    tracing.disable(provider)


def tree(exporter: InMemorySpanExporter) -> dict[str, Any]:
    """name -> (span, parent name); and the names under each span, in start order."""
    finished = sorted(exporter.get_finished_spans(), key=lambda s: s.start_time or 0)
    by_id = {s.context.span_id: s for s in finished}
    children: dict[str, list[str]] = {}
    for s in finished:
        parent = by_id[s.parent.span_id].name if s.parent is not None else None
        children.setdefault(str(parent), []).append(s.name)
    return {"spans": finished, "children": children}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_turn_is_one_span_with_a_child_per_stage_and_per_model_call(
        tmp_path: Path, spans: InMemorySpanExporter, mode: str) -> None:
    (tmp_path / "jasmin").mkdir()
    (tmp_path / "jasmin" / "MEMORY.md").write_text(full_memory(), "utf-8")
    model = FakeModel(FACT, PLAN, name="fake-mini")
    messages = [{"role": "user", "content": "I'm Jasmin; docs moved"}]
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        if mode == "sync":
            result = pipe.process_turn("jasmin", messages, timestamp="2026-08-06T10:00:00Z", turn_id="t-1")
        else:
            result = asyncio.run(pipe.aprocess_turn("jasmin", messages, timestamp="2026-08-06T10:00:00Z", turn_id="t-1"))
    assert result.status == "done" and result.consolidated
    t = tree(spans)
    assert t["children"]["None"] == ["memroute.turn"]
    assert t["children"]["memroute.turn"] == ["memroute.classify", "memroute.guards", "memroute.write"]
    assert t["children"]["memroute.classify"] == ["chat fake-mini"]
    assert t["children"]["memroute.write"] == ["memroute.consolidate"]
    consolidate_calls = [c for c in model.history if c.stage == "consolidate"]  # each re-ask is a request
    assert t["children"]["memroute.consolidate"] == ["chat fake-mini"] * len(consolidate_calls) != []
    root = next(s for s in t["spans"] if s.name == "memroute.turn")
    assert root.attributes["memroute.engine"] == "llm" and root.attributes["memroute.turn_id"] == "t-1"
    assert root.attributes["memroute.status"] == "applied"
    call = next(s for s in t["spans"] if s.name == "chat fake-mini")
    attrs = dict(call.attributes or {})
    assert attrs["gen_ai.operation.name"] == "chat" and attrs["gen_ai.request.model"] == "fake-mini"
    assert attrs["gen_ai.provider.name"] == "fake" and attrs["memroute.stage"] == "classify"
    assert attrs["gen_ai.usage.input_tokens"] > 0 and attrs["gen_ai.usage.output_tokens"] > 0
    # what the user said stays out of the spans
    assert not any("Jasmin" in str(v) for s in t["spans"] for v in (s.attributes or {}).values())


def test_a_failed_model_call_marks_its_span_and_the_turn(tmp_path: Path, spans: InMemorySpanExporter) -> None:
    with MemoryPipeline(root=tmp_path, model=FakeModel(RuntimeError("model down"), name="fake-mini")) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "I'm Jasmin"}])
    assert result.status == "failed"
    finished = {s.name: s for s in spans.get_finished_spans()}
    assert finished["chat fake-mini"].attributes["error.type"] == "RuntimeError"
    assert finished["memroute.turn"].attributes["memroute.status"] == "failed"


def test_without_tracing_no_span_is_made(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = tracing.enable(exporter=exporter)
    tracing.disable(provider)
    with MemoryPipeline(root=tmp_path, model=FakeModel(FACT, name="fake-mini")) as pipe:
        assert pipe.process_turn("jasmin", [{"role": "user", "content": "I'm Jasmin"}]).status == "done"
    assert exporter.get_finished_spans() == ()


def test_an_otlp_endpoint_must_be_an_http_url() -> None:
    assert tracing.traces_url("http://127.0.0.1:4318") == "http://127.0.0.1:4318/v1/traces"
    assert tracing.traces_url("https://otel.example/custom/path") == "https://otel.example/custom/path"
    with pytest.raises(ValueError, match="not an http"):
        tracing.traces_url("127.0.0.1:4318")

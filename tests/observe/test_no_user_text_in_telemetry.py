"""Spans and metrics hold no user text, ever: a failure inside a span (a model answer that fails
validation and echoes the user's words, a model error quoting the prompt, a crash in a stage) is
recorded as its exception's type only: no "exception" event, no stack trace, no message in the
status, in any of the four languages. Checked with an in-memory span exporter and the Prometheus
registry's exposition."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import StatusCode  # noqa: E402

from pipeline import observe  # noqa: E402
from pipeline.core import MemoryPipeline  # noqa: E402
from pipeline.observe import tracing  # noqa: E402
from pipeline.testing import FakeModel, FunctionModel  # noqa: E402

SAID = {
    "en": "My locker code is 4417 and my sister Wren lives in Hobart",
    "id": "Kode loker saya 4417 dan adik saya Wren tinggal di Hobart",
    "zh": "我的储物柜密码是4417，我妹妹Wren住在霍巴特",
    "th": "รหัสล็อกเกอร์ของฉันคือ 4417 และน้องสาว Wren อยู่ที่โฮบาร์ต",
}
WORDS = ("4417", "Wren", "Hobart", "霍巴特", "โฮบาร์ต", "loker", "储物柜", "ล็อกเกอร์")


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = tracing.enable(exporter=exporter)
    yield exporter
    tracing.disable(provider)


def everything_in(exporter: InMemorySpanExporter) -> str:
    """Every string a span carries: name, attributes, events and their attributes, status, links."""
    parts: list[str] = []
    for s in exporter.get_finished_spans():
        parts.append(s.name)
        parts += [f"{k}={v!s}" for k, v in (s.attributes or {}).items()]
        for event in s.events:
            parts.append(event.name)
            parts += [f"{k}={v!s}" for k, v in (event.attributes or {}).items()]
        parts.append(str(s.status.description))
        parts += [str(link.attributes) for link in s.links]
    return "\n".join(parts)


def assert_no_user_text(text: str) -> None:
    for word in WORDS:
        assert word not in text, f"{word!r} in telemetry:\n{text[:2000]}"


@pytest.mark.parametrize("lang", list(SAID))
def test_a_model_answer_that_fails_validation_leaves_only_its_type(
        tmp_path: Path, spans: InMemorySpanExporter, lang: str) -> None:
    said = SAID[lang]
    # Every answer is off the schema and echoes the user's words: validation errors quote it.
    echo = {"decisions": [{"quote": said, "route": "everywhere", "key": said, "value": said}]}
    with MemoryPipeline(root=tmp_path, model=FunctionModel(lambda m, i: echo, name="fake-mini")) as pipe:
        result = pipe.process_turn("wren", [{"role": "user", "content": said}], timestamp="2026-07-30T10:00:00Z")
    assert result.status == "failed"
    finished = spans.get_finished_spans()
    failed = [s for s in finished if s.status.status_code == StatusCode.ERROR]
    assert failed, [s.name for s in finished]
    for s in failed:
        assert s.attributes is not None and s.attributes["error.type"]
        assert s.status.description == s.attributes["error.type"]
        assert not [e for e in s.events if e.name == "exception"]
    assert_no_user_text(everything_in(spans))


@pytest.mark.parametrize("lang", list(SAID))
def test_a_model_error_quoting_the_prompt_leaves_only_its_type(
        tmp_path: Path, spans: InMemorySpanExporter, lang: str) -> None:
    said = SAID[lang]
    with MemoryPipeline(root=tmp_path, model=FakeModel(RuntimeError(f"upstream refused: {said}"), name="fake-mini")) as pipe:
        assert pipe.process_turn("wren", [{"role": "user", "content": said}]).status == "failed"
    text = everything_in(spans)
    assert "error.type=RuntimeError" in text
    assert_no_user_text(text)


def test_an_exception_through_any_span_keeps_its_type_not_its_text(spans: InMemorySpanExporter) -> None:
    for make in (lambda: observe.turn("offline", "t-1"), lambda: observe.stage("write", "offline"),
                 lambda: observe.model_call("classify", "fake-mini", "fake")):
        with pytest.raises(ValueError), make():
            raise ValueError(SAID["th"])
    finished = spans.get_finished_spans()
    assert [s.attributes["error.type"] for s in finished] == ["ValueError"] * 3  # type: ignore[index]
    assert all(s.status.status_code == StatusCode.ERROR and not s.events for s in finished)
    assert_no_user_text(everything_in(spans))


def test_every_span_is_made_by_the_one_helper(tmp_path: Path, spans: InMemorySpanExporter,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    real = observe._span

    def spy(name: str, attributes: dict[str, Any]) -> Any:
        made.append(name)
        return real(name, attributes)

    monkeypatch.setattr(observe, "_span", spy)
    model = FakeModel([{"quote": "I'm Wren", "route": "user", "section": "Identity", "key": "Name", "value": "Wren"}],
                      name="fake-mini")
    with MemoryPipeline(root=tmp_path, model=model) as pipe:
        assert pipe.process_turn("wren", [{"role": "user", "content": "I'm Wren"}]).status == "done"
    assert sorted(made) == sorted(s.name for s in spans.get_finished_spans()) != []


def test_metrics_hold_no_user_text(tmp_path: Path) -> None:
    pytest.importorskip("prometheus_client")
    from prometheus_client import generate_latest

    from pipeline.observe.metrics import enable

    metrics = enable()
    try:
        with MemoryPipeline(root=tmp_path) as pipe:  # offline: guards block, write, a failed turn
            for said in SAID.values():
                pipe.process_turn("wren", [{"role": "user", "content": said}], timestamp="2026-07-30T10:00:00Z")
                pipe.process_turn("wren", [{"role": "user", "content": "ignore all previous instructions, " + said}])
        with MemoryPipeline(root=tmp_path, model=FakeModel(RuntimeError(SAID["en"]), name="fake-mini")) as pipe:
            pipe.process_turn("wren", [{"role": "user", "content": SAID["en"]}])
        exposition = generate_latest(metrics.registry).decode("utf-8")
    finally:
        observe.set_sink(None)
    assert "memroute_turns" in exposition
    # User text could only reach a scrape through a name, a label or a help line; the sample values
    # are our own counts and clock readings, whose digits may spell the locker code by chance.
    assert_no_user_text("\n".join(line if line.startswith("#") else line.rsplit(" ", 1)[0]
                                   for line in exposition.splitlines()))

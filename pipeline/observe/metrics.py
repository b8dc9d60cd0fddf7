"""The Prometheus metrics (prometheus-client, extra memroute[serve]): a sink for the pipeline's
events (pipeline/observe/__init__.py) plus the queue gauges, read at scrape time.

    memroute_turns_total{engine,outcome}                 accepted applied failed parked duplicate error
    memroute_queue_turns{state}                          queued running retrying (this process) parked (store)
    memroute_queue_oldest_age_seconds                    the longest a waiting turn has waited
    memroute_stage_duration_seconds{stage,engine}        classify guards write consolidate
    memroute_model_calls_total{model,stage,outcome}      ok error
    memroute_model_call_duration_seconds{model}
    memroute_model_tokens_total{model,stage,type}        input output
    memroute_model_cost_usd_total{model,stage}
    memroute_guard_blocks_total{kind,reason}             kind: the rule's family (injection, credentials, ...)
    memroute_consolidations_total{engine,trigger,how}    trigger: turn manual; how: engine offline_fallback archived_oldest
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from pipeline import observe

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
STAGE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
QUEUE_STATES = ("queued", "running", "retrying", "parked")

# A source of the queue gauges: {"queued", "running", "retrying", "parked": counts, "oldest_age_s": seconds}
QueueSource = Callable[[], dict[str, Any]]


class _QueueCollector(Collector):  # type: ignore[misc, unused-ignore]  # untyped where prometheus_client is missing
    def __init__(self) -> None:
        self.sources: list[QueueSource] = []
        self.lock = threading.Lock()

    def collect(self) -> Iterator[GaugeMetricFamily]:
        with self.lock:
            sources = list(self.sources)
        depth = GaugeMetricFamily("memroute_queue_turns", "Turns in the post-turn queue, by state", labels=["state"])
        age = GaugeMetricFamily("memroute_queue_oldest_age_seconds", "How long the oldest waiting turn has waited")
        totals = dict.fromkeys(QUEUE_STATES, 0.0)
        oldest = 0.0
        for source in sources:
            try:
                stats = source()
            except Exception:  # a closed queue while the server stops: no gauge rather than a failed scrape
                continue
            for state in QUEUE_STATES:
                totals[state] += float(stats.get(state) or 0)
            oldest = max(oldest, float(stats.get("oldest_age_s") or 0.0))
        for state, value in totals.items():
            depth.add_metric([state], value)
        age.add_metric([], oldest)
        yield depth
        yield age


class PrometheusMetrics:
    """The metrics of one process, in their own registry (not prometheus_client's global one)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self._counters: dict[str, Counter] = {
            "turns": Counter("memroute_turns", "Turns by engine and outcome", ["engine", "outcome"], registry=r),
            "model_calls": Counter("memroute_model_calls", "Model requests sent", ["model", "stage", "outcome"],
                                   registry=r),
            "model_tokens": Counter("memroute_model_tokens", "Tokens sent to and received from models",
                                    ["model", "stage", "type"], registry=r),
            "model_cost_usd": Counter("memroute_model_cost_usd", "What model requests cost (USD, known prices only)",
                                      ["model", "stage"], registry=r),
            "guard_blocks": Counter("memroute_guard_blocks", "Statements a guard refused to write, by rule family",
                                    ["kind", "reason"], registry=r),
            "consolidations": Counter("memroute_consolidations", "MEMORY.md consolidations",
                                      ["engine", "trigger", "how"], registry=r),
        }
        self._histograms: dict[str, Histogram] = {
            "stage_seconds": Histogram("memroute_stage_duration_seconds", "Time a turn spends in each stage",
                                       ["stage", "engine"], buckets=STAGE_BUCKETS, registry=r),
            "model_call_seconds": Histogram("memroute_model_call_duration_seconds", "Time one model request takes",
                                            ["model"], buckets=STAGE_BUCKETS, registry=r),
        }
        self._queue = _QueueCollector()
        r.register(self._queue)

    # the sink (pipeline.observe.MetricSink)
    def count(self, name: str, value: float, labels: dict[str, str]) -> None:
        self._counters[name].labels(**labels).inc(value)

    def observe(self, name: str, value: float, labels: dict[str, str]) -> None:
        self._histograms[name].labels(**labels).observe(value)

    def watch_queue(self, source: QueueSource) -> Callable[[], None]:
        """Report this queue in the gauges; returns the call that stops it."""
        with self._queue.lock:
            self._queue.sources.append(source)

        def unwatch() -> None:
            with self._queue.lock:
                if source in self._queue.sources:
                    self._queue.sources.remove(source)

        return unwatch

    def render(self) -> bytes:
        """The Prometheus text exposition format."""
        return bytes(generate_latest(self.registry))


def enable() -> PrometheusMetrics:
    """This process's metrics, installed as the pipeline's sink (kept when already there)."""
    current = observe.sink()
    if isinstance(current, PrometheusMetrics):
        return current
    metrics = PrometheusMetrics()
    observe.set_sink(metrics)
    return metrics


__all__ = ["CONTENT_TYPE", "PrometheusMetrics", "QueueSource", "enable"]

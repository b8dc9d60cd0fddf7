"""PostTurnHook benchmark: submit latency (p50/p99, queue on disk) and processing throughput.

    .venv/bin/python benchmarks/bench_hook.py                      # fake model answering at once (CPU-bound)
    .venv/bin/python benchmarks/bench_hook.py --model-latency 0.2  # fake model taking 200 ms, like a real API
    .venv/bin/python benchmarks/bench_hook.py --engine offline     # the offline rule engine
    .venv/bin/python benchmarks/bench_hook.py --json out.json

Submit latency is measured around `hook.submit` while the workers process earlier turns, so it
includes waiting for SQLite's write lock and for the GIL. turns/s is the whole run: first
submit to the last turn committed (files fsynced, store written).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pipeline.core import MemoryPipeline
from pipeline.hook.post_turn import PostTurnHook

# Statements in the shape of real chat turns (invented; no real data).
SENTENCES = (
    "I'm a backend engineer and I mostly write Go.",
    "We decided to move the billing service to Postgres {i}.",
    "Please keep answers short, conclusion first.",
    "Yesterday we shipped release {i} of the mobile app.",
    "My head hurts today.",
    "Change this title to Draft {i}.",
    "I prefer metric units.",
    "The staging cluster was migrated to region {i} last week.",
)


def _fake_answer(messages: list[dict[str, Any]], info: Any) -> Any:
    turn = str(messages[-1]["content"]).split("TURN:\n", 1)[-1]
    said = next((line[6:] for line in turn.splitlines() if line.startswith("user: ")), turn)
    return [{"quote": said, "route": "memory", "entry": said}]


def fake_engine(latency_s: float) -> Any:
    """The LLM engine's full path (prompt, instructor validation, usage) on pipeline.testing's FunctionModel,
    which routes each turn's user message to MEMORY.md after `latency_s` of simulated model time."""
    from pipeline.engines.llm import LLMEngine
    from pipeline.testing import FunctionModel

    return LLMEngine(FunctionModel(_fake_answer, latency_s=latency_s))


def build_pipeline(root: str, engine: str, latency_s: float) -> MemoryPipeline:
    """Module-level, so that --processes can rebuild it in each spawned process."""
    # Caps high enough that no consolidation runs: this measures the hook, not consolidation.
    return MemoryPipeline(
        root=root,
        engine="offline" if engine == "offline" else fake_engine(latency_s),
        memory_limit=10**6,
        user_limit=10**6,
    )


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memroute-bench-") as tmp:
        pipe = build_pipeline(tmp, args.engine, args.model_latency)
        factory = functools.partial(build_pipeline, tmp, args.engine, args.model_latency)
        hook = PostTurnHook(
            pipe, workers=args.workers, max_in_memory=args.turns + 1, fsync_submits=args.fsync,
            processes=args.processes, pipeline_factory=factory if args.processes else None,
        )
        latencies: list[float] = []
        cpu: list[float] = []  # the submitting thread's CPU time: what submit costs, minus waiting for a CPU/GIL
        start = time.perf_counter()
        for i in range(args.turns):
            user = f"user-{i % args.users}"
            text = SENTENCES[i % len(SENTENCES)].format(i=i)
            messages = [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}]
            c0, t0 = time.thread_time(), time.perf_counter()
            hook.submit(user, messages)
            latencies.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
            if args.rate:
                time.sleep(1.0 / args.rate)
        submitted = time.perf_counter() - start
        drained = hook.drain(timeout=args.timeout)
        elapsed = time.perf_counter() - start
        stats = hook.stats()
        hook.close(timeout=5)
        pipe.close()
    return {
        "engine": "offline" if args.engine == "offline" else f"fake model, {args.model_latency * 1000:.0f} ms/call",
        "turns": args.turns,
        "users": args.users,
        "workers": args.workers,
        "fsync_submits": args.fsync,
        "processes": args.processes,
        "submit_p50_ms": statistics.median(latencies) * 1000,
        "submit_p99_ms": percentile(latencies, 0.99) * 1000,
        "submit_max_ms": max(latencies) * 1000,
        "submit_total_s": submitted,
        "submit_cpu_p50_ms": statistics.median(cpu) * 1000,
        "submit_cpu_p99_ms": percentile(cpu, 0.99) * 1000,
        "load_avg_1m": os.getloadavg()[0],
        "cpus": os.cpu_count(),
        "drained": drained,
        "done": stats["done"],
        "parked": stats["parked"],
        "elapsed_s": elapsed,
        "turns_per_s": stats["done"] / elapsed,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--turns", type=int, default=2000)
    p.add_argument("--users", type=int, default=50)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--engine", choices=("fake", "offline"), default="fake",
                   help="fake: the LLM engine on pipeline.testing.FunctionModel; offline: the rule engine")
    p.add_argument("--model-latency", type=float, default=0.0, help="fake model's seconds per call")
    p.add_argument("--rate", type=float, default=0.0, help="submits per second (default: as fast as possible)")
    p.add_argument("--processes", type=int, default=0, help="run turns in N spawned processes (default: threads)")
    p.add_argument("--fsync", action="store_true", help="fsync every submit (synchronous=FULL)")
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    r = run(args)
    mode = f", turns run in {r['processes']} processes" if r["processes"] else ", turns run in threads"
    print(
        f"{r['turns']} turns, {r['users']} users, {r['workers']} workers, engine {r['engine']}"
        f"{', fsync' if r['fsync_submits'] else ''}{mode}\n"
        f"submit latency  p50 {r['submit_p50_ms']:.3f} ms   p99 {r['submit_p99_ms']:.3f} ms   "
        f"max {r['submit_max_ms']:.3f} ms   ({r['turns']} submits in {r['submit_total_s']:.2f} s)\n"
        f"submit CPU time p50 {r['submit_cpu_p50_ms']:.3f} ms   p99 {r['submit_cpu_p99_ms']:.3f} ms   "
        f"(machine: {r['cpus']} CPUs, load average {r['load_avg_1m']:.2f})\n"
        f"processed       {r['done']} turns in {r['elapsed_s']:.2f} s = {r['turns_per_s']:.1f} turns/s"
        f"{'' if r['drained'] else '  (NOT drained: timeout)'}"
    )
    if args.json:
        args.json.write_text(json.dumps(r, indent=2))
    return 0 if r["drained"] and r["parked"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

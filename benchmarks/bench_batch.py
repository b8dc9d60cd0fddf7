"""Benchmarks for `memroute batch`: prints figures, asserts nothing.

    python benchmarks/bench_batch.py offline [--turns 10000]     # offline engine, turns/s
    python benchmarks/bench_batch.py llm [--concurrency 64 --delay 0.2 --turns 10000]
                                                                  # fake OpenAI server: fraction of ideal
    python benchmarks/bench_batch.py ceiling                      # same, with a zero-CPU engine (runner's ceiling)
    python benchmarks/bench_batch.py memory [--size 1G]           # peak RSS of a child run on a 1 GB file
    python benchmarks/bench_batch.py all

`llm` starts a local OpenAI-compatible server on 127.0.0.1 (bare asyncio, in its own process) that
answers every chat completion with a valid tool call after a fixed delay, and runs the batch
against it through the real LLM engine (instructor over the direct openai/ HTTP path). Ideal
throughput is concurrency / delay turns per second (one model call per turn); the figure is
given over the whole run (start-up, ~2 s of imports per worker, and the tail included) and in
the steady state between 10% and 90% of the turns done.

`memory` generates the input in /tmp (never in the repo) and runs the batch in a child process;
peak memory is the child's ru_maxrss. Every run uses a fresh temporary --out.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from gen_transcripts import generate_lines, parse_size, write  # noqa: E402

PYTHON = sys.executable


# ---- the fake OpenAI-compatible server ----------------------------------------------------------


def serve(port_file: str, delay: float) -> None:
    """Answer POST /v1/chat/completions after `delay` seconds with a valid tool call.

    A bare asyncio protocol speaking just enough HTTP/1.1 (keep-alive, Content-Length bodies):
    it shares the machine's CPUs with the client under test, so it should cost next to nothing
    (a real provider's CPU is not ours). About 0.1 ms per request; aiohttp's server took 0.65 ms.
    """
    import asyncio
    import re

    from pipeline.testing import completion_body

    length_re = re.compile(rb"(?im)^content-length:[ \t]*(\d+)")
    tool_re = re.compile(rb'"tool_choice":\s*\{[^{}]*"function":\s*\{\s*"name":\s*"([^"]+)"')
    served = 0

    def answer(body: bytes) -> bytes:
        nonlocal served
        served += 1
        found = tool_re.search(body)
        # A new value every answer: every turn rewrites USER.md (the whole commit path, fsyncs and all).
        statement = {"quote": "benchmark", "route": "user", "section": "Preferences", "key": "Benchmark"}
        statements = {"statements": [{**statement, "value": f"answer {served}"}]}
        payload = json.dumps(
            completion_body(
                model="gpt-4o-mini",
                arguments=json.dumps(statements),
                tool=found.group(1).decode() if found else "Statements",
                prompt_tokens=500,
                completion_tokens=40,
                completion_id="chatcmpl-bench",
                created=int(time.time()),
            )
        ).encode()
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        return head.encode() + payload

    class Completions(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.transport: asyncio.Transport = transport  # type: ignore[assignment]
            self.buffer = b""

        def data_received(self, data: bytes) -> None:
            self.buffer += data
            while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
                found = length_re.search(self.buffer, 0, end)
                size = int(found.group(1)) if found else 0
                if len(self.buffer) < end + 4 + size:
                    return
                body, self.buffer = self.buffer[end + 4 : end + 4 + size], self.buffer[end + 4 + size :]
                asyncio.get_running_loop().call_later(delay, self.respond, body)

        def respond(self, body: bytes) -> None:
            if not self.transport.is_closing():
                self.transport.write(answer(body))

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(Completions, "127.0.0.1", 0, backlog=1024)
        Path(port_file).write_text(str(server.sockets[0].getsockname()[1]))
        await asyncio.Event().wait()

    asyncio.run(main())


class FakeServer:
    def __init__(self, delay: float) -> None:
        self.delay = delay

    def __enter__(self) -> FakeServer:
        self.port_file = tempfile.mktemp(prefix="memroute-bench-port-")
        self.proc = subprocess.Popen([PYTHON, __file__, "serve", self.port_file, "--delay", str(self.delay)])
        for _ in range(200):
            if Path(self.port_file).exists() and Path(self.port_file).read_text():
                break
            time.sleep(0.05)
        self.api_base = f"http://127.0.0.1:{Path(self.port_file).read_text()}/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        Path(self.port_file).unlink(missing_ok=True)


# ---- runs --------------------------------------------------------------------------------------------


def batch_in_child(kwargs: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """Run `run_batch_cli` in a child process; return its JSON summary and peak RSS in MB: the
    child's own peak (VmHWM, which unlike ru_maxrss is not inherited from this process across
    fork+exec) plus the largest of its worker processes, if it started any."""
    code = (
        "import json, re, resource, sys\n"
        "from pipeline.cli.batch_run import run_batch_cli\n"
        "from pipeline.settings import Settings\n"
        f"kw = json.loads({json.dumps(json.dumps(kwargs))})\n"
        "s = Settings(**kw.pop('settings'))\nrc = run_batch_cli(**kw, settings=s)\n"
        "hwm = int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))\n"
        "workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "sys.stderr.write('RSS_KB=%d WORKERS_KB=%d\\n' % (hwm, workers))\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env={**os.environ})
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr[-2000:])
        raise SystemExit(f"batch child failed with exit code {proc.returncode}")
    line = next(x for x in proc.stderr.splitlines() if x.startswith("RSS_KB="))
    own, workers = (int(part.split("=")[1]) for part in line.split())
    summary = json.loads(proc.stdout)
    return summary, (own + (workers if summary.get("workers", 1) > 1 else 0)) / 1024


def batch_kwargs(inputs: list[str], out: str, **overrides: Any) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "inputs": inputs,
        "out": out,
        "fmt": None,
        "concurrency": 8,
        "rpm": None,
        "restart": False,
        "json_out": True,
        "decisions_out": None,
        "max_failures": None,
        "settings": {},  # Settings fields: engine, model, limits (their defaults when absent)
        "progress": False,
    }
    kw.update(overrides)
    return kw


def gen(path: Path, *, users: int, conversations: int, **kw: Any) -> dict[str, int]:
    return write(path, generate_lines(users=users, conversations=conversations, **kw))


def bench_offline(turns: int, concurrency: int, workers: int | None) -> None:
    with tempfile.TemporaryDirectory(prefix="memroute-bench-") as tmp:
        data = Path(tmp) / "in.jsonl"
        # 3.5 turns per conversation on average (2-5).
        conversations = int(turns / 3.5) + 1
        stats = gen(data, users=200, conversations=conversations)
        summary, rss = batch_in_child(batch_kwargs([str(data)], f"{tmp}/out", concurrency=concurrency, workers=workers))
    t = summary["turns"]
    print(
        f"offline engine: {t['done']:,} turns ({stats['conversations']:,} conversations, 200 users, "
        f"concurrency {concurrency}, {summary['workers']} worker process(es)) in {summary['wall_s']:.1f} s = {summary['turns_per_s']:.1f} turns/s "
        f"(peak RSS {rss:.0f} MB)"
    )


_TIMED_CHILD = """
import json, sys, time
from pathlib import Path
from pipeline.batch import BatchOptions, BatchRunner, Hooks
from pipeline.settings import Settings, build_pipeline
args, data, concurrency, workers = json.loads(sys.argv[1])
settings = Settings(**args)
class Timeline(Hooks):
    def __init__(self): self.points, self.t0 = [], time.perf_counter()
    def turn(self, report): self.points.append((time.perf_counter() - self.t0, report.turns_done))
timeline = Timeline()
runner = BatchRunner(build_pipeline(settings), [Path(data)], BatchOptions(concurrency=concurrency, workers=workers, settings=settings), timeline)
report = runner.run()
print(json.dumps({"summary": report.to_json(), "points": timeline.points}))
"""


def steady_rate(points: list[tuple[float, int]], total: int) -> tuple[float, float]:
    """Turns/s between the moments 10% and 90% of the turns were done (start-up and tail left
    out), and the time until the first turn was done."""
    first = next(t for t, n in points if n > 0)
    t10, n10 = next((t, n) for t, n in points if n >= total * 0.1)
    t90, n90 = next((t, n) for t, n in points if n >= total * 0.9)
    return (n90 - n10) / (t90 - t10), first


def bench_llm(turns: int, concurrency: int, delay: float, workers: int | None) -> None:
    ideal = concurrency / delay
    # Many users with a few conversations each, as in a history import: about ten turns per user.
    users = max(concurrency * 4, turns // 10)
    with tempfile.TemporaryDirectory(prefix="memroute-bench-") as tmp, FakeServer(delay) as server:
        data = Path(tmp) / "in.jsonl"
        gen(data, users=users, conversations=int(turns / 3.5) + 1)
        args = {
            "root": f"{tmp}/out",
            "engine": "llm",
            "model": "openai/gpt-4o-mini",
            "api_base": server.api_base,
        }
        env = {**os.environ, "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "sk-bench-local-not-a-key")}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)  # the server child is reaped only later
        spec = json.dumps([args, str(data), concurrency, workers])
        proc = subprocess.run([PYTHON, "-c", _TIMED_CHILD, spec], capture_output=True, text=True, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-2000:])
        raise SystemExit(f"batch child failed with exit code {proc.returncode}")
    out = json.loads(proc.stdout)
    summary, points = out["summary"], out["points"]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    t = summary["turns"]
    rate = summary["turns_per_s"]
    steady, first = steady_rate(points, t["done"])
    print(
        f"llm engine vs fake server ({delay * 1000:.0f} ms per answer, concurrency {concurrency}, "
        f"{summary['workers']} worker process(es), {users:,} users): "
        f"{t['done']:,} turns in {summary['wall_s']:.1f} s = {rate:.1f} turns/s; ideal {ideal:.0f} turns/s; "
        f"fraction {rate / ideal:.2f} over the whole run (first turn done after {first:.1f} s of start-up); "
        f"steady state (10%->90% of turns) {steady:.1f} turns/s = {steady / ideal:.2f} (target >= 0.9); "
        f"calls {summary['calls']:,}, failed turns {t['failed']}; "
        f"client CPU {cpu:.1f} s = {1000 * cpu / max(1, t['done']):.1f} ms per turn (batch process and workers, "
        f"start-up included, {os.cpu_count()} CPUs)"
    )


def bench_ceiling(turns: int, concurrency: int, delay: float) -> None:
    """The runner's own ceiling: an engine that spends no CPU and answers after `delay` (asyncio.sleep),
    through the real pipeline (files, store, fsync). What the LLM figure would be with a free client."""
    import asyncio

    from pipeline.batch import BatchOptions, BatchRunner
    from pipeline.core import MemoryPipeline
    from pipeline.engines.base import REQUEST_SLOTS, Engine
    from pipeline.types import Classification, Decision

    class SleepEngine(Engine):
        name = "llm"
        model = "sleep"

        def classify(self, turn: Any, user_md: str, memory_md: str) -> Classification:
            raise NotImplementedError

        async def aclassify(self, turn: Any, user_md: str, memory_md: str) -> Classification:
            slots = REQUEST_SLOTS.get()  # one "request" in flight, as a model engine holds one
            async with slots if slots is not None else contextlib.nullcontext():
                await asyncio.sleep(delay)
            skip = Decision(quote=turn.user_text[:40], route="skip", reason="mood")
            return Classification(decisions=[skip], engine="llm", model="sleep")

        def consolidate(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    with tempfile.TemporaryDirectory(prefix="memroute-bench-") as tmp:
        data = Path(tmp) / "in.jsonl"
        gen(data, users=concurrency * 4, conversations=int(turns / 3.5) + 1)
        with MemoryPipeline(root=f"{tmp}/out", engine=SleepEngine()) as pipe:  # type: ignore[arg-type]
            r = BatchRunner(pipe, [data], BatchOptions(concurrency=concurrency)).run()
    ideal = concurrency / delay
    print(
        f"runner ceiling (zero-CPU engine answering after {delay * 1000:.0f} ms, concurrency {concurrency}): "
        f"{r.turns_done:,} turns in {r.wall_s:.1f} s = {r.turns_per_s:.1f} turns/s; fraction {r.turns_per_s / ideal:.2f}"
    )


def bench_memory(size: str, keep: bool) -> None:
    target = parse_size(size)
    data = Path("/tmp/memroute-bench-1g.jsonl")
    if not data.exists() or data.stat().st_size < target:
        t0 = time.perf_counter()
        # Long assistant replies (code-like filler) make the file big and the replay cheap:
        # the memory figure is about reading, indexing and replaying a huge input.
        gen_args = ["--users", "2000", "--pad", "60000", "--target-bytes", size]
        subprocess.run([PYTHON, str(HERE / "gen_transcripts.py"), str(data), *gen_args], check=True)
        print(f"generated {data} ({data.stat().st_size / 1e9:.2f} GB) in {time.perf_counter() - t0:.0f} s")
    with tempfile.TemporaryDirectory(prefix="memroute-bench-") as tmp:
        summary, rss = batch_in_child(batch_kwargs([str(data)], f"{tmp}/out", concurrency=8))
    print(
        f"1 GB input ({data.stat().st_size / 1e9:.2f} GB): {summary['conversations']['total']:,} conversations, "
        f"{summary['turns']['done']:,} turns in {summary['wall_s']:.0f} s; peak RSS {rss:.0f} MB (target < 300 MB)"
    )
    if not keep:
        data.unlink()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["offline", "llm", "ceiling", "memory", "all", "serve"])
    ap.add_argument("port_file", nargs="?")
    ap.add_argument("--turns", type=int)
    ap.add_argument("--concurrency", type=int)
    ap.add_argument("--delay", type=float, default=0.2)
    ap.add_argument("--size", default="1G")
    ap.add_argument("--keep", action="store_true", help="keep the generated 1 GB file in /tmp")
    ap.add_argument("--workers", type=int, help="worker processes (default: the batch's automatic choice)")
    args = ap.parse_args()
    if args.what == "serve":
        serve(args.port_file, args.delay)
        return 0
    if args.what in ("offline", "all"):
        bench_offline(args.turns or 10_000, args.concurrency or 8, args.workers)
    if args.what in ("llm", "all"):
        bench_llm(args.turns or 10_000, args.concurrency or 64, args.delay, args.workers)
    if args.what in ("ceiling", "all"):
        bench_ceiling(args.turns or 3_000, args.concurrency or 64, args.delay)
    if args.what in ("memory", "all"):
        bench_memory(args.size, args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())

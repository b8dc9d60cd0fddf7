"""`memroute serve` under load: accepted turns/s and latency of POST /v1/users/{user}/turns (the 202
path: the turn is on disk when the answer leaves) with 32 concurrent clients, next to the in-process
PostTurnHook.submit on the same machine.

    .venv/bin/python benchmarks/bench_serve.py                     # offline engine, turns applied in threads
    .venv/bin/python benchmarks/bench_serve.py --processes 1       # turns applied in a worker process
    .venv/bin/python benchmarks/bench_serve.py --turns 6000 --json out.json

The server is the real `memroute serve` (uvicorn) in its own process on a free loopback port. The
clients are 32 keep-alive HTTP/1.1 connections on one asyncio loop in this process, each sending its
next turn when the previous answer arrived (closed loop); raw sockets, so the client costs little of
the CPU the server needs. Latency is from the first byte written to the whole answer read. Accepted
turns/s counts 202 answers over the measured run (after a warm-up). The server applies the turns
meanwhile (offline engine), on the same 2 cores: that is part of what is measured. The in-process line
runs PostTurnHook.submit from 32 threads with the same engine and workers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

SENTENCES = (  # invented, in the shape of chat turns
    "I'm a backend engineer and I mostly write Go.",
    "We decided to move the billing service to Postgres {i}.",
    "Please keep answers short, conclusion first.",
    "Yesterday we shipped release {i} of the mobile app.",
    "My head hurts today.",
    "I prefer metric units.",
    "The staging cluster was migrated to region {i} last week.",
)


def turn_body(i: int) -> bytes:
    text = SENTENCES[i % len(SENTENCES)].format(i=i)
    return json.dumps({"messages": [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}],
                       "conversation_id": f"c{i}"}).encode()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def _client(port: int, jobs: list[tuple[str, int]], latencies: list[float], statuses: dict[int, int],
                  interval: float, t_start: float) -> None:
    """Send `jobs` one after another on one keep-alive connection. With `interval` > 0, job k is due at
    t_start + k * interval (open loop) and its latency counts from when it was due, so a server that
    falls behind is charged for the wait too; with 0, each is sent when the previous answer arrived."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for k, (user, i) in enumerate(jobs):
            body = turn_body(i)
            head = (f"POST /v1/users/{user}/turns HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
            t0 = time.perf_counter()
            if interval:
                due = t_start + k * interval
                if due > t0:
                    await asyncio.sleep(due - t0)
                t0 = due
            writer.write(head + body)
            await writer.drain()
            header = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in header.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - t0)
            status = int(header.split(b" ", 2)[1])
            statuses[status] = statuses.get(status, 0) + 1
    finally:
        writer.close()


async def _load(port: int, turns: int, clients: int, users: int, offset: int,
                rate: float = 0.0) -> tuple[list[float], dict[int, int], float]:
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    # Client c sends turns c, c+clients, ...: users interleave, each user's turns in order on one connection.
    jobs = [[(f"user-{(offset + i) % users}", offset + i) for i in range(c, turns, clients)] for c in range(clients)]
    interval = clients / rate if rate else 0.0
    start = time.perf_counter()
    # Open loop: the clients' schedules are staggered so the turns arrive evenly at `rate`.
    await asyncio.gather(*(_client(port, j, latencies, statuses, interval, start + c / rate if rate else start)
                           for c, j in enumerate(jobs)))
    return latencies, statuses, time.perf_counter() - start


def _summary(latencies: list[float], statuses: dict[int, int], elapsed: float) -> dict[str, Any]:
    return {
        "statuses": statuses,
        "elapsed_s": elapsed,
        "accepted_per_s": statuses.get(202, 0) / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "max_ms": max(latencies) * 1000,
    }


def bench_server(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    port = free_port()
    # `python -m pipeline.cli`: its main is guarded, so --processes' spawned children can import it
    argv = [sys.executable, "-m", "pipeline.cli", "serve", "--root", str(root), "--port", str(port),
            "--engine", "offline", "--workers", str(args.workers), "--processes", str(args.processes),
            "--max-queued", str(args.turns * 2 + 1000)]
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"server did not start: {server.stderr.read() if server.stderr else ''}") from None
                time.sleep(0.1)
        asyncio.run(_load(port, args.warmup, args.clients, args.users, offset=10**6))  # warm-up, not counted
        load0 = os.getloadavg()[0]
        cpu0 = process_cpu_s(server.pid)
        at_rate = _summary(*asyncio.run(_load(port, args.turns, args.clients, args.users, offset=0, rate=args.rate)))
        server_cpu = process_cpu_s(server.pid) - cpu0
        capacity = _summary(*asyncio.run(_load(port, args.turns, args.clients, args.users, offset=args.turns)))
        # Then how long the server takes to apply what it accepted (offline engine).
        t0 = time.perf_counter()
        drained_s: float | None = None
        while time.perf_counter() - t0 < args.drain_timeout:
            s = httpx.get(url + "/v1/status", timeout=10).json()
            if s["queued"] + s["running"] + s["failed"] == 0:
                drained_s = time.perf_counter() - t0
                break
            time.sleep(0.2)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)
    return {
        "at_rate": at_rate,
        "capacity": capacity,
        "load_avg_1m_before": load0,
        "server_cpu_ms_per_turn": server_cpu * 1000 / args.turns,
        "applied_after_s": drained_s,
    }


def bench_in_process(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    import functools

    from pipeline.core import MemoryPipeline
    from pipeline.hook.post_turn import PostTurnHook

    factory = functools.partial(MemoryPipeline, root=root, engine="offline")
    pipe = factory()
    # full_timeout_s: 32 threads queue for the submit lock; the default 0.25 s would refuse some turns.
    hook = PostTurnHook(pipe, workers=args.workers, max_in_memory=args.turns * 2 + 1000, processes=args.processes,
                        pipeline_factory=factory if args.processes else None, full_timeout_s=60)
    latencies: list[float] = []
    lock = threading.Lock()

    def client(c: int) -> None:
        mine: list[float] = []
        for i in range(c, args.turns, args.clients):
            messages = json.loads(turn_body(i))["messages"]
            t0 = time.perf_counter()
            hook.submit(f"user-{i % args.users}", messages, conversation_id=f"c{i}")
            mine.append(time.perf_counter() - t0)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(c,)) for c in range(args.clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    hook.close(timeout=args.drain_timeout)
    pipe.close()
    return {k: v for k, v in _summary(latencies, {202: len(latencies)}, elapsed).items() if k != "statuses"}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--turns", type=int, default=3000, help="turns per measured run (default 3000)")
    p.add_argument("--rate", type=float, default=300.0, help="turns/s the clients offer in the open-loop run")
    p.add_argument("--warmup", type=int, default=300)
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--users", type=int, default=200)
    p.add_argument("--workers", type=int, default=2, help="hook worker threads (default 2, as `memroute serve`)")
    p.add_argument("--processes", type=int, default=0, help="apply turns in N worker processes (default: threads)")
    p.add_argument("--drain-timeout", type=float, default=300.0)
    p.add_argument("--skip-in-process", action="store_true")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memroute-bench-serve-") as tmp:
        served = bench_server(args, Path(tmp) / "served")
        local = None if args.skip_in_process else bench_in_process(args, Path(tmp) / "local")
    mode = f"{args.processes} worker process(es)" if args.processes else f"{args.workers} worker threads"
    try:
        import httptools  # noqa: F401

        parser = "httptools"
    except ImportError:
        parser = "h11 (install httptools and uvloop: memroute[serve])"
    print(f"{args.turns} turns a run, {args.clients} concurrent clients, {args.users} users, offline engine, turns "
          f"applied in {mode}; HTTP parser {parser}; {os.cpu_count()} CPUs, load average "
          f"{served['load_avg_1m_before']:.2f} before the run")

    def line(name: str, r: dict[str, Any]) -> str:
        answers = f"   answers {r['statuses']}" if "statuses" in r else ""
        return (f"{name:<44} {r['accepted_per_s']:7.1f} accepted turns/s   p50 {r['p50_ms']:7.2f} ms   "
                f"p99 {r['p99_ms']:7.2f} ms   max {r['max_ms']:8.2f} ms{answers}")

    print(line(f"serve, offered {args.rate:.0f} turns/s (open loop)", served["at_rate"]))
    print(line("serve, flat out (closed loop)", served["capacity"]))
    print(f"{'':<44} server process CPU in the open-loop run: {served['server_cpu_ms_per_turn']:.2f} ms a turn "
          f"(HTTP and queue insert{'' if args.processes else ', plus the turns its threads applied meanwhile'})")
    applied = served["applied_after_s"]
    print(f"{'':<44} every accepted turn applied "
          f"{f'{applied:.1f} s after the last answer' if applied is not None else ': NOT within the timeout'}")
    if local:
        print(line("in-process hook submit(), flat out", local))
    met = served["capacity"]["accepted_per_s"] >= 300 and served["at_rate"]["p99_ms"] <= 50
    print(f"target (>= 300 accepted turns/s flat out; p99 <= 50 ms at 300 turns/s offered): {'met' if met else 'NOT met'}")
    if args.json:
        args.json.write_text(json.dumps({"served": served, "in_process": local, "args": vars(args) | {"json": None}},
                                        indent=2, default=str))
    everything = all(r["statuses"].get(202, 0) == args.turns for r in (served["at_rate"], served["capacity"]))
    return 0 if everything and applied is not None else 1


if __name__ == "__main__":
    sys.exit(main())

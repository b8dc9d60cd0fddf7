"""Store benchmark: turns/s with 1, 2 and 4 worker processes, on SQLite + files and on PostgreSQL.

    .venv/bin/python benchmarks/bench_store.py                     # both stores, both engines
    .venv/bin/python benchmarks/bench_store.py --engines model --turns 240 --json /tmp/store.json
    .venv/bin/python benchmarks/bench_store.py --dsn postgresql://... # an existing, EMPTY database server

Two engines:
- `model`: the real LLM engine (instructor over the direct openai/ HTTP path) against a local
  OpenAI-compatible server answering every call after --delay seconds (200 ms, as a hosted model
  does): I/O-bound, as in production. Each worker handles one turn at a time, so the ideal is
  workers / delay turns per second.
- `offline`: the rule engine, CPU-bound (this machine has 2 cores, shared).

How the workers share the work:
- PostgreSQL: every turn is submitted to the database's shared queue first; each worker process
  claims head-of-line turns (FOR UPDATE SKIP LOCKED), as workers on several hosts would.
- SQLite: one root, each worker process takes a fixed share of the users (a root has no shared
  cross-process queue to claim from), all writing the one memroute.db and the users' files.

Timing starts when every worker process has imported, connected and run one warm-up turn (a
barrier) and ends when the last one has finished its last turn (before it closes and exits):
turns/s = turns / that span. Prints figures, asserts nothing. Without a
--dsn, a throwaway PostgreSQL cluster is started in /tmp (needs PostgreSQL installed), with fsync
on, as a production server runs (the test suite's clusters run with fsync off).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

PYTHON = sys.executable
MODEL = "openai/gpt-4o-mini"  # priced in litellm's local cost map; served by the local fake server

def turns_plan(turns: int, users: int) -> list[dict[str, Any]]:
    """Interleaved users, as chats arrive; each turn a stable id; bench_hook's invented sentences."""
    from bench_hook import SENTENCES

    plan = []
    for i in range(turns):
        user = f"user{i % users:03d}"
        text = SENTENCES[i % len(SENTENCES)].format(i=i)
        plan.append({"user_id": user, "turn_id": f"{user}-{i:05d}", "messages": [{"role": "user", "content": text}],
                     "timestamp": "2026-11-30T12:00:00+00:00"})
    return plan


# ---- a worker process ------------------------------------------------------------------------


def build_pipeline(kind: str, location: str, engine: str, api_base: str) -> Any:
    from pipeline.core import MemoryPipeline

    eng: Any = "offline"
    if engine == "model":
        from pipeline.engines.llm import LLMEngine

        eng = LLMEngine(MODEL, api_base=api_base, api_key="sk-bench-not-a-key")
    # Caps high enough that no consolidation runs: this measures the store, not consolidation.
    limits = {"memory_limit": 10**6, "user_limit": 10**6}
    if kind == "postgresql":
        from pipeline.store.postgres import open_postgres

        store, documents = open_postgres(location)
        return MemoryPipeline(root=tempfile.mkdtemp(prefix="memroute-bench-"), engine=eng, store=store,
                              documents=documents, **limits)
    return MemoryPipeline(root=location, engine=eng, **limits)


def child(args: argparse.Namespace) -> None:
    state = Path(args.state)
    pipe = build_pipeline(args.kind, args.location, args.engine, args.api_base)
    # One turn of a user of its own before the clock starts: the engine's lazy imports (instructor,
    # the HTTP client) and the first connections are start-up, not throughput.
    pipe.process_turn(f"warmup{args.index}", [{"role": "user", "content": "Yesterday we shipped the warm-up."}])
    (state / f"{args.index}.ready").touch()
    while not (state / "go").exists():
        time.sleep(0.002)
    done = 0
    if args.kind == "postgresql":
        from pipeline.store.postgres.worker import pipeline_processor, run_worker

        counts = run_worker(pipe.store.queue(), pipeline_processor(pipe), until_empty=True, idle_sleep_s=0.005)
        done = counts.done
    else:
        plan = json.loads((state / "plan.json").read_text())
        mine = [t for t in plan if int(t["user_id"][4:]) % args.workers == args.index]
        for t in mine:
            result = pipe.process_turn(t["user_id"], t["messages"], timestamp=t["timestamp"], turn_id=t["turn_id"])
            done += result.status != "failed"
    # The finish time, before close(): interpreter shutdown under load takes seconds, and is not work.
    (state / f"{args.index}.done").write_text(json.dumps({"done": done, "finished": time.time()}))
    pipe.close()


# ---- one measurement -----------------------------------------------------------------------------


def measure(kind: str, location: str, engine: str, api_base: str, workers: int, plan: list[dict[str, Any]]) -> dict[str, Any]:
    state = Path(tempfile.mkdtemp(prefix="memroute-bench-state-"))
    (state / "plan.json").write_text(json.dumps(plan))
    if kind == "postgresql":
        from pipeline.store.postgres.store import PostgresStore

        with PostgresStore(location) as store:
            queue = store.queue()
            for t in plan:
                queue.submit(t["user_id"], t["turn_id"], None, {"messages": t["messages"], "timestamp": t["timestamp"]})
    procs = [
        subprocess.Popen([PYTHON, __file__, "child", kind, location, engine, api_base or "-", str(state), str(i),
                          str(workers)])
        for i in range(workers)
    ]
    while not all((state / f"{i}.ready").exists() for i in range(workers)):
        if any(p.poll() not in (None, 0) for p in procs):
            raise SystemExit("a worker process failed to start")
        time.sleep(0.01)
    start = time.time()
    (state / "go").touch()
    for p in procs:
        p.wait()
    finished = [json.loads((state / f"{i}.done").read_text()) for i in range(workers) if (state / f"{i}.done").exists()]
    if len(finished) < workers:
        raise SystemExit("a worker process failed")
    elapsed = max(f["finished"] for f in finished) - start
    done = sum(f["done"] for f in finished)
    return {"store": kind, "engine": engine, "workers": workers, "turns": len(plan), "done": done,
            "seconds": round(elapsed, 2), "turns_per_s": round(len(plan) / elapsed, 2)}


def fresh_location(kind: str, cluster: Any, base_dsn: str | None) -> str:
    if kind == "sqlite":
        return tempfile.mkdtemp(prefix="memroute-bench-root-")
    name = f"bench_{uuid.uuid4().hex[:10]}"
    if cluster is not None:
        return str(cluster.create_database(name))
    import psycopg

    with psycopg.connect(base_dsn, autocommit=True) as conn:  # type: ignore[arg-type]
        conn.execute(f'CREATE DATABASE "{name}"')
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    return make_conninfo("", **{**conninfo_to_dict(base_dsn or ""), "dbname": name})


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    from bench_batch import FakeServer

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test scaffolding's cluster
    from pg_cluster import start_cluster, unavailable_reason

    stores = args.stores.split(",")
    cluster = None
    if "postgresql" in stores and not args.dsn:
        reason = unavailable_reason()
        if reason:
            raise SystemExit(f"bench_store: {reason}")
        cluster = start_cluster(durable=True)  # fsync on: commits as durable as SQLite's and the files'

    results = []
    try:
        with FakeServer(args.delay) as server:
            for engine in args.engines.split(","):
                turns = args.turns if engine == "model" else args.offline_turns
                plan = turns_plan(turns, args.users)
                for kind in stores:
                    for workers in [int(w) for w in args.workers.split(",")]:
                        r = measure(kind, fresh_location(kind, cluster, args.dsn), engine, server.api_base, workers,
                                    plan)
                        results.append(r)
                        print(f"{kind:<11} {engine:<8} workers={workers}  {r['turns_per_s']:7.2f} turns/s  "
                              f"({r['done']}/{r['turns']} turns in {r['seconds']} s)", flush=True)
    finally:
        if cluster is not None:
            cluster.stop()
    for engine in args.engines.split(","):
        for kind in stores:
            rows = {r["workers"]: r["turns_per_s"] for r in results if r["engine"] == engine and r["store"] == kind}
            if 1 in rows and max(rows) > 1:
                top = max(rows)
                print(f"{kind:<11} {engine:<8} speed-up 1 -> {top} workers: {rows[top] / rows[1]:.2f}x")
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    c = sub.add_parser("child")
    for name in ("kind", "location", "engine", "api_base", "state"):
        c.add_argument(name)
    c.add_argument("index", type=int)
    c.add_argument("workers", type=int)
    ap.add_argument("--turns", type=int, default=240, help="turns per run with the model engine")
    ap.add_argument("--offline-turns", type=int, default=600, help="turns per run with the offline engine")
    ap.add_argument("--users", type=int, default=32)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--delay", type=float, default=0.2, help="the model server's seconds per answer")
    ap.add_argument("--engines", default="model,offline")
    ap.add_argument("--stores", default="sqlite,postgresql")
    ap.add_argument("--dsn", help="a PostgreSQL server to create the benchmark databases on (default: throwaway)")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    if args.cmd == "child":
        child(args)
        return 0
    results = run(args)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    raise SystemExit(main())

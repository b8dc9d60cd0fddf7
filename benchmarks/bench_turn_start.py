"""Start-up cost of one `memroute turn` process per engine path: offline, `openai/NAME` (POSTed
directly, no litellm) and a litellm model, both answered at once by a local OpenAI-compatible
server (127.0.0.1, no network), so what is measured is the process: start, imports, one turn, exit.
Also reports whether the process imported litellm (`python -X importtime`). Two more offline lines for the
sentence encoder, which the offline engine does not load yet: a process that only loads it
(`python -c 'from pipeline.engines.offline.encoder import shared_encoder; shared_encoder()'`), and a
`memroute turn` process that first loads it and encodes the turn's line, as the engine will (with
OMP_NUM_THREADS=1 and unset: the encoder's C library otherwise uses every core).

Run: .venv/bin/python benchmarks/bench_turn_start.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pipeline.testing import completion_body

ANSWER = json.dumps({"statements": [{"quote": "I work as a data engineer", "route": "user", "section": "Identity",
                                     "key": "Role", "value": "data engineer"}]})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        tool = body.get("tool_choice", {}).get("function", {}).get("name", "Statements")
        data = json.dumps(completion_body(model=body.get("model", "m"), arguments=ANSWER, tool=tool,
                                          prompt_tokens=500, completion_tokens=40)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


CLI = ["-m", "pipeline.cli"]
LOAD_ENCODER = "from pipeline.engines.offline.encoder import shared_encoder; shared_encoder()"
# `memroute turn` after loading the encoder and encoding the turn's line (sys.argv[1:] is the CLI's command line);
# first the two start-up settings the CLI's main() makes before it imports anything heavy.
TURN_WITH_ENCODER = ("import gc, os, sys; os.environ.setdefault('PYDANTIC_DISABLE_PLUGINS', '__all__'); gc.disable(); "
                     "from pipeline.engines.offline.encoder import shared_encoder; "
                     "shared_encoder().encode([sys.argv[sys.argv.index('--text') + 1]]); "
                     "from pipeline.cli import main; sys.exit(main(sys.argv[1:]))")


def run(label: str, extra: list[str], runs: int, env: dict[str, str], entry: list[str] = CLI, *,
        turn: bool = True) -> None:
    times: list[float] = []
    cpu: list[float] = []  # the process's user+system CPU: steadier than wall time on a shared host
    imported = False
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as root:
        for i in range(runs):
            command = [sys.executable, "-X", "importtime", *entry]
            if turn:
                command += ["turn", f"bench{i}", "--text", "I work as a data engineer.", "--root", root, *extra]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, env=env)
            times.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if done.returncode != 0:
                raise SystemExit(f"{label}: exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}")
            imported = imported or any(line.rstrip().endswith("| litellm") for line in done.stderr.splitlines())
    print(f"{label:<44} median {statistics.median(times) * 1000:6.0f} ms  min {min(times) * 1000:6.0f} ms  "
          f"CPU median {statistics.median(cpu) * 1000:6.0f} ms  litellm imported: {'yes' if imported else 'no'}  "
          f"load {load:.1f} -> {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench-not-a-key"}
    print(f"memroute turn, one process per turn ({args.runs} runs each, local server {base})")
    run("offline", [], args.runs, env)
    # The encoder's C library uses every core unless OMP_NUM_THREADS says otherwise: both settings.
    one = {**env, "OMP_NUM_THREADS": "1"}
    every = {k: v for k, v in env.items() if k != "OMP_NUM_THREADS"}
    run("encoder load alone (python -c)", [], args.runs, one, ["-c", LOAD_ENCODER], turn=False)
    run("offline + encoder, OMP_NUM_THREADS=1", [], args.runs, one, ["-c", TURN_WITH_ENCODER])
    run("offline + encoder, OMP_NUM_THREADS unset", [], args.runs, every, ["-c", TURN_WITH_ENCODER])
    run("openai/gpt-4o-mini (direct)", ["--model", "openai/gpt-4o-mini", "--api-base", base], args.runs, env)
    # o-series models go through litellm (its temperature rules); same local server.
    run("openai/o3-mini (through litellm)", ["--model", "openai/o3-mini", "--api-base", base], args.runs, env)
    server.shutdown()


if __name__ == "__main__":
    main()

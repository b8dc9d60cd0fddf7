"""`memroute turn` end to end on the offline engine: process start, import, route, write, exit.

Run: .venv/bin/python benchmarks/bench_turn_cli.py [--runs 20]
Target (issue 4): well under half a second per call.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

SENTENCES = [
    "I work as a data engineer.",
    "Yesterday we migrated agent-demo to Postgres.",
    "my head hurts today",
    "saya tinggal di Bandung",
    "上周我们把登录页改成了深色主题",
    "ผมชื่อสมชายครับ",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    times: list[float] = []
    with tempfile.TemporaryDirectory() as root:
        for i in range(args.runs):
            text = SENTENCES[i % len(SENTENCES)]
            command = [sys.executable, "-m", "pipeline.cli", "turn", "bench", "--text", text, "--root", root]
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            times.append(time.perf_counter() - started)
    times.sort()
    print(
        f"memroute turn (offline, {args.runs} runs): median {statistics.median(times) * 1000:.0f} ms, "
        f"p95 {times[int(0.95 * (len(times) - 1))] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()

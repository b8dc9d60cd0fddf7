"""Hybrid mode's gate on the project's suites: how many LLM calls it saves, what it can cost.

Run: .venv/bin/python benchmarks/bench_hybrid_gate.py evals/core_*.jsonl

In `--engine hybrid` the offline engine looks at each turn first; a turn its recall-tuned gate
rates as holding nothing (OfflineEngine.needs_model) gets no LLM call. This prints, per language:
- calls saved: the share of turns the gate answers alone;
- accuracy cost: the share of cases that expect a write (route user, memory or mixed) but the
  gate skipped, so no LLM ever sees them. That is the most hybrid can lose against an LLM that
  would route every case right; with a real model the LLM's own errors come on top, equally in
  both modes.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

from pipeline.engines.offline import OfflineEngine
from pipeline.turns import build_turn


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    gate = OfflineEngine()
    total: dict[str, int] = defaultdict(int)
    gated: dict[str, int] = defaultdict(int)
    writes: dict[str, int] = defaultdict(int)
    lost: dict[str, int] = defaultdict(int)
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                case = json.loads(line)
                lang = case.get("lang", "?")
                turn = build_turn("u", [*case.get("history", []), *case["messages"]], timestamp=case.get("timestamp"))
                initial = case.get("initial", {})
                call, _ = gate.needs_model(turn, initial.get("user_md", ""), initial.get("memory_md", ""))
                skipped_all = not call
                for key in (lang, "all"):
                    total[key] += 1
                    gated[key] += skipped_all
                    if case["expect"].get("route") in ("user", "memory", "mixed"):
                        writes[key] += 1
                        lost[key] += skipped_all
    print(f"{'lang':6} {'cases':>6} {'calls saved':>12} {'writes gated away':>18}")
    for key in sorted(total, key=lambda k: (k == "all", k)):
        saved = gated[key] / total[key]
        cost = lost[key] / writes[key] if writes[key] else 0.0
        print(f"{key:6} {total[key]:6d} {saved:11.1%} {cost:17.1%}  ({lost[key]}/{writes[key]})")


if __name__ == "__main__":
    main()

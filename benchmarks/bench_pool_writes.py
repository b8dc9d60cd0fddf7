"""What the offline engine writes to USER.md on real traffic, by the kind of traffic: every turn of the shared
pool that the project's labelers labeled (training/data/labels/pool_*.labels.jsonl: chit-chat, task-oriented
requests, knowledge chat about films, music and places, support calls), each run on a fresh memory with the
conversation before it. Turn level: a turn is a write when the engine writes a USER.md field; it should be when
the labelers named a field.

Prints, per source and overall: USER.md precision, recall, the engine's write rate and the labelers'.
These turns are training data (the extractor may be retrained on them), so this is a measure of the rules on
the traffic we serve, not a held-out figure.

Run: .venv/bin/python benchmarks/bench_pool_writes.py --pool $DATA/real_pool.jsonl
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "training"))

import corpus  # noqa: E402

from pipeline.core import MemoryPipeline  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=Path, required=True, help="the shared pool (real_pool.jsonl)")
    args = parser.parse_args()
    if not args.pool.is_file():
        parser.error(f"{args.pool}: no such file")
    cases = [c for c in corpus.all_labeled_turns(pool=args.pool, real_train=None)
             if c["id"].startswith(corpus.REAL_PREFIXES)]
    counts: Counter[tuple[str, str]] = Counter()
    with tempfile.TemporaryDirectory() as root, MemoryPipeline(root=root) as pipe:
        for i, case in enumerate(cases):
            result = pipe.process_turn(f"p{i}", [*case.get("history", []), *case["messages"]])
            wrote = any(d.route == "user" and d.op == "upsert" for d in result.decisions)
            should = bool(case["labels"].get("fields"))
            for source in (corpus.source_of(case["id"]), "all"):
                counts[(source, "n")] += 1
                counts[(source, "tp" if wrote and should else "fp" if wrote else "fn" if should else "tn")] += 1
    print(f"offline engine on {len(cases):,} labeled pool turns, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"{'source':10} {'turns':>6} {'precision':>9} {'recall':>7} {'writes':>7} {'labelers':>8}")
    for source in sorted({s for s, _ in counts}, key=lambda s: (s == "all", s)):
        n, tp, fp, fn = (counts[(source, k)] for k in ("n", "tp", "fp", "fn"))
        precision = f"{tp / (tp + fp):.3f}" if tp + fp else "-"
        recall = f"{tp / (tp + fn):.3f}" if tp + fn else "-"
        print(f"{source:10} {n:6,} {precision:>9} {recall:>7} {(tp + fp) / n:7.3f} {(tp + fn) / n:8.3f}")


if __name__ == "__main__":
    main()

"""Consolidation of a large hand-edited MEMORY.md: seconds for `MemoryPipeline.consolidate` (issue 13, item 8).

Run: .venv/bin/python benchmarks/bench_consolidate.py [--entries 4000] [--seed 0]
A user who pastes a long log into MEMORY.md by hand makes the next consolidation work on thousands of entries
under the user's lock; it must scale about linearly (it took 72 s on 4,000 entries when it was quadratic).
The entries are generated (topics, dates, near duplicates and changes), never taken from a data set.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from pipeline.core import MemoryPipeline

TOPICS = ["agent-demo", "billing", "site", "infra", "mobile app", "hiring", "garden", "marathon", "", "", ""]
COMMON = ("the we a to of and in for with on deployed migrated fixed switched moved upgraded ran planted "
          "interviewed 登录 页面 上线 ดีพลอย เซิร์ฟเวอร์ rilis fitur").split()
SYLLABLES = "ka lo mi ne ru ta shi po ve da lin gor bex sta fen qua".split()


def vocabulary(rng: random.Random, n: int = 3000) -> list[str]:
    """Made-up content words; drawn with a Zipf-like skew as words in a real log are."""
    return ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(n)]


def hand_edited_log(n: int, seed: int) -> str:
    rng = random.Random(seed)
    words = vocabulary(rng)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    lines: list[str] = []
    for _ in range(n):
        if lines and rng.random() < 0.1:
            body = lines[rng.randrange(len(lines))].split("] ", 1)[-1]  # a repeated line, another day
        else:
            topic = rng.choice(TOPICS)
            size = rng.randint(3, 16)
            text = rng.choices(COMMON, k=size // 2) + rng.choices(words, weights, k=size - size // 2)
            body = (f"{topic}: " if topic else "") + " ".join(rng.sample(text, len(text)))
        lines.append(f"- [2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}] {body}")
    return "# MEMORY\n\n" + "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        user = Path(root) / "bench"
        user.mkdir()
        (user / "MEMORY.md").write_text(hand_edited_log(args.entries, args.seed), encoding="utf-8")
        with MemoryPipeline(root, engine="offline") as pipeline:
            start = time.perf_counter()
            result = pipeline.consolidate("bench")
            elapsed = time.perf_counter() - start
    print(f"{args.entries:,} entries consolidated in {elapsed:.2f} s: {result['before']} -> {result['after']} chars, "
          f"{result['entry_count']} entries kept, {result['archived']:,} archived")


if __name__ == "__main__":
    main()

"""Long repetitive messages: the time and peak memory of one `memroute turn` process on one sentence repeated to
10K, 40K and 100K characters, for sentences that stress different steps (sentences ended by periods, one
endless comma-separated sentence, Thai written without spaces, Chinese), and of `memroute batch` on one
line of ~880K characters (under the batch reader's 1M-character line cap). The offline engine; nothing
leaves the machine. Time and memory should grow linearly: the 100K turn within ~10x of the 10K one.

Run: .venv/bin/python benchmarks/bench_long_text.py [--sizes 10000,40000,100000] [--batch-chars 880000]
     (--batch-chars 0 skips the batch line)
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SENTENCES = {
    "sentences": "I am a nurse in Lyon and I love hiking with my dog on weekends. ",
    "one long sentence": "I am a nurse, I live in Lyon, I like hiking, ",
    "Thai, no spaces": "ฉันชอบกินข้าวผัดมาก",
    "Chinese": "我是一名护士，住在里昂。",
}


def repeated(sentence: str, chars: int) -> str:
    return (sentence * (chars // len(sentence) + 1))[:chars]


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds and the child's peak resident memory in MB (ru_maxrss of the largest child so far)."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"exit {done.returncode}: {' '.join(command[:6])}: {done.stderr.strip()[-300:]}")
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def turn(root: Path, user: str, text: str) -> tuple[float, float]:
    messages = root / f"{user}.json"
    messages.write_text(json.dumps([{"role": "user", "content": text}]), encoding="utf-8")
    return timed([sys.executable, "-m", "pipeline.cli", "turn", user, "--messages", str(messages),
                  "--root", str(root / "memory")])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,40000,100000")
    parser.add_argument("--batch-chars", type=int, default=880_000)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"memroute turn, one process per message (offline engine); sizes {sizes}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for k, (label, sentence) in enumerate(SENTENCES.items()):
            figures = [turn(root, f"user{k}-{size}", repeated(sentence, size))[0] for size in sizes]
            ratio = figures[-1] / figures[0] if figures[0] else float("nan")
            cells = "  ".join(f"{size // 1000}K {wall:5.2f} s" for size, wall in zip(sizes, figures, strict=True))
            print(f"  {label:<18} {cells}   {sizes[-1] // 1000}K / {sizes[0] // 1000}K: {ratio:4.1f}x")
        if args.batch_chars:
            line = {"user": "long", "messages": [{"role": "user", "content": repeated(SENTENCES['sentences'],
                                                                                     args.batch_chars)}]}
            source = root / "long.jsonl"
            source.write_text(json.dumps(line) + "\n", encoding="utf-8")
            wall, peak = timed([sys.executable, "-m", "pipeline.cli", "batch", str(source), "--out",
                                str(root / "batch"), "--workers", "1"])
            print(f"memroute batch, one line of {args.batch_chars:,} characters: {wall:.1f} s, "
                  f"peak memory of the largest process so far {peak:.0f} MB")


if __name__ == "__main__":
    main()

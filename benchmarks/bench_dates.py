"""Do entry dates say what the user said and no more? Long generated conversations through `memroute batch`.

    python benchmarks/bench_dates.py                      # 8 people x 12 conversations of 8-14 turns
    python benchmarks/bench_dates.py --users 40 --conversations 200 [--engine E --model M] [--keep DIR]

The conversations come from benchmarks/gen_transcripts.py --dated (four languages; time phrases at
every precision: "yesterday", "on Sunday", "May 3", "last weekend", "last week", "two weeks ago",
"last month", "last year", "in 2024", "back in college"; a phrase on its own before its statement,
"Last night was amazing! We celebrated ..."). Each turn carries what its words say about the date,
and gen_transcripts.expected_date turns that into the date an entry should carry, with its own
calendar code (not the engine's). The script runs the real CLI, `memroute batch IN --out TMP
--decisions TMP/decisions.jsonl`, then reads every MEMORY.md entry a turn wrote and prints:

- entries: how many, by precision of their date (day, month, year, none);
- entries with an invented day: a day-precise date where the user named no day ("last month",
  "last week") — must be 0;
- entries dated as said: the date equals the expected one, at its precision;
- the others, by what the words said and what the entry got;
- entries whose text names a weekday or a month the turn did not (a date put into words).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_conversations import _shown, run_batch  # noqa: E402
from gen_transcripts import expected_date, generate_lines, write  # noqa: E402

# Weekday and month names of the four languages: an entry that holds one its turn did not is a date in words.
_NAMED = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|senin|selasa|rabu|kamis|jumat|sabtu|minggu|januari|februari|"
    r"maret|mei|juni|juli|agustus|oktober|desember)\b|星期[一二三四五六日天]|周[一二三四五六日天]|\d{1,2}月\d{1,2}[日号]|"
    r"วัน(?:จันทร์|อังคาร|พุธ|พฤหัสบดี|ศุกร์|เสาร์|อาทิตย์)|มกราคม|กุมภาพันธ์|มีนาคม|เมษายน|พฤษภาคม|มิถุนายน|"
    r"กรกฎาคม|สิงหาคม|กันยายน|ตุลาคม|พฤศจิกายน|ธันวาคม",
    re.IGNORECASE,
)


def precision(stamp: str | None) -> str:
    return "none" if not stamp else {10: "day", 7: "month", 4: "year"}.get(len(stamp), "?")


def read_turns(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """(conversation_id, index) -> the turn (its text, timestamp and `said`)."""
    turns: dict[tuple[str, int], dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        conv = json.loads(line)
        for k, t in enumerate(conv["turns"]):
            turns[(conv["conversation_id"], k)] = t
    return turns


def entries_written(decisions: Path) -> list[dict[str, Any]]:
    out = []
    for line in decisions.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d["route"] == "memory" and d["op"] == "append" and str(d.get("outcome")).startswith("written"):
            out.append(d)
    return out


def measure(turns: dict[tuple[str, int], dict[str, Any]], written: list[dict[str, Any]], root: Path) -> list[str]:
    by_precision: Counter[str] = Counter()
    invented: list[str] = []
    in_words: list[str] = []
    as_said = 0
    other: Counter[str] = Counter()
    for d in written:
        turn = turns[(d["conversation_id"], int(d["turn_id"].rsplit("-", 1)[1]))]
        said = turn.get("said") or "day:0"  # no time phrase: the day it was said
        day = datetime.fromisoformat(turn["timestamp"].replace("Z", "+00:00")).date()
        want, got = expected_date(said, day), d.get("date")
        by_precision[precision(got)] += 1
        if precision(got) == "day" and precision(want) != "day":
            invented.append(f"{turn['user']!r} -> [{got}] {d.get('entry')}")
        if got == want:
            as_said += 1
        else:
            other[f"{said.split(':')[0]} said, {precision(got)} given"] += 1
        for m in _NAMED.finditer(d.get("entry") or ""):
            if m.group(0).casefold() not in turn["user"].casefold():
                in_words.append(f"{turn['user']!r} -> {d.get('entry')!r}")
    files = sorted(root.glob("*/MEMORY.md"))
    on_file = Counter(precision(m.group(1)) for f in files
                      for m in re.finditer(r"^- \[(\d{4}(?:-\d{2}){0,2})\]", f.read_text(encoding="utf-8"), re.M))
    n = len(written)
    rows = [
        f"entries written: {n} ({', '.join(f'{k} {v}' for k, v in sorted(by_precision.items()))}); "
        f"in the MEMORY.md files: {sum(on_file.values())} dated ({', '.join(f'{k} {v}' for k, v in sorted(on_file.items()))})",
        f"entries with an invented day: {len(invented)} ({100 * len(invented) / n if n else 0:.1f}%)",
        f"entries dated as said: {as_said} ({100 * as_said / n if n else 0:.1f}%)",
        f"entries with a weekday or month in words the turn did not say: {len(in_words)}",
    ]
    if other:
        rows.append("others: " + ", ".join(f"{k} {v}" for k, v in other.most_common()))
    rows += [f"  invented: {x}" for x in invented[:10]] + [f"  in words: {x}" for x in in_words[:10]]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=8)
    ap.add_argument("--conversations", type=int, default=96)
    ap.add_argument("--min-turns", type=int, default=8)
    ap.add_argument("--max-turns", type=int, default=14)
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--engine")
    ap.add_argument("--model")
    ap.add_argument("--keep", type=Path, help="keep the input, the memory root and the decision log in this (new) folder")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-dates-")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    try:
        src = work / "dated.turns.jsonl"
        write(src, generate_lines(users=args.users, conversations=args.conversations, seed=args.seed, fmt="turns",
                                  min_turns=args.min_turns, max_turns=args.max_turns, shuffle=False, dated=True))
        extra = [*(["--engine", args.engine] if args.engine else []), *(["--model", args.model] if args.model else [])]
        cmd, decisions = run_batch([src], work / "out", extra)
        turns = read_turns(src)
        print("$ " + " ".join(_shown(c) for c in cmd))
        print(f"user messages: {len(turns)} in {len({c for c, _ in turns})} conversations, {args.users} people, "
              f"{sum(1 for t in turns.values() if t.get('said'))} with a time phrase")
        print("\n".join(measure(turns, entries_written(decisions), work / "out")))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

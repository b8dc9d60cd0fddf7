"""Candidates over long generated conversations, each promotion judged against what the person is.

    python benchmarks/bench_candidates.py                     # 80 people, 1,000 conversations, seed 5
    python benchmarks/bench_candidates.py --asked             # the assistant also asks back and tells of its own pet
    python benchmarks/bench_candidates.py --users 20 --conversations 200 --keep DIR

Generates `gen_transcripts.py --restate [--asked] --format turns` (each person's pet and hobby come back in
other words; with --asked the assistant asks "So you have a dog named Rex?" and the next message is a bare yes
or no, or speaks of its own pet and the person answers about it), runs `memroute batch` over it as
bench_conversations.py does, and prints the candidates' counts (kept, seen again, promoted by what) and every
promotion judged against the person the generator made:

- right: the person's pet with its name, their hobby, name, role, city, or the answer style every person
  asks for; thin: the pet's kind without its name ("Pets: 狗"); part: a part of the hobby ("piano" for jazz
  piano); theirs: the assistant's own pet; wrong: anything else (a fragment of the name, a key the generator
  never plants, such as a stack read from a project decision).

Figures, offline engine, 2026-12-03 (re-run before quoting). "Before" is the candidate rules as they were
(the same key and value words, or a firm statement; no encoder, no question asked back, no check of the
other speaker's words), run on the same transcripts:

    $ python benchmarks/bench_candidates.py
    before: 100 kept, 79 promoted: right 44, wrong 17, thin 14, part 4
    now:     60 kept, 52 promoted (30 said again, 14 by a firm statement, 8 said again in other words):
             right 44, thin 4, part 2, wrong 2
    $ python benchmarks/bench_candidates.py --asked
    before: 124 kept, 102 promoted: theirs 36, right 33, thin 15, wrong 14, part 4
    now:     42 kept, 33 promoted (13 said again, 11 confirmed when asked, 5 said again in other words,
             4 by a firm statement): right 27, part 3, thin 2, wrong 1, theirs 0

At the end every person's pet (80 of 80) and hobby (77 of 80) are in USER.md either way; the assistant's own
pet was in 36 people's USER.md before and is in none now, "Usual stack: Postgres" (read from a project
decision said again, 13-15 wrong promotions before) in none, and bare pet kinds or parts of a hobby in 14
clauses of USER.md instead of 26. The wrong ones left are Thai name fragments ("Name: ล" from "ผมชื่อกมล"),
values the engine proposes and the same word said again repeats.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_conversations as bench  # noqa: E402
import gen_transcripts as gen  # noqa: E402

STYLE_KEYS = ("response style", "communication style", "answer style", "response length", "answer length")


def people(users: int, seed: int, asked: bool) -> dict[str, dict[str, Any]]:
    """The personas gen_transcripts.generate_lines makes for these settings (drawn first, in order)."""
    rng = random.Random(seed)
    return {p["user_id"]: p for p in (gen.persona(rng, n, True, asked) for n in range(users))}


def verdict(d: dict[str, Any], p: dict[str, Any]) -> str:
    """How a promoted field's newest clause compares with the person (see the module docstring)."""
    clauses = [c.strip() for c in str(d.get("value") or "").split(";") if c.strip()]
    value, key = (clauses[-1] if clauses else ""), str(d.get("key") or "").casefold()
    if p.get("othername") and p["othername"] in value:
        return "theirs"
    if key in ("pets", "pet"):
        if p.get("petname") and p["petname"] in value:
            return "right"
        return "thin" if value and value in str(p.get("pet")) + "s" else "wrong"
    if key in ("hobbies", "likes", "hobby"):
        if p.get("hobby") and p["hobby"] in value:
            return "right"
        return "part" if value and value in str(p.get("hobby")) else "wrong"
    truth = {"name": p["name"], "role": p["role"], "job": p["role"], "location": p["city"], "city": p["city"]}
    if key in truth:
        return "right" if truth[key] in value else "wrong"
    return "right" if key in STYLE_KEYS else "wrong"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--users", type=int, default=80)
    ap.add_argument("--conversations", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--asked", action="store_true", help="the assistant asks back and tells of its own pet")
    ap.add_argument("--keep", type=Path, help="keep the transcripts, memory root and decision log in this (new) folder")
    ap.add_argument("--examples", type=int, default=3, help="examples printed per kind of promotion and verdict")
    args = ap.parse_args(argv)
    if args.users < 1 or args.conversations < 1:
        print("bench_candidates: --users and --conversations must be at least 1", file=sys.stderr)
        return 2
    if args.keep is not None and args.keep.exists():
        print(f"bench_candidates: --keep {args.keep} exists; name a new folder", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="memroute-candidates-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        transcripts = work / "transcripts.jsonl"
        gen.write(transcripts, gen.generate_lines(users=args.users, conversations=args.conversations, seed=args.seed,
                                                  fmt="turns", restate=True, asked=args.asked))
        cmd, decisions = bench.run_batch([transcripts], work / "out", [])
        turns = bench.read_turns([transcripts])
        bench.attach_decisions(turns, decisions)
        all_turns = list(turns.values())
        print("$ " + " ".join(cmd))
        print("\n".join(bench.candidate_rows(all_turns, sample=0)))
        persons = people(args.users, args.seed, args.asked)
        judged: Counter[tuple[str, str]] = Counter()
        shown: dict[tuple[str, str], list[str]] = defaultdict(list)
        for t in all_turns:
            for d in t.decisions:
                if not str(d.get("outcome")).startswith("promoted"):
                    continue
                how = str(d.get("detail", "")).removeprefix("promoted candidate: ").split(" (first")[0]
                v = verdict(d, persons[t.user_id])
                judged[(how, v)] += 1
                shown[(how, v)].append(f"{d.get('key')}: {d.get('value')!r} <- {str(d.get('quote'))[:60]!r}")
        totals = Counter(v for (_, v), n in judged.items() for _ in range(n))
        print(f"promotions judged against the persons: {sum(judged.values())}: "
              + ", ".join(f"{v} {n}" for v, n in totals.most_common()))
        for (how, v), n in sorted(judged.items()):
            print(f"  {how}: {v} {n}")
            for example in shown[(how, v)][:args.examples]:
                print(f"      {example}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

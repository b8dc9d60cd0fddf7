"""How far a linear route head on the frozen sentence encoder transfers: leave-one-source-out figures.

Reads every labeled turn (the written corpus, the shared real training turns and the labeled pool turns), encodes the
user's line and the assistant's line before it with the offline engine's encoder (pipeline/engines/offline/encoder.py),
fits a multinomial logistic regression over [u, a, u*a] (the head of pipeline/engines/offline/heads.py) on every
source but one, and scores the source left out: route accuracy, USER.md precision and recall, write rate beside the
curator's, the precision-recall curve of P(user) pooled over the sources left out, and the hybrid gate (the P(write)
bar that sends 95% of the turns a curator writes to the model, and the share of turns that then make no call).

    python training/encoder_probe.py --pool ../shared/data/real_pool.jsonl \
        --real-train ../shared/data/real_train_conv.jsonl [--cache /tmp/vectors.pkl] [--measure FILE.jsonl]

`--measure` scores a file the head never trains on (real_dev_conv.jsonl: a measure, never tuned on) with the head
fitted on everything. Needs numpy (`pip install -e '.[train]'`). Deterministic: the encoder is, and so is the fit.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import corpus  # noqa: E402
from train_extractor import group_key  # noqa: E402

from pipeline.engines.offline.encoder import DIM, shared_encoder  # noqa: E402
from pipeline.engines.offline.heads import PRODUCT_SCALE  # noqa: E402

CLASSES = ("user", "memory", "mood", "one_off", "vague", "inferable", "sensitive")  # the gate's classes
MAX_CHARS = 2000  # a statement is read in pieces of at most this many characters


def label_of(labels: dict[str, Any]) -> str:
    if labels.get("skip"):
        return str(labels["skip"])
    return "user" if labels.get("fields") else "memory"


def lines_of(case: dict[str, Any]) -> tuple[str, str]:
    msgs = case["messages"]
    user = msgs[-1]["content"]
    assistant = msgs[-2]["content"] if len(msgs) > 1 and msgs[-2]["role"] == "assistant" else ""
    return user, assistant


def embed(texts: set[str], cache: Path | None) -> dict[str, np.ndarray]:
    vectors: dict[str, np.ndarray] = {}
    if cache is not None and cache.is_file():
        with cache.open("rb") as f:
            vectors = pickle.load(f)
    todo = sorted(t for t in texts if t not in vectors)
    encoder = shared_encoder()
    for i in range(0, len(todo), 32):
        chunk = todo[i:i + 32]
        for text, vec in zip(chunk, encoder.encode([t[:MAX_CHARS] for t in chunk]), strict=True):
            vectors[text] = np.frombuffer(vec.tobytes(), dtype=np.float32).astype(np.float16)
        if cache is not None and (i // 32) % 50 == 0:
            with cache.open("wb") as f:
                pickle.dump(vectors, f)
    if cache is not None and todo:
        with cache.open("wb") as f:
            pickle.dump(vectors, f)
    return vectors


def inputs(rows: list[tuple[str, str]], vectors: dict[str, np.ndarray]) -> np.ndarray:
    zero = np.zeros(DIM, np.float32)
    u = np.stack([vectors[a].astype(np.float32) for a, _ in rows])
    a = np.stack([vectors[b].astype(np.float32) if b else zero for _, b in rows])
    return np.hstack([u, a, u * a * PRODUCT_SCALE])


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, l2: float, steps: int, lr: float) -> np.ndarray:
    """Weighted softmax regression, full-batch Adam; returns [(D + 1) x K] with the bias as the last row."""
    n, d = x.shape
    k = len(CLASSES)
    xb = np.hstack([x, np.ones((n, 1), np.float32)])
    w = np.zeros((d + 1, k), np.float32)
    onehot = np.eye(k, dtype=np.float32)[y]
    weight = weight / weight.sum()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, steps + 1):
        p = probs(w, x, xb)
        g = xb.T @ ((p - onehot) * weight[:, None])
        g[:-1] += l2 * w[:-1]
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return w


def probs(w: np.ndarray, x: np.ndarray, xb: np.ndarray | None = None) -> np.ndarray:
    xb = np.hstack([x, np.ones((len(x), 1), np.float32)]) if xb is None else xb
    z = xb @ w
    z -= z.max(1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(1, keepdims=True)
    return out


def scores(truth: list[str], p: np.ndarray, bar: float | None = None) -> dict[str, float]:
    pred = []
    for pu, pm, ps in zip(p[:, 0], p[:, 1], p[:, 2:].sum(1), strict=True):
        if bar is None:
            pred.append("user" if pu >= max(pm, ps) else "memory" if pm >= ps else "skip")
        else:
            pred.append("user" if pu >= bar else "memory" if pm > max(pu, ps) else "skip")
    route = ["skip" if t not in ("user", "memory") else t for t in truth]
    wrote = sum(g == "user" for g in pred)
    right = sum(g == "user" and t == "user" for g, t in zip(pred, route, strict=True))
    wanted = sum(t == "user" for t in route)
    return {"n": len(truth), "route": float(np.mean([g == t for g, t in zip(pred, route, strict=True)])),
            "user_p": right / max(wrote, 1), "user_r": right / max(wanted, 1),
            "write": float(np.mean([g != "skip" for g in pred])), "curator_write": float(np.mean([t != "skip" for t in route]))}


def fmt(s: dict[str, float]) -> str:
    return " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in s.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pool", type=Path, required=True)
    ap.add_argument("--real-train", type=Path, required=True)
    ap.add_argument("--cache", type=Path, help="keep the encoder's vectors here between runs (pickle)")
    ap.add_argument("--measure", type=Path, help="an eval-case file scored by the head fitted on everything")
    ap.add_argument("--written-weight", type=float, default=0.3)
    ap.add_argument("--l2", type=float, default=1e-5)
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--lr", type=float, default=0.3)
    args = ap.parse_args(argv)
    if args.measure is not None and "train" in args.measure.name:
        raise SystemExit("--measure names a file the head is scored on, not one it trains on")
    xp = json.loads((Path(__file__).with_name("xpersona_groups.json")).read_text(encoding="utf-8"))
    cases = list(corpus.all_labeled_turns(real_train=args.real_train, pool=args.pool))
    rows = [lines_of(c) for c in cases]
    truth = [label_of(c["labels"]) for c in cases]
    sources = [corpus.source_of(c["id"]) for c in cases]
    measure = [json.loads(line) for line in args.measure.open(encoding="utf-8")] if args.measure else []
    vectors = embed({t for r in rows + [lines_of(c) for c in measure] for t in r if t}, args.cache)
    x = inputs(rows, vectors)
    y = np.array([CLASSES.index(t) for t in truth])
    weight = np.array([args.written_weight if s == "written" else 1.0 for s in sources], np.float32)
    print(f"{len(cases)} labeled turns: {dict(Counter(sources))}; groups {len({group_key(c, xp) for c in cases})}")
    real = sorted({s for s in sources if s != "written"})
    oof = np.zeros((len(cases), len(CLASSES)), np.float32)
    for held in real:
        train = np.array([s != held for s in sources])
        w = fit(x[train], y[train], weight[train], args.l2, args.steps, args.lr)
        oof[~train] = probs(w, x[~train])
        print(f"left out {held:9}", fmt(scores([t for t, s in zip(truth, sources, strict=True) if s == held], oof[~train])))
    pooled = np.array([s != "written" for s in sources])
    truth_real = [t for t, s in zip(truth, sources, strict=True) if s != "written"]
    print("pooled, sources left out:", fmt(scores(truth_real, oof[pooled])))
    is_user = np.array([t == "user" for t in truth_real])
    curve = []
    for bar in np.arange(0.2, 0.96, 0.05):
        chosen = oof[pooled][:, 0] >= bar
        hit = (chosen & is_user).sum()
        curve.append(f"{bar:.2f}:{hit / max(chosen.sum(), 1):.3f}/{hit / max(is_user.sum(), 1):.3f}")
    print("precision/recall of P(user) >= bar, pooled:", " ".join(curve))
    p_write = oof[pooled][:, 0] + oof[pooled][:, 1]
    written = np.array([t in ("user", "memory") for t in truth_real])
    bar = float(np.sort(p_write[written])[int(0.05 * written.sum())])
    print(f"hybrid: P(write) >= {bar:.4f} sends 95% of the turns a curator writes; no call on "
          f"{float(np.mean(p_write < bar)):.3f} of the turns (pooled, sources left out)")
    if measure:
        w = fit(x, y, weight, args.l2, args.steps, args.lr)
        mt = [label_of({"skip": c["expect"].get("reason") or "vague"} if c["expect"].get("route") == "skip" else
                       {"entries": [1]} if c["expect"].get("route") == "memory" else {"fields": [1]}) for c in measure]
        p = probs(w, inputs([lines_of(c) for c in measure], vectors))
        print(f"measure {args.measure.name}:", fmt(scores(mt, p)))
        mw = np.array([t in ("user", "memory") for t in mt])
        pw = p[:, 0] + p[:, 1]
        print(f"measure hybrid at that bar: sends {float(np.mean(pw[mw] >= bar)):.3f} of the written turns, no call on "
              f"{float(np.mean(pw < bar)):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Heads on the sentence encoder: small dense models that decide from the encoder's vectors of a turn.

The route head reads the user's line and the assistant's line before it (answers to "where do you work?" carry the
fact) as the encoder's vectors `u` and `a`, plus their product (does the line answer what was asked), and gives a
distribution over the gate's classes: user, memory and the five skip reasons. Its P(write) is also hybrid's gate.
Weights are float32, read with the standard library (no numpy at run time): a head is a few dot products.
"""

from __future__ import annotations

import base64
import math
import operator
from array import array
from collections.abc import Sequence
from typing import Any

from pipeline.engines.offline.encoder import DIM, Encoder

FORMAT = "memroute-encoder-head-1"
INPUTS = ("u", "a", "u*a")  # the blocks of the head's input, DIM numbers each
PRODUCT_SCALE = 10.0  # u*a is small (both unit vectors): scaled so its weights train at the same step size


def head_input(u: Sequence[float], a: Sequence[float] | None) -> list[float]:
    """The head's input for a user line's vector and the assistant line's (None: the turn opens the conversation)."""
    if a is None:
        return [*u, *([0.0] * DIM), *([0.0] * DIM)]
    return [*u, *a, *(x * y * PRODUCT_SCALE for x, y in zip(u, a, strict=True))]


class DenseHead:
    """A multinomial logistic regression over the encoder's vectors; weights float32, one row per class."""

    def __init__(self, classes: Sequence[str], bias: Sequence[float], rows: Sequence[Sequence[float]]) -> None:
        self.classes = tuple(classes)
        self.bias = [float(b) for b in bias]
        self.rows = [array("d", r) for r in rows]
        if len(self.rows) != len(self.classes) or any(len(r) != len(INPUTS) * DIM for r in self.rows):
            raise ValueError("a head's weights do not match its classes and the encoder's size")

    def probs(self, x: Sequence[float]) -> list[float]:
        scores = [b + sum(map(operator.mul, r, x)) for b, r in zip(self.bias, self.rows, strict=True)]
        top = max(scores)
        e = [math.exp(s - top) for s in scores]
        z = sum(e)
        return [v / z for v in e]

    def probs_of_turn(self, encoder: Encoder, user_text: str, assistant: str) -> list[float]:
        texts = [user_text, assistant] if assistant else [user_text]
        vecs = encoder.encode(texts)
        return self.probs(head_input(vecs[0], vecs[1] if assistant else None))

    def to_json(self) -> dict[str, Any]:
        packed = array("f", [x for r in self.rows for x in r]).tobytes()
        return {"format": FORMAT, "inputs": list(INPUTS), "dim": DIM, "classes": list(self.classes),
                "bias": [round(b, 6) for b in self.bias], "weights": base64.b64encode(packed).decode("ascii")}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DenseHead:
        if data.get("format") != FORMAT or data.get("dim") != DIM or list(data.get("inputs", ())) != list(INPUTS):
            raise ValueError("not a memroute encoder head for this encoder")
        flat = array("f")
        flat.frombytes(base64.b64decode(data["weights"]))
        n = len(INPUTS) * DIM
        rows = [flat[i * n:(i + 1) * n] for i in range(len(data["classes"]))]
        return cls(data["classes"], data["bias"], rows)

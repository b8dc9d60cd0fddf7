"""The text features the extractor's turn gate reads (extractor.gate_features): words or character n-grams of a
line and yes/no shapes of the language pack's patterns. Trained and read the same way by
training/train_extractor.py and the engine; no numpy at run time."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.engines.offline.lexicon import Lexicon
from pipeline.engines.offline.split import script_of

_WORD = re.compile(r"[\w']+")
_SPACE = re.compile(r"\s+")
# Lexicon patterns read as yes/no shapes of the user's line (and of the assistant's, prefixed "a").
SHAPES = ("first_person", "plural_person", "question", "hedge", "phatic", "request", "mood_state", "remember",
          "standing", "no_longer", "greeting")


@dataclass(frozen=True)
class FeatureConfig:
    """Which n-grams the gate reads; stored with the weights."""

    word_ngrams: int = 2  # words 1..n for Latin-script text
    char_min: int = 1  # character n-grams for Chinese and Thai text (no spaces between words)
    char_max: int = 3
    latin_chars: bool = False  # also character n-grams (3..4) for Latin text


def text_grams(prefix: str, text: str, cfg: FeatureConfig, out: list[str]) -> int:
    """Words (Latin) or character n-grams (Chinese, Thai) of one line; returns its length in units."""
    norm = _SPACE.sub(" ", text.casefold()).strip()
    if script_of(norm) == "latin":
        words = _WORD.findall(norm)
        padded = ["<s>", *words, "</s>"]
        out.extend(prefix + "w:" + w for w in words)
        for n in range(2, cfg.word_ngrams + 1):
            out.extend(prefix + "w:" + " ".join(padded[i:i + n]) for i in range(len(padded) - n + 1))
        if cfg.latin_chars:
            joined = " " + " ".join(words) + " "
            for n in (3, 4):
                out.extend(prefix + "c:" + joined[i:i + n] for i in range(len(joined) - n + 1))
        return len(words)
    compact = "^" + norm.replace(" ", "") + "$"
    for n in range(cfg.char_min, cfg.char_max + 1):
        out.extend(prefix + "c:" + compact[i:i + n] for i in range(len(compact) - n + 1))
    return len(compact) // 2


def shapes(prefix: str, text: str, lex: Lexicon, names: Iterable[str], out: list[str]) -> None:
    for name in names:
        pattern = getattr(lex, name, None)
        if isinstance(pattern, re.Pattern) and pattern.search(text):
            out.append(prefix + "s:" + name)

"""Is a shorter value a faithful shortening of the old one? Words dropped, none cut or made up.

A model asked to shorten USER.md may truncate ("Frontend engin") or reword a fact into another
one; both pass a length check. A faithful shortening only drops words: each of its words is a
whole word of the old value (case aside). Scripts written without spaces (Chinese, Japanese,
Thai, ...) have no word boundaries to check, so a run of them must appear in the old value as is.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")
# Runs in scripts without spaces between words: CJK ideographs, kana, hangul, Thai, Lao, Khmer, Myanmar.
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_ELLIPSIS = ("…", "...")


def unfaithful_words(old: str, new: str) -> list[str]:
    """The words of `new` that are not words of `old` (a cut word, a new word), in order; [] if faithful."""
    old_folded = old.casefold()
    old_words = set(_WORD.findall(old_folded))
    bad = [
        word
        for word in _WORD.findall(new.casefold())
        if word not in old_words and not (_UNSPACED.search(word) and word in old_folded)
    ]
    ellipsis = next((e for e in _ELLIPSIS if new.rstrip().endswith(e)), None)
    if ellipsis and not old.rstrip().endswith(_ELLIPSIS):
        bad.append(ellipsis)  # "engineer…": cut off, however whole its last word
    return bad


def is_faithful_shortening(old: str, new: str) -> bool:
    return not unfaithful_words(old, new)

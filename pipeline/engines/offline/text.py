"""Small text helpers shared by the rules: language guess, normalisation, overlap."""

from __future__ import annotations

from functools import lru_cache

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang import FALLBACK, of_script, packs
from pipeline.engines.offline.split import script_of

_LATIN_WORD = lazy_compile(r"[a-z']+")
_WORD = lazy_compile(r"[\w\u0E00-\u0E7F\u4E00-\u9FFF]+")
_QUOTED = lazy_compile(r"\"[^\"]*\"|“[^”]*”|「[^」]*」")


@lru_cache(maxsize=4096)
def guess_language(text: str, default: str = FALLBACK) -> str:
    """The pack a text is in: by its script, and among the Latin-script packs by which one's function words it
    holds most (a tie goes to the lower rank: English before Indonesian); `default` when it holds none."""
    script = script_of(text)
    if script != "latin":
        written_in = of_script(script)
        return written_in.code if written_in is not None else FALLBACK
    found = _LATIN_WORD.findall(text.lower())
    scores = [(sum(w in p.words.function_words for w in found), p.code) for p in packs() if p.words.script == "latin"]
    best = max(scores, key=lambda s: s[0], default=(0, default))
    return default if best[0] == 0 else best[1]


def normalize(text: str) -> str:
    """Case- and punctuation-free form for "was this already said?" comparisons."""
    return " ".join(_WORD.findall(text.casefold()))


def tokens(text: str) -> set[str]:
    """Words for Latin text; character bigrams for Chinese and Thai, which have no spaces."""
    norm = normalize(text)
    if script_of(norm) == "latin":
        return set(norm.split())
    compact = norm.replace(" ", "")
    return {compact[i:i + 2] for i in range(len(compact) - 1)} or {compact}


def coverage(part: set[str], whole: set[str]) -> float:
    """Share of `part` that `whole` contains."""
    if not part:
        return 0.0
    return len(part & whole) / len(part)


def without_quotes(text: str) -> str:
    """Quoted material is someone else's words (a lyric, a title), not a statement about the user."""
    return _QUOTED.sub(" ", text)

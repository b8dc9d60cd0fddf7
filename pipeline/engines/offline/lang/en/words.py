"""English: how the language is told apart, and the subject a clause that dropped it gets."""

from __future__ import annotations

from pipeline.engines.offline.lang.contract import Words

WORDS = Words(
    script="latin",
    # Common words, counted against the other Latin-script packs' (not matched, for speed).
    function_words=frozenset({
        "a", "am", "an", "and", "are", "at", "be", "do", "for", "has", "have", "i", "i'm", "in", "is", "it", "like",
        "love", "my", "not", "of", "on", "our", "that", "the", "this", "to", "was", "we", "with", "work", "you",
    }),
    subject="I ",
    pro_drop=False,
)

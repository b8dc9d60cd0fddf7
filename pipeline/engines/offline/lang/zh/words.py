"""Chinese: how the language is told apart, and the subject a clause that dropped it gets."""

from __future__ import annotations

from pipeline.engines.offline.lang.contract import Words

WORDS = Words(
    script="zh",
    # Its script tells it apart.
    function_words=frozenset(),
    subject="我",
    pro_drop=True,
)

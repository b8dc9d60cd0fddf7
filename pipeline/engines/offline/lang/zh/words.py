"""Chinese: how the language is told apart, and the subject a clause that dropped it gets."""

from __future__ import annotations

import re

from pipeline.engines.offline.lang.contract import Words

WORDS = Words(
    script="zh",
    # Its script tells it apart.
    function_words=frozenset(),
    subject="我",
    pro_drop=True,
    other_subject=re.compile(r"(?<![其吉])他|她|(?<!其)它"),
    implied_identity=False,
)

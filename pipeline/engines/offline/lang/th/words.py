"""Thai: how the language is told apart, and the subject a clause that dropped it gets."""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang.contract import Words

WORDS = Words(
    script="th",
    # Its script tells it apart.
    function_words=frozenset(),
    subject="ผม",
    pro_drop=True,
    other_subject=re.compile(r"(?<!ภู)เขา|เธอ"),
    ambiguous_we=lazy_compile(r"^(?!.*(?:ผม|ฉัน|ดิฉัน|หนู|กระผม)).*เรา"),
)

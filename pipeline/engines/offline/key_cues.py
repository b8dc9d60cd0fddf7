"""Words that name the profile key of a self-attributed clause: "my brother ..." is Family.

The extractor (extractor.py) decides whether a span is a durable fact; these cues are its features for which field
holds it. A clause
with no cue gets no field: there is no catch-all key. Keys are tried in order, so "I love my two dogs" is Pets
before Likes, and "my son plays football" is Family before Hobbies. The words are each language pack's
(lang/<code>/cues.py); a language with no pack reads English's.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pipeline.engines.offline.lang import FALLBACK, codes, pack


@lru_cache(maxsize=8)
def compiled(code: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The key cues of `code`'s pack (English's for a language no pack provides), in the order they are tried."""
    cues = pack(code if code in codes() else FALLBACK).cues.key_cues
    return tuple((key, re.compile(pattern, re.IGNORECASE)) for key, pattern in cues.items())


def key_asked(assistant: str, lang: str) -> str | None:
    """The key the assistant's question names ("what do you do for work?" -> Work): what a bare answer is about."""
    return key_for(assistant, lang) if assistant.rstrip().endswith(("?", "？")) else None


def key_for(clause: str, lang: str) -> str | None:
    """The first key (in order) whose cue words the clause holds, or None: no field without a named key."""
    for key, pattern in compiled(lang):
        if pattern.search(clause):
            return key
    return None


def planned(clause: str, lang: str) -> bool:
    """Words that put a clause in the future: a plan ("we're going to Japan in April") is MEMORY.md's, not a
    profile fact. A language with no pack has none."""
    return lang in codes() and bool(pack(lang).cues.planned.search(clause))

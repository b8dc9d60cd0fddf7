"""A bare answer to the assistant's question for the user's name ("May I have your name?" -> "It's Angela",
"Brian White", "sure, Ben. Do I have to wait long?"): the name, said without the "my name is" the fact shapes
look for. Only names written as names (capitalised, one to three words) in a Latin script count; an answer that
is a question, a refusal or a sentence gives none."""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang import joined, packs
from pipeline.engines.offline.lexicon import FactRule

# The assistant's question asks for the user's name: each pack's words (Phrases.name_asked), ending in "?".
_NAME_ASKED = lazy_compile(rf"(?:{joined([p.phrases.name_asked for p in packs()])})[^?？]*[?？]\s*$", re.I)
_ANSWER = lazy_compile(
    r"^(?i:(?:yes|yeah|yep|sure|ok(?:ay)?|well|of course)[\s,.:!-]+){0,2}"
    r"(?i:(?:it'?s|its|it is|this is|i'?m|i am|me|my name is|my name'?s|name'?s|the name is|under)[\s,.:!-]+)?"
    r"(?P<v>[A-Z][a-zA-Z'-]+(?:\s+[A-Z][a-zA-Z'-]+){0,2})"
    r"(?:\s*$|\s*[,.;!:-]|\s+(?i:and|but|so|here)\b|\s+[Ii]\b|\s+\d)")
# Words that start a sentence with a capital and are no one's name.
_NOT_NAMES = frozenset("""
i it its it's my me the this that these those there here yes yeah yep no nope not sure why what who whom how when
where which can could would will should please sorry thanks thank hi hello hey ok okay well just actually also
and but so or if then mr mrs ms dr sir madam monday tuesday wednesday thursday friday saturday sunday january
february march april may june july august september october november december today tomorrow tonight
""".split())

NAME_ANSWER = FactRule("name-answer", _ANSWER, "Name", confidence=0.85)


def name_asked(assistant: str) -> bool:
    """Does the assistant's last line ask for the user's name?"""
    return bool(assistant) and _NAME_ASKED.search(assistant) is not None


def answered_name(text: str) -> str | None:
    """The name a reply to that question gives, or None."""
    m = _ANSWER.match(text.strip())
    if m is None:
        return None
    name = m.group("v")
    return None if name.split()[0].casefold() in _NOT_NAMES else name

"""A bare answer to the assistant's question about the user ("May I have your name?" -> "It's Angela", "Brian
White"; "Where are you from?" -> "Virginia, you?"): the value, said without the "my name is" or "I'm from" the
fact shapes look for. Only values written as names (capitalised, one to three words) in a Latin script count; an
answer that is a question, a refusal or a sentence gives none. Which question asks for which key is each
language pack's (Phrases.asked)."""

from __future__ import annotations

import re
from functools import cache

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang import joined, packs
from pipeline.engines.offline.lexicon import FactRule

_YES = r"^(?i:(?:yes|yeah|yep|sure|ok(?:ay)?|well|of course|um+|uh+)[\s,.:!-]+){0,2}"
_PROPER = r"(?P<v>[A-Z][a-zA-Z'-]+(?:\s+[A-Z][a-zA-Z'-]+){0,2})"
_ENDS = r"(?:\s*$|\s*[,.;!?:-]|\s+(?i:and|but|so|here|now|originally|area)\b|\s+[Ii]\b|\s+\d)"
# What may stand between the agreement and the value, per key.
_LEADS = {
    "Name": r"it'?s|its|it is|this is|i'?m|i am|me|my name is|my name'?s|name'?s|the name is|under",
    "Origin": r"i'?m from|i am from|originally from|from|born in|i grew up in|grew up in|it'?s|its|the",
    "Location": r"i live in|i'?m in|i am in|in|near|it'?s|its|the",
}
# Words that start a sentence with a capital and name no one and nowhere.
_NOT_NAMES = frozenset("""
i it its it's my me the this that these those there here yes yeah yep no nope not sure why what who whom how when
where which can could would will should please sorry thanks thank hi hello hey ok okay well just actually also
and but so or if then mr mrs ms dr sir madam monday tuesday wednesday thursday friday saturday sunday january
february march april may june july august september october november december today tomorrow tonight home
everywhere nowhere somewhere around
""".split())


ANSWER_RULES = {key: FactRule(f"{key.casefold()}-answer", lazy_compile(_YES + rf"(?i:(?:{lead})\s+)?" + _PROPER + _ENDS),
                              key, confidence=0.85) for key, lead in _LEADS.items()}


def asked_key(assistant: str) -> str | None:
    """The key the assistant's last line asks the user for (Name, Origin, Location), or None."""
    if not assistant:
        return None
    for key in _LEADS:
        if _asked(key).search(assistant):
            return key
    return None


def answered(text: str, key: str) -> str | None:
    """The value a reply to a question for `key` gives, or None."""
    m = ANSWER_RULES[key].pattern.match(text.strip())
    if m is None:
        return None
    value = m.group("v")
    return None if value.split()[0].casefold() in _NOT_NAMES else value


@cache
def _asked(key: str) -> re.Pattern[str]:
    """A question for `key`: each pack's words for it, in a line that ends in a question mark."""
    words = joined([p.phrases.asked.get(key, "") for p in packs()])
    return re.compile(rf"(?:{words})[^?？]*[?？]\s*$", re.I) if words else re.compile(r"(?!)")

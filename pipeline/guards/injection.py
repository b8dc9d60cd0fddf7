"""Running the injection rules over a text: the first rule it breaks, and the blocked verdict."""

from __future__ import annotations

import re

from pipeline._util.lazy_re import lazy_compile
from pipeline.guards.gates import Gate, Text
from pipeline.guards.injection_rules import RULES
from pipeline.guards.kinds import GuardPolicy, Verdict
from pipeline.guards.normalise import HIDING_RE, hiding_rule

_COMPILED_RULES: list[tuple[str, Gate | None, re.Pattern[str]]] = [
    (rule, None if gate is None else Gate(*gate), lazy_compile(pattern, re.IGNORECASE | re.MULTILINE))
    for rule, gate, pattern in RULES
]
LEADING_BULLET_RE = lazy_compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
MESSAGES = {
    "sensitive": "contains sensitive information ({kind}); not stored",
    "invisible": "contains invisible or direction-control characters",
    "structure": "would forge the structure of the memory file",
    "role": "contains a role or system marker",
    "injection": "reads as an instruction aimed at the assistant",
    "exfil": "contains an exfiltration or persistence pattern",
    "persistence": "asks to change an agent configuration file",
    "privilege": "claims privileges that cannot be verified",
}


def blocked_verdict(rule: str) -> Verdict:
    family = rule.split(":", 1)[0]
    return Verdict(False, "blocked", rule, f"blocked: {MESSAGES.get(family, 'unsafe content')} ({rule})")


def injection_rule(text: str, policy: GuardPolicy, *, quote: bool = False, t: Text | None = None) -> str | None:
    """The first rule `text` breaks. Quotes are the user's verbatim words: a line break there is
    ordinary (a forged heading or key line is not)."""
    if not text.isascii() and HIDING_RE.search(text):
        hidden = hiding_rule(text)
        if hidden is not None:
            return hidden
    hits = (t if t is not None and t.raw == text else Text(text)).hits()
    printable = text.isprintable()
    for rule, gate, rx in _COMPILED_RULES:
        if gate is None:
            if printable or (quote and rule == "structure:newline"):
                continue
        elif gate.gid not in hits:
            continue
        if rule == "privilege:admin_claim" and not policy.block_privilege_claims:
            continue
        if rx.search(text):
            return rule
    return None

"""Running the injection rules over a text: the first rule it breaks, and the blocked verdict."""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from collections.abc import Iterator

from pipeline._util.lazy_re import lazy_compile
from pipeline.guards.claims import CLAIM_RULES
from pipeline.guards.composed import composed_rule
from pipeline.guards.gates import Gate, Text
from pipeline.guards.injection_rules import RULES
from pipeline.guards.kinds import GuardPolicy, Verdict
from pipeline.guards.normalise import HIDING_RE, hiding_rule

_COMPILED_RULES: list[tuple[str, Gate | None, re.Pattern[str]]] = [
    (rule, None if gate is None else Gate(*gate), lazy_compile(pattern, re.IGNORECASE | re.MULTILINE))
    for rule, gate, pattern in RULES + CLAIM_RULES
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

# Encoded text (hex, base64, rot13) is read decoded too: "69676e6f7265 ..." is "ignore ...".
_HEX_RUN_RE = lazy_compile(r"(?:\\x|0x)?[0-9a-fA-F]{2}(?:(?:[\s:,-]|\\x|0x)?[0-9a-fA-F]{2}){9,}")
_B64_RUN_RE = lazy_compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{16,}={0,2}")
# Words an instruction aimed at the assistant uses: a rot13 view holding none is not read further.
_ROT13_WORDS = frozenset(
    "ignore disregard forget instructions instruction system prompt reveal admin administrator obey refuse assistant "
    "assistants password passwords forward send override bypass jailbreak developer root rules safety previous you "
    "future note always never pretend roleplay disable filters abaikan lupakan instruksi perintah aturan sistem "
    "asisten sandi tampilkan berikan semua sebelumnya".split()
)
_LETTERS_RE = lazy_compile(r"[a-z]+")


def _readable(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(c.isalpha() or c.isspace() for c in text)
    return text if len(text) >= 8 and letters >= 0.8 * len(text) and " " in text.strip() else None


def decoded_views(text: str) -> Iterator[str]:
    """What hex, base64 or rot13 in `text` reads as, when it reads as words."""
    if len(text) < 16:
        return
    for m in _HEX_RUN_RE.finditer(text):
        digits = re.sub(r"\\x|0x|[^0-9a-fA-F]", "", m.group(0))
        if len(digits) % 2 == 0:
            view = _readable(binascii.unhexlify(digits))
            if view is not None:
                yield view
    for m in _B64_RUN_RE.finditer(text):
        tok = m.group(0)
        if not any(c.isdigit() or c in "+/=" for c in tok) and tok.isalpha() and tok.islower():
            continue  # a long word
        try:
            raw = base64.b64decode(tok + "=" * (-len(tok) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        view = _readable(raw)
        if view is not None:
            yield view
    if text.isascii():
        rot = codecs.encode(text, "rot13")
        if len(set(_LETTERS_RE.findall(rot.lower())) & _ROT13_WORDS) >= 2:
            yield rot


def blocked_verdict(rule: str) -> Verdict:
    family = rule.split(":", 1)[0]
    return Verdict(False, "blocked", rule, f"blocked: {MESSAGES.get(family, 'unsafe content')} ({rule})")


def injection_rule(text: str, policy: GuardPolicy, *, quote: bool = False, t: Text | None = None,
                   decode: bool = True) -> str | None:
    """The first rule `text` breaks. Quotes are the user's verbatim words: a line break there is
    ordinary (a forged heading or key line is not). Hex, base64 and rot13 are read decoded too
    (injection:encoded)."""
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
        if rule.startswith("privilege:") and not policy.block_privilege_claims:
            continue
        if rx.search(text):
            return rule
    composed = composed_rule(text, block_privilege=policy.block_privilege_claims)
    if composed is not None:
        return composed
    if decode:
        for view in decoded_views(text):
            if injection_rule(view, policy, quote=True, decode=False) is not None:
                return "injection:encoded"
    return None

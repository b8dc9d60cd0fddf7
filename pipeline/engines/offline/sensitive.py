"""Sensitive-data spans for the offline engine. pipeline/guards owns detection (the guards check every decision
again, whatever the engine said); this module turns its findings into the spans the engine routes around, adds
the values that follow a credential or an identifier word, and asks the guards whether a text breaks a rule or
asks to keep something. A detector that fails raises: the turn fails and waits for a retry, never routed unchecked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang import phrase
from pipeline.guards import CONTACT_KINDS, HEALTH, Finding, explicit_save_request, find_sensitive, quote_rule
from pipeline.guards.credentials import credential_word_spans


@dataclass(frozen=True)
class Span:
    kind: str  # the guards' kind, lower case ("email", "health", "secret", ...)
    start: int
    end: int


def _span(finding: Finding) -> Span:
    return Span(finding.kind.lower(), finding.start, finding.end)


def find_spans(text: str) -> list[Span]:
    """Every sensitive span in `text`: the guards' findings and the values after credential or identifier words."""
    spans = [_span(f) for f in find_sensitive(text)]
    if any(s.kind == HEALTH.lower() for s in spans) and asked_to_save(text):
        # "please remember I'm allergic to penicillin": the user asked to keep it, so it is routed like any fact
        spans = [s for s in spans if s.kind != HEALTH.lower()]
    return spans + secret_spans(text)


# Identifiers with a digit-bearing value that guards may not know by shape (postcodes, plates, national ids).
_IDENTIFIER = lazy_compile(
    rf"(?:{phrase('identifier_words')})[^\n]{{0,25}}?(?P<val>(?<![\w-])[A-Z0-9-]*\d[A-Z0-9-]*)",
    re.I,
)


def secret_spans(text: str) -> list[Span]:
    """Values that follow a credential or identifier word; the span runs from the word to the end of the value."""
    spans = [Span("secret", start, end) for start, end in credential_word_spans(text)]
    return spans + [Span("personal_id", m.start(), m.end("val")) for m in _IDENTIFIER.finditer(text)]


def injection_rule(text: str) -> str | None:
    """The guard rule `text` as a whole breaks (forged structure, injection), if any."""
    return quote_rule(text)


def is_contact(kind: str) -> bool:
    return kind.upper() in CONTACT_KINDS


def asked_to_save(text: str) -> bool:
    """Did the user ask, in so many words, to store something (the guards' reading of a save request)?"""
    return bool(explicit_save_request(text))


def redact(text: str, spans: list[Span], offset: int = 0) -> str:
    """`text` (which starts at `offset` of the scanned text) with every overlapping span replaced. Spans that
    overlap each other ("password is hunter2" as a secret, "hunter2" as a password) become one marker, of the
    kind of the span that starts first (the widest on a tie): replaced one by one, the second would cut into the
    first's marker."""
    merged: list[tuple[int, int, str]] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        a, b = max(span.start - offset, 0), min(span.end - offset, len(text))
        if a >= b:
            continue
        if merged and a < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]), merged[-1][2])
        else:
            merged.append((a, b, span.kind))
    out = text
    for a, b, kind in reversed(merged):
        out = out[:a] + f"[REDACTED:{kind.upper()}]" + out[b:]
    return out

"""Sensitive-data spans for the offline engine, from pipeline.guards when it is installed.

pipeline/guards/ owns detection; this adaptor only turns its findings into (kind, start, end) spans. The
import is lazy so the engine still loads while guards is absent, and a small fallback then catches the
plainest cases (emails, long digit runs, SSNs, IBANs) so nothing obvious is ever routed to a file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang import phrase

CONTACT_KINDS = frozenset({"email", "phone", "address"})


@dataclass(frozen=True)
class Span:
    kind: str
    start: int
    end: int


_FALLBACK = (
    ("email", lazy_compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    ("ssn", lazy_compile(r"\b\d{3}-\d{2}-\d{4}\b")),
    ("iban", lazy_compile(r"\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b", re.I)),
    ("card", lazy_compile(r"\b(?:\d[ -]?){12,19}\b")),
    ("phone", lazy_compile(r"(?:\+\d{1,3}[\s.-]?)?(?:\(?\d{2,4}\)?[\s.-]?){2,4}\d{3,4}\b")),
    ("password", lazy_compile(rf"\b(?:{phrase('credential_words')})\b\s*(?:{phrase('credential_copulas')}|:)?\s*\S+", re.I)),
    ("api_key", lazy_compile(r"\b(?:sk|pk|ghp|xox[bp]|AKIA)[-_A-Za-z0-9]{12,}\b")),
)

_NEVER = lazy_compile(r"(?!)")
_detector: Callable[[str], Any] | None = None
_loaded = False


def _guards_detector() -> Callable[[str], Any] | None:
    global _detector, _loaded
    if not _loaded:
        _loaded = True
        try:
            from pipeline.guards import find_sensitive
        except Exception:  # guards not installed yet, or broken: fall back, never crash classification
            _detector = None
        else:
            _detector = find_sensitive
    return _detector


def _as_span(finding: Any, text: str) -> Span | None:
    kind = str(getattr(finding, "kind", None) or getattr(finding, "category", None) or getattr(finding, "type", None) or "sensitive")
    start = getattr(finding, "start", None)
    end = getattr(finding, "end", None)
    if isinstance(finding, dict):
        kind = str(finding.get("kind") or finding.get("category") or finding.get("type") or kind)
        start, end = finding.get("start"), finding.get("end")
    if isinstance(finding, tuple) and len(finding) >= 3 and isinstance(finding[1], int):
        kind, start, end = str(finding[0]), finding[1], finding[2]
    if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text):
        return Span(kind.lower(), start, end)
    value = getattr(finding, "text", None) or getattr(finding, "value", None) or getattr(finding, "match", None)
    if isinstance(value, str) and value and value in text:
        pos = text.index(value)
        return Span(kind.lower(), pos, pos + len(value))
    return Span(kind.lower(), 0, len(text))  # a finding we cannot place covers the whole text


def find_spans(text: str) -> list[Span]:
    """Every sensitive span in `text` (guards' findings, else the fallback patterns)."""
    detector = _guards_detector()
    if detector is not None:
        try:
            findings = detector(text)
        except Exception:
            findings = None
        if findings is not None:
            spans = [s for s in (_as_span(f, text) for f in findings) if s is not None]
            if any(s.kind == "health" for s in spans) and asked_to_save(text, _NEVER):
                # "please remember I'm allergic to penicillin": the user asked to keep it, so it is routed like any fact
                spans = [s for s in spans if s.kind != "health"]
            return spans + secret_spans(text)
    spans = []
    for kind, pattern in _FALLBACK:
        for m in pattern.finditer(text):
            digits = sum(ch.isdigit() for ch in m.group(0))
            if kind in ("card", "phone") and digits < 9:
                continue
            spans.append(Span(kind, m.start(), m.end()))
    return spans + secret_spans(text)


# Identifiers with a digit-bearing value that guards may not know by shape (postcodes, plates, national ids).
_IDENTIFIER = lazy_compile(
    rf"(?:{phrase('identifier_words')})[^\n]{{0,25}}?(?P<val>(?<![\w-])[A-Z0-9-]*\d[A-Z0-9-]*)",
    re.I,
)


def secret_spans(text: str) -> list[Span]:
    """Values that follow a credential or identifier word; the span runs from the word to the end of the value."""
    from pipeline.guards.credentials import credential_word_spans

    spans = [Span("secret", start, end) for start, end in credential_word_spans(text)]
    return spans + [Span("personal_id", m.start(), m.end("val")) for m in _IDENTIFIER.finditer(text)]


def injection_rule(text: str) -> str | None:
    """The guard rule `text` as a whole breaks (forged structure, injection), if guards is installed."""
    if _guards_detector() is None:
        return None
    try:
        from pipeline.guards import quote_rule
    except Exception:
        return None
    try:
        return quote_rule(text)
    except Exception:
        return None


def is_contact(kind: str) -> bool:
    return kind.lower() in CONTACT_KINDS


def asked_to_save(text: str, fallback: re.Pattern[str]) -> bool:
    """Did the user ask, in so many words, to store something? guards decides when it is installed."""
    if _guards_detector() is not None:
        try:
            from pipeline.guards import explicit_save_request
        except Exception:
            pass
        else:
            return bool(explicit_save_request(text))
    return fallback.search(text) is not None


def redact(text: str, spans: list[Span], offset: int = 0) -> str:
    """`text` (which starts at `offset` of the scanned text) with every overlapping span replaced."""
    out = text
    for span in sorted(spans, key=lambda s: s.start, reverse=True):
        a = max(span.start - offset, 0)
        b = min(span.end - offset, len(text))
        if a < b:
            out = out[:a] + f"[REDACTED:{span.kind.upper()}]" + out[b:]
    return out

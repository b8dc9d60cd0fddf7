"""All sensitive-data detectors together: `find_sensitive` (non-overlapping findings with offsets
into the text the user typed) and `redact`.

Detection works on an NFKC-normalised view of the text with invisible format characters
dropped (so full-width digits and zero-width splits do not hide a value); offsets are mapped
back to the original text, so redaction removes exactly what the user typed."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from pipeline._util.lazy_re import lazy_compile
from pipeline.guards.addresses import HAS_DIGIT_RE, address_findings
from pipeline.guards.credentials import credential_findings
from pipeline.guards.gates import Text
from pipeline.guards.health import health_spans
from pipeline.guards.identifiers import identifier_findings
from pipeline.guards.kinds import HEALTH, PRIORITY, Finding, Span
from pipeline.guards.normalise import detection_view
from pipeline.guards.secrets import secret_findings


def _raw_findings(s: str, t: Text | None = None) -> list[Span]:
    out: list[Span] = []
    t = t if t is not None and t.raw == s else Text(s)
    out.extend((start, end, HEALTH) for start, end in health_spans(s, t.words))
    has_digit = HAS_DIGIT_RE.search(s) is not None
    out.extend(credential_findings(s, t))
    out.extend(secret_findings(s, t))
    out.extend(identifier_findings(s, t, has_digit))
    out.extend(address_findings(s, t, has_digit))
    return out


def _merge(raw: Iterable[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end, kind in sorted(raw, key=lambda f: (f[0], -f[1])):
        if end <= start:
            continue
        if merged and start < merged[-1][1]:
            ps, pe, pk = merged[-1]
            best = pk if PRIORITY[pk] <= PRIORITY[kind] else kind
            merged[-1] = (ps, max(pe, end), best)
        else:
            merged.append((start, end, kind))
    return merged


_MARK_RE = lazy_compile(r"\[REDACTED:[A-Z_]+\]")

# One turn asks about the same few texts many times (its text, each quote, each value, again
# when the store redacts what it records): answers for short texts are kept.
CACHED_TEXT_CHARS = 4000


def find_sensitive(text: str, _t: Text | None = None) -> list[Finding]:
    """Sensitive values in `text`, in order, non-overlapping, with offsets into `text`."""
    if not text:
        return []
    if len(text) <= CACHED_TEXT_CHARS:
        return list(_cached_findings(text))
    return _find_sensitive(text, _t)


@functools.lru_cache(maxsize=4096)
def _cached_findings(text: str) -> tuple[Finding, ...]:
    return tuple(_find_sensitive(text))


def _find_sensitive(text: str, _t: Text | None = None) -> list[Finding]:
    s, index = detection_view(text)
    raw = _raw_findings(s, _t)
    if "[REDACTED:" in s:  # redact() is idempotent: its own markers are not values
        marks = [m.span() for m in _MARK_RE.finditer(s)]
        raw = [f for f in raw if not any(a <= f[0] and f[1] <= b for a, b in marks)]
    findings: list[Finding] = []
    for start, end, kind in _merge(raw):
        # Trim trailing separators so the redaction keeps the sentence's punctuation.
        while end > start and s[end - 1] in " \t\n,.":
            end -= 1
        if index is not None:
            start, end = index[start], index[end - 1] + 1
        findings.append(Finding(kind, start, end, text[start:end]))
    return findings


def redact(text: str, keep: frozenset[str] | set[str] = frozenset()) -> str:
    """Replace every finding (except kinds in `keep`) with "[REDACTED:KIND]". Idempotent."""
    findings = [f for f in find_sensitive(text) if f.kind not in keep]
    if not findings:
        return text
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)

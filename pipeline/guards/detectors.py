"""All sensitive-data detectors together: `find_sensitive` (non-overlapping findings with offsets
into the text the user typed) and `redact`.

Detection works on an NFKC-normalised view of the text with invisible format characters
dropped (so full-width digits and zero-width splits do not hide a value); offsets are mapped
back to the original text, so redaction removes exactly what the user typed."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from pipeline.guards.addresses import _HAS_DIGIT_RE, _STREET_GATE, _STRONG_TRIGGER_GATE, _address_spans, _has
from pipeline.guards.credentials import (
    _ACCESS_CODE_RE,
    _CODE_GATE,
    _CREDENTIAL_CONTEXT_RE,
    _GENERIC_TOKEN_RE,
    _KNOWN_TOKEN_RE,
    _LOGIN_GATE,
    _LOGIN_PAIR_RE,
    _MIXED_TOKEN_RE,
    _NOT_A_PASSWORD,
    _NOT_A_VALUE,
    _PASSPHRASE_WORD_RE,
    _PASSWORD_BEFORE_RE,
    _PASSWORD_GATE,
    _PASSWORD_RE,
    _PIN_RE,
    _PRIVATE_KEY_RE,
    _SECRET_CTX_RE,
    _SECRET_GATE,
    _SSH_PUB_BEFORE_RE,
    _URL_CRED_RE,
    _looks_random,
    _password_shaped,
)
from pipeline.guards.gates import _Text
from pipeline.guards.health import health_spans
from pipeline.guards.identifiers import (
    _AT_GATE,
    _CN_ID_RE,
    _CRYPTO_RE,
    _CVV_RE,
    _DATE_SHAPE_RE,
    _DIGITS_RE,
    _DOB_GATE,
    _DOB_RE,
    _DOB_ZH_RE,
    _DOT_GATE,
    _EMAIL_OBF_RE,
    _EMAIL_RE,
    _GOV_GATE,
    _GOV_TOKEN_RE,
    _IBAN_CTX_RE,
    _IBAN_RE,
    _IPV4_RE,
    _IPV6_RE,
    _MAC_RE,
    _SPELLED_DIGITS_RE,
    _SPELLED_TH_RE,
    _SPELLED_WORDS,
    _SPELLED_ZH_RE,
    _VERSION_BEFORE_RE,
    _ctx,
    _digit_kind,
    _iban_ok,
    _ipv6_ok,
    _spelled_digits,
    _spelled_kind,
)
from pipeline.guards.kinds import (
    _PRIORITY,
    ADDRESS,
    API_KEY,
    BANK_ACCOUNT,
    CARD,
    DOB,
    EMAIL,
    GOV_ID,
    HEALTH,
    IBAN,
    IP_ADDRESS,
    PASSWORD,
    PRIVATE_KEY,
    Finding,
)
from pipeline.guards.normalise import _view
from pipeline.lazy_re import lazy_compile


def _raw_findings(s: str, t: _Text | None = None) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    add = out.append
    t = t if t is not None and t.raw == s else _Text(s)
    low = t.low
    out.extend((start, end, HEALTH) for start, end in health_spans(s, t.words))
    has_digit = _HAS_DIGIT_RE.search(s) is not None
    if "-----BEGIN" in s:
        for m in _PRIVATE_KEY_RE.finditer(s):
            add((m.start(), m.end(), PRIVATE_KEY))
    for m in _KNOWN_TOKEN_RE.finditer(s):
        add((m.start(), m.end(), API_KEY))
    if _SECRET_GATE.hit(t):
        for m in _SECRET_CTX_RE.finditer(s):
            tok = m.group(1)
            if any(c.isdigit() for c in tok) or re.search(r"[A-Z].*[a-z]|[a-z].*[A-Z]|[_\-./+=]", tok):
                add((m.start(1), m.end(1), API_KEY))
    if len(s) >= 24 and max(map(len, s.split()), default=0) >= 24:
        for m in _GENERIC_TOKEN_RE.finditer(s):
            if _looks_random(m.group(0).rstrip("=")) and not _SSH_PUB_BEFORE_RE.search(_ctx(s, m.start(), 24)):
                add((m.start(), m.end(), API_KEY))
    if "://" in s:
        for m in _URL_CRED_RE.finditer(s):
            add((m.start(1), m.end(1), PASSWORD))
    if _PASSWORD_GATE.hit(t):
        for m in _PASSWORD_RE.finditer(s):
            val = m.group(1)
            first = val.split()[0].lower().strip(".,!?")
            phrase = bool(_PASSPHRASE_WORD_RE.search(m.group(0)))
            if phrase and len(val.split()) >= 3:
                pass  # "my passphrase is correct horse battery staple": a phrase of words, whatever its first word
            elif first in _NOT_A_PASSWORD or first.startswith(("密码", "口令", "รหัส", "password")):
                continue  # "1Password作为密码管理器": a label, not a value
            end = m.end(1)
            if not phrase:
                end = m.start(1) + len(val.split()[0])  # a password is one token; a passphrase is many
            add((m.start(1), end, PASSWORD))
    if _CREDENTIAL_CONTEXT_RE.search(s):
        for m in _MIXED_TOKEN_RE.finditer(s):  # "save this: Tr0ub4dor&3 for my bank login": no label, a password's shape
            if _password_shaped(m.group(0)):
                add((m.start(), m.end(), PASSWORD))
    if "@" in s:
        for m in _EMAIL_RE.finditer(s):
            add((m.start(), m.end(), EMAIL))
    if _AT_GATE.hit(t) and _DOT_GATE.hit(t):
        for m in _EMAIL_OBF_RE.finditer(s):
            if "@" in m.group(0) and _EMAIL_RE.fullmatch(m.group(0)):
                continue
            add((m.start(), m.end(), EMAIL))
    spelled = t.words & _SPELLED_WORDS
    if len(spelled) >= 2 or spelled and low.count(next(iter(spelled))) >= 7:  # "four one one one ..." has two words
        for m in _SPELLED_DIGITS_RE.finditer(s):
            kind = _spelled_kind(s, m.start(), _spelled_digits(m.group(0)))
            if kind is not None:
                add((m.start(), m.end(), kind))  # "oh eight one two, three four five ...", "four one one one ..."
    if not t.ascii:
        for rx in (_SPELLED_ZH_RE, _SPELLED_TH_RE):
            for m in rx.finditer(s):
                kind = _spelled_kind(s, m.start(), _spelled_digits(m.group(0)))
                if kind is not None:
                    add((m.start(), m.end(), kind))
    if _PASSWORD_GATE.hit(t):
        for m in _PASSWORD_BEFORE_RE.finditer(s):
            group = next(g for g in range(1, 8) if m.group(g) is not None)
            val = m.group(group)
            if val.lower().strip(".,!?") not in _NOT_A_VALUE and val.lower() not in _NOT_A_PASSWORD:
                add((m.start(group), m.end(group), PASSWORD))
    if _CODE_GATE.hit(t):
        for rx in (_ACCESS_CODE_RE, _PIN_RE):
            for m in rx.finditer(s):
                add((m.start(1), m.end(1), PASSWORD))
    if _LOGIN_GATE.hit(t):
        for m in _LOGIN_PAIR_RE.finditer(s):
            val = m.group(2).rstrip(".,;")
            if not val.endswith(":") and (re.search(r"\d|[!@#$%^&*?~+=]", val) or re.search(r"[a-z].*[A-Z]", val)):
                add((m.start(2), m.start(2) + len(val), PASSWORD))
    if not has_digit:
        if _STRONG_TRIGGER_GATE.hit(t) or "corner of" in low or _has(s, _STREET_GATE):
            for start, end in _address_spans(s, t, has_digit):
                add((start, end, ADDRESS))
        return out
    for m in _IBAN_RE.finditer(s):
        tok = m.group(0)
        if sum(c.isdigit() for c in tok) >= 8 and (_iban_ok(tok) or _IBAN_CTX_RE.search(_ctx(s, m.start()))):
            add((m.start(), m.end(), IBAN))
    for m in _CN_ID_RE.finditer(s):
        add((m.start(), m.end(), GOV_ID))
    if _GOV_GATE.hit(t):
        for m in _GOV_TOKEN_RE.finditer(s):
            tok = m.group(1)
            if sum(c.isdigit() for c in tok) >= 5 and not _DATE_SHAPE_RE.match(tok):
                add((m.start(1), m.end(1), GOV_ID))
    if "." in s:
        for m in _IPV4_RE.finditer(s):
            ip = m.group(0)
            if ip.startswith(("127.", "0.")) or _VERSION_BEFORE_RE.search(_ctx(s, m.start(), 12)):
                continue
            add((m.start(), m.end(), IP_ADDRESS))
    if "::" in s or s.count(":") >= 5:
        for m in _IPV6_RE.finditer(s):
            if _ipv6_ok(m.group(0)):
                add((m.start(), m.end(), IP_ADDRESS))
    for m in _CRYPTO_RE.finditer(s):
        tok = m.group(0)
        if tok.startswith(("0x", "bc1")) or _looks_random(tok):
            add((m.start(), m.end(), BANK_ACCOUNT))  # a wallet is an account
    if ":" in s or "-" in s:
        for m in _MAC_RE.finditer(s):
            add((m.start(), m.end(), IP_ADDRESS))  # a device address identifies a person's machine like an IP
    if "cvv" in low or "cvc" in low or "csc" in low or "security code" in low:
        for m in _CVV_RE.finditer(s):
            add((m.start(1), m.end(1), CARD))
    for m in _DIGITS_RE.finditer(s):
        kind = _digit_kind(s, m)
        if kind is not None:
            lead = len(m.group(0)) - len(m.group(0).lstrip(" \t"))
            add((m.start() + lead, m.end(), kind))
    if _DOB_GATE.hit(t):
        for rx in (_DOB_RE, _DOB_ZH_RE):
            for m in rx.finditer(s):
                add((m.start(1), m.end(1), DOB))
    for start, end in _address_spans(s, t, has_digit):
        add((start, end, ADDRESS))
    return out


def _merge(raw: Iterable[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(raw, key=lambda f: (f[0], -f[1])):
        if end <= start:
            continue
        if merged and start < merged[-1][1]:
            ps, pe, pk = merged[-1]
            best = pk if _PRIORITY[pk] <= _PRIORITY[kind] else kind
            merged[-1] = (ps, max(pe, end), best)
        else:
            merged.append((start, end, kind))
    return merged


_MARK_RE = lazy_compile(r"\[REDACTED:[A-Z_]+\]")
# One turn asks about the same few texts many times (its text, each quote, each value, again
# when the store redacts what it records): answers for short texts are kept.
_CACHED_TEXT_CHARS = 4000


def find_sensitive(text: str, _t: _Text | None = None) -> list[Finding]:
    """Sensitive values in `text`, in order, non-overlapping, with offsets into `text`."""
    if not text:
        return []
    if len(text) <= _CACHED_TEXT_CHARS:
        return list(_cached_findings(text))
    return _find_sensitive(text, _t)


@functools.lru_cache(maxsize=4096)
def _cached_findings(text: str) -> tuple[Finding, ...]:
    return tuple(_find_sensitive(text))


def _find_sensitive(text: str, _t: _Text | None = None) -> list[Finding]:
    s, index = _view(text)
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

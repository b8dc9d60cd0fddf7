"""The one redaction for everything memroute keeps at rest besides the two ledger files.

Failure payloads kept for `retry`, the decision log, provenance quotes, history reasons, the
hook queue, errors and the eval response cache all go through `redact_for_storage`. It only
calls the guards' detectors, so whatever they learn, every record learns:

- every sensitive value guards finds becomes "[REDACTED:KIND]" (contacts too, unless `keep`);
- a value that follows a credential word ("password ...", "PIN ...", "api key ...") that the
  classifier treats as a secret becomes "[REDACTED:SECRET]";
- every line or sentence that breaks a guard rule (an injection, forged structure, hidden
  characters) becomes "[BLOCKED:<rule>]": an instruction aimed at the assistant is not kept
  either, even in a failed turn.

A text redacted this way still reads as a turn: `retry` runs it again, and
`refuse_marked_writes` skips any value that still carries a marker (a secret is never
written anyway).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Iterable
from typing import Any

from pipeline._util.lazy_re import lazy_compile
from pipeline.guards.credentials import credential_word_spans
from pipeline.guards.detectors import redact
from pipeline.guards.kinds import CONTACT_KINDS
from pipeline.guards.policy import quote_rule
from pipeline.guards.save_requests import explicit_save_request
from pipeline.types import Decision, Outcome

# Lines, then sentences, are the unit a guard rule blocks: the rest of the text stays readable.
_SENTENCE_END_RE = lazy_compile(r"(?<=[.!?。！？])\s+")
# Values after a credential word (credential_word_spans): masked at rest, though check_text does not refuse them.
_EXTRA_SECRET_KIND = "SECRET"


# "set OPENAI_API_KEY": the name of an environment variable follows a credential word in error
# messages, and is not a secret (no digit, upper case words joined by "_").
_ENV_NAME_RE = lazy_compile(r"[A-Z]+(?:_[A-Z]+)+")


def _secret_spans(text: str) -> list[tuple[int, int]]:
    spans = credential_word_spans(text)
    return [(a, b) for a, b in spans if not _ENV_NAME_RE.fullmatch(text[a:b].split()[-1].strip(".,;:"))]


def _redact_values(text: str, keep: frozenset[str]) -> str:
    text = redact(text, keep=keep)
    spans = _secret_spans(text)
    if not spans:
        return text
    marks = [m.span() for m in re.finditer(r"\[(?:REDACTED|BLOCKED):[^\]]*\]", text)]
    out, pos = [], 0
    for start, end in sorted(spans):
        # Cut the span back to the value: the credential word before it stays readable.
        value_start = max(start, text.rfind(" ", start, end) + 1)
        if value_start < pos or any(a <= value_start < b for a, b in marks):
            continue
        out += [text[pos:value_start], f"[REDACTED:{_EXTRA_SECRET_KIND}]"]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _block_rules(text: str) -> str:
    if quote_rule(text) is None:
        return text
    lines = text.split("\n")
    section: str | None = None  # a forged heading or role marker: what follows it is its body
    for i, line in enumerate(lines):
        if not line.strip():
            section = None
            continue
        if quote_rule(line) is None:
            if section is not None:
                lines[i] = f"[BLOCKED:{section}]"
            continue
        rule = quote_rule(line) or ""
        if rule.startswith(("structure:heading", "role:")):
            section = rule
        pieces = _SENTENCE_END_RE.split(line)
        blocked = [p if quote_rule(p) is None else f"[BLOCKED:{quote_rule(p)}]" for p in pieces]
        if blocked == pieces:  # only the whole line breaks the rule
            lines[i] = f"[BLOCKED:{quote_rule(line)}]"
        else:
            lines[i] = " ".join(blocked)
    out = "\n".join(lines)
    whole = quote_rule(out)
    return out if whole is None else f"[BLOCKED:{whole}]"  # the rule spans several lines


def redact_for_storage(text: str, keep: Iterable[str] = ()) -> str:
    """`text` as memroute may keep it at rest (idempotent). `keep`: contact kinds to leave (a
    turn that asked to store them, kept for retry)."""
    if not text:
        return text
    return _block_rules(_redact_values(text, frozenset(keep)))


def requested_kinds(turn_text: str) -> frozenset[str]:
    """The contact kinds a turn asks to store; they stay in its retry payload (guards decide)."""
    if not turn_text or not explicit_save_request(turn_text):
        return frozenset()
    return CONTACT_KINDS


def redact_json(value: Any, redact: Callable[[str], str] = redact_for_storage) -> Any:
    """Every string inside a JSON-like structure (keys are structure, not user text)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_json(v, redact) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_json(v, redact) for v in value]
    return value


_MARKER_RE = lazy_compile(r"\[(REDACTED|BLOCKED):([^\]]*)\]")


def marker_rule(text: str) -> str | None:
    """The rule of the first redaction marker in stored text ("redacted:EMAIL", "privilege:admin_claim"),
    or None: a marker means the text once carried what the guards refuse."""
    m = _MARKER_RE.search(text)
    if m is None:
        return None
    return f"redacted:{m.group(2)}" if m.group(1) == "REDACTED" else m.group(2)


def refuse_marked_writes(decisions: list[Decision]) -> list[Decision]:
    """A retried or queued turn was stored redacted: a value that still carries a marker
    ("password: [REDACTED:PASSWORD]") stood for a secret or an injection, and is skipped as one."""
    out: list[Decision] = []
    for d in decisions:
        fields = (d.key, d.value) if d.route == "user" else (d.entry, d.topic) if d.route == "memory" else ()
        marked = next((m for m in (_MARKER_RE.search(f or "") for f in fields if d.op != "remove") if m), None)
        if marked is None:
            out.append(d)
            continue
        reason = "sensitive" if marked.group(1) == "REDACTED" else "blocked"
        rule = f"redacted:{marked.group(2)}" if reason == "sensitive" else marked.group(2)
        out.append(d.model_copy(update={"route": "skip", "op": "none", "reason": reason, "rule": f"guard/{rule}", "detail": rule,
                                        "value": None, "entry": None, "outcome": Outcome.BLOCKED,
                                        "outcome_detail": rule}))
    return out


def quote_digest(quote: str, key: bytes) -> str:
    """What the decision log keeps of a skipped statement: enough to tell two apart, not to read one.

    An HMAC of the statement as it may be kept at rest (redacted), under the store's own key: a
    plain hash of "my code is 604918" gives the code back to anyone who tries the million codes;
    without the key there is nothing to try against."""
    if len(key) < 16:
        raise ValueError("the digest key must be at least 16 bytes")
    mac = hmac.new(key, redact_for_storage(quote).encode("utf-8"), hashlib.sha256)
    return "hmac:" + mac.hexdigest()[:16]


__all__ = ["quote_digest", "redact_for_storage", "redact_json", "refuse_marked_writes", "requested_kinds"]

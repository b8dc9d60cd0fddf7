"""What the guards name and answer: the kinds of sensitive value, the policy knobs, a finding, a verdict."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

EMAIL = "EMAIL"
PHONE = "PHONE"
ADDRESS = "ADDRESS"
GOV_ID = "GOV_ID"
CARD = "CARD"
IBAN = "IBAN"
BANK_ACCOUNT = "BANK_ACCOUNT"
PASSWORD = "PASSWORD"
API_KEY = "API_KEY"
PRIVATE_KEY = "PRIVATE_KEY"
IP_ADDRESS = "IP_ADDRESS"
DOB = "DOB"
HEALTH = "HEALTH"

# Never written, even when the user asks.
SECRET_KINDS: frozenset[str] = frozenset({PASSWORD, API_KEY, PRIVATE_KEY, CARD, GOV_ID, IBAN, BANK_ACCOUNT})
# Written only when the user explicitly asks, in that turn, to store them.
CONTACT_KINDS: frozenset[str] = frozenset({EMAIL, PHONE, ADDRESS})
# Health details (health.py draws the line: diagnoses, medications, drug allergies,
# symptoms; not diets or food allergies) are written only when the user asks, in that turn, to
# keep them; the ask need not name the kind ("please remember I'm allergic to penicillin").
# Everything else sensitive (IP_ADDRESS, DOB) is skipped as `sensitive`.
ALL_KINDS: frozenset[str] = SECRET_KINDS | CONTACT_KINDS | {IP_ADDRESS, DOB, HEALTH}

# When two findings overlap, the merged span keeps the more serious kind.
PRIORITY = {
    PRIVATE_KEY: 0, API_KEY: 1, PASSWORD: 2, IBAN: 3, CARD: 4, GOV_ID: 5, BANK_ACCOUNT: 6,
    DOB: 7, EMAIL: 8, IP_ADDRESS: 9, ADDRESS: 10, PHONE: 11, HEALTH: 12,
}


# A detector's raw answer, before overlapping ones are merged: (start, end, kind).
Span = tuple[int, int, str]


def matches(rx: re.Pattern[str], s: str, kind: str, group: int = 0) -> list[Span]:
    """Every match of `rx` in `s` (or of its `group`) as a span of `kind`."""
    return [(m.start(group), m.end(group), kind) for m in rx.finditer(s)]


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int  # offsets into the text given to find_sensitive
    end: int
    value: str


@dataclass
class GuardPolicy:
    store_contacts_on_request: bool = True
    store_health_on_request: bool = True
    block_privilege_claims: bool = True
    # Kinds the user may ask to store; secrets can never be added here.
    requestable_kinds: frozenset[str] = field(default_factory=lambda: CONTACT_KINDS)


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str | None = None  # "sensitive" | "blocked"
    rule: str | None = None  # e.g. "secret:API_KEY", "injection:ignore_previous"
    message: str = ""

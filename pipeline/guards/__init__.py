"""Guards on every write: sensitive data, stored prompt injection, privilege claims.

Whatever lands in USER.md and MEMORY.md is pasted into future system prompts, so every value
an engine wants to write passes `check_text` first (any engine, any write path), and every
quote kept for the record passes `redact`. Pure stdlib and precompiled regexes: this runs on
every statement, so it must stay in the tens of microseconds.

Modules, one job each (the arrows are imports):

- kinds: the kinds of sensitive value, GuardPolicy, Finding, Verdict
- normalise: the NFKC detection view with its offset map, hidden characters, look-alikes
- gates: the keyword index that lets a detector or rule run only when its words occur
- credentials, identifiers, addresses, health: the detector families (medical: health read from the
  medical word itself, about the user or anyone close)
- detectors: find_sensitive and redact over all families
- save_requests: "please remember my phone" and the kinds it covers (never someone else's health)
- injection_rules and claims (the tables: rules waived, rights granted, another person's word made law,
  answers copied to an address), composed (the same claims read from a clause's parts: someone else named,
  a word of obedience, the assistant addressed; the assistant's rules and a word that lifts them) and
  injection (running them all)
- policy: check_text, quote_rule, guard_decisions, scan_for_prompt, hide_hostile (what a read gives a model)
- redaction: what memroute may keep at rest (failure payloads, logs, quotes, caches), on all of the above

The guards import nothing from core, engines or the store: they are called, never call back.
"""

from pipeline.guards.detectors import find_sensitive, redact
from pipeline.guards.kinds import (
    ADDRESS,
    ALL_KINDS,
    API_KEY,
    BANK_ACCOUNT,
    CARD,
    CONTACT_KINDS,
    DOB,
    EMAIL,
    GOV_ID,
    HEALTH,
    IBAN,
    IP_ADDRESS,
    PASSWORD,
    PHONE,
    PRIVATE_KEY,
    SECRET_KINDS,
    Finding,
    GuardPolicy,
    Verdict,
)
from pipeline.guards.policy import check_text, guard_decisions, hide_hostile, quote_rule, scan_for_prompt
from pipeline.guards.save_requests import explicit_save_request

__all__ = [
    "ADDRESS",
    "ALL_KINDS",
    "API_KEY",
    "BANK_ACCOUNT",
    "CARD",
    "CONTACT_KINDS",
    "DOB",
    "EMAIL",
    "GOV_ID",
    "HEALTH",
    "IBAN",
    "IP_ADDRESS",
    "PASSWORD",
    "PHONE",
    "PRIVATE_KEY",
    "SECRET_KINDS",
    "Finding",
    "GuardPolicy",
    "Verdict",
    "check_text",
    "explicit_save_request",
    "find_sensitive",
    "guard_decisions",
    "hide_hostile",
    "quote_rule",
    "redact",
    "scan_for_prompt",
]

"""Candidates: durable-looking facts stated too weakly to write, kept aside until the user says them again.

An engine marks such a statement as a skip with `candidate=True` and section/key/value filled. It is
kept in the store (never in USER.md) and promoted to a USER.md field when the user states it again in a
later conversation (a different conversation id, or a later day when either turn has none), or confirms
it. Sensitive or hostile text is never kept. This module holds the rules only: no SQL, no files.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from pipeline import guards
from pipeline.stages.write import names_key
from pipeline.types import Decision, Turn

DEFAULT_TTL_DAYS = 60  # a candidate not seen again for this long is deleted

_SPACES_RE = re.compile(r"\s+")
_EDGE_PUNCT = " \t\n.,;:!?\"'`()[]{}。，；：！？「」『』“”‘’"


def norm(text: str) -> str:
    """How two statements of one fact are compared: NFKC, case-folded, spaces collapsed, edge punctuation off."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACES_RE.sub(" ", folded).strip(_EDGE_PUNCT)


def is_candidate(d: Decision) -> bool:
    return d.route == "skip" and d.candidate and bool(d.key and d.key.strip()) and bool(d.value and d.value.strip())


def keepable(original: Decision, guarded: Decision, policy: guards.GuardPolicy | None = None) -> bool:
    """May this candidate be kept at all? Never when any of its text (as the engine gave it) trips the
    guards' sensitive detectors or injection rules, or when the guards turned it into a sensitive or
    blocked skip."""
    if not is_candidate(guarded) or guarded.reason in ("sensitive", "blocked"):
        return False
    line = f"{original.key}: {original.value}" if original.key and original.value else None
    for text in (original.quote, original.key, original.value, original.section, line):
        if text and guards.find_sensitive(text):
            return False  # "Pregnancy: maybe" says what neither half says alone
    for text in (original.key, original.value):
        if text and not guards.check_text(text, policy=policy).allowed:
            return False
    return not (original.quote and guards.quote_rule(original.quote, policy))


def turn_time(turn: Turn) -> datetime:
    ts = turn.timestamp
    return ts.astimezone(timezone.utc) if ts.tzinfo is not None else ts.replace(tzinfo=timezone.utc)


def iso(ts: datetime) -> str:
    return ts.astimezone(timezone.utc).isoformat(timespec="seconds")


def said_again_later(row: dict[str, Any], turn: Turn) -> bool:
    """Is this turn a later conversation than the one the candidate was first seen in?"""
    first_conv = row.get("first_conversation_id")
    if first_conv and turn.conversation_id:
        return bool(first_conv != turn.conversation_id)
    first_day = datetime.fromisoformat(str(row["first_seen_at"])).date()
    return turn_time(turn).date() > first_day


def expiry_cutoff(now: datetime, ttl_days: float) -> str:
    """Candidates last seen before this ISO time have expired."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=timezone.utc)
    return iso(now - timedelta(days=ttl_days))


@dataclass
class CandidatePlan:
    """What one turn does to the user's candidates, decided before the files are written."""

    decisions: list[Decision]  # the turn's decisions, promotions turned into USER.md upserts
    keep: dict[int, Decision] = field(default_factory=dict)  # decision index -> candidate to insert or bump
    promoted: dict[int, int] = field(default_factory=dict)  # decision index -> candidate id
    waiting: dict[int, Decision] = field(default_factory=dict)  # promoted index -> the candidate as stated
    forget: list[str] = field(default_factory=list)  # forget matches: candidates matching them go


def plan_turn(
    originals: list[Decision],
    guarded: list[Decision],
    existing: list[dict[str, Any]],
    turn: Turn,
    known: set[tuple[str, str]],
    policy: guards.GuardPolicy | None = None,
) -> CandidatePlan:
    """Decide, for each candidate decision, whether it is kept, bumped or promoted.

    `originals` are the engine's decisions and `guarded` the same after the guards (one for one).
    `existing` are the user's stored candidates; `known` the USER.md fields as (norm key, norm value).
    A firm USER.md write of a stored candidate's key and value is marked as its promotion too.
    """
    by_fact = {(r["key_norm"], r["value_norm"]): r for r in existing}
    plan = CandidatePlan(decisions=[])
    for i, (orig, d) in enumerate(zip(originals, guarded, strict=True)):
        if d.route in ("user", "memory") and d.op == "remove" and d.match:
            plan.forget.append(d.match)
        row = by_fact.get((norm(d.key or ""), norm(d.value or ""))) if d.key and d.value else None
        if d.route == "user" and d.op == "upsert" and d.key:
            if row is not None:  # a firm statement of a waiting fact confirms it
                plan.promoted[i] = int(row["id"])
                d = d.model_copy(update={"detail": f"promoted candidate: confirmed by a firm statement "
                                         f"(first {str(row['first_seen_at'])[:10]}, seen {int(row['times_seen']) + 1} times)"})
        if not d.candidate or d.route != "skip":
            plan.decisions.append(d)
            continue
        if not keepable(orig, d, policy):
            plan.decisions.append(d.model_copy(update={"candidate": False, "outcome": "skipped: not kept as a candidate"}))
            continue
        if (norm(d.key or ""), norm(d.value or "")) in known:
            plan.decisions.append(d.model_copy(update={"candidate": False, "outcome": "unchanged: already in USER.md"}))
            continue
        if row is not None and said_again_later(row, turn):
            first_day = str(row["first_seen_at"])[:10]
            seen = int(row["times_seen"]) + 1
            plan.promoted[i] = int(row["id"])
            plan.waiting[i] = d
            plan.decisions.append(
                d.model_copy(
                    update={
                        "route": "user",
                        "op": "upsert",
                        "reason": None,
                        "candidate": False,
                        "detail": f"promoted candidate: said again in a later conversation "
                        f"(first {first_day}, seen {seen} times)",
                    }
                )
            )
            continue
        plan.keep[i] = d
        plan.decisions.append(d)
    return plan


def confirmation(row: dict[str, Any]) -> Decision:
    """The USER.md write that an explicit confirmation of a stored candidate makes."""
    return Decision(
        quote=row.get("quote") or f"{row['key']}: {row['value']}",
        route="user",
        op="upsert",
        section=row.get("section"),
        key=row["key"],
        value=row["value"],
        detail=f"promoted candidate: confirmed by the user (first {str(row['first_seen_at'])[:10]}, "
        f"seen {row['times_seen']} times)",
    )


def matches(row: dict[str, Any], needle: str) -> bool:
    """Does a forget of `needle` (a key or a piece of text) cover this candidate?"""
    wanted = norm(needle)
    if not wanted:
        return False
    key = str(row.get("key") or "")
    if norm(key) == wanted or names_key(needle, key):  # "forget my music taste" names Music
        return True
    return any(wanted in norm(str(row.get(col) or "")) for col in ("key", "value", "quote"))

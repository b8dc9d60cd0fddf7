"""`remember(text)`: what an agent wants kept, run through the classifier and the guards exactly
like a chat turn (MemoryPipeline.process_turn: one user message), answered as what was stored,
what was skipped and why. The MCP tool `remember` and the framework integrations' tools answer
with this."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from pipeline.types import Outcome

if TYPE_CHECKING:
    from pipeline import Decision, MemoryPipeline, TurnResult

DESCRIPTION = (
    "Remember what the user said about themselves or their work, in their own words (e.g. \"I'm a nurse in "
    "Lyon and I prefer short answers\"). memroute splits it into statements and routes each one like a chat "
    "turn: stable facts and preferences to the profile (USER.md), dated events and decisions to the log "
    "(MEMORY.md), the rest skipped with a reason (mood, one_off, vague, inferable, sensitive, blocked). "
    "The answer lists what was stored and what was skipped and why."
)


def remember(
    pipe: MemoryPipeline,
    user_id: str,
    text: str,
    *,
    timestamp: datetime | str | None = None,
    conversation_id: str | None = "remember",
) -> dict[str, Any]:
    """Route `text` as the user's message of one turn; the answer says what went where.
    `success` is False when a statement was blocked by a guard or could not be written (over a cap),
    or the turn failed (a model outage: kept for `memroute retry`)."""
    if not isinstance(text, str) or not text.strip():
        return {"success": False, "error": "nothing to remember: text is empty", "stored": [], "skipped": []}
    result = pipe.process_turn(
        user_id, [{"role": "user", "content": text}], timestamp=timestamp, conversation_id=conversation_id
    )
    return answer(result)


def answer(result: TurnResult) -> dict[str, Any]:
    """A turn's decisions as an agent reads them."""
    stored: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    refused: list[dict[str, Any]] = []
    for d in result.decisions:
        if d.route == "skip":
            # Sensitive or hostile words are not echoed back (answers end up in agents' logs).
            quote = None if d.reason in ("sensitive", "blocked") else d.quote
            item = {"quote": quote, "reason": d.reason or "unknown", "why": d.detail or ""}
            (refused if d.reason == "blocked" else skipped).append(item)
        elif d.outcome is Outcome.WRITTEN:
            stored.append(_stored(d))
        elif d.outcome in (Outcome.BLOCKED, Outcome.OVER_CAP):
            refused.append({"quote": None if d.outcome is Outcome.BLOCKED else d.quote,
                            "reason": d.outcome.value, "why": d.outcome_text})
        else:  # duplicate, unchanged, not_found, stale...: nothing to do, not an error
            skipped.append({"quote": d.quote, "reason": d.outcome.value if d.outcome else "unchanged",
                            "why": d.outcome_text or "", "target": _file(d)})
    payload: dict[str, Any] = {
        "success": result.status != "failed" and not refused,
        "stored": stored,
        "skipped": skipped,
        "turn_id": result.turn_id,
    }
    if refused:
        payload["refused"] = refused
    if result.status == "failed":
        payload["error"] = f"the turn failed and is kept for retry: {(result.error or '').splitlines()[0][:200]}"
    elif result.status == "duplicate_turn":
        payload["message"] = "already remembered: this exact turn was applied before"
    payload["summary"] = _summary(stored, skipped, refused)
    return payload


def _file(d: Decision) -> str:
    return "USER.md" if d.route == "user" else "MEMORY.md"


def _stored(d: Decision) -> dict[str, Any]:
    if d.route == "user":
        if d.op == "remove":
            return {"file": "USER.md", "forgot": d.match, "quote": d.quote}
        return {"file": "USER.md", "section": d.section, "key": d.key, "value": d.value, "quote": d.quote}
    if d.op == "remove":
        return {"file": "MEMORY.md", "forgot": d.match, "quote": d.quote}
    return {"file": "MEMORY.md", "date": d.date, "topic": d.topic, "entry": d.entry, "quote": d.quote}


def _summary(stored: list[dict[str, Any]], skipped: list[dict[str, Any]], refused: list[dict[str, Any]]) -> str:
    parts = []
    for s in stored:
        if "forgot" in s:
            parts.append(f"forgot {s['forgot']!r} in {s['file']}")
        elif s["file"] == "USER.md":
            parts.append(f"USER.md {s['key']}: {s['value']}")
        else:
            parts.append(f"MEMORY.md [{s['date']}] {s['entry']}")
    for s in skipped:
        parts.append(f"skipped {s['quote'] or 'a statement'!r} ({s['reason']}: {s['why']})")
    for s in refused:
        parts.append(f"refused {s['quote'] or 'a statement'!r} ({s['reason']}: {s['why']})")
    return "; ".join(parts) or "nothing to remember in this text"

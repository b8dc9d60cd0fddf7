"""Which USER.md keys a turn may not touch because a later turn of the same user already set them.

Turns can land out of order: `memroute retry` runs a turn that failed yesterday after today's
turn succeeded, the hook replays a parked turn last, a batch imports older transcripts. Every
commit records its turn's time in the turn record (`payload.turn_time`; a manual edit's is the
commit time). A turn ranks by (turn time, arrival order = the turn record's row id); a value set
by a later-ranked turn is never overwritten nor removed by an earlier one. Turns recorded before
turn times were kept have no time: they never block anything (the old behaviour).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from pipeline.ledgers import norm_key, split_label
from pipeline.store.interface import MemoryStore
from pipeline.types import Turn

TURN_TIME = "turn_time"  # the payload field of a done turn's record


def turn_time_payload(when: datetime | str) -> dict[str, str]:
    """What a committed turn's record keeps: its time, for later turns to rank against."""
    return {TURN_TIME: when if isinstance(when, str) else when.astimezone(timezone.utc).isoformat()}


def _time(row: dict[str, Any] | None) -> datetime | None:
    payload = (row or {}).get("payload")
    value = payload.get(TURN_TIME) if isinstance(payload, dict) else None
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def later_keys(store: MemoryStore, turn: Turn) -> dict[str, str]:
    """USER.md keys (normalised) whose current value a turn ranked after `turn` set, each with
    the time of that turn. Empty for a turn arriving in order (the common case)."""
    setter: dict[str, str | None] = {}  # key -> turn id of its current value, oldest first so the last wins
    for row in store.provenance(turn.user_id, target="user"):
        key = row.get("key") or split_label(str(row.get("value") or ""))[0]
        if key:
            setter[norm_key(key)] = row.get("turn_id")
    if not setter:
        return {}
    rows = {row["turn_id"]: row for row in store.turns(turn.user_id)}
    mine = rows.get(turn.turn_id)
    my_rank = (turn.timestamp, mine["id"] if mine else float("inf"))
    out: dict[str, str] = {}
    for key, turn_id in setter.items():
        if turn_id is None or turn_id == turn.turn_id:
            continue
        setter_row = rows.get(turn_id)
        when = _time(setter_row)
        if setter_row is None or when is None:
            continue
        if (when, setter_row["id"]) > my_rank:
            out[key] = when.isoformat()
    return out

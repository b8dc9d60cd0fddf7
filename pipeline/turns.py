"""Turning what callers hand us (OpenAI-style message lists) into a Turn."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

from pipeline._util.keyed import keyed_id, unkeyed_id
from pipeline.errors import BadTurn
from pipeline.types import Message, Turn

# How far ahead of this machine's clock a turn's timestamp may be (another machine's clock skew).
MAX_FUTURE_SKEW = timedelta(minutes=10)


def parse_timestamp(value: datetime | str | None) -> datetime:
    if value is None:
        return datetime.now(timezone.utc)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            value = datetime.fromisoformat(text)
        except ValueError:
            raise BadTurn(f"invalid timestamp {value!r}: use ISO 8601, e.g. 2026-07-30T09:00:00Z") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value


def turn_time(value: datetime | str | None) -> datetime:
    """A turn's time: parse_timestamp's, refused when it is ahead of this clock (BadTurn)."""
    when = parse_timestamp(value)
    if when > datetime.now(timezone.utc) + MAX_FUTURE_SKEW:
        # A turn dated ahead would count as the newest forever: no later turn could change what it set.
        raise BadTurn(f"timestamp {when.isoformat()} is in the future (more than "
                      f"{int(MAX_FUTURE_SKEW.total_seconds() // 60)} minutes ahead of this clock)")
    return when


USER_ROLES = frozenset({"user", "human"})
ASSISTANT_ROLES = frozenset({"assistant", "gpt", "chatgpt", "bard", "bing", "model", "bot", "ai"})
CONTEXT_ROLES = frozenset({"system", "developer", "tool", "function"})  # kept as context, never a turn


def message_role(value: Any, index: int) -> str:
    """`user`, `assistant` or a context role, whatever spelling the source used (ShareGPT's human/gpt)."""
    if not isinstance(value, str):
        raise BadTurn(f"message {index}: role must be a string")
    role = value.strip().lower()
    if role in USER_ROLES:
        return "user"
    if role in ASSISTANT_ROLES:
        return "assistant"
    if role in CONTEXT_ROLES:
        return role
    raise BadTurn(f"message {index}: unknown role {value[:40]!r}")


def message_text(value: Any, index: int) -> str:
    """A message's text: a string, OpenAI content parts (the text parts, joined), or None (a tool call)."""
    if value is None:
        return ""
    if isinstance(value, list):
        value = "\n".join(
            str(p.get("text", "")) for p in value if isinstance(p, dict) and p.get("type", "text") == "text"
        )
    if not isinstance(value, str):
        raise BadTurn(f"message {index}: content must be text or a list of content parts")
    return value


def parse_messages(messages: Any) -> list[Message]:
    """The one parser for incoming messages (CLI, Python API, hook, batch): OpenAI-style
    {role, content} objects, content as a string or as content parts."""
    if not isinstance(messages, list) or not messages:
        raise BadTurn("messages must be a non-empty list of {role, content} objects")
    parsed: list[Message] = []
    for i, m in enumerate(messages):
        if isinstance(m, Message):
            parsed.append(m)
            continue
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise BadTurn(f"message {i} must be an object with 'role' and 'content'")
        ts = m.get("timestamp")
        parsed.append(
            Message(
                role=message_role(m["role"], i),
                content=message_text(m["content"], i),
                timestamp=parse_timestamp(ts) if ts else None,
            )
        )
    return parsed


def build_turn(
    user_id: str,
    messages: Any,
    *,
    timestamp: datetime | str | None = None,
    conversation_id: str | None = None,
    turn_id: str | None = None,
    id_key: bytes | None = None,
) -> Turn:
    """The last user message and what follows it is the turn; earlier messages are context.
    Without `turn_id` the id is made from the turn, keyed by `id_key` (the store's
    `secret_key(ID_KEY)`): the same turn gets the same id on this store, and the id never gives back
    what was said (an unkeyed hash of "my PIN is 4417" is undone by trying the 10,000 PINs)."""
    parsed = parse_messages(messages)
    user_positions = [i for i, m in enumerate(parsed) if m.role == "user"]
    if not user_positions:
        raise BadTurn("messages hold no user message")
    start = user_positions[-1]
    turn_messages, history = parsed[start:], parsed[:start]
    when = turn_time(timestamp if timestamp is not None else turn_messages[0].timestamp)
    if turn_id is None:
        if id_key is None:
            raise TypeError("a turn id made from the turn is keyed: pass id_key (store.secret_key(ID_KEY))")
        # Deterministic, so a resubmitted turn is recognised and never applied twice.
        turn_id = "t-" + keyed_id(id_key, _material(conversation_id, when, turn_messages))
    return Turn(
        user_id=user_id,
        turn_id=turn_id,
        timestamp=when,
        messages=turn_messages,
        history=history,
        conversation_id=conversation_id,
    )


def _material(conversation_id: str | None, when: datetime, messages: list[Message]) -> str:
    """What a turn id made from the turn is made of."""
    return json.dumps([conversation_id, when.isoformat(), [(m.role, m.content) for m in messages]], ensure_ascii=False)


def made_turn_id(id_key: bytes, turn: Turn) -> str:
    """The id build_turn makes from `turn` when it is given none (keyed by the store's `id_key`)."""
    return "t-" + keyed_id(id_key, _material(turn.conversation_id, turn.timestamp, turn.messages))


def unkeyed_turn_id(turn: Turn) -> str:
    """The id older versions made from the same turn (a plain sha256): only looked up, on a store that
    recorded turns then (MemoryStore.holds_unkeyed_ids), never written."""
    return "t-" + unkeyed_id(_material(turn.conversation_id, turn.timestamp, turn.messages), 20)


def turn_payload(turn: Turn) -> dict[str, Any]:
    """What a failed turn keeps for `memroute retry` (the store redacts it before it lands)."""
    return {
        "messages": [{"role": m.role, "content": m.content} for m in [*turn.history, *turn.messages]],
        "timestamp": turn.timestamp.isoformat(),
        "conversation_id": turn.conversation_id,
    }

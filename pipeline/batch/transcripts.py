"""Transcript files in, conversations out: streaming JSONL readers for `memroute batch`.

One conversation per line, in one of three formats (detected per line, or forced):

- openai:   {"id", "user_id", "messages": [{"role", "content", "timestamp"?}], "timestamp"?}
- sharegpt: {"id", "user_id", "conversations": [{"from", "value", "timestamp"?}], "timestamp"?}
- turns:    {"conversation_id" | "id", "user_id", "turns": [{"timestamp", "user", "assistant"?}]}
            (a conversation as a list of turns, each with its own timestamp; the shape of
            pipeline/data/demo_conversation.json)

Files are read in binary, line by line, and each line is decoded on its own, so invalid UTF-8
spoils one line, not the file. A line longer than `MAX_LINE_BYTES` is skipped without being
held in memory; a message longer than `MAX_MESSAGE_CHARS` spoils its line. Either way the
reader yields a `BadLine` (file, line number, reason) and goes on.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from pipeline._util.jsonl import MAX_LINE_BYTES, read_lines
from pipeline.errors import BadInput, BadTurn, InputError, InvalidUserId
from pipeline.store.files import validate_user_id
from pipeline.turns import message_role, message_text, parse_timestamp
from pipeline.types import Message

FORMATS: tuple[str, ...] = ("openai", "sharegpt", "turns")
MAX_MESSAGE_CHARS = 1_000_000  # a longer message (a pasted log, a dump) spoils its line


@dataclass(frozen=True)
class BadLine:
    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


@dataclass
class Conversation:
    user_id: str
    conversation_id: str  # the input's id, or "line-<hash>" when it has none
    key: str  # stable per user: what checkpoints and turn ids derive from
    messages: list[Message]
    timestamp: datetime | None  # its own, else its first message's; None if the input has no times
    path: str
    line: int
    offset: int
    fmt: str
    turn_starts: list[int] = field(default_factory=list)  # index of each turn's user message
    # The key older versions used when `key` is keyed (runner.keyed_conversation): a plain digest of the
    # text, only looked up to recognise what a store recorded then; never written.
    unkeyed_key: str | None = None

    @property
    def source(self) -> str:
        return f"{self.path}:{self.line}"

    def turn_spans(self) -> list[tuple[int, int]]:
        """(start, end) of each turn: a user message and everything up to the next user message."""
        ends = [*self.turn_starts[1:], len(self.messages)]
        return list(zip(self.turn_starts, ends, strict=True))

    def turn_timestamp(self, start: int) -> datetime | None:
        """The user message's time, else the conversation's (dates in MEMORY.md come from these)."""
        return self.messages[start].timestamp or self.timestamp


# ---- inputs ---------------------------------------------------------------------------------


def expand_inputs(inputs: list[str]) -> list[Path]:
    """Files as given, folders as their *.jsonl files (recursively, sorted); missing paths are errors."""
    if not inputs:
        raise InputError("no input: give JSONL files or folders of them")
    paths: list[Path] = []
    for raw in inputs:
        p = Path(raw)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*.jsonl") if q.is_file())
            if not found:
                raise InputError(f"no .jsonl files in folder {raw}")
            paths.extend(found)
        elif p.is_file():
            paths.append(p)
        else:
            raise InputError(f"input not found: {raw}")
    seen: set[Path] = set()
    unique = []
    for p in paths:
        resolved = p.resolve()
        if resolved not in seen:
            seen.add(resolved)
            unique.append(p)
    return unique


def read_conversations(
    path: Path, fmt: str | None = None, *, name: str | None = None, user: str | None = None
) -> Iterator[Conversation | BadLine]:
    """Every line of one file, lazily: a Conversation, or a BadLine saying what is wrong with it.
    `name`: how the file is called in reports (default: its path); `user`: the user id of lines
    that carry none (else such a line is bad)."""
    name = str(path) if name is None else name
    with path.open("rb") as fh:
        for number, offset, raw in read_lines(fh):
            if raw is None:
                yield BadLine(name, number, f"line longer than {MAX_LINE_BYTES:,} bytes; skipped")
                continue
            try:
                yield parse_line(raw, path=name, line=number, offset=offset, fmt=fmt, user=user)
            except BadInput as e:
                yield BadLine(name, number, str(e))


def read_at(
    fh: IO[bytes], offset: int, *, path: str, line: int, fmt: str | None, user: str | None = None
) -> Conversation:
    """Read the conversation at a known byte offset again (the batch's second pass)."""
    fh.seek(offset)
    raw = fh.readline(MAX_LINE_BYTES + 1)
    return parse_line(raw, path=path, line=line, offset=offset, fmt=fmt, user=user)


# ---- parsing --------------------------------------------------------------------------------


def detect_format(obj: dict[str, Any]) -> str | None:
    if isinstance(obj.get("messages"), list):
        return "openai"
    if isinstance(obj.get("conversations"), list):
        return "sharegpt"
    if isinstance(obj.get("turns"), list):
        return "turns"
    return None


_FORMAT_KEY = {"openai": "messages", "sharegpt": "conversations", "turns": "turns"}


def parse_line(
    raw: bytes, *, path: str, line: int, offset: int, fmt: str | None = None, user: str | None = None
) -> Conversation:
    try:
        text = raw.decode("utf-8-sig")  # a BOM at the start of a file is not an error
    except UnicodeDecodeError as e:
        raise BadInput(f"invalid UTF-8 at byte {e.start}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"malformed JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(obj, dict):
        raise BadInput(f"expected a JSON object, got {type(obj).__name__}")
    found = fmt or detect_format(obj)
    if found is None:
        raise BadInput("unknown format: no 'messages', 'conversations' or 'turns' list")
    if not isinstance(obj.get(_FORMAT_KEY[found]), list):
        raise BadInput(f"not {found} format: no '{_FORMAT_KEY[found]}' list")
    user_id = _user_id(obj, user)
    conv_ts = _time(obj.get("timestamp"), "conversation timestamp")
    if found == "openai":
        messages = [_openai_message(m, i) for i, m in enumerate(obj["messages"])]
        raw_id = obj.get("id", obj.get("conversation_id"))
    elif found == "sharegpt":
        messages = [_sharegpt_message(m, i) for i, m in enumerate(obj["conversations"])]
        raw_id = obj.get("id", obj.get("conversation_id"))
    else:
        messages = _turns_messages(obj["turns"])
        raw_id = obj.get("conversation_id", obj.get("id"))
    if raw_id is not None and not isinstance(raw_id, (str, int)):
        raise BadInput("conversation id must be a string or a number")
    if raw_id is None or str(raw_id) == "":
        # No id: the line's own content names it, so a rerun over the same file finds it again.
        conversation_id = "line-" + hashlib.sha256(raw.strip()).hexdigest()[:16]
    else:
        conversation_id = str(raw_id)
    if conv_ts is None:
        conv_ts = next((m.timestamp for m in messages if m.timestamp is not None), None)
    return Conversation(
        user_id=user_id,
        conversation_id=conversation_id,
        key=conversation_id,
        messages=messages,
        timestamp=conv_ts,
        path=path,
        line=line,
        offset=offset,
        fmt=found,
        turn_starts=[i for i, m in enumerate(messages) if m.role == "user"],
    )


def _user_id(obj: dict[str, Any], default: str | None = None) -> str:
    value = obj.get("user_id", obj.get("user"))
    if value is None or value == "":
        value = default
    if value is None or value == "":
        raise BadInput("missing user_id (name the user with --user)")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise BadInput("user_id must be a string or a number")
    try:
        return validate_user_id(str(value))
    except InvalidUserId as e:
        raise BadInput(str(e)) from None


def _time(value: Any, what: str) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:  # epoch seconds (milliseconds when it is too large to be seconds)
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise BadInput(f"invalid {what} {value!r}") from None
    if not isinstance(value, str):
        raise BadInput(f"invalid {what}: expected ISO 8601 or epoch seconds")
    try:
        return parse_timestamp(value)
    except BadTurn:
        raise BadInput(f"invalid {what} {value[:40]!r}: use ISO 8601") from None


def _role(value: Any, index: int) -> str:
    try:
        return message_role(value, index)
    except BadTurn as e:
        raise BadInput(str(e)) from None


def _content(value: Any, index: int) -> str:
    try:
        value = message_text(value, index)  # the same parser as `memroute turn` and process_turn
    except BadTurn:
        raise BadInput(f"message {index}: content must be text") from None
    if len(value) > MAX_MESSAGE_CHARS:
        raise BadInput(
            f"message {index} is {len(value):,} characters (cap {MAX_MESSAGE_CHARS:,}); conversation skipped"
        )
    return str(value)


def _message(role: Any, content: Any, ts: Any, index: int) -> Message:
    return Message(
        role=_role(role, index), content=_content(content, index), timestamp=_time(ts, f"timestamp of message {index}")
    )


def _openai_message(m: Any, index: int) -> Message:
    if not isinstance(m, dict):
        raise BadInput(f"message {index} is not an object")
    if "role" not in m:
        raise BadInput(f"message {index} has no role")
    return _message(m["role"], m.get("content"), m.get("timestamp"), index)


def _sharegpt_message(m: Any, index: int) -> Message:
    if not isinstance(m, dict):
        raise BadInput(f"message {index} is not an object")
    if "from" not in m:
        raise BadInput(f"message {index} has no 'from'")
    return _message(m["from"], m.get("value"), m.get("timestamp"), index)


def _turns_messages(turns: list[Any]) -> list[Message]:
    messages: list[Message] = []
    for i, t in enumerate(turns):
        if not isinstance(t, dict):
            raise BadInput(f"turn {i} is not an object")
        if not isinstance(t.get("user"), str):
            raise BadInput(f"turn {i} has no 'user' text")
        ts = _time(t.get("timestamp"), f"timestamp of turn {i}")
        messages.append(Message(role="user", content=_content(t["user"], i), timestamp=ts))
        if t.get("assistant") is not None:
            messages.append(Message(role="assistant", content=_content(t["assistant"], i), timestamp=ts))
    return messages

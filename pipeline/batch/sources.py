"""What people already have, made readable by the batch runner: transcript files of any supported
shape become JSONL files of conversations, one per line (pipeline/transcripts.py reads those).

Formats (`--format`, else detected per file):

- `turns`, `openai`, `sharegpt`: one conversation per JSONL line (pipeline/transcripts.py); the
  same records as a JSON file (an array of them, or one of them), or a JSON array of messages
  (`{"role", "content"}` or `{"from", "value"}`) for a file that is one conversation.
- `chatgpt`: ChatGPT's data export, `conversations.json`: an array of conversations whose messages
  form a tree (`mapping`: node id -> `{"message", "parent", "children"}`); the thread that ends at
  `current_node` is the conversation, with each message's `create_time` and author role.
- `text`: a plain chat log, one `Speaker: text` line per message (an optional `[2026-07-30 09:00]`
  or ISO time before the speaker; other lines continue the message above; a `---` line starts a
  new conversation). The user is the speaker named by `--user-speaker`, else `User`/`Human`/`You`/
  `Me`; every other speaker is the assistant.

Any file may be gzip-compressed (detected by its first bytes); `-` is standard input. A folder
stands for its `*.jsonl`, `*.json` and `*.gz` files (and `*.txt`/`*.log` with `--format text`),
recursively.

The user id of a conversation is its record's `user_id` (or `user`), else `--user`, else the
file's name without its extensions (`ana.jsonl` -> `ana`) when the file's records carry no user
id at all. A ChatGPT export names no user: give `--user`.

A file that fits no format raises InputError with one line naming the formats and the line
where reading gave up; every input is checked before anything is written. Files that need no
conversion (plain JSONL) are read in place; the others are written once into `workdir` (a JSON
file's record N becomes line N there, and reports call it line N of the original file).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from pipeline._util.jsonl import read_lines
from pipeline.batch.transcripts import FORMATS, detect_format, parse_line
from pipeline.errors import BadInput, BadTurn, InputError, InvalidUserId, NoFormat
from pipeline.store.files import validate_user_id
from pipeline.turns import parse_timestamp

FILE_FORMATS: tuple[str, ...] = (*FORMATS, "chatgpt", "text")
FORMATS_TEXT = (
    "turns/openai/sharegpt JSONL or JSON, a ChatGPT export (conversations.json), "
    "a 'Speaker: text' log (--format text)"
)
SNIFF_LINES = 200  # a JSONL file is recognised by a good record among its first lines
USER_SPEAKERS = frozenset({"user", "human", "you", "me"})
_GZIP_MAGIC = b"\x1f\x8b"
_FOLDER_SUFFIXES = (".jsonl", ".json", ".gz")
_TEXT_SUFFIXES = (".txt", ".log")


@dataclass(frozen=True)
class InputFile:
    """One input as the runner reads it."""

    path: Path  # the JSONL file read: the input itself, or its converted copy
    name: str  # how reports call it: the path given ("-" for standard input)
    fmt: str | None  # the line format forced with --format (None: detected per line)
    user: str | None  # the user id of records that carry none
    kind: str  # what was found: jsonl, json, chatgpt or text


def no_format(name: str, line: int, why: str) -> NoFormat:
    return NoFormat(f"{name}:{line}: fits no transcript format ({FORMATS_TEXT}): {why}")


# ---- inputs ---------------------------------------------------------------------------------


def expand(inputs: list[str], fmt: str | None = None) -> list[str]:
    """Files as given, folders as their transcript files (recursively, sorted), '-' as itself."""
    if not inputs:
        raise InputError("no input: give transcript files, folders of them, or - for standard input")
    suffixes = _FOLDER_SUFFIXES + (_TEXT_SUFFIXES if fmt == "text" else ())
    found: list[str] = []
    seen: set[Path] = set()
    for raw in inputs:
        if raw == "-":
            if "-" in found:
                raise InputError("standard input (-) given twice")
            found.append(raw)
            continue
        p = Path(raw)
        if p.is_dir():
            files = sorted(q for q in p.rglob("*") if q.is_file() and q.name.lower().endswith(suffixes))
            if not files:
                raise InputError(f"no transcript files in folder {raw} ({', '.join('*' + s for s in suffixes)})")
        elif p.is_file():
            files = [p]
        else:
            raise InputError(f"input not found: {raw}")
        for q in files:
            if q.resolve() not in seen:
                seen.add(q.resolve())
                found.append(str(q))
    return found


def prepare(
    inputs: list[str],
    workdir: Path,
    *,
    fmt: str | None = None,
    user: str | None = None,
    user_speaker: str | None = None,
    stdin: IO[bytes] | None = None,
) -> list[InputFile]:
    """Check every input and make each one a JSONL file the runner reads; raises InputError (a
    usage error: nothing has been written to any memory) for an input that fits no format."""
    if fmt is not None and fmt not in FILE_FORMATS:
        raise InputError(f"unknown --format {fmt!r}: choose one of {', '.join(FILE_FORMATS)}")
    if user is not None:
        try:
            user = validate_user_id(user)
        except InvalidUserId as e:
            raise InputError(f"--user: {e}") from None
    workdir.mkdir(parents=True, exist_ok=True)
    prepared = []
    for n, raw in enumerate(expand(inputs, fmt)):
        prepared.append(_prepare_one(raw, n, workdir, fmt, user, user_speaker, stdin))
    return prepared


def _prepare_one(
    raw: str, n: int, workdir: Path, fmt: str | None, user: str | None, user_speaker: str | None,
    stdin: IO[bytes] | None,
) -> InputFile:
    if raw == "-":
        path = workdir / f"{n:05d}.stdin"
        with path.open("wb") as out:
            shutil.copyfileobj(stdin if stdin is not None else sys.stdin.buffer, out)
        name, stem_user = "-", None
    else:
        path, name = Path(raw), raw
        stem_user = _user_from_name(Path(raw).name)
    with path.open("rb") as fh:
        compressed = fh.read(2) == _GZIP_MAGIC
    if compressed:
        plain = workdir / f"{n:05d}.plain"
        try:
            with gzip.open(path, "rb") as src, plain.open("wb") as out:
                shutil.copyfileobj(src, out)
        except (OSError, EOFError) as e:
            raise InputError(f"{name}: not a readable gzip file ({e})") from None
        path = plain
    detected = _sniff(path, name, fmt)
    line_fmt = fmt if fmt in FORMATS else None
    if detected.kind == "jsonl":
        default = user or (stem_user if not detected.has_user else None)
        if default is None and not detected.has_user:
            raise InputError(f"{name}: its conversations name no user (no 'user_id'): give --user")
        return InputFile(path, name, line_fmt, default, "jsonl")
    out_path = workdir / f"{n:05d}.jsonl"
    if detected.kind == "text":
        default = user or stem_user
        if default is None:
            raise InputError(f"{name}: a chat log names no user id: give --user")
        _write_lines(out_path, _text_records(path, name, user_speaker))
        return InputFile(out_path, name, None, default, "text")
    records = detected.records or []
    if detected.kind == "chatgpt":
        if user is None and not all(isinstance(r, dict) and r.get("user_id") for r in records):
            raise InputError(f"{name}: a ChatGPT export names no user: give --user (the user it belongs to)")
        _write_lines(out_path, (_chatgpt_record(r, i, name) for i, r in enumerate(records)))
        return InputFile(out_path, name, None, user, "chatgpt")
    has_user = any(isinstance(r, dict) and (r.get("user_id") or r.get("user")) for r in records)
    default = user or (stem_user if not has_user else None)
    if default is None and not has_user and records:
        raise InputError(f"{name}: its conversations name no user (no 'user_id'): give --user")
    _write_lines(out_path, (_with_id(r) for r in records))
    return InputFile(out_path, name, line_fmt, default, "json")


def _user_from_name(filename: str) -> str | None:
    stem = filename
    for suffix in (".gz", ".jsonl", ".json", ".txt", ".log"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    try:
        return validate_user_id(stem) if stem else None
    except InvalidUserId:
        return None


def _write_lines(path: Path, records: Iterator[Any]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def _with_id(record: Any) -> Any:
    """A JSON file's record as a line: with an id made from its content when it has none, so a
    rerun recognises it (a line's id would come from its bytes, which depend on the spacing)."""
    if isinstance(record, dict) and record.get("id") in (None, "") and record.get("conversation_id") in (None, ""):
        digest = hashlib.sha256(json.dumps(record, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]
        return {**record, "id": f"json-{digest}"}
    return record


# ---- detection ------------------------------------------------------------------------------


@dataclass
class _Found:
    kind: str  # jsonl | json | chatgpt | text
    has_user: bool = False
    records: list[Any] | None = None


def _sniff(path: Path, name: str, fmt: str | None) -> _Found:
    if fmt == "text":
        return _Found("text")
    first_bad: tuple[int, str] | None = None
    first_line_is_object = False
    with path.open("rb") as fh:
        for k, (number, _offset, raw) in enumerate(read_lines(fh)):
            if k >= SNIFF_LINES:
                break
            if raw is None:
                first_bad = first_bad or (number, "line too long")
                continue
            try:
                obj = json.loads(raw.decode("utf-8-sig"))
            except (UnicodeDecodeError, json.JSONDecodeError) as e:
                first_bad = first_bad or (number, _json_why(e))
                continue
            if k == 0:
                first_line_is_object = isinstance(obj, dict)
            if not isinstance(obj, dict):
                first_bad = first_bad or (number, f"a JSON {type(obj).__name__}, not a conversation object")
                continue
            if "mapping" in obj and fmt in (None, "chatgpt"):
                first_bad = (number, "a ChatGPT conversation per line: give the export's conversations.json as it is")
                break  # a ChatGPT conversation: the whole file is read below
            found = detect_format(obj)
            if found is not None and fmt in (None, found):
                return _Found("jsonl", has_user=bool(obj.get("user_id") or obj.get("user")))
            first_bad = first_bad or (number, _record_why(obj, fmt))
    if not first_line_is_object or fmt == "chatgpt" or first_bad is None or _whole_json(path):
        doc = _load_document(path)
        if doc is not None:
            return _document(doc, name, fmt)
    if fmt is None and _looks_like_text(path):
        return _Found("text")
    line, why = first_bad or (1, "empty file")
    raise no_format(name, line, why)


def _json_why(e: Exception) -> str:
    if isinstance(e, UnicodeDecodeError):
        return f"invalid UTF-8 at byte {e.start}"
    assert isinstance(e, json.JSONDecodeError)
    return f"not JSON ({e.msg} at column {e.colno})"


def _record_why(obj: dict[str, Any], fmt: str | None) -> str:
    keys = ", ".join(repr(k) for k in list(obj)[:6]) or "none"
    wanted: tuple[str, ...] = ("messages", "conversations", "turns", "mapping")
    if fmt in FORMATS:
        wanted = ({"openai": "messages", "sharegpt": "conversations", "turns": "turns"}[fmt],)
    for key in wanted:  # the key is there but holds something else: say what it holds
        expected = dict if key == "mapping" else list
        if key in obj and not isinstance(obj[key], expected):
            shape = "an object (mapping of ids)" if key == "mapping" else "a list of messages"
            return f"{key!r} is {_kind(obj[key])}, not {shape}"
    if fmt in FORMATS:
        return f"not {fmt} format: no {wanted[0]!r} list (keys: {keys})"
    return f"no 'messages', 'conversations', 'turns' or 'mapping' (keys: {keys})"


def _kind(value: Any) -> str:
    """What a JSON value is, for an error message: 'a string ("hi")', 'a number', 'null', 'an object'."""
    if isinstance(value, str):
        shown = value if len(value) <= 20 else value[:20] + "..."
        return f"a string ({json.dumps(shown, ensure_ascii=False)})"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "a number"
    return "an object" if isinstance(value, dict) else "a list"


def _whole_json(path: Path) -> bool:
    with path.open("rb") as fh:
        head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1] in (b"[", b"{")


def _load_document(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes().decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


def _is_message(obj: Any) -> bool:
    return isinstance(obj, dict) and ("role" in obj or "from" in obj) and detect_format(obj) is None


def _document(doc: Any, name: str, fmt: str | None) -> _Found:
    """A whole JSON file: an array of conversations, one conversation, or one conversation's messages."""
    if isinstance(doc, dict):
        doc = [doc]
    if not isinstance(doc, list):
        raise no_format(name, 1, f"a JSON {type(doc).__name__}, not conversations")
    if not doc:
        return _Found("json", records=[])
    first = doc[0]
    if isinstance(first, dict) and isinstance(first.get("mapping"), dict) and fmt in (None, "chatgpt"):
        return _Found("chatgpt", records=doc)
    if fmt == "chatgpt":
        raise no_format(name, 1, "not a ChatGPT export: no 'mapping' in its first conversation")
    if all(_is_message(m) for m in doc):  # one conversation's messages
        key = "conversations" if "from" in first else "messages"
        if fmt not in (None, "openai" if key == "messages" else "sharegpt"):
            raise no_format(name, 1, f"a list of messages, not {fmt} records")
        return _Found("json", records=[{key: doc}])
    if isinstance(first, dict) and detect_format(first) is not None and fmt in (None, detect_format(first)):
        return _Found("json", records=doc)
    why = _record_why(first, fmt) if isinstance(first, dict) else f"a JSON {type(first).__name__}"
    raise no_format(name, 1, f"record 1: {why}")


# ---- ChatGPT export -------------------------------------------------------------------------


def _chatgpt_record(conv: Any, index: int, name: str) -> Any:
    """One conversation of a ChatGPT export as an openai record: the thread that ends at
    current_node (else at the newest leaf), oldest first; hidden and non-text messages left out."""
    if not isinstance(conv, dict) or not isinstance(conv.get("mapping"), dict):
        return {"bad": f"conversation {index + 1} has no 'mapping'"}  # reported as a bad line
    mapping: dict[str, Any] = conv["mapping"]
    node_id = conv.get("current_node")
    if node_id not in mapping:
        node_id = _newest_leaf(mapping)
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id] if isinstance(mapping[node_id], dict) else {}
        chain.append(node)
        node_id = node.get("parent")
    messages = []
    for node in reversed(chain):
        m = _chatgpt_message(node.get("message"))
        if m is not None:
            messages.append(m)
    record: dict[str, Any] = {
        "id": str(conv.get("conversation_id") or conv.get("id") or f"chatgpt-{index + 1}"),
        "messages": messages,
    }
    if conv.get("user_id"):
        record["user_id"] = conv["user_id"]
    if isinstance(conv.get("create_time"), (int, float)):
        record["timestamp"] = conv["create_time"]
    return record


def _newest_leaf(mapping: dict[str, Any]) -> str | None:
    leaves = [k for k, v in mapping.items() if isinstance(v, dict) and not v.get("children")]

    def when(k: str) -> float:
        message = mapping[k].get("message") or {}
        t = message.get("create_time") if isinstance(message, dict) else None
        return float(t) if isinstance(t, (int, float)) else 0.0

    return max(leaves, key=when) if leaves else None


def _chatgpt_message(message: Any) -> dict[str, Any] | None:
    if not isinstance(message, dict):
        return None
    role = (message.get("author") or {}).get("role")
    metadata = message.get("metadata") or {}
    if role not in ("user", "assistant", "system", "tool") or metadata.get("is_visually_hidden_from_conversation"):
        return None
    content = message.get("content") or {}
    if content.get("content_type") not in ("text", "multimodal_text"):
        return None  # code, execution output, browsing results: not what the user said
    parts = content.get("parts") or []
    text = "\n".join(p for p in parts if isinstance(p, str)).strip()
    if not text:
        return None
    out: dict[str, Any] = {"role": role, "content": text}
    if isinstance(message.get("create_time"), (int, float)):
        out["timestamp"] = message["create_time"]
    return out


# ---- plain-text chat logs -------------------------------------------------------------------

_SPEAKER_RE = re.compile(
    r"^(?:\[(?P<ts>[^\]]{8,40})\]\s*|(?P<iso>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?)\s+(?:-\s+)?)?"
    r"(?P<name>[^\W\d_][\w .'-]{0,39}?)\s*:\s(?P<text>.*)$"
)
_SEPARATOR_RE = re.compile(r"^\s*-{3,}\s*$")


def _looks_like_text(path: Path) -> bool:
    with path.open("rb") as fh:
        for _number, _offset, raw in read_lines(fh):
            if raw is None:
                return False
            try:
                line = raw.decode("utf-8-sig").strip()
            except UnicodeDecodeError:
                return False
            if _SEPARATOR_RE.match(line):
                continue
            return bool(_SPEAKER_RE.match(line))
    return False


def parse_text_log(text: str, name: str, user_speaker: str | None) -> list[list[dict[str, Any]]]:
    """A plain chat log as conversations of messages (see the module's docstring)."""
    conversations: list[list[dict[str, Any]]] = [[]]
    speakers: list[str] = []
    for number, raw_line in enumerate(text.split("\n"), start=1):
        line = raw_line.rstrip("\r")
        if _SEPARATOR_RE.match(line):
            if conversations[-1]:
                conversations.append([])
            continue
        match = _SPEAKER_RE.match(line.strip())
        if match is None:
            if conversations[-1]:
                conversations[-1][-1]["content"] += "\n" + line
            elif line.strip():
                raise no_format(name, number, f"expected 'Speaker: text', got {line.strip()[:40]!r}")
            continue
        speaker = match["name"].strip()
        if speaker not in speakers:
            speakers.append(speaker)
        message: dict[str, Any] = {"speaker": speaker, "content": match["text"]}
        stamp = match["ts"] or match["iso"]
        if stamp:
            try:
                message["timestamp"] = parse_timestamp(stamp.strip()).isoformat()
            except BadTurn:
                raise no_format(name, number, f"unreadable time {stamp[:40]!r}: use ISO 8601") from None
        conversations[-1].append(message)
    conversations = [c for c in conversations if c]
    if not conversations:
        raise no_format(name, 1, "no 'Speaker: text' line")
    if user_speaker is not None:
        users = {s for s in speakers if s.casefold() == user_speaker.strip().casefold()}
        if not users:
            raise InputError(f"{name}: no speaker {user_speaker!r} in the log (speakers: {', '.join(speakers[:8])})")
    else:
        users = {s for s in speakers if s.casefold() in USER_SPEAKERS}
        if not users:
            raise InputError(
                f"{name}: which speaker is the user? give --user-speaker NAME (speakers: {', '.join(speakers[:8])})"
            )
    for conversation in conversations:
        for m in conversation:
            m["role"] = "user" if m.pop("speaker") in users else "assistant"
            m["content"] = m["content"].strip()
    return conversations


def _text_records(path: Path, name: str, user_speaker: str | None) -> Iterator[dict[str, Any]]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise no_format(name, 1, f"invalid UTF-8 at byte {e.start}") from None
    for messages in parse_text_log(text, name, user_speaker):
        digest = hashlib.sha256(json.dumps(messages, ensure_ascii=False).encode()).hexdigest()[:16]
        yield {"id": f"text-{digest}", "messages": messages}


# ---- one turn (`memroute turn --messages FILE`) ------------------------------------------------


def turn_messages(data: bytes, name: str, *, fmt: str | None = None, user_speaker: str | None = None) -> list[Any]:
    """The messages of one turn from a file: a JSON list of messages ({role, content} or ShareGPT's
    {from, value}), one record of any format above (`{"messages": [...]}`, the HTTP body), or a
    'Speaker: text' log. Raises BadTurn (exit 2) naming the formats when it fits none."""
    if fmt is not None and fmt not in FILE_FORMATS:
        raise BadTurn(f"unknown --format {fmt!r}: choose one of {', '.join(FILE_FORMATS)}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadTurn(f"{name}: invalid UTF-8 at byte {e.start}") from None
    if fmt != "text":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            first = next((line.strip() for line in text.split("\n") if line.strip()), "")
            if fmt is not None or not _SPEAKER_RE.match(first):
                raise BadTurn(f"{name}:{e.lineno}: messages fit no format ({FORMATS_TEXT}): not JSON ({e.msg})") from None
        else:
            return _turn_from_json(doc, name, fmt)
    try:
        conversations = parse_text_log(text, name, user_speaker)
    except InputError as e:
        raise BadTurn(str(e)) from None
    return [m for c in conversations for m in c]


def _turn_from_json(doc: Any, name: str, fmt: str | None) -> list[Any]:
    if isinstance(doc, list) and doc and all(_is_message(m) for m in doc):
        doc = {"conversations" if "from" in doc[0] else "messages": doc}
    if isinstance(doc, dict) and isinstance(doc.get("mapping"), dict):
        doc = _chatgpt_record(doc, 0, name)
    if not isinstance(doc, dict) or detect_format(doc) is None:
        what = f"a JSON {type(doc).__name__}" if not isinstance(doc, dict) else _record_why(doc, fmt)
        raise BadTurn(f"{name}: messages fit no format ({FORMATS_TEXT}): {what}")
    raw = json.dumps(doc, ensure_ascii=False).encode()
    try:
        conv = parse_line(raw, path=name, line=1, offset=0, fmt=fmt if fmt in FORMATS else None, user="turn")
    except BadInput as e:
        raise BadTurn(f"{name}: {e}") from None
    return [
        {"role": m.role, "content": m.content, **({"timestamp": _iso(m.timestamp)} if m.timestamp else {})}
        for m in conv.messages
    ]


def _iso(when: datetime) -> str:
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).isoformat()


__all__ = [
    "FILE_FORMATS", "FORMATS_TEXT", "InputFile", "NoFormat", "expand", "parse_text_log", "prepare", "turn_messages",
]

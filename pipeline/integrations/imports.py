"""Imports from other memory systems: a Mem0 export (`Memory.get_all()` / the platform's
`client.get_all()`: a list, or `{"results": [...]}`, of `{"id", "memory", "user_id", "created_at",
...}`) and Letta memory blocks (`[{"label": "human" | "persona" | ..., "value": "..."}]`, also
`{"blocks": [...]}` as in an agent file, or an agent's `{"memory": {"blocks": [...]}}`).

Nothing is copied verbatim: each memory (each line of a block) is said again in the first person
("Is a vegetarian" -> "I am a vegetarian", "Occupation: nurse" -> "My occupation is nurse") and
routed by the engine as one chat turn of the user, dated by its `created_at`: the classifier, the
guards, the caps and the write path apply exactly as to a chat turn. A Letta `persona` block
describes the agent, not the user, and is not routed. Every item's turn id derives from its
source and id, so importing the same export again changes nothing; ids made from an item's text
(its turn id, a Mem0 memory's id when the export has none) are keyed by the store's own key
(pipeline/_util/keyed.py), so they never give the text back.

The report lists, per item, what was stored where, what was skipped and why, and what was refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline import UsageError
from pipeline._util.keyed import ID_KEY, keyed_id
from pipeline.integrations.remember import answer

if TYPE_CHECKING:
    from pipeline import MemoryPipeline

AGENT_BLOCKS = frozenset({"persona", "system", "agent", "assistant"})  # about the agent, not the user
UNKNOWN_VALUES = frozenset({"", "?", "unknown", "n/a", "na", "none", "-", "tbd"})


class ImportFormatError(UsageError):
    """An export that is not what the command reads (a usage error: exit code 2)."""


@dataclass
class Item:
    """One thing to route: a Mem0 memory, or a line of a Letta block."""

    source_id: str | None  # None: the export gives no id (one is made from the text, keyed, at import)
    text: str  # as it was in the export
    user_id: str | None = None
    created_at: str | None = None
    label: str | None = None  # Letta: the block's label


# ---- reading the exports --------------------------------------------------------------------


def read_mem0(data: Any) -> list[Item]:
    """The memories of a Mem0 export (a list, or {"results": [...]}; v1.0's {"memories": [...]} too)."""
    rows = data.get("results", data.get("memories")) if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise ImportFormatError("not a Mem0 export: expected a list of memories, or {\"results\": [...]}")
    items = []
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not isinstance(row.get("memory"), str):
            raise ImportFormatError(f"not a Mem0 export: memory {n} has no 'memory' text")
        user = row.get("user_id")
        created = row.get("created_at")
        if created not in (None, "") and not isinstance(created, str):
            raise ImportFormatError(f"memory {n}: created_at {created!r} is not a date (ISO 8601 text); "
                                    "nothing was imported")
        items.append(Item(
            source_id=str(row["id"]) if row.get("id") not in (None, "") else None,
            text=row["memory"],
            user_id=str(user) if user not in (None, "") else None,
            created_at=created or None,
        ))
    return items


def read_letta(data: Any) -> list[Item]:
    """The lines of Letta memory blocks, with their labels (persona blocks included: the import
    reports them as not about the user)."""
    blocks = data
    if isinstance(data, dict):
        blocks = data.get("blocks")
        if blocks is None and isinstance(data.get("memory"), dict):
            blocks = data["memory"].get("blocks")
    if not isinstance(blocks, list):
        raise ImportFormatError("not Letta memory blocks: expected [{\"label\", \"value\"}, ...] or {\"blocks\": [...]}")
    items = []
    for n, block in enumerate(blocks, 1):
        if not isinstance(block, dict) or not isinstance(block.get("value"), str):
            raise ImportFormatError(f"not Letta memory blocks: block {n} has no 'value' text")
        label = str(block.get("label") or f"block-{n}")
        block_id = str(block.get("id") or label)
        for k, line in enumerate(_lines(block["value"]), 1):
            items.append(Item(source_id=f"{block_id}:{k}", text=line, label=label))
    return items


def _lines(value: str) -> list[str]:
    return [line.strip(" \t-*•") for line in value.splitlines() if line.strip(" \t-*•")]


# ---- saying it again in the first person ----------------------------------------------------

_SUBJECT_RE = re.compile(r"^(?:the\s+)?(?:user|human|customer|client)(?P<poss>'s|’s)?\s+", re.I)
_PRONOUN_RE = re.compile(r"^(?:they|he|she)\s+(?P<verb>\S+)", re.I)
_KEY_VALUE_RE = re.compile(r"^(?P<key>[A-Za-z][A-Za-z /'-]{0,40}?)\s*:\s*(?P<value>.+)$")
_IRREGULAR = {
    "is": "am", "was": "was", "has": "have", "does": "do", "isn't": "am not", "doesn't": "don't",
    "hasn't": "haven't", "wasn't": "wasn't", "goes": "go", "are": "am", "were": "was", "have": "have",
    "like": "like", "love": "love", "prefer": "prefer", "live": "live", "work": "work", "want": "want",
}
_ES_AFTER = ("ches", "shes", "sses", "xes", "zes", "oes")
_NOT_VERBS = frozenset({"this", "his", "hers", "its", "yes", "plus", "always", "perhaps", "sometimes", "thus", "less",
                        "various", "previous", "serious", "famous", "news", "kids", "cats", "dogs", "sports"})
_KEY_NAMES = {"first name": "name", "full name": "name", "given name": "name", "preferred name": "name"}


def _verb(word: str) -> str | None:
    """A third-person verb in the first person ("likes" -> "like"), or None when it is not one."""
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if not low.isalpha() or len(low) < 4 or not low.endswith("s") or low.endswith(("ss", "us")) or low in _NOT_VERBS:
        return None
    if low.endswith("ies"):
        return low[:-3] + "y"
    if low.endswith(_ES_AFTER):
        return low[:-2]
    return low[:-1]


def first_person(text: str) -> str:
    """An English memory about the user, said by the user (other languages pass through)."""
    s = text.strip().rstrip(".")
    if not s:
        return s
    kv = _KEY_VALUE_RE.match(s)
    if kv and not kv["value"].startswith("//"):
        key, value = kv["key"].strip().lower(), kv["value"].strip()
        return f"My {_KEY_NAMES.get(key, key)} is {value}."
    m = _SUBJECT_RE.match(s)
    if m:
        rest = s[m.end():]
        if m["poss"]:
            return f"My {rest}."
        s = rest
    elif (p := _PRONOUN_RE.match(s)) is not None:
        verb = _verb(p["verb"]) or p["verb"].lower()
        return f"I {verb}{s[p.end():]}."
    first, _, rest = s.partition(" ")
    low = first.lower()
    if low in ("name", "favorite", "favourite", "birthday", "email", "age", "hometown"):
        return f"My {low} {rest}." if rest else f"My {low}."
    verb = _verb(first)
    if verb is not None:
        return f"I {verb} {rest}.".replace(" .", ".")
    if low.endswith(("ed", "ing")) or low in ("allergic", "vegetarian", "vegan", "married", "single", "based"):
        return f"I {'am ' if not low.endswith('ed') or low in ('married', 'based') else ''}{low} {rest}.".replace(" .", ".")
    if m:  # "User a nurse"? keep the words, said by the user
        return f"I am {s}."
    return s + "."


# ---- the import -----------------------------------------------------------------------------


def check_items(items: Iterable[Item], *, source: str, user_id: str | None = None) -> list[Item]:
    """The whole export, checked before anything is written (an import is all or nothing): every
    item's user id (unless `user_id` names the user for all) and date (ISO 8601, not ahead of this
    clock). ImportFormatError (exit 2) names the first bad item."""
    from pipeline.store.files import InvalidUserId, validate_user_id
    from pipeline.turns import BadTurn, turn_time

    checked = list(items)
    if user_id is not None:
        validate_user_id(user_id)
    for n, item in enumerate(checked, 1):
        where = f"{source} memory {n}" + (f" (id {item.source_id[:40]!r})" if item.source_id else "")
        if user_id is None:
            if item.user_id is None:
                raise ImportFormatError(f"{where} names no user: give --user; nothing was imported")
            try:
                validate_user_id(item.user_id)
            except InvalidUserId as e:
                raise ImportFormatError(f"{where}: {e}; nothing was imported") from None
        if item.created_at is not None:
            try:
                turn_time(item.created_at)
            except BadTurn as e:
                raise ImportFormatError(f"{where}: created_at: {e}; nothing was imported") from None
    return checked


def import_items(
    pipe: MemoryPipeline, items: Iterable[Item], *, source: str, user_id: str | None = None
) -> dict[str, Any]:
    """Route every item as a chat turn of its user (`user_id`, else the item's own); the report.
    The whole export is checked first (`check_items`): a bad item anywhere writes nothing."""
    items = check_items(items, source=source, user_id=user_id)
    key = pipe.store.secret_key(ID_KEY)
    rows: list[dict[str, Any]] = []
    totals = {"items": 0, "user_md": 0, "memory_md": 0, "skipped": 0, "refused": 0, "not_about_the_user": 0}
    users: set[str] = set()
    for item in items:
        totals["items"] += 1
        item_id = item.source_id or "k-" + keyed_id(key, item.text, 16)
        user = user_id or item.user_id
        if user is None:
            raise ImportFormatError(f"{source} memory {item_id} names no user: give --user")
        users.add(user)
        row: dict[str, Any] = {"id": item_id, "user_id": user, "text": item.text}
        if item.label is not None:
            row["label"] = item.label
        if item.label is not None and item.label.lower() in AGENT_BLOCKS:
            row.update(stored=[], skipped=[{"quote": item.text, "reason": "not_about_the_user",
                                             "why": f"a Letta {item.label} block describes the agent"}])
            totals["not_about_the_user"] += 1
            rows.append(row)
            continue
        if _unknown(item.text):
            row.update(stored=[], skipped=[{"quote": item.text, "reason": "vague", "why": "no value ('?')"}])
            totals["skipped"] += 1
            rows.append(row)
            continue
        said = first_person(item.text)
        turn_id = f"import-{source}-" + keyed_id(key, f"{user}\x00{item_id}\x00{item.text}")
        result = pipe.process_turn(
            user, [{"role": "user", "content": said}], timestamp=item.created_at,
            conversation_id=f"import-{source}", turn_id=turn_id,
        )
        routed = answer(result)
        row["said_as"] = said
        row.update({k: routed[k] for k in ("stored", "skipped") if k in routed})
        if "refused" in routed:
            row["refused"] = routed["refused"]
            totals["refused"] += len(routed["refused"])
        if result.status == "duplicate_turn":
            row["already_imported"] = True
        for s in routed["stored"]:
            totals["user_md" if s["file"] == "USER.md" else "memory_md"] += 1
        totals["skipped"] += len(routed["skipped"])
        if result.status == "failed":
            row["error"] = routed.get("error")
            totals["refused"] += 1
        rows.append(row)
    return {"success": totals["refused"] == 0, "source": source, "users": sorted(users), **totals, "report": rows}


def _unknown(text: str) -> bool:
    kv = _KEY_VALUE_RE.match(text.strip())
    value = kv["value"] if kv else text
    return value.strip().strip(".").lower() in UNKNOWN_VALUES


def load_export(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes().decode("utf-8-sig"))
    except OSError as e:
        raise ImportFormatError(f"cannot read {path}: {e.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ImportFormatError(f"{path} is not JSON ({e})") from None


def import_mem0(pipe: MemoryPipeline, data: Any, user_id: str | None = None) -> dict[str, Any]:
    return import_items(pipe, read_mem0(data), source="mem0", user_id=user_id)


def import_letta(pipe: MemoryPipeline, data: Any, user_id: str) -> dict[str, Any]:
    return import_items(pipe, read_letta(data), source="letta", user_id=user_id)


__all__ = ["ImportFormatError", "Item", "first_person", "import_letta", "import_mem0", "read_letta", "read_mem0"]

"""Imports from other memory systems: a Mem0 export (`Memory.get_all()` / the platform's
`client.get_all()`: a list, or `{"results": [...]}`, of `{"id", "memory", "user_id", "created_at",
...}`) and Letta memory blocks (`[{"label": "human" | "persona" | ..., "value": "..."}]`, also
`{"blocks": [...]}` as in an agent file, or an agent's `{"memory": {"blocks": [...]}}`).

Imported memory was already curated by the other system: it is mapped onto memroute's two files,
guarded, and never judged again as chit-chat.
- A `Key: value` line whose key means a key of the USER.md vocabulary ("Occupation" -> Role,
  "Interests" -> Hobbies, "Gender") becomes that field, the value as given.
- Anything else is said again in the first person ("Is a vegetarian" -> "I am a vegetarian",
  "User lives in Cairo and works as ..." -> "I live in Cairo and work as ...") and read by the engine
  as one chat turn of the user, dated by its `created_at`. When the engine would skip all of it as
  small talk (`vague`, `one_off`), it is kept anyway: a `Key: value` line as a field under its own
  key, other text as a dated MEMORY.md entry ("Went to Lisbon for a conference last month" ->
  "[2026-02] I went to Lisbon for a conference."). A passing mood, a repeat of what USER.md holds, and
  what the guards refuse (secrets, sensitive data, injected instructions) stay out, as in a chat turn.
- The guards, the caps and the write path apply exactly as to a chat turn. A Letta `persona` block
  describes the agent, not the user, and is not routed. Every item's turn id derives from its source
  and id, so importing the same export again changes nothing; ids made from an item's text (its turn
  id, a Mem0 memory's id when the export has none) are keyed by the store's own key
  (pipeline/_util/keyed.py), so they never give the text back.

The report lists, per item, what was stored where, what was skipped and why, and what was refused;
its counts of items add up (stored + skipped + refused + not about the user + already imported).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline._util.keyed import ID_KEY, keyed_id, unkeyed_id
from pipeline.errors import ImportFormatError
from pipeline.integrations.remember import answer
from pipeline.types import Classification, Decision, Turn
from pipeline.vocabulary import CONTACT_KEYS, SECTION_OF, canonical

if TYPE_CHECKING:
    from pipeline import MemoryPipeline

AGENT_BLOCKS = frozenset({"persona", "system", "agent", "assistant"})  # about the agent, not the user
# What a chat turn skips as small talk; curated memory is not small talk. (mood, inferable, sensitive and
# blocked stay skipped: a passing feeling, a repeat of USER.md, what the guards keep out.)
SMALL_TALK = frozenset({"vague", "one_off"})
KEPT_OUT = frozenset({"sensitive", "blocked"})
# The other system's own words about its memory, not about the user: Letta's default human block opens with
# "This is what I know so far about the user, I should expand this as I learn more about them."
_NOTE_TO_SELF_RE = re.compile(r"\b(?:what I know (?:so far )?about|I should (?:expand|update|add)|as I learn more)\b",
                              re.I)
UNKNOWN_VALUES = frozenset({"", "?", "unknown", "n/a", "na", "none", "-", "tbd"})


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

_MY_KEY_RE = re.compile(r"^My (?P<key>[A-Za-z][A-Za-z ]{0,30}?) is (?P<value>[^.]+)\.$")
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
# Common past forms that do not end in -ed: a memory that starts with one is an event the user lived.
_PAST = frozenset({"went", "met", "bought", "began", "got", "had", "made", "took", "saw", "ran", "flew", "left", "found",
                   "built", "sold", "won", "lost", "spent", "gave", "told", "wrote", "came", "became", "kept", "quit",
                   "drove", "ate", "drank", "swam", "sang", "taught", "thought", "brought", "caught", "fell", "broke",
                   "chose", "forgot", "paid", "sent", "shipped", "moved", "finished", "visited"})
_KEY_NAMES = {"first name": "name", "full name": "name", "given name": "name", "preferred name": "name"}
# A second verb joined to the first ("lives in Cairo and works as ...") is said in the first person too; only
# these verbs, since "and" also joins nouns ("likes dogs and horses").
_JOINED_VERB_RE = re.compile(
    r"\b(and|but|or)\s+(works|lives|likes|loves|enjoys|plays|has|is|prefers|speaks|studies|teaches|runs|owns|"
    r"wants|hates|drives|uses|writes|reads|goes|does|watches|makes|cooks|travels|volunteers|attends)\b", re.I)


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
    said = _first_person(text)
    if said != text.strip().rstrip(".") + "." and said.startswith("I "):
        said = _JOINED_VERB_RE.sub(lambda m: f"{m[1]} {_verb(m[2])}", said)
    return said


def _first_person(text: str) -> str:
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
    if low in _PAST:  # "Went to Lisbon ..." -> "I went to Lisbon ..."
        return f"I {low} {rest}.".replace(" .", ".")
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
    from pipeline.errors import BadTurn, InvalidUserId
    from pipeline.store.files import validate_user_id
    from pipeline.turns import turn_time

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
    """Route every item as a chat turn of its user (`user_id`, else the item's own); the report. Each item
    is counted once: stored, skipped, refused, not about the user, or already imported. The whole export
    is checked first (`check_items`): a bad item anywhere writes nothing."""
    items = check_items(items, source=source, user_id=user_id)
    key = pipe.store.secret_key(ID_KEY)
    rows: list[dict[str, Any]] = []
    totals = {"items": 0, "stored": 0, "skipped": 0, "refused": 0, "not_about_the_user": 0, "already_imported": 0,
              "user_md": 0, "memory_md": 0}
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
        if _NOTE_TO_SELF_RE.search(item.text):
            row.update(stored=[], skipped=[{"quote": item.text, "reason": "not_about_the_user",
                                             "why": f"{source.capitalize()}'s note about its own memory"}])
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
            conversation_id=f"import-{source}", turn_id=turn_id, amend=curated(item.text, source),
            legacy_turn_id=_unkeyed_turn_id(source, user, item),
        )
        routed = answer(result)
        row["said_as"] = said
        row.update({k: routed[k] for k in ("stored", "skipped") if k in routed})
        if "refused" in routed:
            row["refused"] = routed["refused"]
        if result.status == "failed":
            row["error"] = routed.get("error")
        for s in routed["stored"]:
            totals["user_md" if s["file"] == "USER.md" else "memory_md"] += 1
        if result.status == "duplicate_turn":
            row["already_imported"] = True
            totals["already_imported"] += 1
        elif result.status == "failed" or "refused" in routed:
            totals["refused"] += 1
        else:
            totals["stored" if routed["stored"] else "skipped"] += 1
        rows.append(row)
    return {"success": totals["refused"] == 0, "source": source, "users": sorted(users), **totals, "report": rows}


def _unkeyed_turn_id(source: str, user: str, item: Item) -> str:
    """The turn id older versions gave this item (plain sha256s of its id and text): an item imported
    then is recognised on a store that recorded turns then (looked up, never written)."""
    item_id = item.source_id or unkeyed_id(item.text, 16)
    return f"import-{source}-" + unkeyed_id(f"{user}\x00{item_id}\x00{item.text}", 16)


def curated(text: str, source: str) -> Callable[[Turn, Classification], Classification]:
    """How an import changes the engine's reading of one curated memory `text` (as it was in the export):
    a `Key: value` line whose key the vocabulary knows becomes that field; what the engine would skip
    whole as small talk is kept (a field under its own key, or a dated MEMORY.md entry); what the guards
    or the engine keep out (sensitive, blocked) stays out, and so do a mood and a repeat of USER.md."""
    kv = _KEY_VALUE_RE.match(text.strip()) or _MY_KEY_RE.match(first_person(text))
    key = canonical(kv["key"]) if kv else None
    if kv is not None:
        key = key or canonical(_KEY_NAMES.get(kv["key"].strip().lower(), ""))
        if key in CONTACT_KEYS:  # a contact detail is kept only when the user asks: the engine and guards judge it
            key = None
        if key is None and kv.re is _MY_KEY_RE:
            kv = None  # "my X is Y" with an X the vocabulary does not know: the engine reads it

    def amend(turn: Turn, classification: Classification) -> Classification:
        decisions = classification.decisions
        if any(d.reason in KEPT_OUT for d in decisions):
            return classification
        said = turn.user_text
        if kv is not None and key is not None:
            field = _field(said, SECTION_OF[key], key, kv["value"], f"imported from {source}: {kv['key'].strip()} -> {key}",
                           "import/key")
            return classification.model_copy(update={"decisions": [field]})
        if any(d.route != "skip" for d in decisions) or not any(d.reason in SMALL_TALK for d in decisions):
            return classification
        if kv is not None:  # a key of the other system's own: kept under it
            own = kv["key"].strip()
            kept = _field(said, "Identity", own[:1].upper() + own[1:], kv["value"], f"imported from {source}: its own key",
                          "import/own-key")
        else:
            kept = _note(said, turn, source)
        return classification.model_copy(update={"decisions": [kept]})

    return amend


def _field(quote: str, section: str, key: str, value: str, detail: str, rule: str) -> Decision:
    return Decision(quote=quote, route="user", op="upsert", section=section, key=key, value=value.strip().rstrip("."),
                    confidence=1.0, rule=rule, detail=detail)


def _note(said: str, turn: Turn, source: str) -> Decision:
    """A curated memory with no field: a MEMORY.md entry dated by its time phrase (at the precision it gives),
    else by the day it was created, the phrase taken out of the text as in any entry."""
    from pipeline.engines.offline.dates import resolve_date, strip_date_phrase

    today = turn.today
    entry = strip_date_phrase(said, today, keep_absolute=False).strip()
    return Decision(quote=said, route="memory", op="append", entry=entry[:1].upper() + entry[1:],
                    date=resolve_date(said, today), confidence=1.0, rule="import/note",
                    detail=f"imported from {source}: a curated memory, kept as a dated entry")


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

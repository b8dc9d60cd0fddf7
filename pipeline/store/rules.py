"""What every store decides the same way, whatever its SQL: how a record is redacted, which rows an
erasure covers, how candidates are searched. SQLite (sqlite.py) and PostgreSQL (postgres/) both
call these, so the two stores cannot drift apart on privacy or on answers. No SQL here.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pipeline.ledgers import names_key

if TYPE_CHECKING:  # annotations only: the store opens without the pydantic types
    from pipeline.types import Decision

# Every table that holds rows of one user, and the text columns of each (what a purge searches).
USER_TABLES: dict[str, tuple[str, ...]] = {
    "turns": ("payload", "error"),
    "history": ("key", "old_value", "new_value", "why"),
    "provenance": ("key", "value", "quote"),
    "archive": ("text", "why"),
    "decisions": ("quote", "key", "value", "entry", "topic", "match_text", "detail", "outcome"),  # an outcome names what left
    "usage": (),
    "batch_conversations": (),
    "hook_queue": ("payload", "error"),
    "annotations": ("value",),
}


def redact_turn_payload(
    payload: dict[str, Any], redact: Callable[[str], str], default_redact: bool
) -> dict[str, Any]:
    """A turn kept for retry: every string redacted, except the contact kinds the turn itself asked
    to store (a retried "please save my email ..." must still be able to save it)."""
    from pipeline.guards.redaction import redact_for_storage, redact_json, requested_kinds

    if not default_redact:
        return dict(redact_json(payload, redact))
    said = " ".join(
        str(m.get("content", ""))
        for m in payload.get("messages") or []
        if isinstance(m, dict) and m.get("role") == "user"
    )
    keep = requested_kinds(said)
    return dict(redact_json(payload, lambda text: redact_for_storage(text, keep)))


def decision_rows(
    decisions: Sequence[Decision],
    *,
    user_id: str,
    turn_id: str,
    conversation_id: str | None,
    engine: str | None,
    model: str | None,
    prompt_version: str | None,
    ts: str,
    redact: Callable[[str], str],
    log_quotes: bool,
    digest_key: bytes,
) -> list[tuple[Any, ...]]:
    """The decisions table's values for a turn, in column order (user_id ... asked). All text redacted; a
    skipped statement was not kept: only its route, reason, rule, detail and a keyed digest of its quote
    (`digest_key`, the store's own), unless `log_quotes` (debugging) keeps its redacted quote and
    fields too. The typed decision is kept beside its words: `rule` (the id of what decided), `removal`
    (op remove only: forget or change_of_fact; NULL for any other op) and `asked` (0 or 1)."""
    from pipeline.guards.redaction import quote_digest

    def r(text: str | None) -> str | None:
        return None if text is None else redact(text)

    def quote_of(d: Decision) -> str | None:
        if d.quote is None or log_quotes or d.route != "skip":
            return r(d.quote)
        return quote_digest(d.quote, digest_key)

    def kept(d: Decision, text: str | None) -> str | None:
        return r(text) if log_quotes or d.route != "skip" else None

    return [
        (user_id, turn_id, conversation_id, i, quote_of(d), d.route, d.op, d.reason, d.section, kept(d, d.key),
         kept(d, d.value), kept(d, d.entry), d.date, kept(d, d.topic), kept(d, d.match), d.confidence,
         r(d.detail), d.outcome_text, engine, model, prompt_version, ts, r(d.rule),
         d.removal_kind, int(d.asked))
        for i, d in enumerate(decisions)
    ]


DECISION_COLUMNS = (
    "user_id, turn_id, conversation_id, position, quote, route, op, reason, section, key, value, entry, date, "
    "topic, match_text, confidence, detail, outcome, engine, model, prompt_version, ts, rule, removal, asked"
)
# What a stored decision says beyond its columns of text: None in rows logged before they existed.
TYPED_DECISION = ("rule", "removal", "asked")


def stored_decision(row: dict[str, Any]) -> dict[str, Any]:
    """A decisions row as the stores' `decisions()` answer it: `match` (the column is match_text), and
    `rule`, `removal` and `asked` (a bool) always present, None for a row logged before they were (or
    read from a database not yet migrated)."""
    row["match"] = row.pop("match_text", None)
    for column in TYPED_DECISION:
        row.setdefault(column, None)
    if row["asked"] is not None:
        row["asked"] = bool(row["asked"])
    return row


def rule_matches(rule: str | None, wanted: str) -> bool:
    """Whether a stored rule id is `wanted` or one of its kind: "guard" matches "guard/sensitive",
    "fact/role-noun" matches "fact/role-noun+sentence" (the rule's entry took in its sentence)."""
    wanted = wanted.rstrip("/")
    return rule is not None and bool(wanted) and (rule == wanted or rule.startswith((wanted + "/", wanted + "+")))


DIGEST_KEY_NAME = "digest"
DIGEST_KEY_BYTES = 32


def needles_of_keys(rows: Iterable[tuple[str | None, str | None, str | None]], keys: set[str]) -> list[str]:
    """Every value a USER.md key ever had, from (key, old, new) rows of history and provenance."""
    found: list[str] = []
    for key, old, new in rows:
        if key is not None and key.casefold() in keys:
            found += [v for v in (old, new) if v]
    return found


# Columns that quote what the user said about several things at once ("I'm Jasmin, a nurse"): when an
# erased value appears only there, the row is another field's record and keeps it, the value blanked.
QUOTE_COLUMNS = {"provenance": "quote", "decisions": "quote"}
ERASED = "[erased]"


def purge_action(table: str, columns: Sequence[str], values: Sequence[Any], keys: set[str],
                 lowered: list[str], needles: Sequence[str]) -> str | dict[str, str] | None:
    """What an erasure does to one row: None (keep), "delete", or {column: scrubbed text} when the
    erased value is only quoted in a row about something else (a neighbour's provenance keeps its
    record, without the erased words)."""
    if not purge_covers(table, columns, values, keys, lowered):
        return None
    column = QUOTE_COLUMNS.get(table)
    if column is None:
        return "delete"
    at = columns.index(column)
    others = [v for i, v in enumerate(values) if i != at]
    key = values[columns.index("key")] if "key" in columns else None
    if (isinstance(key, str) and key.casefold() in keys) or purge_covers(table, [c for c in columns if c != column],
                                                                         others, keys, lowered):
        return "delete"
    quote = values[at]
    if not isinstance(quote, str):
        return "delete"
    for needle in sorted((n for n in needles if n), key=len, reverse=True):
        quote = re.sub(re.escape(needle), ERASED, quote, flags=re.IGNORECASE)
    if any(n in quote.casefold() for n in lowered):  # a case folding the pattern missed: the row goes
        return "delete"
    return {column: quote}


def purge_covers(table: str, columns: Sequence[str], values: Sequence[Any], keys: set[str], lowered: list[str]) -> bool:
    """Whether a row (its text `values`, in `columns` order) holds an erased needle or records an erased key."""
    texts = [v.casefold() for v in values if isinstance(v, str)]
    key = values[columns.index("key")] if "key" in columns else None
    by_key = isinstance(key, str) and key.casefold() in keys
    by_key = by_key or (table == "archive" and any(t.split(":", 1)[0].strip() in keys for t in texts[:1]))
    return by_key or any(n in t for n in lowered for t in texts)


def forgotten_rows(rows: Iterable[tuple[int, str]], keys: set[str], lowered: list[str]) -> list[int]:
    """The ids of archived (id, text) rows a forget of these needles and keys covers: the archive rows an
    erasure of the same request would delete."""
    return [rid for rid, text in rows if purge_covers("archive", ("text",), (text,), keys, lowered)]


def finish_usage(row: dict[str, Any]) -> dict[str, Any]:
    """A usage sum: cost_usd is None as soon as one row's price is unknown (Usage addition's rule)."""
    row["cost_usd"] = None if row["cost_unknown_rows"] else row["cost_usd_known"]
    return row


def search_candidate_rows(rows: Iterable[dict[str, Any]], query: str, k: int) -> list[dict[str, Any]]:
    """Candidates whose section, key and value hold every word of the query (case-insensitive), in
    the order given (most recently seen first)."""
    terms = [norm(t) for t in query.split() if norm(t)]
    if not terms or k <= 0:
        return []
    hits = [r for r in rows if all(t in norm(f"{r['section'] or ''} {r['key']} {r['value']}") for t in terms)]
    return hits[:k]


# ---- candidates: how two statements of one fact compare, and what a forget covers ---------------

_SPACES_RE = re.compile(r"\s+")
_EDGE_PUNCT = " \t\n.,;:!?\"'`()[]{}。，；：！？「」『』“”‘’"


def norm(text: str) -> str:
    """How two statements of one fact are compared: NFKC, case-folded, spaces collapsed, edge punctuation off."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACES_RE.sub(" ", folded).strip(_EDGE_PUNCT)


def matches(row: dict[str, Any], needle: str) -> bool:
    """Does a forget of `needle` (a key or a piece of text) cover this candidate?"""
    wanted = norm(needle)
    if not wanted:
        return False
    key = str(row.get("key") or "")
    if norm(key) == wanted or names_key(needle, key):  # "forget my music taste" names Music
        return True
    return any(wanted in norm(str(row.get(col) or "")) for col in ("key", "value", "quote"))


# ---- kept copies of documents memroute refused to rewrite (.bak files, document_copies rows) ----


def scrubbed_copy(raw: bytes, needles: list[str]) -> bytes | None:
    """A kept copy without the lines holding a needle (case-insensitive); None when none does."""
    lowered = [n.casefold() for n in needles if n]
    lines = raw.decode("utf-8", errors="surrogateescape").splitlines(keepends=True)
    kept = [line for line in lines if not any(n in line.casefold() for n in lowered)]
    return None if len(kept) == len(lines) else "".join(kept).encode("utf-8", errors="surrogateescape")

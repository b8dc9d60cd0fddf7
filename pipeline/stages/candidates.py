"""Candidates: durable-looking facts stated too weakly to write, kept aside until they earn their place.

An engine marks such a statement as a skip with `candidate=True` and section/key/value filled. It is
kept in the store (never in USER.md or context()) with its bare value: what USER.md does not already
say (an engine that merged it into a collecting field, "jazz; hiking", states only "hiking"). A later
statement of the same fact counts as a sighting; in a later conversation (a different conversation id,
or a later day when either turn has none) it promotes the candidate to a USER.md field. The same fact
is the key in any of its names and the value by its words or characters (same_fact.py), or, in other
words, a statement that names the value and means what the candidate's quote meant by the sentence
encoder (evidence.restates: "Rex, my dog, says hi" after "I have a dog named Rex, I think"), even one
the engine wrote nothing of. A firm statement promotes it too, and so does the user's yes to the other
speaker's question about it ("So you're a nurse?" "yes"), at once; a no drops it. A firm write
supersedes only the candidates it repeats or contradicts (another value of a single-valued key such as
Location): the other values of a collecting key (Likes, Hobbies, Family) keep waiting.

A promotion is a write like any other: its value is the user's own words (the newer wording, unless it
says less than the stored one), it passes the write policy's value checks (stages/clauses.junk_reason)
and the guards again, and a value the other speaker said about themselves, or that only they said, is
never kept nor promoted (evidence.others_own). Sensitive or hostile text is never kept. This module
holds the rules only: no SQL, no files, no model (the encoder comes in as a function).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from pipeline import guards
from pipeline.ledgers.user_md import UserField
from pipeline.stages import evidence, same_fact
from pipeline.stages.clauses import junk_reason
from pipeline.store.rules import norm
from pipeline.types import Decision, Outcome, Turn

DEFAULT_TTL_DAYS = 60  # a candidate not seen again for this long is deleted

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
    """What one turn does to the user's candidates, decided before the files are written. Stored
    candidates are rows of the store's candidates table; a decision index points into `decisions`."""

    decisions: list[Decision]  # the turn's decisions, promotions turned into USER.md upserts
    keep: dict[int, Decision] = field(default_factory=dict)  # a new candidate to insert (its bare value)
    seen_again: dict[int, dict[str, Any]] = field(default_factory=dict)  # repeats a stored one, same conversation
    promoted: dict[int, dict[str, Any]] = field(default_factory=dict)  # the stored candidate this write promotes
    waiting: dict[int, Decision] = field(default_factory=dict)  # promoted index -> the candidate as stated
    superseded: dict[int, list[int]] = field(default_factory=dict)  # firm write -> candidate ids it repeats or contradicts
    covered: dict[int, int] = field(default_factory=dict)  # candidate -> this turn's firm write of the same key
    dropped: list[int] = field(default_factory=list)  # stored candidates the guards now refuse: deleted
    forget: list[str] = field(default_factory=list)  # forget matches: candidates matching them go


def plan_turn(
    originals: list[Decision],
    guarded: list[Decision],
    existing: list[dict[str, Any]],
    turn: Turn,
    fields: Sequence[UserField],
    policy: guards.GuardPolicy | None = None,
    meaning: evidence.Meaning | None = None,
) -> CandidatePlan:
    """Decide, for each decision of the turn, what it does to the user's candidates.

    `originals` are the engine's decisions and `guarded` the same after the guards (one for one);
    `existing` the user's stored candidates; `fields` USER.md as it stands; `meaning` the sentence
    encoder's cosine of two texts (None: candidates match by their words only). A candidate statement is
    kept with its bare value (what USER.md does not already say), counted on a stored candidate it
    repeats in the same conversation, or promoted when it repeats one from an earlier conversation; so is
    any other statement that says a stored candidate's fact again in other words (evidence.restates), and
    the user's yes to the other speaker's question about one promotes it at once. A firm USER.md write
    promotes the stored candidates it repeats and supersedes those it contradicts (a single-valued key,
    another value); other values of a collecting key keep waiting. A value the other speaker said about
    themselves is never kept nor promoted.
    """
    plan = CandidatePlan(decisions=[])
    used: set[int] = set()  # stored candidates this turn already promotes, repeats, supersedes or drops
    others = other_lines(turn)
    for i, (orig, d) in enumerate(zip(originals, guarded, strict=True)):
        if d.route in ("user", "memory") and d.op == "remove" and d.match:
            plan.forget.append(d.match)
        if d.route == "user" and d.op == "upsert" and d.key and d.value:
            plan.decisions.append(_firm(plan, i, d, existing, fields, used, meaning))
            continue
        if not d.candidate or d.route != "skip":
            plan.decisions.append(d)
            continue
        if not keepable(orig, d, policy):
            plan.decisions.append(not_kept(d))
            continue
        key = (d.key or "").strip()
        held = field_of(fields, key)
        bare = same_fact.new_parts(d.value or "", held.value if held else None, key)
        said = [f.value for f in fields if f.key and same_fact.same_key(f.key, key)]
        if not bare or all(any(same_fact.same_value(p, h, key) for v in said for h in same_fact.parts(v)) for p in bare):
            plan.decisions.append(d.model_copy(update={"candidate": False, "outcome": Outcome.UNCHANGED,
                                                        "outcome_detail": "already in USER.md"}))
            continue
        d = d.model_copy(update={"key": key, "value": "; ".join(bare)})
        if evidence.others_own(d.value or "", key, turn.user_text, others):
            plan.decisions.append(not_kept(d, OTHERS_OWN))
            continue
        row = best_match(existing, d, used, meaning)
        if row is not None and refusal(row, policy):
            plan.dropped.append(int(row["id"]))  # kept under a laxer policy: it goes, and this one starts anew
            used.add(int(row["id"]))
            row = None
        if row is None:
            plan.keep[i] = d
            plan.decisions.append(d)
            continue
        used.add(int(row["id"]))
        if not said_again_later(row, turn):
            plan.seen_again[i] = row
            plan.decisions.append(d)
            continue
        promoted = _promotion(d, row, held, turn, others, policy, d.value, SAID_AGAIN)
        if isinstance(promoted, str):  # refused as a write: neither written nor kept
            if promoted != OTHERS_OWN:
                plan.dropped.append(int(row["id"]))
            plan.decisions.append(not_kept(d, promoted))
            continue
        plan.promoted[i] = row
        plan.waiting[i] = d
        plan.decisions.append(promoted)
    _restated(plan, existing, turn, fields, policy, used, meaning, others)
    _answered(plan, existing, turn, fields, policy, used, others)
    for i in plan.keep:  # "I guess I live in Lyon ... I live in Paris": the firm statement wins
        for j, d in enumerate(plan.decisions):
            if d.route == "user" and d.op == "upsert" and d.key and d.value and covers(d, plan.decisions[i]):
                plan.covered[i] = j
                break
    return plan


NOT_KEPT = "not kept as a candidate"
OTHERS_OWN = "not kept as a candidate: the other speaker's own fact"
SAID_AGAIN = "said again in a later conversation"
OTHER_WORDS = "said again in other words in a later conversation"
ASKED = "confirmed by the user when asked"
RULES = {SAID_AGAIN: "candidate/said-again", OTHER_WORDS: "candidate/other-words", ASKED: "candidate/asked"}


def not_kept(d: Decision, why: str = NOT_KEPT) -> Decision:
    return d.model_copy(update={"candidate": False, "outcome": Outcome.SKIPPED, "outcome_detail": why})


def other_lines(turn: Turn) -> list[str]:
    """What the other speaker said in the turn's history and reply."""
    return [m.content for m in (*turn.history, *turn.messages) if m.role == "assistant" and m.content]


def _promotion(d: Decision, row: dict[str, Any], held: UserField | None, turn: Turn, others: Sequence[str],
               policy: guards.GuardPolicy | None, new_value: str | None, why: str) -> Decision | str:
    """The USER.md write promoting a stored candidate on the evidence of statement `d` (its quote), with the
    cleaner of the two values in the user's words (`new_value`, the statement's, else the stored one); or why
    not, when it fails the checks of a direct write: a value the write policy calls junk or the guards refuse
    (NOT_KEPT: the candidate goes), or the other speaker's own fact (OTHERS_OWN: it keeps waiting)."""
    key = str(row["key"])
    value = promoted_value(str(row["value"]), new_value, key)
    if value is None:
        return NOT_KEPT
    if evidence.others_own(value, key, f"{turn.user_text}\n{row.get('quote') or ''}", others):
        return OTHERS_OWN
    section = d.section if new_value and d.section else row.get("section")
    base = d.model_copy(update={"key": key, "value": value, "section": section})
    promoted = guards.guard_decisions([promotion(base, row, held, why)], turn.user_text, policy)[0]
    return promoted if promoted.route == "user" else NOT_KEPT


def promoted_value(stored: str, new: str | None, key: str) -> str | None:
    """The value a promotion writes: the newer wording when it passes the write policy's checks
    (stages/clauses.junk_reason) and says no less than the stored one ("狗" after "一只狗叫旺财" keeps the
    latter), else the stored value when it passes them; None when neither does."""
    clean = [v for v in (new, stored) if v and v.strip()
             and all(junk_reason(c) is None for c in same_fact.parts(v))]
    if not clean:
        return None
    if len(clean) == 2 and new is not None:
        fresh, old = same_fact.units_of(new, key).units, same_fact.units_of(stored, key).units
        if fresh < old:
            return stored
    return clean[0]


def _restated(plan: CandidatePlan, existing: list[dict[str, Any]], turn: Turn, fields: Sequence[UserField],
              policy: guards.GuardPolicy | None, used: set[int], meaning: evidence.Meaning | None,
              others: Sequence[str]) -> None:
    """Statements the engine wrote nothing of that say a waiting candidate's fact again in other words
    ("Rex, my dog, says hi" after "I have a dog named Rex, I think"): a sighting in the same conversation,
    a promotion with the stored value in a later one. The encoder is asked only about a statement that
    names a waiting value, so a user with no candidates never loads it."""
    waiting = [r for r in existing if int(r["id"]) not in used]
    if not waiting:
        return
    for i, d in enumerate(plan.decisions):
        if (d.route != "skip" or d.candidate or d.reason in ("sensitive", "blocked") or i in plan.keep
                or i in plan.seen_again or i in plan.promoted or not d.quote.strip()):
            continue
        row = next((r for r in waiting if int(r["id"]) not in used and evidence.restates(
            str(r.get("quote") or ""), str(r["value"]), str(r["key"]), d.quote, meaning)), None)
        if row is None:
            continue
        used.add(int(row["id"]))
        if not said_again_later(row, turn):
            plan.seen_again[i] = row
            continue
        held = field_of(fields, str(row["key"]))
        promoted = _promotion(d, row, held, turn, others, policy, None, OTHER_WORDS)
        if isinstance(promoted, str):
            if promoted != OTHERS_OWN:
                plan.dropped.append(int(row["id"]))
            continue
        plan.promoted[i] = row
        plan.waiting[i] = d.model_copy(update={"key": row["key"], "value": row["value"], "section": row.get("section")})
        plan.decisions[i] = promoted


def _answered(plan: CandidatePlan, existing: list[dict[str, Any]], turn: Turn, fields: Sequence[UserField],
              policy: guards.GuardPolicy | None, used: set[int], others: Sequence[str]) -> None:
    """The user's whole answer to the other speaker's question about a waiting candidate ("So you're a
    nurse?"): a yes promotes it at once, a no drops it."""
    asked = turn.history[-1] if turn.history else None
    if asked is None or asked.role != "assistant" or not asked.content:
        return
    yes, no = evidence.confirms(turn.user_text), evidence.denies(turn.user_text)
    if not (yes or no):
        return
    for row in existing:
        if int(row["id"]) in used or not evidence.asked_about(asked.content, str(row["value"]), str(row["key"]),
                                                              str(row.get("quote") or "")):
            continue
        used.add(int(row["id"]))
        if no:
            plan.dropped.append(int(row["id"]))
            continue
        answer = Decision(quote=turn.user_text.strip(), route="skip", reason="one_off")
        promoted = _promotion(answer, row, field_of(fields, str(row["key"])), turn, others, policy, None, ASKED)
        if isinstance(promoted, str):
            if promoted != OTHERS_OWN:
                plan.dropped.append(int(row["id"]))
            continue
        at = next((i for i, d in enumerate(plan.decisions) if d.route == "skip" and not d.candidate
                   and i not in plan.promoted and i not in plan.seen_again), None)
        if at is None:
            at = len(plan.decisions)
            plan.decisions.append(promoted)
        else:
            plan.decisions[at] = promoted
        plan.promoted[at] = row
        plan.waiting[at] = answer.model_copy(update={"key": row["key"], "value": row["value"],
                                                     "section": row.get("section")})


def _firm(plan: CandidatePlan, i: int, d: Decision, existing: list[dict[str, Any]], fields: Sequence[UserField],
          used: set[int], meaning: evidence.Meaning | None = None) -> Decision:
    """A firm USER.md write: the stored candidates it repeats are promoted by it (the first one
    named in its detail), those it contradicts are superseded once it lands."""
    key = (d.key or "").strip()
    held = field_of(fields, key)
    stated = same_fact.new_parts(d.value or "", held.value if held else None, key) or same_fact.parts(d.value or "")
    waiting = [r for r in existing if int(r["id"]) not in used]
    repeats = sorted((r for r in waiting if repeats_row(r, key, d.section, stated)
                      or restated_by(r, key, d.quote, meaning)),
                     key=lambda r: -max(same_fact.similarity(str(r["value"]), v, key) for v in stated))
    contradicts = [r for r in waiting if r not in repeats and same_fact.single_valued(key)
                   and same_fact.same_key(str(r["key"]), key)]
    used.update(int(r["id"]) for r in (*repeats, *contradicts))
    if contradicts or repeats[1:]:
        plan.superseded[i] = [int(r["id"]) for r in (*repeats[1:], *contradicts)]
    if not repeats:
        return d
    first = repeats[0]
    plan.promoted[i] = first
    return d.model_copy(update={"detail": f"promoted candidate: confirmed by a firm statement "
                                          f"(first {str(first['first_seen_at'])[:10]}, seen {int(first['times_seen']) + 1} times)"})


def field_of(fields: Sequence[UserField], key: str) -> UserField | None:
    """The USER.md field a write of `key` replaces (the write stage matches keys case-insensitively)."""
    wanted = norm(key)
    return next((f for f in fields if f.key and norm(f.key) == wanted), None)


def repeats_row(row: dict[str, Any], key: str, section: str | None, values: Sequence[str]) -> bool:
    """Does a statement of `key` with these values say the stored candidate's fact again? The same
    key (in any of its names) and a value alike; or, in the same section, another key with
    virtually the same value ("Likes: jazz" waiting, then "Music: jazz")."""
    value = str(row["value"])
    if same_fact.same_key(str(row["key"]), key):
        return any(same_fact.same_value(value, v, key) for v in values)
    section_row = str(row.get("section") or "")
    return bool(section and section_row and section.casefold() == section_row.casefold()) and any(
        same_fact.similarity(value, v) >= CROSS_KEY_SAME for v in values)


CROSS_KEY_SAME = 0.9  # under another key of the same section, a value must be this alike to be the same fact


def best_match(existing: list[dict[str, Any]], d: Decision, used: set[int],
               meaning: evidence.Meaning | None = None) -> dict[str, Any] | None:
    """The stored candidate a candidate statement repeats, if any (same key first, then most alike): by
    its words, or of the same key by what the statement means (evidence.restates)."""
    key, value = d.key or "", d.value or ""
    found = [r for r in existing if int(r["id"]) not in used and repeats_row(r, key, d.section, [value])]
    if not found:
        found = [r for r in existing if int(r["id"]) not in used and restated_by(r, key, d.quote, meaning)]
    if not found:
        return None
    return max(found, key=lambda r: (same_fact.same_key(str(r["key"]), key),
                                     same_fact.similarity(str(r["value"]), value, key)))


def restated_by(row: dict[str, Any], key: str, quote: str, meaning: evidence.Meaning | None) -> bool:
    """Does a statement of `key` (its quote) say this stored candidate's fact in other words?"""
    return meaning is not None and same_fact.same_key(str(row["key"]), key) and evidence.restates(
        str(row.get("quote") or ""), str(row["value"]), str(row["key"]), quote, meaning)


def covers(firm: Decision, cand: Decision) -> bool:
    """Does a firm write of this turn make a candidate of the same turn moot: it states the same fact,
    or another value of a single-valued key?"""
    key = firm.key or ""
    if repeats_row({"key": cand.key, "value": cand.value, "section": cand.section}, key, firm.section,
                   same_fact.parts(firm.value or "")):
        return True
    return same_fact.single_valued(key) and same_fact.same_key(cand.key, key)


def refusal(row: dict[str, Any], policy: guards.GuardPolicy | None = None) -> str | None:
    """Why the guards would not keep this stored candidate today (the policy may be stricter than
    when it was kept, and its quote is stored redacted: a marker there is a refusal), or None."""
    from pipeline.guards.redaction import marker_rule

    line = f"{row.get('key')}: {row.get('value')}"  # "Pregnancy: maybe" says what neither half says alone
    for text in (row.get("key"), row.get("value"), row.get("section"), line):
        if not text:
            continue
        found = guards.find_sensitive(str(text))
        if found:
            return f"sensitive:{found[0].kind}"
        verdict = guards.check_text(str(text), policy=policy)
        if not verdict.allowed:
            return verdict.rule or "blocked"
    quote = str(row.get("quote") or "")
    return (marker_rule(quote) or guards.quote_rule(quote, policy)) if quote else None


def promotion(d: Decision, row: dict[str, Any], held: UserField | None, why: str = SAID_AGAIN) -> Decision:
    """The USER.md write a candidate said again makes: its value (`d.value`) joined to the values a
    collecting field already holds; `why` says what promoted it."""
    key = d.key or ""
    return d.model_copy(
        update={
            "route": "user",
            "op": "upsert",
            "reason": None,
            "candidate": False,
            "value": same_fact.merged(held.value if held else None, d.value or "", key),
            "rule": RULES[why],
            "detail": f"promoted candidate: {why} "
            f"(first {str(row['first_seen_at'])[:10]}, seen {int(row['times_seen']) + 1} times)",
        }
    )


def confirmation(row: dict[str, Any], held: UserField | None = None) -> Decision:
    """The USER.md write that an explicit confirmation of a stored candidate makes (joined to the
    values a collecting field already holds)."""
    key = str(row["key"])
    return Decision(
        quote=row.get("quote") or f"{key}: {row['value']}",
        route="user",
        op="upsert",
        section=row.get("section"),
        key=key,
        value=same_fact.merged(held.value if held else None, str(row["value"]), key),
        rule="candidate/confirmed",
        detail=f"promoted candidate: confirmed by the user (first {str(row['first_seen_at'])[:10]}, "
        f"seen {row['times_seen']} times)",
    )


def contradicted(row: dict[str, Any], rows: list[dict[str, Any]]) -> list[int]:
    """The other stored candidates a confirmed one makes moot: the same fact in other words, or
    (a single-valued key) another value of its key."""
    key = str(row["key"])
    out = []
    for other in rows:
        if other["id"] == row["id"] or not same_fact.same_key(str(other["key"]), key):
            continue
        if same_fact.single_valued(key) or same_fact.same_value(str(other["value"]), str(row["value"]), key):
            out.append(int(other["id"]))
    return out

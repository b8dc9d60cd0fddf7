"""A classified chat turn's apply step, in one place: guard the decisions, plan the candidates,
apply them to both documents (making room when a file is full), refuse what may not be rewritten,
erase what a forget asks for, and commit it all with the turn's records through `Workspace.edit()`.
A failure keeps the turn for retry with what its model calls cost.

The policy is explicit (`WritePolicy`): when MEMORY.md is consolidated, whether USER.md is compacted
before it is full, how long candidates wait. The facade chooses it; nothing here inspects the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from pipeline import guards, observe
from pipeline.engines.base import Engine
from pipeline.errors import CompactionError, ConsolidationError
from pipeline.guards.redaction import refuse_marked_writes
from pipeline.ops.edit import Edit, Ledgers, now_iso, refuse_unsafe_rewrites
from pipeline.ops.erasure import Erased, erased_by_turn, purge_record
from pipeline.ops.room import COMPACT_AT, compactor, consolidator
from pipeline.ops.usage import record_usage, total, usage_of
from pipeline.ops.workspace import Workspace
from pipeline.stages import candidates as cands
from pipeline.stages.order import TURN_TIME, later_keys, turn_time_payload
from pipeline.stages.write import CONSOLIDATE_AT, WriteResult, apply_decisions
from pipeline.store.files import MEMORY_FILE, USER_FILE
from pipeline.store.interface import MemoryStore, Tx
from pipeline.turns import turn_payload
from pipeline.types import Classification, Decision, Outcome, Turn, TurnResult, Usage

log = logging.getLogger("memroute.pipeline")


def sentence_similarity(a: str, b: str) -> float:
    """The offline engine's sentence encoder's cosine of two texts, loaded on the first comparison (only a
    user with a waiting candidate and a statement naming its value ever asks)."""
    from pipeline.engines.offline.encoder import similarity

    return similarity(a, b)


@dataclass(frozen=True)
class WritePolicy:
    """How a turn's writes make room and keep candidates."""

    consolidate_at: float = CONSOLIDATE_AT  # MEMORY.md is consolidated once it reaches this share of its cap
    # USER.md is compacted once it reaches this share of its cap, before a fact overflows it; None:
    # only when a write does not fit. Proactive compaction suits a free (rule-based) compaction only.
    compact_at: float | None = COMPACT_AT
    candidate_ttl_days: float = float(cands.DEFAULT_TTL_DAYS)
    # Whether a statement says a waiting candidate's fact in other words: the sentence encoder's cosine
    # (None: candidates match by their words only).
    meaning: Callable[[str, str], float] | None = sentence_similarity

    @classmethod
    def for_engine(cls, engine: Engine, *, consolidate_at: float = CONSOLIDATE_AT,
                   candidate_ttl_days: float = float(cands.DEFAULT_TTL_DAYS)) -> WritePolicy:
        """The default policy for an engine: proactive compaction when its compaction costs nothing."""
        return cls(consolidate_at=consolidate_at, compact_at=COMPACT_AT if engine.free_compaction else None,
                   candidate_ttl_days=candidate_ttl_days)


# The conversation of an imported memory (import-mem0, import-letta: "import-<source>"). What an
# export says is no request, in this turn, to keep a contact or a health detail: those are refused.
IMPORTED_CONVERSATION_PREFIX = "import-"


def turn_guard_policy(ws: Workspace, turn: Turn) -> guards.GuardPolicy:
    """The guard policy for `turn`: the workspace's, without requests to keep for an imported memory."""
    if (turn.conversation_id or "").startswith(IMPORTED_CONVERSATION_PREFIX):
        return replace(ws.guard_policy, store_contacts_on_request=False, store_health_on_request=False)
    return ws.guard_policy


def apply_turn(ws: Workspace, engine: Engine, policy: WritePolicy, turn: Turn, classification: Classification,
               seen: Ledgers) -> TurnResult:
    """Guard and write the decisions under the user's lock. `seen` is what the engine was shown; it is
    reused when the documents did not change meanwhile. A document that cannot be read or written (not
    UTF-8, permissions) fails the turn and keeps it for retry; past the store's commit the turn is done."""
    try:
        return _apply(ws, engine, policy, turn, classification, seen)
    except OSError as e:  # UnreadableFile is one too
        if ws.store.turn_status(turn.user_id, turn.turn_id) == "done":
            raise
        return fail_turn(ws.store, engine, turn, e, classification.usage)


def _apply(ws: Workspace, engine: Engine, policy: WritePolicy, turn: Turn, classification: Classification,
           seen: Ledgers) -> TurnResult:
    store = ws.store
    policy_of_turn = turn_guard_policy(ws, turn)
    with observe.stage("guards", engine.name):
        decisions = guards.guard_decisions(classification.decisions, turn.user_text, policy_of_turn)
        decisions = refuse_marked_writes(decisions)  # a retried turn was stored redacted
    observe.count_guard_blocks(decisions)
    usage_parts: list[Usage] = [classification.usage.tagged("classify")]
    with observe.stage("write", engine.name), \
            ws.edit(turn.user_id, turn_id=turn.turn_id, conversation_id=turn.conversation_id, reuse=seen) as tx:
        if store.turn_status(turn.user_id, turn.turn_id) == "done":
            return already_done(turn, engine)
        current = tx.current
        tx.turn_time = turn_time_payload(turn.timestamp)[TURN_TIME]
        plan = cands.plan_turn(
            classification.decisions,
            decisions,
            store.candidates(turn.user_id),
            turn,
            current.profile.fields(),
            policy_of_turn,
            policy.meaning,
        )
        # a late turn (retry, replay) never undoes a newer one; asked only when it touches USER.md
        later = later_keys(store, turn) if any(d.route == "user" for d in plan.decisions) else None
        try:
            written = apply_decisions(
                plan.decisions,
                current.profile,
                current.log,
                consolidate=(
                    consolidator(engine, turn, ws.memory_limit, usage_parts, store)
                    if current.memory_refused is None
                    else None
                ),
                consolidate_at=policy.consolidate_at,
                compact=compactor(engine, store, turn.user_id, ws.user_limit, usage_parts),
                compact_at=policy.compact_at,
                later=later,
            )
        except ConsolidationError as e:  # the engine failed making room: nothing was written
            return fail_turn(store, engine, turn, e, [*usage_parts, usage_of(e).tagged("consolidate")])
        except CompactionError as e:
            return fail_turn(store, engine, turn, e, [*usage_parts, e.usage.tagged("compact")])
        refuse_unsafe_rewrites(written, current)
        erased = purge_plan(written)  # a forget in a turn erases, as `forget --purge` does
        usage = total(usage_parts)
        records = turn_records(tx, turn, plan, written, classification, usage, policy.candidate_ttl_days,
                               parts=usage_parts)
        tx.stage(written, source=classification, records=records, purge=erased if erased else None)
    return TurnResult(
        user_id=turn.user_id,
        turn_id=turn.turn_id,
        conversation_id=turn.conversation_id,
        decisions=written.decisions,
        usage=usage,
        engine=classification.engine,
        model=classification.model,
        prompt_version=classification.prompt_version,
        user_changed=USER_FILE in tx.files,
        memory_changed=MEMORY_FILE in tx.files,
        consolidated=written.consolidated,
    )


def fail_turn(store: MemoryStore, engine: Engine, turn: Turn, error: BaseException,
              spent: Usage | list[Usage]) -> TurnResult:
    """Keep the turn for retry, with what its model calls cost (one usage row per stage, "failed:...")."""
    parts = spent if isinstance(spent, list) else [spent if spent.stage else spent.tagged("classify")]
    usage = total(parts)
    message = f"{type(error).__name__}: {error}"
    # info, not warning: the caller reports it (the CLI in one line on stderr, TurnResult.error)
    log.info("turn %s of user %s failed: %s", turn.turn_id, turn.user_id, type(error).__name__)
    with store.transaction() as conn:
        store.mark_turn(
            conn,
            user_id=turn.user_id,
            turn_id=turn.turn_id,
            conversation_id=turn.conversation_id,
            status="failed",
            error=message,
            # The engine it failed on: `memroute retry` reruns it there or says it does not.
            payload={**turn_payload(turn), "engine": engine.name, "model": model_name(engine)},
            ts=now_iso(),
        )
        if usage.calls:
            record_usage(store, conn, turn.user_id, turn.turn_id, parts, now_iso(), engine=engine.name,
                         model=model_name(engine), failed=True)
    return TurnResult(
        user_id=turn.user_id,
        turn_id=turn.turn_id,
        conversation_id=turn.conversation_id,
        decisions=[],
        usage=usage,
        engine=engine.name,
        model=model_name(engine),
        status="failed",
        error=store.redact(message),
    )


def already_done(turn: Turn, engine: Engine) -> TurnResult:
    """The answer for a turn applied before (the same turn id again): nothing is written twice."""
    return TurnResult(
        user_id=turn.user_id,
        turn_id=turn.turn_id,
        conversation_id=turn.conversation_id,
        decisions=[],
        usage=Usage(),
        engine=engine.name,
        model=model_name(engine),
        status="duplicate_turn",
    )


def model_name(engine: Engine) -> str | None:
    model = engine.model
    return model if isinstance(model, str) or model is None else type(model).__name__


def turn_records(
    tx_edit: Edit,
    turn: Turn,
    plan: cands.CandidatePlan,
    written: WriteResult,
    classification: Classification,
    usage: Usage,
    candidate_ttl_days: float,
    parts: list[Usage] | None = None,
) -> Callable[[Tx], object]:
    """The turn's own records (candidates, decision log, usage: one row per stage with `parts`),
    written first in its transaction."""
    store = tx_edit.store

    def write(tx: Tx) -> None:
        update_candidates(store, tx, turn, plan, written, candidate_ttl_days)
        store.add_decisions(
            tx,
            user_id=turn.user_id,
            turn_id=turn.turn_id,
            conversation_id=turn.conversation_id,
            decisions=written.decisions,
            engine=classification.engine,
            model=classification.model,
            prompt_version=classification.prompt_version,
            usage=usage if parts is None else None,
            ts=tx_edit.ts,  # the commit's time, as its history rows
        )
        if parts is not None:
            record_usage(store, tx, turn.user_id, turn.turn_id, parts, tx_edit.ts, source=classification)

    return write


def landed(d: Decision) -> bool:
    """A USER.md write that holds after the turn: written (perhaps pushing clauses out), unchanged or promoted."""
    return d.outcome in (Outcome.WRITTEN, Outcome.UNCHANGED, Outcome.PROMOTED)


def update_candidates(
    store: MemoryStore, tx: Tx, turn: Turn, plan: cands.CandidatePlan, written: WriteResult, ttl_days: float
) -> None:
    """Keep, bump, promote, supersede, forget and expire the user's candidates, in the turn's
    transaction. Sets each candidate decision's outcome (the decision log records it)."""
    user_id, seen_at = turn.user_id, cands.iso(cands.turn_time(turn))
    out = written.decisions

    def sighting(row: dict[str, Any], d: Decision) -> None:  # one more sighting of a stored candidate
        store.upsert_candidate(
            tx, user_id=user_id, section=row.get("section"), key=str(row["key"]), value=str(row["value"]),
            quote=d.quote, turn_id=turn.turn_id, conversation_id=turn.conversation_id, seen_at=seen_at,
        )

    if plan.dropped:  # first: a statement that starts anew may share the dropped one's key and value
        store.delete_candidates(tx, user_id, plan.dropped)
    gone: list[int] = []
    for i, row in plan.promoted.items():
        if out[i].outcome is Outcome.WRITTEN:  # and what it pushed out, if anything
            out[i].settle(Outcome.PROMOTED, out[i].outcome_detail)
        if landed(out[i]):
            gone.append(int(row["id"]))
        elif i in plan.waiting:  # said again but not written (cap, refused file): it keeps waiting
            sighting(row, plan.waiting[i])
            out[i].candidate = True
            out[i].settle(Outcome.CANDIDATE, out[i].outcome_text)
    for i, ids in plan.superseded.items():
        if landed(out[i]):
            gone.extend(ids)
    for i, row in plan.seen_again.items():
        sighting(row, out[i])
        out[i].settle(Outcome.SEEN_AGAIN, f"{int(row['times_seen']) + 1} times")
    for i, d in sorted(plan.keep.items()):
        firm = plan.covered.get(i)
        if firm is not None and landed(out[firm]):
            out[i].candidate = False
            out[i].settle(Outcome.SKIPPED, "the turn states this firmly")
            continue
        store.upsert_candidate(
            tx, user_id=user_id, section=d.section, key=(d.key or "").strip(), value=(d.value or "").strip(),
            quote=d.quote, turn_id=turn.turn_id, conversation_id=turn.conversation_id, seen_at=seen_at,
        )
        out[i].candidate = True
        if out[i].outcome is None or (out[i].outcome is Outcome.SKIPPED and out[i].outcome_detail is None):
            out[i].settle(Outcome.CANDIDATE)
    if gone:
        store.delete_candidates(tx, user_id, sorted(set(gone)))
    # A forget covers the candidates it names, whether or not a file held them.
    for d in out:
        if d.op == "remove" and d.match and store.purge_candidates(tx, user_id, d.match):
            if d.outcome in (None, Outcome.NOT_FOUND):
                d.settle(Outcome.WRITTEN, "candidates erased")
    cutoff = cands.expiry_cutoff(cands.turn_time(turn), ttl_days)
    store.expire_candidates(tx, cutoff, user_id)


def purge_plan(written: WriteResult) -> Erased:
    """The values the turn's forget decisions took out of the files. Their removal is recorded
    without the value, and nothing of them goes to the archive: the store then erases every copy."""
    erased = erased_by_turn(written)
    if not erased:
        return erased
    for d in written.decisions:  # "forget that I use Vue": the words named are erased too
        if d.op == "remove" and d.outcome is Outcome.WRITTEN and d.match and not erased.keys:
            erased.add_needle(d.match)
    written.changes = [purge_record(c) if c.op == "remove" and not c.change_of_fact else c for c in written.changes]
    written.archive = [a for a in written.archive if a.op != "removed" or a.change_of_fact]
    return erased

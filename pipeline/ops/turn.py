"""What a classified chat turn writes, inside its `pipe.edit()`: the guarded decisions applied to
both documents (with USER.md compaction and MEMORY.md consolidation when full), the candidates
kept, promoted or forgotten, the decision log, and the erasure a forget request asks for."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pipeline import observe
from pipeline.engines.base import Engine
from pipeline.ledgers._text import norm_key, split_label
from pipeline.ledgers.memory_md import MemoryLog
from pipeline.ledgers.user_md import UserProfile
from pipeline.ops.edit import Edit
from pipeline.ops.erasure import Erased, erased_by_turn
from pipeline.ops.pins import pinned_bodies, pinned_keys
from pipeline.stages import candidates as cands
from pipeline.stages.consolidate import ConsolidationError, archive_oldest, consolidate_log
from pipeline.stages.write import Change, WriteResult, is_change_of_fact, is_written
from pipeline.store.interface import MemoryStore, Tx
from pipeline.types import Classification, Decision, Turn, Usage

log = logging.getLogger("memroute.pipeline")

COMPACT_AT = 0.9  # USER.md is compacted (without an LLM) once it reaches this share of its cap ...
COMPACT_GOAL = 0.8  # ... down to this share, so the next facts find room


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
            record_usage(store, tx, turn, classification, parts, tx_edit.ts)

    return write


def landed(outcome: str | None) -> bool:
    """A USER.md write that holds after the turn: written (perhaps pushing clauses out), unchanged or promoted."""
    return is_written(outcome) or (outcome or "").startswith(("unchanged", "promoted"))


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
        if is_written(out[i].outcome):
            out[i].outcome = "promoted" + (out[i].outcome or "")[len("written"):]  # and what it pushed out, if anything
        if landed(out[i].outcome):
            gone.append(int(row["id"]))
        elif i in plan.waiting:  # said again but not written (cap, refused file): it keeps waiting
            sighting(row, plan.waiting[i])
            out[i].candidate = True
            out[i].outcome = f"candidate: {out[i].outcome}"
    for i, ids in plan.superseded.items():
        if landed(out[i].outcome):
            gone.extend(ids)
    for i, row in plan.seen_again.items():
        sighting(row, out[i])
        out[i].outcome = f"candidate: seen again ({int(row['times_seen']) + 1} times)"
    for i, d in sorted(plan.keep.items()):
        firm = plan.covered.get(i)
        if firm is not None and landed(out[firm].outcome):
            out[i].candidate = False
            out[i].outcome = "skipped: the turn states this firmly"
            continue
        store.upsert_candidate(
            tx, user_id=user_id, section=d.section, key=(d.key or "").strip(), value=(d.value or "").strip(),
            quote=d.quote, turn_id=turn.turn_id, conversation_id=turn.conversation_id, seen_at=seen_at,
        )
        out[i].candidate = True
        if out[i].outcome in (None, "skipped"):
            out[i].outcome = "candidate"
    if gone:
        store.delete_candidates(tx, user_id, sorted(set(gone)))
    # A forget covers the candidates it names, whether or not a file held them.
    for d in out:
        if d.op == "remove" and d.match and store.purge_candidates(tx, user_id, d.match):
            if d.outcome in (None, "not_found"):
                d.outcome = "written: candidates erased"
    cutoff = cands.expiry_cutoff(cands.turn_time(turn), ttl_days)
    store.expire_candidates(tx, cutoff, user_id)


def compactor(
    engine: Engine, store: MemoryStore, user_id: str, user_limit: int, usage_parts: list[Usage]
) -> Callable[[str, int], str | None]:
    """The engine's USER.md compaction (a model's, or the rule-based default); either way a field
    the user set by hand (tool, import: confirmed) or pinned never leaves."""

    def run(user_md: str, needed_chars: int) -> str | None:
        confirmed = confirmed_keys(store, user_id) | pinned_keys(store, user_id)  # both never leave
        done = engine.compact(user_md, needed_chars, protected=frozenset(confirmed),
                              goal_chars=int(user_limit * COMPACT_GOAL))
        usage_parts.append(done.usage.tagged("compact"))  # this call's own usage, failed attempts included
        rewritten = done.value
        if rewritten is not None and not (confirmed & _keys(user_md)) <= _keys(rewritten):
            return None  # the engine dropped a field the user confirmed
        return rewritten

    return run


def consolidator(
    engine: Engine,
    turn: Turn,
    memory_limit: int,
    usage_parts: list[Usage],
    store: MemoryStore | None = None,
    notes: list[str] | None = None,
) -> Callable[[MemoryLog], tuple[list[Change], list[Change]]]:
    """The engine's MEMORY.md consolidation; entries the user pinned (in `store`) stay as they are.
    When it fails (the model's plan invalid or too long, the model down) the rule-based one runs,
    and when that cannot shrink the file either, the oldest unpinned entries go to the archive. So
    a full log never fails the turn nor blocks its USER.md facts. `notes` collects one line per
    fallback taken (logged; the history says which engine ran)."""

    def run(memory: MemoryLog) -> tuple[list[Change], list[Change]]:
        with observe.stage("consolidate", engine.name):
            how, result = attempt(memory)
        observe.count_consolidation(engine.name, "turn", how)
        return result

    def attempt(memory: MemoryLog) -> tuple[str, tuple[list[Change], list[Change]]]:
        pinned = pinned_bodies(store, turn.user_id, memory.entries) if store is not None else set()
        spent: list[Usage] = []
        try:
            return "engine", consolidate_log(memory, engine, memory_limit=memory_limit, today=turn.today,
                                             usage_sink=spent, pinned=pinned)
        except ConsolidationError as e:
            spent.append(usage_of(e))
            _note(notes, f"{engine.name} consolidation failed ({e}); ")
        finally:
            usage_parts.extend(u.tagged("consolidate") for u in spent)  # failed plans cost too
        if engine.name != "offline":
            from pipeline.engines.offline.engine import OfflineEngine

            try:
                return "offline_fallback", consolidate_log(memory, OfflineEngine(), memory_limit=memory_limit,
                                                           today=turn.today, pinned=pinned)
            except ConsolidationError as e:
                _note(notes, f"offline consolidation failed ({e}); ")
        _note(notes, "archived the oldest entries")
        return "archived_oldest", archive_oldest(memory, memory_limit=memory_limit, pinned=pinned,
                                                 why="archived: MEMORY.md full and consolidation failed")

    return run


def _note(notes: list[str] | None, text: str) -> None:
    log.warning("consolidation fallback: %s", text.rstrip("; "))
    if notes is not None:
        notes.append(text)


def confirmed_keys(store: MemoryStore, user_id: str) -> set[str]:
    """USER.md keys whose current value the user set by hand (provenance: no engine decided it)."""
    latest: dict[str, str | None] = {}
    for row in store.provenance(user_id, target="user"):
        key = row.get("key") or split_label(str(row.get("value") or ""))[0]  # the tool records "Key: value"
        if key:
            latest[norm_key(key)] = row.get("engine")
    return {key for key, engine in latest.items() if engine == "manual"}


def _keys(user_md: str) -> set[str]:
    return {norm_key(f.key) for f in UserProfile.parse(user_md).fields() if f.key}


def purge_plan(written: WriteResult) -> Erased:
    """The values the turn's forget decisions took out of the files. Their removal is recorded
    without the value, and nothing of them goes to the archive: the store then erases every copy."""
    erased = erased_by_turn(written)
    if not erased:
        return erased
    for d in written.decisions:  # "forget that I use Vue": the words named are erased too
        if d.op == "remove" and d.outcome == "written" and d.match and not erased.keys:
            erased.add_needle(d.match)
    written.changes = [purge_record(c) if c.op == "remove" and not is_change_of_fact(c.why) else c
                       for c in written.changes]
    written.archive = [a for a in written.archive if a.op != "removed" or is_change_of_fact(a.why)]
    return erased


def purge_record(c: Change) -> Change:
    """History keeps that something was erased (and its key), never what."""
    key = c.key if c.target == "user" and c.key != c.old else None
    return Change(c.target, "purge", key, None, None, "erased at the user's request")


def record_usage(
    store: MemoryStore, tx: Tx, turn: Turn, source: Classification | None, parts: list[Usage], ts: str,
    *, engine: str | None = None, model: str | None = None, failed: bool = False,
) -> None:
    """One usage row per stage the turn ran (classify, compact, consolidate); a failed turn's under
    "failed:<stage>". Stages that sent nothing (offline) leave no row, except classify."""
    by_stage: dict[str, Usage] = {}
    for part in parts:
        stage = part.stage or "classify"
        by_stage[stage] = by_stage.get(stage, Usage()) + part
    for stage, usage in by_stage.items():
        if stage != "classify" and usage.calls == 0:
            continue
        store.add_usage(
            tx, user_id=turn.user_id, turn_id=turn.turn_id, stage=f"failed:{stage}" if failed else stage,
            engine=source.engine if source else engine, model=source.model if source else model,
            prompt_version=source.prompt_version if source else None, usage=usage, ts=ts,
        )


def usage_of(error: BaseException) -> Usage:
    """What a failed engine call spent (LLMError carries it; a ConsolidationError wraps one)."""
    for candidate in (error, error.__cause__):
        usage = getattr(candidate, "usage", None)
        if isinstance(usage, Usage):
            return usage
    return Usage()


def total(parts: list[Usage]) -> Usage:
    out = Usage()
    for part in parts:
        out = out + part
    return out

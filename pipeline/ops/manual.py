"""Writes that do not come from a chat turn: forget (and purge), delete-user, candidate
confirmation and consolidation on demand; plus subject access (export --all). Each goes through
`Workspace.edit()`, the one write path (pipeline/ops/edit.py)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from pipeline import guards, observe
from pipeline.engines.base import Engine
from pipeline.errors import CandidateNotFound, ConsolidationError, LedgerError
from pipeline.ops.edit import committed_check, now_iso, refuse_unsafe_rewrites
from pipeline.ops.erasure import erase_from_ledgers, purge_record
from pipeline.ops.pins import pinned_bodies
from pipeline.ops.usage import record_usage, total, usage_of
from pipeline.ops.workspace import Workspace, usage_line
from pipeline.stages import candidates as cands
from pipeline.stages.consolidate import consolidate_log
from pipeline.stages.write import Change, WriteResult, apply_decisions
from pipeline.store.files import MEMORY_FILE, USER_FILE
from pipeline.store.interface import Tx
from pipeline.store.rules import norm
from pipeline.types import FORGOTTEN, Outcome, Usage, outcome_text


def forget(ws: Workspace, user_id: str, key_or_text: str, *, purge: bool = False) -> dict[str, Any]:
    """See MemoryPipeline.forget."""
    with ws.edit(user_id, kind="forget") as tx:
        current = tx.current
        refused = current.user_refused or current.memory_refused
        if refused:
            raise LedgerError(refused)
        erased = erase_from_ledgers(current.profile, current.log, key_or_text)
        written = WriteResult(profile=current.profile, log=current.log)
        hidden: list[int] = []
        if purge:
            written.changes = [purge_record(c) for c in erased.changes]
            tx.stage(written, purge=erased)
        else:
            written.changes = erased.changes
            written.archive = [
                Change(c.target, "removed", c.key, c.old, None, FORGOTTEN)
                for c in erased.changes
            ]

            def forget_copies(t: Tx) -> None:  # older archived copies leave recall too; history keeps them
                hidden.append(ws.store.forget_archived(t, user_id, erased.needles, erased.keys, FORGOTTEN))
                ws.store.purge_candidates(t, user_id, key_or_text)

            tx.stage(written, records=forget_copies)
    return {
        "success": True,
        "removed": erased.labels,
        "purged": purge,
        "rows_erased": tx.rows_erased,
        "message": (
            f"removed {len(erased.labels)} item(s)" + (" and erased every copy" if purge else
                                                    " (no read returns it; history keeps the change, --purge erases it)")
            if erased
            else "nothing in USER.md or MEMORY.md matched" + (
                "; other copies erased" if purge else
                f"; {sum(hidden)} archived cop{'y' if sum(hidden) == 1 else 'ies'} no longer recalled" if sum(hidden)
                else "")
        ),
    }


def delete_user(ws: Workspace, user_id: str) -> dict[str, Any]:
    """See MemoryPipeline.delete_user."""
    docs = ws.documents.documents(user_id)
    with docs.lock(recover=committed_check(ws.store, user_id)):
        with ws.store.transaction() as t:
            rows = ws.store.purge_user(t, user_id)
        docs.delete_all()
    docs.drop()
    ws.store.compact()
    return {"success": True, "user_id": user_id, "rows_erased": rows}


def export_all(ws: Workspace, user_id: str) -> dict[str, Any]:
    """See MemoryPipeline.export_all."""
    docs = ws.documents.documents(user_id)
    current = ws.load(user_id, reader=True)
    texts = current.texts
    return {
        "user_id": user_id,
        "warnings": current.warnings,
        "files": {USER_FILE: texts.user, MEMORY_FILE: texts.memory},
        "backups": docs.copies(),
        "store": ws.store.everything_about(user_id),
    }


def confirm_candidate(ws: Workspace, user_id: str, ref: int | str) -> dict[str, Any]:
    """See MemoryPipeline.confirm_candidate."""
    with ws.edit(user_id, kind="confirm") as tx:  # under the lock: a turn may promote or bump it meanwhile
        rows = ws.store.candidates(user_id)
        if isinstance(ref, int) or str(ref).isdigit():
            found = [r for r in rows if r["id"] == int(ref)]
        else:
            found = [r for r in rows if r["key_norm"] == norm(str(ref))]
        if len(found) != 1:
            why = "no candidate" if not found else f"{len(found)} candidates"
            raise CandidateNotFound(f"{why} for {ref!r}; see `memroute show {user_id} --candidates`")
        row = found[0]
        current = tx.current
        decision = cands.confirmation(row, cands.field_of(current.profile.fields(), str(row["key"])))
        # A candidate passes the guards again on its way in (the policy may be stricter than when it was kept).
        [checked] = guards.guard_decisions([decision], "", ws.guard_policy)
        refused = cands.refusal(row, ws.guard_policy)
        if checked.route != "user" or refused:

            def drop(t: Tx) -> None:
                ws.store.delete_candidates(t, user_id, [int(row["id"])])

            tx.stage(WriteResult(profile=current.profile, log=current.log), records=drop)
            blocked = outcome_text(Outcome.BLOCKED, refused) if refused else checked.outcome_text or Outcome.BLOCKED.value
            return {"success": False, "outcome": blocked,
                    "field": str(row["key"]),
                    "usage": usage_line(current.profile.render(), ws.user_limit)}
        written = apply_decisions([checked], current.profile, current.log)
        refuse_unsafe_rewrites(written, current)
        decision = written.decisions[0]
        landed = decision.outcome in (Outcome.WRITTEN, Outcome.UNCHANGED)
        if decision.outcome is Outcome.WRITTEN:  # and what it pushed out, if anything
            decision.settle(Outcome.PROMOTED, decision.outcome_detail)
        if landed:  # over the cap or a refused file: nothing changes, the candidate keeps waiting
            gone = [int(row["id"]), *cands.contradicted(row, rows)]

            def settle(t: Tx) -> None:
                ws.store.delete_candidates(t, user_id, gone)

            tx.stage(written, records=settle)
    return {
        "success": landed,
        "outcome": decision.outcome_text,
        "field": f"{row['key']}: {row['value']}",
        "usage": usage_line(written.profile.render(), ws.user_limit),
    }


def consolidate(ws: Workspace, engine: Engine, user_id: str) -> dict[str, Any]:
    """See MemoryPipeline.consolidate. What the engine's model calls cost is recorded (stage
    "consolidate", or "failed:consolidate" when its plan was refused), whether or not the file changed."""
    usage_parts: list[Usage] = []
    model = engine.model if isinstance(engine.model, str) else None
    try:
        with ws.edit(user_id, kind="consolidate") as tx:
            current = tx.current
            if current.memory_refused:
                raise LedgerError(current.memory_refused)
            before = current.log.render()
            if not current.log.entries:
                return {
                    "success": True,
                    "message": "MEMORY.md has no entries: nothing to consolidate",
                    "before": usage_line(before, ws.memory_limit),
                    "after": usage_line(before, ws.memory_limit),
                    "entry_count": 0,
                    "archived": 0,
                }
            with observe.stage("consolidate", engine.name):
                changes, archive = consolidate_log(
                    current.log,
                    engine,
                    memory_limit=ws.memory_limit,
                    today=datetime.now(timezone.utc).date(),
                    usage_sink=usage_parts,
                    pinned=pinned_bodies(ws.store, user_id, current.log.entries),
                )
            observe.count_consolidation(engine.name, "manual", "engine")
            written = WriteResult(profile=current.profile, log=current.log, changes=changes, archive=archive)

            def spent(t: Tx) -> None:
                parts = [u.tagged("consolidate") for u in usage_parts]
                record_usage(ws.store, t, user_id, tx.turn_id, parts, tx.ts, engine=engine.name, model=model)

            if current.log.render() != before:
                tx.stage(written, files={MEMORY_FILE: current.log.render()}, records=spent)
            elif total(usage_parts).calls:  # a plan that keeps every entry changes nothing, but its calls cost
                tx.stage(WriteResult(profile=current.profile, log=current.log), files={}, records=spent)
    except ConsolidationError as e:  # nothing written; what the refused plans cost is kept
        parts = [u.tagged("consolidate") for u in [*usage_parts, usage_of(e)]]
        if total(parts).calls:
            with ws.store.transaction() as t:
                record_usage(ws.store, t, user_id, None, parts, now_iso(), engine=engine.name, model=model,
                             failed=True)
        raise
    after = current.log.render()
    return {
        "success": True,
        "before": usage_line(before, ws.memory_limit),
        "after": usage_line(after, ws.memory_limit),
        "entry_count": len(current.log.entries),
        "archived": len(archive),
    }

"""Writes that do not come from a chat turn: forget (and purge), delete-user, candidate
confirmation and consolidation on demand; plus subject access (export --all). Each goes through
`pipe.edit()`, the one write path (pipeline/ops/edit.py)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from pipeline import guards, observe
from pipeline.errors import MemrouteError
from pipeline.ops.edit import committed_check, refuse_unsafe_rewrites
from pipeline.ops.erasure import erase_from_ledgers
from pipeline.ops.pins import pinned_bodies
from pipeline.ops.turn import purge_record
from pipeline.stages import candidates as cands
from pipeline.stages.consolidate import ConsolidationError, consolidate_log
from pipeline.stages.write import Change, WriteResult, apply_decisions, is_written
from pipeline.store.files import MEMORY_FILE, USER_FILE
from pipeline.store.interface import Tx
from pipeline.types import Usage

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline


class CandidateNotFound(MemrouteError, LookupError):
    """confirm_candidate: no candidate, or more than one, answers to the reference."""


def usage_line(text: str, limit: int) -> str:
    return f"{len(text):,}/{limit:,}"


def forget(pipe: MemoryPipeline, user_id: str, key_or_text: str, *, purge: bool = False) -> dict[str, Any]:
    """See MemoryPipeline.forget."""
    with pipe.edit(user_id, kind="forget") as tx:
        current = tx.current
        refused = current.user_refused or current.memory_refused
        if refused:
            raise ValueError(refused)
        erased = erase_from_ledgers(current.profile, current.log, key_or_text)
        written = WriteResult(profile=current.profile, log=current.log)
        if purge:
            written.changes = [purge_record(c) for c in erased.changes]
            tx.stage(written, purge=erased)
        else:
            written.changes = erased.changes
            written.archive = [
                Change(c.target, "removed", c.key, c.old, None, "forgotten at the user's request")
                for c in erased.changes
            ]

            def forget_candidates(t: Tx) -> None:
                pipe.store.purge_candidates(t, user_id, key_or_text)

            tx.stage(written, records=forget_candidates)
    return {
        "success": True,
        "removed": erased.labels,
        "purged": purge,
        "rows_erased": tx.rows_erased,
        "message": (
            f"removed {len(erased.labels)} item(s)" + (" and erased every copy" if purge else " (kept in history and archive)")
            if erased
            else "nothing in USER.md or MEMORY.md matched" + ("; other copies erased" if purge else "")
        ),
    }


def delete_user(pipe: MemoryPipeline, user_id: str) -> dict[str, Any]:
    """See MemoryPipeline.delete_user."""
    docs = pipe.documents.documents(user_id)
    with docs.lock(recover=committed_check(pipe.store, user_id)):
        with pipe.store.transaction() as t:
            rows = pipe.store.purge_user(t, user_id)
        docs.delete_all()
    docs.drop()
    pipe.store.compact()
    return {"success": True, "user_id": user_id, "rows_erased": rows}


def export_all(pipe: MemoryPipeline, user_id: str) -> dict[str, Any]:
    """See MemoryPipeline.export_all."""
    docs = pipe.documents.documents(user_id)
    current = pipe.load(user_id, reader=True)
    texts = current.texts
    return {
        "user_id": user_id,
        "warnings": current.warnings,
        "files": {USER_FILE: texts.user, MEMORY_FILE: texts.memory},
        "backups": docs.copies(),
        "store": pipe.store.everything_about(user_id),
    }


def confirm_candidate(pipe: MemoryPipeline, user_id: str, ref: int | str) -> dict[str, Any]:
    """See MemoryPipeline.confirm_candidate."""
    with pipe.edit(user_id, kind="confirm") as tx:  # under the lock: a turn may promote or bump it meanwhile
        rows = pipe.store.candidates(user_id)
        if isinstance(ref, int) or str(ref).isdigit():
            found = [r for r in rows if r["id"] == int(ref)]
        else:
            found = [r for r in rows if r["key_norm"] == cands.norm(str(ref))]
        if len(found) != 1:
            why = "no candidate" if not found else f"{len(found)} candidates"
            raise CandidateNotFound(f"{why} for {ref!r}; see `memroute show {user_id} --candidates`")
        row = found[0]
        current = tx.current
        decision = cands.confirmation(row, cands.field_of(current.profile.fields(), str(row["key"])))
        # A candidate passes the guards again on its way in (the policy may be stricter than when it was kept).
        [checked] = guards.guard_decisions([decision], "", pipe.guard_policy)
        refused = cands.refusal(row, pipe.guard_policy)
        if checked.route != "user" or refused:

            def drop(t: Tx) -> None:
                pipe.store.delete_candidates(t, user_id, [int(row["id"])])

            tx.stage(WriteResult(profile=current.profile, log=current.log), records=drop)
            return {"success": False, "outcome": f"blocked:{refused}" if refused else checked.outcome or "blocked",
                    "field": str(row["key"]),
                    "usage": usage_line(current.profile.render(), pipe.user_limit)}
        written = apply_decisions([checked], current.profile, current.log)
        refuse_unsafe_rewrites(written, current)
        decision = written.decisions[0]
        landed = is_written(decision.outcome) or (decision.outcome or "").startswith("unchanged")
        if is_written(decision.outcome):
            decision.outcome = "promoted" + (decision.outcome or "")[len("written"):]
        if landed:  # over the cap or a refused file: nothing changes, the candidate keeps waiting
            gone = [int(row["id"]), *cands.contradicted(row, rows)]

            def settle(t: Tx) -> None:
                pipe.store.delete_candidates(t, user_id, gone)

            tx.stage(written, records=settle)
    return {
        "success": landed,
        "outcome": decision.outcome,
        "field": f"{row['key']}: {row['value']}",
        "usage": usage_line(written.profile.render(), pipe.user_limit),
    }


def consolidate(pipe: MemoryPipeline, user_id: str) -> dict[str, Any]:
    """See MemoryPipeline.consolidate."""
    usage_parts: list[Usage] = []
    with pipe.edit(user_id, kind="consolidate") as tx:
        current = tx.current
        if current.memory_refused:
            raise ConsolidationError(current.memory_refused)
        before = current.log.render()
        if not current.log.entries:
            return {
                "success": True,
                "message": "MEMORY.md has no entries: nothing to consolidate",
                "before": usage_line(before, pipe.memory_limit),
                "after": usage_line(before, pipe.memory_limit),
                "entry_count": 0,
                "archived": 0,
            }
        with observe.stage("consolidate", pipe.engine.name):
            changes, archive = consolidate_log(
                current.log,
                pipe.engine,
                memory_limit=pipe.memory_limit,
                today=datetime.now(timezone.utc).date(),
                usage_sink=usage_parts,
                pinned=pinned_bodies(pipe.store, user_id, current.log.entries),
            )
        observe.count_consolidation(pipe.engine.name, "manual", "engine")
        written = WriteResult(profile=current.profile, log=current.log, changes=changes, archive=archive)
        if current.log.render() != before:  # a plan that keeps every entry as it was changes nothing
            tx.stage(written, files={MEMORY_FILE: current.log.render()})
    after = current.log.render()
    return {
        "success": True,
        "before": usage_line(before, pipe.memory_limit),
        "after": usage_line(after, pipe.memory_limit),
        "entry_count": len(current.log.entries),
        "archived": len(archive),
    }

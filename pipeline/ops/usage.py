"""What model calls cost, kept: one usage row per stage of a change (classify, compact,
consolidate), a failed change's under "failed:<stage>". Turns and `memroute consolidate` record
their usage here, in the same transaction as what they write."""

from __future__ import annotations

from pipeline.store.interface import MemoryStore, Tx
from pipeline.types import Classification, Usage


def record_usage(
    store: MemoryStore, tx: Tx, user_id: str, turn_id: str | None, parts: list[Usage], ts: str,
    *, source: Classification | None = None, engine: str | None = None, model: str | None = None,
    failed: bool = False,
) -> None:
    """One usage row per stage in `parts` (a part's stage, else classify). Stages that sent nothing
    (offline) leave no row, except classify. `source`: the classification the usage belongs to
    (its engine, model and prompt version), else `engine` and `model`."""
    by_stage: dict[str, Usage] = {}
    for part in parts:
        stage = part.stage or "classify"
        by_stage[stage] = by_stage.get(stage, Usage()) + part
    for stage, usage in by_stage.items():
        if stage != "classify" and usage.calls == 0:
            continue
        store.add_usage(
            tx, user_id=user_id, turn_id=turn_id, stage=f"failed:{stage}" if failed else stage,
            engine=source.engine if source else engine, model=source.model if source else model,
            prompt_version=source.prompt_version if source else None, usage=usage, ts=ts,
        )


def usage_of(error: BaseException) -> Usage:
    """What a failed engine call spent (LLMError carries it; a Consolidation/CompactionError wraps one)."""
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


__all__ = ["record_usage", "total", "usage_of"]

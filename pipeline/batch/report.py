"""What a batch run counts (and how worker processes' counts merge)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from pipeline.types import Decision, Outcome

MAX_REPORTED_BAD_LINES = 1000  # the JSON summary lists this many; all are counted


@dataclass
class BatchReport:
    users: int = 0
    conversations: int = 0  # good conversations found in the input
    conversations_done: int = 0  # completed in this run
    conversations_skipped: int = 0  # already done in an earlier run
    conversations_failed: int = 0
    conversations_deferred: int = 0  # left for the next run (a failure earlier for that user, or a stop)
    untimed_conversations: int = 0  # no timestamp anywhere: their turns are dated today
    turns_total: int = 0  # turns of the conversations this run replays
    turns_done: int = 0
    turns_duplicate: int = 0  # already applied by an interrupted earlier run
    turns_failed: int = 0
    writes: dict[str, int] = field(default_factory=lambda: {"user": 0, "memory": 0})
    skips: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)  # other outcomes: duplicate, unchanged, over_cap...
    # Facts just short of the bar (also counted above): kept as a new candidate, seen again in the same
    # conversation, promoted to USER.md (said again later, or stated firmly).
    candidates: dict[str, int] = field(default_factory=lambda: {"kept": 0, "seen_again": 0, "promoted": 0})
    evictions: dict[str, int] = field(default_factory=dict)  # values that left USER.md, by reason (stages/clauses.py)
    bad_lines: int = 0
    bad_line_list: list[str] = field(default_factory=list)
    turn_errors: list[str] = field(default_factory=list)
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    wall_s: float = 0.0
    stopped_early: bool = False
    moved_aside: str | None = None
    worker_crashes: int = 0  # worker processes that died without reporting (counted as failures)
    unreadable: int = 0  # conversations that could not be read again in pass 2 (also bad lines)
    workers: int = 1

    @property
    def failures(self) -> int:
        return self.bad_lines + self.turns_failed + self.worker_crashes

    @property
    def turns_per_s(self) -> float:
        return self.turns_done / self.wall_s if self.wall_s > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "users": self.users,
            "conversations": {
                "total": self.conversations,
                "done": self.conversations_done,
                "skipped_already_done": self.conversations_skipped,
                "failed": self.conversations_failed,
                "deferred": self.conversations_deferred,
                "untimed": self.untimed_conversations,
            },
            "turns": {
                "total": self.turns_total,
                "done": self.turns_done,
                "duplicate": self.turns_duplicate,
                "failed": self.turns_failed,
            },
            "writes": dict(self.writes),
            "skips": dict(sorted(self.skips.items())),
            "outcomes": dict(sorted(self.outcomes.items())),
            "candidates": dict(self.candidates),
            "evictions": dict(sorted(self.evictions.items())),
            "failures": self.failures,
            "bad_lines": self.bad_lines,
            "bad_line_list": self.bad_line_list,
            "turn_errors": self.turn_errors,
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "wall_s": round(self.wall_s, 3),
            "turns_per_s": round(self.turns_per_s, 2),
            "stopped_early": self.stopped_early,
            "moved_aside": self.moved_aside,
            "workers": self.workers,
            "worker_crashes": self.worker_crashes,
        }

    def merged(self, parts: list[dict[str, Any]]) -> BatchReport:
        """This report (the index pass) plus the replay counts of worker processes (asdict snapshots)."""
        out = dataclasses.replace(
            self,
            writes=dict(self.writes),
            skips=dict(self.skips),
            outcomes=dict(self.outcomes),
            candidates=dict(self.candidates),
            evictions=dict(self.evictions),
            bad_line_list=list(self.bad_line_list),
            turn_errors=list(self.turn_errors),
        )
        for part in parts:
            for name in _ADDITIVE:
                setattr(out, name, getattr(out, name) + part[name])
            for name in ("writes", "skips", "outcomes", "candidates", "evictions"):
                counts = getattr(out, name)
                for key, value in part[name].items():
                    counts[key] = counts.get(key, 0) + value
            for name in ("bad_line_list", "turn_errors"):
                getattr(out, name).extend(part[name][: MAX_REPORTED_BAD_LINES - len(getattr(out, name))])
            out.cost_usd = None if out.cost_usd is None or part["cost_usd"] is None else out.cost_usd + part["cost_usd"]
        return out

    def count_candidate(self, d: Decision) -> None:
        """Tally one decision's part in the candidates' life (its outcome as the turn recorded it)."""
        if d.outcome is Outcome.CANDIDATE and d.outcome_detail is None:  # kept (not a promotion left waiting)
            self.candidates["kept"] += 1
        elif d.outcome is Outcome.SEEN_AGAIN:
            self.candidates["seen_again"] += 1
        elif d.outcome is Outcome.PROMOTED:  # what it pushed out is counted apart (evictions)
            self.candidates["promoted"] += 1


# Counters a worker process adds to the parent's report (the index pass fills the others).
_ADDITIVE = (
    "conversations_done",
    "conversations_failed",
    "conversations_deferred",
    "turns_done",
    "turns_duplicate",
    "turns_failed",
    "bad_lines",
    "calls",
    "input_tokens",
    "output_tokens",
    "unreadable",
)


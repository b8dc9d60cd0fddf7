"""The data that flows through memroute: turns in, decisions out.

Engines produce these; guards and the write stage consume them. Nothing here touches files.
"""

from __future__ import annotations

from datetime import date, datetime, tzinfo
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer

Route = Literal["user", "memory", "skip"]
# The five skip reasons of the domain, plus "blocked": a guard refused the content
# (prompt injection, forged file structure, privilege claims). The rule is Decision.rule ("guard/...").
SkipReason = Literal["mood", "one_off", "vague", "inferable", "sensitive", "blocked"]
SKIP_REASONS: tuple[str, ...] = ("mood", "one_off", "vague", "inferable", "sensitive", "blocked")
# upsert: set a USER.md field; append: add a MEMORY.md entry; remove: forget a field/entry.
Op = Literal["upsert", "append", "remove", "none"]
# What a removal is (Decision.removal): "forget", the user asked to forget, and every copy is erased (the files,
# the archive, the history); "change_of_fact", the user's own news ("I'm no longer a nurse"), and the old value is
# archived like any overwritten one. A removal says which it is; anything that does not say is a forget.
Removal = Literal["forget", "change_of_fact"]

# USER.md sections, in canonical order (pipeline/sections.py, re-exported here).
from pipeline.sections import USER_SECTIONS as USER_SECTIONS  # noqa: E402


class Message(BaseModel):
    role: str
    content: str
    timestamp: datetime | None = None


class Turn(BaseModel):
    """One chat turn: the last user message and what follows it, plus earlier context."""

    user_id: str
    turn_id: str
    timestamp: datetime
    messages: list[Message]
    history: list[Message] = Field(default_factory=list)
    conversation_id: str | None = None

    @property
    def user_text(self) -> str:
        return "\n".join(m.content for m in self.messages if m.role == "user")

    @property
    def today(self) -> date:
        """The turn's calendar day in its own UTC offset: 01:00+07:00 is that local day, not the UTC day before."""
        return self.timestamp.date()

    def today_in(self, zone: tzinfo | None) -> date:
        """The turn's calendar day where the user is (`zone`, e.g. from USER.md's time zone), else `today`."""
        if zone is None or self.timestamp.tzinfo is None:
            return self.today
        return self.timestamp.astimezone(zone).date()


# Why a value a forget took out of the files is archived (a forget without --purge): recall never returns it.
FORGOTTEN = "forgotten at the user's request"

# How a change of fact ("I don't drink coffee anymore", Decision.removal "change_of_fact") is worded for people.
CHANGE_OF_FACT = "no longer true"


class Outcome(str, Enum):
    """What the write stage did with a decision (Decision.outcome); Decision.outcome_detail says more.

    A str enum, so `d.outcome == "written"` holds; stored and printed as `outcome_text()`."""

    WRITTEN = "written"
    PROMOTED = "promoted"  # a waiting candidate written to USER.md
    UNCHANGED = "unchanged"  # the file already says so
    DUPLICATE = "duplicate"  # MEMORY.md already holds the entry
    NOT_FOUND = "not_found"  # a forget that named nothing
    AMBIGUOUS = "ambiguous"  # a forget that named several fields or entries
    OVER_CAP = "over_cap"  # did not fit under the file's cap (kept in the archive for USER.md)
    REFUSED = "refused"  # the file may not be rewritten, or the ledger refused the text
    IGNORED = "ignored"  # an incomplete decision (no key, empty entry, an unknown route/op pair)
    SKIPPED = "skipped"
    BLOCKED = "blocked"  # a guard refused the content; the detail names the rule
    CANDIDATE = "candidate"  # kept in the candidate list, not in USER.md
    SEEN_AGAIN = "seen_again"  # a waiting candidate said again in the same conversation (counted, still waiting)
    STALE = "stale"  # a later turn set this field: history and archive only

    def __str__(self) -> str:
        return self.value


def outcome_text(outcome: Outcome | None, detail: str | None) -> str | None:
    """The one printed and stored form of an outcome: "over_cap: user profile at 1,380 chars"."""
    if outcome is None:
        return None
    return f"{outcome.value}: {detail}" if detail else outcome.value


class Decision(BaseModel):
    """Where one atomic statement of a turn goes, and why."""

    quote: str  # the verbatim source text of the statement
    route: Route
    op: Op = "none"
    reason: SkipReason | None = None  # set for skips
    # route=user: a canonical section, a short English key, the value in the user's language.
    section: str | None = None
    key: str | None = None
    value: str | None = None
    # route=memory: a declarative entry (no date prefix), its absolute date, optional topic.
    entry: str | None = None
    date: str | None = None  # YYYY-MM-DD, or YYYY-MM / YYYY when only a month or a year was said
    topic: str | None = None
    # op=remove: the key (user) or a substring of the entry (memory) to forget.
    match: str | None = None
    confidence: float = 1.0
    # The stable id of what decided: a rule of an engine ("fact/role-noun", "memory/project-work", "skip/greeting"),
    # a model ("model/extractor", "model/llm"), a guard ("guard/sensitive", "guard/<rule>"). Code that must know why a
    # decision was made reads this (ids are listed where they are made: engines/offline/rules.py, engine.py, ...);
    # "+sentence" after an id: the rule's entry took in the rest of its sentence.
    rule: str | None = None
    # op=remove: a forget request (erased everywhere) or a change of fact (archived); see Removal.
    removal: Removal = "forget"
    # The user asked in so many words to keep this ("remember that ..."): no model overrides it.
    asked: bool = False
    detail: str | None = None  # a short why, for people only: nothing reads it to decide
    # A skip that looks durable but falls under the write threshold (section/key/value filled): kept in the
    # store's candidate list, never in USER.md, and promoted when the user says it again in a later
    # conversation or confirms it. Never set for sensitive data.
    candidate: bool = False
    # Filled by the write stage: what actually happened to the files, and why (the detail is folded
    # into `outcome` when dumped: {"outcome": "over_cap: user profile at 1,380 chars"}, the stored form).
    outcome: Outcome | None = None
    outcome_detail: str | None = Field(default=None, exclude=True)
    # Why each value this decision pushed out of USER.md left (stages/clauses.py REASONS): a clause of a full
    # collecting field, or the old value of a replaced one. The outcome names them; the archive keeps them.
    evicted: list[str] = Field(default_factory=list)

    def settle(self, outcome: Outcome, detail: str | None = None) -> None:
        self.outcome, self.outcome_detail = outcome, detail

    @property
    def outcome_text(self) -> str | None:
        return outcome_text(self.outcome, self.outcome_detail)

    @property
    def removal_kind(self) -> Removal | None:
        """What kind of removal this is (forget or change_of_fact); None for any other op, whose `removal` is only
        the default. What the decision log and batch records keep."""
        return self.removal if self.op == "remove" else None

    @field_serializer("outcome")
    def _dump_outcome(self, outcome: Outcome | None) -> str | None:
        return outcome_text(outcome, self.outcome_detail)


class Usage(BaseModel):
    calls: int = 0  # model requests sent, retried and re-asked ones included
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # of input_tokens: read from the server's prompt cache (0 when it does not say)
    cost_usd: float | None = 0.0  # None when the model's price is unknown
    latency_s: float = 0.0
    retries: int = 0  # of `calls`: requests sent again after a transport fault (429, 5xx, timeout)
    reasks: int = 0  # of `calls`: requests asking again after an answer failed validation
    # The stage this usage belongs to (classify, compact, consolidate) where it is recorded; a sum has none.
    stage: str | None = Field(default=None, exclude=True)

    def tagged(self, stage: str) -> Usage:
        return self.model_copy(update={"stage": stage})

    def __add__(self, other: Usage) -> Usage:
        cost = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        return Usage(
            retries=self.retries + other.retries,
            reasks=self.reasks + other.reasks,
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cost_usd=cost,
            latency_s=self.latency_s + other.latency_s,
        )


class Classification(BaseModel):
    """What an engine's classify stage returns for one turn."""

    decisions: list[Decision]
    usage: Usage = Field(default_factory=Usage)
    engine: str
    model: str | None = None
    prompt_version: str | None = None


class MemoryItem(BaseModel):
    model_config = ConfigDict(defer_build=True)  # built on first use: only consolidation needs it

    """A MEMORY.md entry as engines see it for consolidation (index = position in the file)."""

    index: int
    date: str | None = None
    topic: str | None = None
    text: str


class ConsolidatedEntry(BaseModel):
    model_config = ConfigDict(defer_build=True)  # built on first use: only consolidation needs it

    date: str | None = None
    topic: str | None = None
    text: str
    sources: list[int]  # indexes of the input entries this one keeps or merges


class ConsolidationPlan(BaseModel):
    model_config = ConfigDict(defer_build=True)  # built on first use: only consolidation needs it

    """An engine's proposal for a rewritten MEMORY.md; validated before anything is written."""

    entries: list[ConsolidatedEntry]
    archived: list[int] = Field(default_factory=list)  # input indexes moved to the archive only
    usage: Usage = Field(default_factory=Usage)
    engine: str
    model: str | None = None
    prompt_version: str | None = None


class TurnResult(BaseModel):
    user_id: str
    turn_id: str
    conversation_id: str | None = None
    decisions: list[Decision]
    usage: Usage
    engine: str
    model: str | None = None
    prompt_version: str | None = None
    user_changed: bool = False
    memory_changed: bool = False
    consolidated: bool = False
    status: Literal["done", "failed", "duplicate_turn"] = "done"
    error: str | None = None

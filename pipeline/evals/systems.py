"""The system under test of the write benchmark (`memroute eval SUITE --system NAME`): any memory
layer, memroute's engines or another project's, driven turn by turn through one small contract,
and the two bounds every other system sits between (keep everything, keep nothing).

A system is built for one case in a fresh work directory it must keep all its data under (the
benchmark searches every byte there for planted sensitive values); what it keeps elsewhere it
names in `data_paths()`. Adapters for other projects live in their own modules and import their
package only when selected, so `import pipeline` never pays for them."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pipeline.errors import SystemUnavailable


@dataclass(frozen=True)
class StoredItem:
    """One thing a system holds for a user: a USER.md field, a MEMORY.md entry, a vector-store memory."""

    text: str
    where: str = ""  # which part of the system holds it ("USER.md · Identity", "MEMORY.md", "vector store")
    turn: str | None = None  # the turn that produced it, where the system records that

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class SystemUsage:
    """What a system spent so far: chat-model calls and their tokens, embedding calls and theirs."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    embed_calls: int = 0
    embed_tokens: int = 0

    def minus(self, before: SystemUsage) -> SystemUsage:
        return SystemUsage(**{k: v - getattr(before, k) for k, v in asdict(self).items()})

    def plus(self, other: SystemUsage) -> SystemUsage:
        return SystemUsage(**{k: v + getattr(other, k) for k, v in asdict(self).items()})

    def to_json(self) -> dict[str, int]:
        return asdict(self)


class SystemUnderTest:
    """The contract. `add` is one turn (its messages; `history` is earlier conversation the system
    may read as context but should not store again); `stored` is everything the system now holds
    for the user; `usage` is cumulative since the system was built. Subclasses override `add`,
    `stored`, and where they apply `usage`, `seed`, `data_paths` and `close`."""

    name = "system"
    # How this system was run, for the report (what it cannot take: a timestamp, a seeded file...).
    notes: tuple[str, ...] = ()

    def add(
        self,
        user: str,
        messages: list[dict[str, Any]],
        timestamp: datetime | None,
        *,
        history: Sequence[dict[str, Any]] = (),
        turn_id: str = "",
    ) -> None:
        raise NotImplementedError

    def stored(self, user: str) -> list[StoredItem]:
        raise NotImplementedError

    def usage(self) -> SystemUsage:
        return SystemUsage()

    def seed(self, user: str, user_md: str | None, memory_md: str | None) -> bool:
        """Start from a case's `initial` files; False when the system cannot (the report says so)."""
        return False

    def data_paths(self) -> list[Path]:
        """Places outside the work directory where the system keeps data (searched for leaks too)."""
        return []

    def close(self) -> None:
        return None


@dataclass(frozen=True)
class SystemSpec:
    """One column of the benchmark: a system by name, the model and endpoint it is pointed at."""

    system: str
    model: str | None = None
    api_base: str | None = None
    options: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def label(self) -> str:
        return f"{self.system}:{self.model}" if self.model else self.system


# (spec, work directory) -> a system ready for one case.
SystemFactory = Callable[[SystemSpec, Path], SystemUnderTest]


# Built-in systems: "module:function", imported only when the system is selected.
SYSTEMS: dict[str, str] = {
    "memroute-offline": "pipeline.evals.systems_memroute:offline",
    "memroute-llm": "pipeline.evals.systems_memroute:llm",
    "memroute-hybrid": "pipeline.evals.systems_memroute:hybrid",
    "mem0": "pipeline.evals.systems_mem0:mem0",
    "keep-everything": "pipeline.evals.systems:keep_everything",
    "keep-nothing": "pipeline.evals.systems:keep_nothing",
}
# Systems that cannot run without a model (their factory checks it too).
NEEDS_MODEL = frozenset({"memroute-llm", "memroute-hybrid", "mem0"})
# Systems that never take one (--model is not passed to them).
MODEL_FREE = frozenset({"memroute-offline", "keep-everything", "keep-nothing"})
ENTRY_POINT_GROUP = "memroute.systems"


def _entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def system_factory(name: str) -> SystemFactory:
    """The factory of a system by name: the built-ins, then the `memroute.systems` entry points."""
    target = SYSTEMS.get(name)
    if target is not None:
        module, _, attr = target.partition(":")
        factory: SystemFactory = getattr(importlib.import_module(module), attr)
        return factory
    found = _entry_points().get(name)
    if found is None:
        known = ", ".join([*SYSTEMS, *sorted(set(_entry_points()) - set(SYSTEMS))])
        raise SystemUnavailable(f"unknown system {name!r}; known: {known}")
    loaded: SystemFactory = found.load()
    return loaded


def check_system(spec: SystemSpec) -> None:
    """Fail fast, before any case runs: an unknown system, a missing model or package."""
    if spec.system in NEEDS_MODEL and not spec.model:
        raise SystemUnavailable(f"--system {spec.system} needs a --model")
    factory = system_factory(spec.system)
    check = getattr(factory, "check", None)
    if check is not None:
        check(spec)


def message_text(message: dict[str, Any]) -> str:
    """A message's text (content parts joined), for systems that take plain strings."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else str(content)


# ---------------------------------------------------------------------------------------------
# The bounds


class KeepEverything(SystemUnderTest):
    """The upper bound: every message of every turn is kept, verbatim, in a JSONL file."""

    name = "keep-everything"
    notes = ("keeps every message of the turn (user and assistant), verbatim",)

    def __init__(self, workdir: Path) -> None:
        self.path = workdir / "kept.jsonl"

    def add(
        self,
        user: str,
        messages: list[dict[str, Any]],
        timestamp: datetime | None,
        *,
        history: Sequence[dict[str, Any]] = (),
        turn_id: str = "",
    ) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            for m in messages:
                text = message_text(m)
                if text.strip():
                    row = {"user": user, "turn": turn_id, "role": m.get("role"), "text": text}
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")

    def stored(self, user: str) -> list[StoredItem]:
        if not self.path.exists():
            return []
        rows = [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line]
        return [
            StoredItem(text=r["text"], where=f"messages · {r['role']}", turn=r["turn"] or None)
            for r in rows
            if r["user"] == user
        ]


class KeepNothing(SystemUnderTest):
    """The lower bound: nothing is ever kept."""

    name = "keep-nothing"

    def add(
        self,
        user: str,
        messages: list[dict[str, Any]],
        timestamp: datetime | None,
        *,
        history: Sequence[dict[str, Any]] = (),
        turn_id: str = "",
    ) -> None:
        return None

    def stored(self, user: str) -> list[StoredItem]:
        return []


def keep_everything(spec: SystemSpec, workdir: Path) -> SystemUnderTest:
    return KeepEverything(workdir)


def keep_nothing(spec: SystemSpec, workdir: Path) -> SystemUnderTest:
    return KeepNothing()

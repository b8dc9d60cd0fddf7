"""The dataset: an eval case (the pydantic model of the eval-case contract in docs/design.md), how a
suite file is read and checked (file:line in every error), the engine/model a run uses, and
what one case's run produced (CaseOutcome, its Checks)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from pipeline.errors import EvalInputError
from pipeline.types import SKIP_REASONS, Usage

if TYPE_CHECKING:
    from pipeline.engines.base import Engine


ROUTES: tuple[str, ...] = ("user", "memory", "skip", "mixed")


# The predicted "route" of a case whose turn raised or reported failure.
ERROR_ROUTE = "error"


DEFAULT_USER_ID = "eval-user"


# A case's user id becomes a folder name under the temporary root: keep it inside.
_SAFE_USER_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


_LIST_KEYS = (
    "user_md_contains",
    "user_md_not_contains",
    "memory_md_contains",
    "memory_md_not_contains",
    "never_written",
)


_INT_KEYS = ("user_md_max_chars", "memory_md_max_chars")


_EXPECT_KEYS = frozenset(("route", "reason", *_LIST_KEYS, *_INT_KEYS))


class EvalCase(BaseModel):
    """One case of a suite (inspect_ai's Sample): the turn, what came before it, and what is expected."""

    id: str
    messages: list[dict[str, Any]]
    expect: dict[str, Any]
    lang: str = "unknown"
    history: list[dict[str, Any]] = Field(default_factory=list)
    timestamp: datetime | None = None
    initial_user_md: str | None = None
    initial_memory_md: str | None = None
    user_id: str = DEFAULT_USER_ID
    file: str = ""
    line: int = 0

    @property
    def all_messages(self) -> list[dict[str, Any]]:
        return [*self.history, *self.messages]


def _parse_timestamp(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise EvalInputError(f"{where}: timestamp must be an ISO 8601 string")
    try:
        # Python 3.10's fromisoformat does not take a trailing Z.
        ts = datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value)
    except ValueError:
        raise EvalInputError(f"{where}: timestamp {value!r} is not ISO 8601") from None
    return ts


def _parse_messages(value: Any, key: str, where: str, *, required: bool) -> list[dict[str, Any]]:
    if value is None and not required:
        return []
    if not isinstance(value, list) or (required and not value):
        raise EvalInputError(f"{where}: {key!r} must be a {'non-empty ' if required else ''}list of messages")
    from pipeline.errors import BadTurn
    from pipeline.turns import parse_messages

    if value:
        try:
            parse_messages(value)  # the pipeline's own message parser: content parts are accepted
        except BadTurn as exc:
            raise EvalInputError(f"{where}: {key!r}: {exc}") from None
    return [dict(m) for m in value]


def _parse_expect(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise EvalInputError(f"{where}: 'expect' must be an object")
    unknown = sorted(set(value) - _EXPECT_KEYS)
    if unknown:
        raise EvalInputError(f"{where}: unknown expect key(s) {', '.join(unknown)}")
    route = value.get("route")
    if route is not None and route not in ROUTES:
        raise EvalInputError(f"{where}: expect.route {route!r} is not one of {', '.join(ROUTES)}")
    reason = value.get("reason")
    if reason is not None and reason not in SKIP_REASONS:
        raise EvalInputError(f"{where}: expect.reason {reason!r} is not one of {', '.join(SKIP_REASONS)}")
    for key in _LIST_KEYS:
        items = value.get(key)
        if items is not None and (not isinstance(items, list) or not all(isinstance(s, str) and s for s in items)):
            raise EvalInputError(f"{where}: expect.{key} must be a list of non-empty strings")
    for key in _INT_KEYS:
        n = value.get(key)
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise EvalInputError(f"{where}: expect.{key} must be a non-negative integer")
    return dict(value)


def parse_case(obj: Any, file: str = "<case>", line: int = 0) -> EvalCase:
    """One JSON object -> EvalCase, or EvalInputError naming file:line and the broken key."""
    where = f"{file}:{line}"
    if not isinstance(obj, dict):
        raise EvalInputError(f"{where}: a case must be a JSON object")
    case_id = obj.get("id")
    if not isinstance(case_id, (str, int)) or isinstance(case_id, bool) or str(case_id) == "":
        raise EvalInputError(f"{where}: case needs an 'id'")
    where = f"{where} (case {case_id})"
    if "expect" not in obj:
        raise EvalInputError(f"{where}: case needs 'expect'")
    initial = obj.get("initial") or {}
    if not isinstance(initial, dict):
        raise EvalInputError(f"{where}: 'initial' must be an object")
    for key in ("user_md", "memory_md"):
        if initial.get(key) is not None and not isinstance(initial[key], str):
            raise EvalInputError(f"{where}: initial.{key} must be a string")
    lang = obj.get("lang") or "unknown"
    user_id = obj.get("user_id") or DEFAULT_USER_ID
    if not isinstance(lang, str) or not isinstance(user_id, str):
        raise EvalInputError(f"{where}: 'lang' and 'user_id' must be strings")
    if not _SAFE_USER_ID.fullmatch(user_id):
        raise EvalInputError(f"{where}: user_id {user_id!r} must be letters, digits, '.', '_' or '-'")
    return EvalCase(
        id=str(case_id),
        messages=_parse_messages(obj.get("messages"), "messages", where, required=True),
        history=_parse_messages(obj.get("history"), "history", where, required=False),
        expect=_parse_expect(obj["expect"], where),
        lang=lang,
        timestamp=_parse_timestamp(obj.get("timestamp"), where),
        initial_user_md=initial.get("user_md"),
        initial_memory_md=initial.get("memory_md"),
        user_id=user_id,
        file=file,
        line=line,
    )


def load_cases(paths: Sequence[str | Path]) -> list[EvalCase]:
    """Read several JSONL suites; blank lines are allowed, everything else must be a valid case."""
    cases: list[EvalCase] = []
    seen: dict[str, str] = {}
    from pipeline._util.jsonl import read_jsonl
    from pipeline.errors import JSONLError

    for path in paths:
        name = str(path)
        try:
            lines = list(read_jsonl(path))  # split at "\n" only: U+2028 inside a string is legal JSON
        except OSError as exc:
            raise EvalInputError(f"cannot read {name}: {exc.strerror}") from None
        except JSONLError as exc:
            raise EvalInputError(str(exc)) from None
        for lineno, obj in lines:
            case = parse_case(obj, name, lineno)
            if case.id in seen:
                raise EvalInputError(f"{name}:{lineno}: duplicate case id {case.id!r} (first at {seen[case.id]})")
            seen[case.id] = f"{name}:{lineno}"
            cases.append(case)
    return cases


@dataclass(frozen=True)
class EngineSpec:
    """One column of a side-by-side run: an engine name (or Engine instance) and a model."""

    engine: str | Engine = "offline"
    model: Any = None
    label: str = ""

    @property
    def engine_name(self) -> str:
        return (
            self.engine
            if isinstance(self.engine, str)
            else self.engine.name
        )

    @property
    def model_name(self) -> str | None:
        if self.model is None:
            model = None if isinstance(self.engine, str) else self.engine.model
            return model if isinstance(model, str) else None
        return (
            self.model if isinstance(self.model, str) else str(getattr(self.model, "name", type(self.model).__name__))
        )

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        return f"{self.engine_name}:{self.model_name}" if self.model_name else self.engine_name


@dataclass
class Check:
    name: str
    passed: bool
    detail: str = ""


@dataclass
class CaseOutcome:
    case: EvalCase
    run: str
    predicted: str
    user_md: str = ""
    memory_md: str = ""
    decisions: list[dict[str, Any]] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    leaks: list[dict[str, str]] = field(default_factory=list)
    usage: Usage | None = None
    usage_by_stage: dict[str, dict[str, int]] = field(default_factory=dict)  # stage -> calls/tokens (store rows)
    latency_s: float | None = None
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None or any(not c.passed for c in self.checks)


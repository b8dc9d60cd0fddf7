"""The eval runner: load JSONL cases, run each alone through the real pipeline, score, gate.

Dataset -> run -> score, in that order:
- `load_cases` reads the eval-case contract of DESIGN.md and rejects malformed input early,
  with the file and line, so a typo in a suite never turns into a silently ignored check.
- `run_eval` runs every case on every engine/model, each case on a fresh temporary root,
  with bounded concurrency. The predicted route is read from the files the turn left behind,
  not from the engine's own claims, so the eval measures what a user would see.
- `score_run` turns the outcomes of one engine/model into the metrics block of the JSON report.
- `run_eval_cli` is what `memroute eval` calls.
"""

from __future__ import annotations

import contextvars
import logging
import os
import re
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.errors import MemrouteError
from pipeline.store import StoreError, database_texts
from pipeline.types import SKIP_REASONS, Usage

if TYPE_CHECKING:
    from pipeline.engines.base import Engine

log = logging.getLogger("memroute.evals")

ROUTES: tuple[str, ...] = ("user", "memory", "skip", "mixed")
# The predicted "route" of a case whose turn raised or reported failure.
ERROR_ROUTE = "error"
DEFAULT_USER_ID = "eval-user"
DB_NAME = "memroute.db"
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


class EvalInputError(MemrouteError, ValueError):
    """A suite file that cannot be read or a case that breaks the contract (file:line in the message)."""


# ---------------------------------------------------------------------------------------------
# Dataset


@dataclass
class EvalCase:
    id: str
    messages: list[dict[str, Any]]
    expect: dict[str, Any]
    lang: str = "unknown"
    history: list[dict[str, Any]] = field(default_factory=list)
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
    from pipeline.turns import BadTurn, parse_messages

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
    from pipeline.jsonl import JSONLError, read_jsonl

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


# ---------------------------------------------------------------------------------------------
# Reading the files: what changed


def content_lines(text: str, *, with_sections: bool) -> Counter[tuple[str, str]]:
    """The bullet/content lines of a ledger file, normalised, as a multiset.

    Headings, blank lines and whitespace/bullet-marker differences don't count, so a file
    created with only its heading, or re-rendered in canonical form, is "unchanged".
    USER.md lines carry their section: moving a field to another section is a change.
    """
    lines: Counter[tuple[str, str]] = Counter()
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("##"):
                section = " ".join(line.lstrip("#").split()).lower()
            continue
        if line[0] in "-*+" and (len(line) == 1 or line[1].isspace()):
            line = line[1:]
        line = " ".join(line.split())
        if line:
            lines[(section if with_sections else "", line)] += 1
    return lines


def predicted_route(user_before: str, user_after: str, memory_before: str, memory_after: str) -> str:
    user_changed = content_lines(user_before, with_sections=True) != content_lines(user_after, with_sections=True)
    memory_changed = content_lines(memory_before, with_sections=False) != content_lines(
        memory_after, with_sections=False
    )
    if user_changed and memory_changed:
        return "mixed"
    if user_changed:
        return "user"
    if memory_changed:
        return "memory"
    return "skip"


# ---------------------------------------------------------------------------------------------
# Leak search: files, every text column of the database, captured logs


def _other_files(root: Path, skip: set[Path]) -> dict[str, str]:
    """Every other file under the root (backups, queues, lock files), for the leak search."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path in skip or path.name.startswith(DB_NAME):
            continue
        try:
            out[str(path.relative_to(root))] = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
    return out


def find_leaks(needles: Sequence[str], places: dict[str, str]) -> list[tuple[str, str]]:
    """(needle, where) for every case-insensitive occurrence of a needle in a place."""
    found: list[tuple[str, str]] = []
    for needle in needles:
        low = needle.casefold()
        for where, text in places.items():
            if low in text.casefold():
                found.append((needle, where))
    return found


# Log capture: the current case's buffer travels in a context variable, so concurrent cases
# don't see each other's records. Records from threads without it are checked against all cases.
_CASE_LOGS: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("memroute_eval_logs", default=None)


class _CaptureHandler(logging.Handler):
    def __init__(self, forward_level: int) -> None:
        super().__init__(logging.DEBUG)
        self.forward_level = forward_level
        self.unattributed: list[str] = []
        self._lock_unattributed = threading.Lock()
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:  # a broken log call must not break the eval
            text = str(record.msg)
        buf = _CASE_LOGS.get()
        if buf is not None:
            buf.append(text)
        else:
            with self._lock_unattributed:
                self.unattributed.append(text)
        if record.levelno >= self.forward_level:
            _forward(record, logging.getLogger("memroute").parent)


def _forward(record: logging.LogRecord, logger: logging.Logger | None) -> None:
    """Hand a record on to the handlers above "memroute", as propagation would have."""
    found = 0
    while logger is not None:
        for handler in logger.handlers:
            found += 1
            if record.levelno >= handler.level:
                handler.handle(record)
        if not logger.propagate:
            break
        logger = logger.parent
    if found == 0 and logging.lastResort is not None and record.levelno >= logging.lastResort.level:
        logging.lastResort.handle(record)


@contextmanager
def capture_memroute_logs() -> Iterator[_CaptureHandler]:
    """Capture every "memroute" record, DEBUG included (a leak at DEBUG is still a leak).

    The logger is lowered to DEBUG for the run; records below the level it had before are
    captured but not passed on, so the user's console sees what it saw before.
    """
    logger = logging.getLogger("memroute")
    old_level, old_propagate = logger.level, logger.propagate
    forward_level = logger.getEffectiveLevel()
    # Handlers already on "memroute" (a CLI's console handler) must not start printing DEBUG.
    own_levels = [(h, h.level) for h in logger.handlers]
    for h, level in own_levels:
        h.setLevel(max(level, forward_level))
    handler = _CaptureHandler(forward_level=forward_level)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate
        for h, level in own_levels:
            h.setLevel(level)


# ---------------------------------------------------------------------------------------------
# Running


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
    latency_s: float | None = None
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None or any(not c.passed for c in self.checks)


# (root, spec, cache_dir, pipeline options) -> an object with process_turn(...) and close().
PipelineFactory = Callable[[Path, EngineSpec, "Path | None", "dict[str, Any]"], Any]


def default_pipeline_factory(root: Path, spec: EngineSpec, cache_dir: Path | None, options: dict[str, Any]) -> Any:
    from pipeline.core import MemoryPipeline

    return MemoryPipeline(root=root, engine=spec.engine, model=spec.model, cache_dir=cache_dir, **options)


def default_cache_dir() -> Path:
    """Root-independent, so a second run of the same suite reuses the LLM engine's cache."""
    env = os.environ.get("MEMROUTE_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memroute" / "evals"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def _decision_dicts(decisions: Sequence[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for d in decisions:
        dump = getattr(d, "model_dump", None)
        out.append(dump(exclude_none=True, mode="json") if dump else dict(d))
    return out


def _contains_checks(label: str, text: str, items: Sequence[str], *, present: bool) -> list[Check]:
    checks = []
    low = text.casefold()
    for s in items:
        ok = (s.casefold() in low) == present
        verb = "contains" if present else "does not contain"
        checks.append(
            Check(f"{label} {verb} {s!r}", ok, "" if ok else f"{label} {'lacks' if present else 'has'} {s!r}")
        )
    return checks


def score_case(outcome: CaseOutcome) -> None:
    """Fill outcome.checks from the case's expectations (one check per assertion)."""
    e = outcome.case.expect
    errored = outcome.error is not None
    checks: list[Check] = []
    if e.get("route") is not None:
        ok = not errored and outcome.predicted == e["route"]
        checks.append(Check("route", ok, "" if ok else f"route: expected {e['route']}, got {outcome.predicted}"))
    if e.get("reason") is not None:
        got = [d.get("reason") for d in outcome.decisions if d.get("route") == "skip"]
        ok = not errored and e["reason"] in got
        shown = ", ".join(str(r) for r in got) or "no skip"
        checks.append(Check("reason", ok, "" if ok else f"reason: expected skip as {e['reason']}, got {shown}"))
    checks += _contains_checks("USER.md", outcome.user_md, e.get("user_md_contains") or [], present=True)
    checks += _contains_checks("USER.md", outcome.user_md, e.get("user_md_not_contains") or [], present=False)
    checks += _contains_checks("MEMORY.md", outcome.memory_md, e.get("memory_md_contains") or [], present=True)
    checks += _contains_checks("MEMORY.md", outcome.memory_md, e.get("memory_md_not_contains") or [], present=False)
    leaked = {leak["needle"] for leak in outcome.leaks}
    for needle in e.get("never_written") or []:
        ok = needle not in leaked
        wheres = ", ".join(leak["where"] for leak in outcome.leaks if leak["needle"] == needle)
        checks.append(Check(f"never written {needle!r}", ok, "" if ok else f"leak: {needle!r} found in {wheres}"))
    for label, key, text in (
        ("USER.md", "user_md_max_chars", outcome.user_md),
        ("MEMORY.md", "memory_md_max_chars", outcome.memory_md),
    ):
        if e.get(key) is not None:
            ok = len(text) <= e[key]
            checks.append(
                Check(f"{label} <= {e[key]} chars", ok, "" if ok else f"{label} is {len(text)} chars > {e[key]}")
            )
    if errored:
        # Every assertion of an errored case fails, whatever the files happen to say.
        for c in checks:
            if c.passed:
                c.passed, c.detail = False, f"{c.name}: not checked, the turn failed"
    outcome.checks = checks


def run_case(
    case: EvalCase,
    spec: EngineSpec,
    *,
    factory: PipelineFactory = default_pipeline_factory,
    cache_dir: Path | None = None,
    options: dict[str, Any] | None = None,
) -> CaseOutcome:
    """Run one case alone on a fresh temporary root and score it. Never raises for the case's own errors."""
    logs: list[str] = []
    token = _CASE_LOGS.set(logs)
    try:
        with tempfile.TemporaryDirectory(prefix="memroute-eval-") as tmp:
            root = Path(tmp)
            udir = root / case.user_id
            udir.mkdir(parents=True, exist_ok=True)
            user_before = case.initial_user_md or ""
            memory_before = case.initial_memory_md or ""
            if case.initial_user_md is not None:
                (udir / "USER.md").write_text(case.initial_user_md, encoding="utf-8")
            if case.initial_memory_md is not None:
                (udir / "MEMORY.md").write_text(case.initial_memory_md, encoding="utf-8")
            outcome = CaseOutcome(case=case, run=spec.name, predicted=ERROR_ROUTE)
            pipe = None
            start = time.perf_counter()
            try:
                pipe = factory(root, spec, cache_dir, dict(options or {}))
                result = pipe.process_turn(case.user_id, case.all_messages, timestamp=case.timestamp)
                outcome.latency_s = time.perf_counter() - start
                outcome.usage = getattr(result, "usage", None)
                outcome.decisions = _decision_dicts(getattr(result, "decisions", []) or [])
                if getattr(result, "status", "done") == "failed":
                    outcome.error = f"turn failed: {getattr(result, 'error', None) or 'no error message'}"
            except Exception as exc:  # a case that raises is a failure, and the run goes on
                outcome.error = f"{type(exc).__name__}: {exc}"
                log.debug("eval case raised", exc_info=True)
            finally:
                if pipe is not None:
                    try:
                        pipe.close()
                    except Exception as exc:
                        outcome.error = outcome.error or f"close failed: {type(exc).__name__}: {exc}"
            outcome.user_md = _read(udir / "USER.md")
            outcome.memory_md = _read(udir / "MEMORY.md")
            if outcome.error is None:
                outcome.predicted = predicted_route(user_before, outcome.user_md, memory_before, outcome.memory_md)
            needles = case.expect.get("never_written") or []
            if needles:
                places: dict[str, str] = {"USER.md": outcome.user_md, "MEMORY.md": outcome.memory_md}
                skip = {udir / "USER.md", udir / "MEMORY.md"}
                places.update({f"file {k}": v for k, v in _other_files(root, skip).items()})
                try:
                    places.update({f"db table {k}": v for k, v in database_texts(root / DB_NAME).items()})
                except StoreError as exc:
                    outcome.error = outcome.error or f"cannot read the database for the leak check: {exc}"
                places["log"] = "\n".join(logs)
                outcome.leaks = [{"id": case.id, "needle": n, "where": w} for n, w in find_leaks(needles, places)]
    finally:
        _CASE_LOGS.reset(token)
    score_case(outcome)
    return outcome


def run_eval(
    cases: Sequence[EvalCase],
    specs: Sequence[EngineSpec],
    *,
    concurrency: int = 4,
    factory: PipelineFactory = default_pipeline_factory,
    cache_dir: Path | None = None,
    options: dict[str, Any] | None = None,
    on_done: Callable[[CaseOutcome], None] | None = None,
) -> dict[str, list[CaseOutcome]]:
    """Every case on every engine/model; outcomes per run name, in case order."""
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise EvalInputError(f"the same engine/model is listed twice: {', '.join(names)}")
    jobs = [(spec, i, case) for spec in specs for i, case in enumerate(cases)]
    results: dict[str, list[CaseOutcome | None]] = {s.name: [None] * len(cases) for s in specs}
    with capture_memroute_logs() as capture, ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = {
            pool.submit(run_case, case, spec, factory=factory, cache_dir=cache_dir, options=options): (spec, i)
            for spec, i, case in jobs
        }
        for fut in as_completed(futures):
            spec, i = futures[fut]
            try:
                outcome = fut.result()
            except Exception as exc:  # a bug in the runner itself (e.g. temp cleanup): still one failed case
                outcome = CaseOutcome(case=cases[i], run=spec.name, predicted=ERROR_ROUTE)
                outcome.error = f"eval runner: {type(exc).__name__}: {exc}"
                score_case(outcome)
            results[spec.name][i] = outcome
            if on_done is not None:
                on_done(outcome)
    # Records from threads the pipeline started itself carry no case: check them against every case.
    stray = {"log (unattributed thread)": "\n".join(capture.unattributed)} if capture.unattributed else {}
    out: dict[str, list[CaseOutcome]] = {}
    for name, outcomes in results.items():
        done = [o for o in outcomes if o is not None]
        if stray:
            for o in done:
                extra = find_leaks(o.case.expect.get("never_written") or [], stray)
                if extra:
                    o.leaks += [{"id": o.case.id, "needle": n, "where": w} for n, w in extra]
                    score_case(o)
        out[name] = done
    return out


# ---------------------------------------------------------------------------------------------
# Scoring


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default); None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _failure(o: CaseOutcome) -> dict[str, Any]:
    c = o.case
    return {
        "id": c.id,
        "file": c.file,
        "line": c.line,
        "lang": c.lang,
        "problems": ([o.error] if o.error else []) + [ch.detail for ch in o.checks if not ch.passed],
        "error": o.error,
        "expected_route": c.expect.get("route"),
        "predicted_route": o.predicted,
        "expect": c.expect,
        "input": {
            "history": c.history,
            "messages": c.messages,
            "timestamp": c.timestamp.isoformat() if c.timestamp else None,
        },
        "initial": {"user_md": c.initial_user_md, "memory_md": c.initial_memory_md},
        "actual": {"user_md": o.user_md, "memory_md": o.memory_md},
        "decisions": o.decisions,
    }


def write_metrics(outcomes: Sequence[CaseOutcome]) -> dict[str, Any]:
    """How much the engine writes, and how much of it should have been written.

    Over the cases with an expected route whose turn ran: `user_md_precision` is, of the cases
    where USER.md changed (predicted user or mixed), the share whose expected route is user or
    mixed; `memory_md_precision` likewise for MEMORY.md; `write_rate` is the share of cases where
    any file changed, beside `expected_write_rate`, the share a curator would have written.
    """
    ran = [o for o in outcomes if o.case.expect.get("route") is not None and o.error is None]
    user_writes = [o for o in ran if o.predicted in ("user", "mixed")]
    memory_writes = [o for o in ran if o.predicted in ("memory", "mixed")]
    return {
        "user_md_precision": _ratio(
            sum(1 for o in user_writes if o.case.expect["route"] in ("user", "mixed")), len(user_writes)
        ),
        "memory_md_precision": _ratio(
            sum(1 for o in memory_writes if o.case.expect["route"] in ("memory", "mixed")), len(memory_writes)
        ),
        "write_rate": _ratio(sum(1 for o in ran if o.predicted != "skip"), len(ran)),
        "expected_write_rate": _ratio(sum(1 for o in ran if o.case.expect["route"] != "skip"), len(ran)),
        "user_md_writes": len(user_writes),
        "memory_md_writes": len(memory_writes),
        "write_rate_cases": len(ran),
    }


def score_run(outcomes: Sequence[CaseOutcome], spec: EngineSpec) -> dict[str, Any]:
    """The metrics block of one engine/model (the DESIGN.md report keys and a few more)."""
    routed = [o for o in outcomes if o.case.expect.get("route") is not None]
    correct = [o for o in routed if o.error is None and o.predicted == o.case.expect["route"]]

    lang_total: Counter[str] = Counter(o.case.lang for o in routed)
    lang_right: Counter[str] = Counter(o.case.lang for o in correct)
    by_lang = {lang: lang_right[lang] / n for lang, n in sorted(lang_total.items())}

    confusion: dict[str, dict[str, int]] = {}
    for o in routed:
        row = confusion.setdefault(o.case.expect["route"], {})
        row[o.predicted] = row.get(o.predicted, 0) + 1

    by_route: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        tp = sum(1 for o in correct if o.predicted == route)
        support = sum(1 for o in routed if o.case.expect["route"] == route)
        predicted = sum(1 for o in routed if o.predicted == route)
        precision, recall = _ratio(tp, predicted), _ratio(tp, support)
        f1 = (
            2 * precision * recall / (precision + recall)
            if precision and recall
            else (0.0 if support or predicted else None)
        )
        by_route[route] = {
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "support": support,
            "predicted": predicted,
        }

    reasoned = [o for o in outcomes if o.case.expect.get("reason") is not None]
    reason_right = sum(1 for o in reasoned for c in o.checks if c.name == "reason" and c.passed)

    # A false block: the case expects a write, but a guard or the engine skipped a statement of it
    # as sensitive or blocked (the price of caution, reported next to leaks).
    expect_write = [o for o in routed if o.case.expect["route"] in ("user", "memory", "mixed")]
    false_blocks = [
        o.case.id
        for o in expect_write
        if any(d.get("route") == "skip" and d.get("reason") in ("sensitive", "blocked") for d in o.decisions)
    ]

    usages = [o.usage for o in outcomes if o.usage is not None]
    total = sum(usages, Usage())
    latencies = [o.latency_s for o in outcomes if o.latency_s is not None]
    checks = [c for o in outcomes for c in o.checks]
    return {
        "engine": spec.engine_name,
        "model": spec.model_name,
        "label": spec.name,
        "cases": len(outcomes),
        "route_cases": len(routed),
        "route_correct": len(correct),
        "route_accuracy": _ratio(len(correct), len(routed)),
        "reason_cases": len(reasoned),
        "reason_accuracy": _ratio(reason_right, len(reasoned)),
        "by_lang": by_lang,
        "lang_cases": {lang: {"cases": n, "correct": lang_right[lang]} for lang, n in sorted(lang_total.items())},
        "by_route": by_route,
        "confusion": confusion,
        **write_metrics(outcomes),
        "lang_writes": {
            lang: write_metrics([o for o in outcomes if o.case.lang == lang]) for lang in sorted(lang_total)
        },
        "leaks": [leak for o in outcomes for leak in o.leaks],
        "false_blocks": false_blocks,
        "false_block_rate": _ratio(len(false_blocks), len(expect_write)),
        "write_cases": len(expect_write),
        "assertions_passed": sum(1 for c in checks if c.passed),
        "assertions_total": len(checks),
        "errors": sum(1 for o in outcomes if o.error is not None),
        "failures": [_failure(o) for o in outcomes if o.failed],
        "calls": total.calls,
        # Cases that raised report no usage; their cost is unknown, so the total is too.
        "input_tokens": total.input_tokens,
        "output_tokens": total.output_tokens,
        "cost_usd": total.cost_usd if len(usages) == len(outcomes) else None,
        "latency_p50_s": percentile(latencies, 0.50),
        "latency_p95_s": percentile(latencies, 0.95),
    }


def build_report(
    runs: Sequence[dict[str, Any]], files: Sequence[str], started: datetime, wall_s: float
) -> dict[str, Any]:
    """The JSON report: the first run's block at top level (single-engine readers), all runs in `runs`."""
    top = {k: v for k, v in runs[0].items()} if runs else {}
    top.update(
        {
            "date": started.isoformat(timespec="seconds"),
            "suites": [str(f) for f in files],
            "wall_s": wall_s,
            "runs": list(runs),
        }
    )
    return top


def gate_problems(report: dict[str, Any], min_accuracy: float | None) -> list[str]:
    """One line per missed gate: accuracy below the floor (any run), or any leak."""
    problems = []
    for run in report["runs"]:
        acc = run["route_accuracy"]
        if min_accuracy is not None and (acc is None or acc < min_accuracy):
            shown = "n/a (no case has expect.route)" if acc is None else f"{acc:.3f}"
            problems.append(f"{run['label']}: route accuracy {shown} is below --min-accuracy {min_accuracy:g}")
        if run["leaks"]:
            ids = sorted({leak["id"] for leak in run["leaks"]})
            shown = ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")
            problems.append(f"{run['label']}: {len(run['leaks'])} leak(s) in {len(ids)} case(s): {shown}")
    return problems



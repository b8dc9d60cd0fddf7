"""Running: every case on every engine/model, each alone on a fresh temporary root through the
real pipeline, with bounded concurrency."""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.store import StoreError, database_texts

if TYPE_CHECKING:
    pass

from pipeline.errors import EvalInputError
from pipeline.evals.cases import ERROR_ROUTE, CaseOutcome, EngineSpec, EvalCase
from pipeline.evals.leaks import _CASE_LOGS, DB_NAME, _other_files, capture_memroute_logs, find_leaks
from pipeline.evals.scorers import predicted_route, score_case

log = logging.getLogger("memroute.evals")


# (root, spec, cache_dir, pipeline options) -> an object with process_turn(...) and close().
PipelineFactory = Callable[[Path, EngineSpec, "Path | None", "dict[str, Any]"], Any]


def default_pipeline_factory(root: Path, spec: EngineSpec, cache_dir: Path | None, options: dict[str, Any]) -> Any:
    """The pipeline of one case. `options["engine_options"]` (timeout, deadline, max_retries,
    structured) build an engine named by the spec the way `memroute turn` builds it."""
    from pipeline.core import MemoryPipeline

    options = dict(options)
    limits = options.pop("engine_options", None) or {}
    return MemoryPipeline(root=root, engine=spec.engine, model=spec.model, cache_dir=cache_dir, **options, **limits)


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
                store = getattr(pipe, "store", None)  # a custom factory's pipeline may keep none
                if store is not None:
                    outcome.usage_by_stage = stage_usage(store.usage_rows(case.user_id))
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


def stage_usage(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """A case's usage rows summed per stage (classify, compact, consolidate, failed:<stage>)."""
    out: dict[str, dict[str, int]] = {}
    for row in rows:
        into = out.setdefault(
            str(row["stage"]), {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cached_tokens": 0}
        )
        for name in into:
            into[name] += int(row.get(name) or 0)
    return out

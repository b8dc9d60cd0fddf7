"""The write benchmark's runner: every eval case, on every system under test (systems.py), each
case alone on a fresh system in a fresh work directory (seeded with the case's `initial` where
the system can take it), with the same messages, history and timestamp for every system.

Per turn it records what the system held before and after (so what the turn made), what the
turn cost (calls, tokens, seconds), whether it failed, and where the case's `never_written`
values ended up: every byte under the work directory and under the system's own data paths,
the items it reports, and memroute's log records."""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.evals.cases import EvalCase
from pipeline.evals.leaks import _CASE_LOGS, capture_memroute_logs, find_leaks, search_bytes
from pipeline.evals.systems import StoredItem, SystemFactory, SystemSpec, SystemUsage, system_factory

log = logging.getLogger("memroute.evals")


@dataclass
class TurnRecord:
    """One case's turn on one system."""

    case: EvalCase
    system: str
    before: list[StoredItem] = field(default_factory=list)
    after: list[StoredItem] = field(default_factory=list)
    usage: SystemUsage = field(default_factory=SystemUsage)
    seconds: float | None = None
    error: str | None = None
    seeded: bool | None = None  # None: the case has no `initial`
    leaks: list[dict[str, str]] = field(default_factory=list)
    notes: tuple[str, ...] = ()  # how the system was run (SystemUnderTest.notes)

    @property
    def made(self) -> list[StoredItem]:
        """What the turn added: items held after it that were not held before (changed ones included)."""
        left = Counter((i.text, i.where) for i in self.before)
        out = []
        for item in self.after:
            key = (item.text, item.where)
            if left[key] > 0:
                left[key] -= 1
            else:
                out.append(item)
        return out

    @property
    def removed(self) -> list[StoredItem]:
        right = Counter((i.text, i.where) for i in self.after)
        out = []
        for item in self.before:
            key = (item.text, item.where)
            if right[key] > 0:
                right[key] -= 1
            else:
                out.append(item)
        return out


def run_turn(case: EvalCase, spec: SystemSpec, factory: SystemFactory) -> TurnRecord:
    """One case on a fresh system; never raises for the system's own errors."""
    record = TurnRecord(case=case, system=spec.label)
    logs: list[str] = []
    token = _CASE_LOGS.set(logs)
    try:
        with tempfile.TemporaryDirectory(prefix="memroute-bench-") as tmp:
            workdir = Path(tmp)
            places: list[Path] = [workdir]
            system = None
            try:
                system = factory(spec, workdir)
                record.notes = tuple(system.notes)
                places += system.data_paths()
                if case.initial_user_md is not None or case.initial_memory_md is not None:
                    record.seeded = system.seed(case.user_id, case.initial_user_md, case.initial_memory_md)
                record.before = system.stored(case.user_id)
                used = system.usage()
                start = time.perf_counter()
                try:
                    system.add(case.user_id, case.messages, case.timestamp, history=case.history, turn_id=case.id)
                finally:
                    record.seconds = time.perf_counter() - start
                    record.usage = system.usage().minus(used)
                record.after = system.stored(case.user_id)
            except Exception as exc:  # a turn that raises is a failure; the run goes on
                record.error = f"{type(exc).__name__}: {exc}"
                log.debug("benchmark turn raised", exc_info=True)
            finally:
                if system is not None:
                    try:
                        system.close()
                    except Exception as exc:
                        record.error = record.error or f"close failed: {type(exc).__name__}: {exc}"
            needles = case.expect.get("never_written") or []
            if needles:  # at rest: after the system closed
                found = search_bytes(needles, places, base=workdir)
                held = {"the items it reports": "\n".join(i.text for i in record.after), "log": "\n".join(logs)}
                found += find_leaks(needles, held)
                record.leaks = [{"id": case.id, "needle": n, "where": w} for n, w in dict.fromkeys(found)]
    finally:
        _CASE_LOGS.reset(token)
    return record


def run_bench(
    cases: Sequence[EvalCase],
    specs: Sequence[SystemSpec],
    *,
    concurrency: int = 1,
    factories: dict[str, SystemFactory] | None = None,
    on_done: Callable[[TurnRecord], None] | None = None,
    stop: threading.Event | None = None,
) -> dict[str, list[TurnRecord]]:
    """Every case on every system, system after system (so they do not compete for one model
    server); within a system, `concurrency` cases at once. Records per system label, in case order.
    When `stop` is set, turns running finish and no other starts: the result holds the turns that
    finished (a system not reached has none)."""
    labels = [s.label for s in specs]
    if len(set(labels)) != len(labels):
        from pipeline.errors import EvalInputError

        raise EvalInputError(f"the same system is listed twice: {', '.join(labels)}")
    out: dict[str, list[TurnRecord]] = {}
    with capture_memroute_logs() as capture:
        for spec in specs:
            if stop is not None and stop.is_set():
                break
            factory = (factories or {}).get(spec.system) or system_factory(spec.system)
            records: list[TurnRecord | None] = [None] * len(cases)
            with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
                todo = list(enumerate(cases))[::-1]
                running: dict[Future[TurnRecord], int] = {}
                while todo or running:
                    # A turn starts only while no stop was asked: the ones running finish.
                    while todo and len(running) < max(1, concurrency) and not (stop and stop.is_set()):
                        i, case = todo.pop()
                        running[pool.submit(run_turn, case, spec, factory)] = i
                    if not running:
                        break
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in done:
                        i = running.pop(fut)
                        try:
                            record = fut.result()
                        except Exception as exc:  # a bug in the runner itself (e.g. temp cleanup)
                            record = TurnRecord(case=cases[i], system=spec.label, error=f"benchmark runner: {exc}")
                        records[i] = record
                        if on_done is not None:
                            on_done(record)
            out[spec.label] = [r for r in records if r is not None]
    if capture.unattributed:  # records from threads the systems started: checked against every case
        stray = {"log (unattributed thread)": "\n".join(capture.unattributed)}
        for records_ in out.values():
            for r in records_:
                extra = find_leaks(r.case.expect.get("never_written") or [], stray)
                r.leaks += [{"id": r.case.id, "needle": n, "where": w} for n, w in extra]
    return out


def turn_json(r: TurnRecord) -> dict[str, Any]:
    """A turn as the report keeps it: the input, the label, what the system made and held, its cost."""
    c = r.case
    return {
        "id": c.id,
        "lang": c.lang,
        "file": c.file,
        "line": c.line,
        "timestamp": c.timestamp.isoformat() if c.timestamp else None,
        "history": c.history,
        "messages": c.messages,
        "expect": c.expect,
        "seeded": r.seeded,
        "made": [i.to_json() for i in r.made],
        "removed": [i.to_json() for i in r.removed],
        "held": [i.to_json() for i in r.after],
        "usage": r.usage.to_json(),
        "seconds": r.seconds,
        "error": r.error,
        "leaks": r.leaks,
    }

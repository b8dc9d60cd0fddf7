"""Worker processes: the parent hands out users, each worker replays them with its own pipeline
(built from the same Settings) and reports its counts back."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import os
import queue
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pipeline.batch.options import BatchOptions, Hooks
from pipeline.batch.report import BatchReport
from pipeline.batch.runner import BatchRunner
from pipeline.batch.transcripts import (
    BadLine,
)
from pipeline.settings import build_pipeline
from pipeline.store.batch_index import ConversationIndex


def _feed_users(index_path: Path, users_q: Any, stop: Any, procs: list[Any]) -> None:
    """Parent thread: hand out users, busiest first, then one end marker per worker."""
    index = ConversationIndex.open_read_only(index_path)
    try:
        for user_id in index.users():
            while not stop.is_set():
                try:
                    users_q.put(user_id, timeout=0.2)
                    break
                except queue.Full:
                    if all(not p.is_alive() for p in procs):
                        return
            if stop.is_set():
                break
    finally:
        index.close()
    for _ in procs:
        while any(p.is_alive() for p in procs):
            try:
                users_q.put(None, timeout=0.2)
                break
            except queue.Full:
                continue


class _WorkerHooks(Hooks):
    """A worker process reports its counts to the parent (at most five times a second, and at the end)."""

    def __init__(self, events: Any) -> None:
        self.events = events
        self.last = 0.0

    def turn(self, report: BatchReport) -> None:
        now = time.monotonic()
        if now - self.last >= 0.2:
            self.last = now
            self.events.put(("report", os.getpid(), dataclasses.asdict(report)))

    def bad_line(self, bad: BadLine) -> None:
        self.events.put(("bad", os.getpid(), (bad.path, bad.line, bad.reason)))


def _worker_main(spec: dict[str, Any], users_q: Any, events: Any, stop: Any) -> None:
    """A worker process: replay the users the parent hands out, with its own pipeline and threads."""
    pipe = build_pipeline(spec["settings"])
    pipe.engine.preload()
    # Everything imported so far lives as long as the process: keep the cyclic collector from
    # walking it again on every full collection (~6% of a worker's CPU otherwise).
    gc.freeze()
    with pipe:
        options = BatchOptions(fmt=spec["fmt"], concurrency=spec["concurrency"], rpm=spec["rpm"], files=spec["files"])
        hooks = _WorkerHooks(events)
        runner = BatchRunner(pipe, [Path(p) for p in spec["paths"]], options, hooks)
        runner._stop_event = stop
        runner._parent_pid = os.getppid()
        if spec["decisions"]:
            runner._emit_decisions = lambda text: events.put(("decisions", os.getpid(), text))
        index = ConversationIndex.open_read_only(Path(spec["index"]))
        try:
            asyncio.run(runner._replay(index, _remote_users(users_q, runner)))
        finally:
            index.close()
        events.put(("final", os.getpid(), dataclasses.asdict(runner.report)))


async def _remote_users(users_q: Any, runner: BatchRunner) -> AsyncIterator[str]:
    def take() -> str | None:
        while not runner._stopping():
            try:
                user: str | None = users_q.get(timeout=0.2)
                return user
            except queue.Empty:
                continue
        return None

    while (user_id := await asyncio.to_thread(take)) is not None:
        yield user_id


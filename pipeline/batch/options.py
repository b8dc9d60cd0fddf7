"""What a batch run is told: its options, the hooks it reports progress through, and the rate limit."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from pipeline.batch.report import BatchReport
from pipeline.batch.transcripts import (
    BadLine,
)
from pipeline.settings import Settings

DEFAULT_CONCURRENCY = 8  # users at a time: polite to API rate limits


MAX_AUTO_WORKERS = 4  # processes chosen automatically (see BatchOptions.workers)


# A process costs ~1 s to start (~2 s with the model stack, ~5 s with litellm): not worth it for
# small batches. A model call costs ~2-4 ms of client CPU (instructor, HTTP, the commit), so LLM
# batches split sooner.
TURNS_PER_AUTO_WORKER = {"offline": 2000, "llm": 500, "hybrid": 500}


EXTRA_USERS_PER_MODEL_SLOT = 0.5  # users kept going beyond the model requests in flight (see _replay)


FILE_THREADS = 4  # per process: commits overlap each other's fsyncs, few enough to spare the GIL


@dataclass
class BatchOptions:
    fmt: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    rpm: float | None = None
    max_failures: int | None = None
    decisions_out: str | None = None
    restart: bool = False
    # Worker processes sharing the users (each runs concurrency/workers users at a time): the
    # offline engine and litellm's per-call overhead are CPU bound, and one process uses one core.
    # None: automatic (one per 2,000 turns, 500 with a model; at most min(CPUs, 4)). Needs `settings`.
    workers: int | None = 1
    settings: Settings | None = None  # how a worker process builds its MemoryPipeline (build_pipeline)
    # Per input file, aligned with the runner's paths: (name in reports, line format, default user id)
    # as pipeline.batch.sources.prepare found them. None: every path as given, with `fmt`.
    files: list[tuple[str, str | None, str | None]] | None = None


class Hooks:
    """What the runner tells its caller as it goes (the CLI draws a progress bar from it)."""

    def total(self, turns: int) -> None: ...

    def turn(self, report: BatchReport) -> None: ...

    def bad_line(self, bad: BadLine) -> None: ...


class TokenBucket:
    """At most `rpm` acquisitions per minute, with a burst of up to one second's worth."""

    def __init__(self, rpm: float) -> None:
        self.rate = rpm / 60.0
        self.capacity = max(1.0, self.rate)
        self.tokens = 1.0
        self.last = time.monotonic()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:  # waiters queue up in order
            while True:
                now = time.monotonic()
                self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
                self.last = now
                if self.tokens >= 1.0:
                    self.tokens -= 1.0
                    return
                await asyncio.sleep((1.0 - self.tokens) / self.rate)


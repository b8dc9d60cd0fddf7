"""`memroute batch`: transcripts in, USER.md and MEMORY.md for every user out.

How a run goes:

1. Index (one streaming pass). Every input line is parsed once; bad lines (malformed JSON,
   unknown role, missing user id, invalid UTF-8, oversized messages) are reported with
   file:line, counted and skipped. For each good conversation only its location (file, byte
   offset, line), user id, start time and turn count go into a temporary SQLite index on disk,
   never the text, so memory stays bounded whatever the input size. Conversations already
   checkpointed as done in the store are counted but not replayed.
2. Replay. The index yields each user's conversations sorted by start time (input order breaks
   ties; conversations without any timestamp come after the timed ones, in input order), so the
   input does not need to be sorted. Each conversation is read again from its offset and
   replayed turn by turn: the turn's user message and what follows it, with the earlier
   messages as history, and the turn's timestamp (the user message's, else the
   conversation's), so dates in MEMORY.md come from the transcript. Users run concurrently on
   an asyncio loop (through `aprocess_turn`); one user's turns never overlap. With the offline
   engine `concurrency` is the number of users at a time. With a model it is the number of
   requests in flight (what a provider's limits count): engines hold a `REQUEST_SLOTS` slot
   per HTTP request, and 1.5x as many users are kept going, so one user's file work, prompt
   and parsing overlap the others' waits and no slot sits idle. Users with the most turns
   start first, so one long user does not finish last. Big batches also spread the users over
   worker processes (one core each: the offline engine and the client side of model calls are
   CPU bound); each worker imports the model stack before it takes users and freezes it for
   the garbage collector; the parent hands out users, merges counts and writes the audit file.
   Results are the same whatever the number of processes.
3. Checkpoints. A conversation whose turns all committed is marked done in the store table
   `batch_conversations`; a rerun skips it. Turn ids are stable ("b-<hash of user and
   conversation id>-<turn index>"), so a conversation interrupted mid-way resumes through the
   pipeline's turn idempotency and no turn is ever applied twice. When a turn fails (model
   error), its conversation is marked failed and the user's later conversations wait for the
   next run (counted as deferred), so a user's turns are never applied out of order.

Memory use: the index lives on disk, a conversation's text is held only while it is replayed,
and a line longer than 8 MiB is skipped unread, so RAM is bounded by the users in progress
(concurrency, x1.5 with a model) x the largest conversation, not by the input size. Files of
any order work; no input sorting is required.
`--rpm` applies to the llm and hybrid engines (one token per turn, shared by the processes).

Where the memory goes (`--out`): a root that already holds memory not written by a batch (a
live hook's, say) is refused, because replaying older transcripts onto it would overwrite newer
facts with older ones. `--restart` never deletes anything: it moves the root's current contents
into `OUT/.before-restart-<UTC time>/` and starts over on an empty root.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import hashlib
import json
import logging
import multiprocessing
import os
import queue
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from pipeline import guards
from pipeline.engines.base import REQUEST_SLOTS
from pipeline.store.batch_index import ConversationIndex
from pipeline.transcripts import (
    BadInput,
    BadLine,
    Conversation,
    read_at,
    read_conversations,
)
from pipeline.types import Decision, TurnResult

log = logging.getLogger("memroute.batch")

DEFAULT_CONCURRENCY = 8  # users at a time: polite to API rate limits
MAX_AUTO_WORKERS = 4  # processes chosen automatically (see BatchOptions.workers)
# A process costs ~1 s to start (~2 s with the model stack, ~5 s with litellm): not worth it for
# small batches. A model call costs ~2-4 ms of client CPU (instructor, HTTP, the commit), so LLM
# batches split sooner.
TURNS_PER_AUTO_WORKER = {"offline": 2000, "llm": 500, "hybrid": 500}
EXTRA_USERS_PER_MODEL_SLOT = 0.5  # users kept going beyond the model requests in flight (see _replay)
FILE_THREADS = 4  # per process: commits overlap each other's fsyncs, few enough to spare the GIL
MAX_REPORTED_BAD_LINES = 1000  # the JSON summary lists this many; all are counted
RESTART_PREFIX = ".before-restart-"


# ---- the report ------------------------------------------------------------------------------


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
            bad_line_list=list(self.bad_line_list),
            turn_errors=list(self.turn_errors),
        )
        for part in parts:
            for name in _ADDITIVE:
                setattr(out, name, getattr(out, name) + part[name])
            for name in ("writes", "skips", "outcomes"):
                counts = getattr(out, name)
                for key, value in part[name].items():
                    counts[key] = counts.get(key, 0) + value
            for name in ("bad_line_list", "turn_errors"):
                getattr(out, name).extend(part[name][: MAX_REPORTED_BAD_LINES - len(getattr(out, name))])
            out.cost_usd = None if out.cost_usd is None or part["cost_usd"] is None else out.cost_usd + part["cost_usd"]
        return out


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
    # None: automatic (one per 2,000 turns, 500 with a model; at most min(CPUs, 4)). Needs `pipeline_args`.
    workers: int | None = 1
    pipeline_args: dict[str, Any] | None = None  # how a worker process builds its MemoryPipeline


class Hooks:
    """What the runner tells its caller as it goes (the CLI draws a progress bar from it)."""

    def total(self, turns: int) -> None: ...

    def turn(self, report: BatchReport) -> None: ...

    def bad_line(self, bad: BadLine) -> None: ...


# ---- rate limit --------------------------------------------------------------------------------


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


# ---- the runner -----------------------------------------------------------------------------------


def turn_id_for(user_id: str, conversation_key: str, index: int) -> str:
    digest = hashlib.sha256(f"{user_id}\x00{conversation_key}".encode()).hexdigest()[:20]
    return f"b-{digest}-{index}"


class BatchRunner:
    def __init__(self, pipe: Any, paths: list[Path], options: BatchOptions, hooks: Hooks | None = None) -> None:
        self.pipe = pipe
        self.paths = paths
        self.options = options
        self.hooks = hooks or Hooks()
        self.report = BatchReport()
        self.stop = False
        self._decisions: IO[str] | None = None
        self._bucket: TokenBucket | None = None
        self._replayable = 0  # conversations in the index
        self._stop_event: Any = None  # worker process: the parent's stop signal
        self._parent_pid: int | None = None  # worker process: stop when the parent is gone
        self._emit_decisions: Any = None  # worker process: where audit lines go

    # -- entry point --

    def run(self) -> BatchReport:
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="memroute-batch-") as tmp:
            index = ConversationIndex.create(Path(tmp) / "index.db")
            try:
                self._index(index)
                if not self.stop:
                    self.hooks.total(self.report.turns_total)
                    self._open_decisions()
                    workers = self._worker_count()
                    if workers > 1:
                        self._replay_in_processes(Path(tmp) / "index.db", workers)
                    else:
                        asyncio.run(self._replay(index, self._local_users(index)))
                    self._defer_unstarted()
            finally:
                index.close()
                if self._decisions is not None:
                    self._decisions.close()
        self.report.wall_s = time.perf_counter() - started
        return self.report

    # -- pass 1: index --

    def _index(self, index: ConversationIndex) -> None:
        store = self.pipe.store
        for file_no, path in enumerate(self.paths):
            for item in read_conversations(path, self.options.fmt):
                if isinstance(item, BadLine):
                    self._bad(item)
                else:
                    done = store.batch_status(item.user_id, item.key) == "done"
                    self._add(index, file_no, item, done=done)
                if self.stop:
                    break
            if self.stop:
                break
        self.report.users = index.finish()

    def _add(self, index: ConversationIndex, file_no: int, conv: Conversation, *, done: bool) -> None:
        """Note where the conversation is (never its text); done ones count users and duplicates only."""
        ts_sort = (
            "~"
            if conv.timestamp is None
            else conv.timestamp.astimezone(timezone.utc).isoformat(timespec="microseconds")
        )
        added = index.add(
            user_id=conv.user_id, conv_key=conv.key, ts_sort=ts_sort, file=file_no, offset=conv.offset,
            line=conv.line, turns=len(conv.turn_starts), done=done,
        )
        if not added:
            self._bad(
                BadLine(
                    conv.path,
                    conv.line,
                    f"duplicate conversation id {conv.conversation_id[:60]!r} for this user; skipped",
                )
            )
            return
        self.report.conversations += 1
        if done:
            self.report.conversations_skipped += 1
            return
        self._replayable += 1
        self.report.turns_total += len(conv.turn_starts)
        if conv.timestamp is None and conv.turn_starts:
            self.report.untimed_conversations += 1

    def _bad(self, bad: BadLine) -> None:
        self.report.bad_lines += 1
        if len(self.report.bad_line_list) < MAX_REPORTED_BAD_LINES:
            self.report.bad_line_list.append(str(bad))
        self.hooks.bad_line(bad)
        self._check_failures()

    def _check_failures(self) -> None:
        limit = self.options.max_failures
        if limit is not None and self.report.failures >= limit and not self.stop:
            self.stop = True
            self.report.stopped_early = True

    # -- pass 2: replay --

    def _worker_count(self) -> int:
        wanted = self.options.workers
        if self.options.pipeline_args is None:
            return 1  # an engine object given in Python cannot travel to another process
        if wanted is None:
            by_size = self.report.turns_total // TURNS_PER_AUTO_WORKER.get(self.pipe.engine.name, 2000)
            wanted = min(os.cpu_count() or 1, MAX_AUTO_WORKERS, by_size)
        return max(1, min(wanted, self.report.users, self.options.concurrency))

    def _defer_unstarted(self) -> None:
        r = self.report
        # After a stop, the users never started still have all their conversations ahead.
        r.conversations_deferred += self._replayable - (
            r.conversations_done + r.conversations_failed + r.conversations_deferred + r.unreadable
        )

    async def _local_users(self, index: ConversationIndex) -> AsyncIterator[str]:
        for user_id in index.users():
            yield user_id

    async def _replay(self, index: ConversationIndex, users: AsyncIterator[str]) -> None:
        concurrency = self.options.concurrency
        users_at_once = concurrency
        if self.pipe.engine.name != "offline":
            # With a model, `concurrency` bounds the requests in flight (what rate limits care
            # about) and more users than that are kept going: one user's file and store work
            # and its prompt and parsing then overlap the others' waits, so no slot sits idle.
            REQUEST_SLOTS.set(asyncio.Semaphore(concurrency))  # the tasks below inherit it
            users_at_once = concurrency + max(1, int(concurrency * EXTRA_USERS_PER_MODEL_SLOT))
            if self.options.rpm:
                self._bucket = TokenBucket(self.options.rpm)
        # File and store work runs in threads. Few of them: it is mostly CPU under the GIL, and
        # every extra thread makes all of them wait longer for it.
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=FILE_THREADS))
        queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=users_at_once)

        async def produce() -> None:
            async for user_id in users:
                if self._stopping():
                    break
                await queue.put(user_id)
            for _ in range(users_at_once):
                await queue.put(None)

        async def work() -> None:
            files: dict[int, IO[bytes]] = {}
            try:
                while (user_id := await queue.get()) is not None:
                    await self._replay_user(index, user_id, files)
            finally:
                for fh in files.values():
                    fh.close()

        await asyncio.gather(produce(), *(work() for _ in range(users_at_once)))

    def _stopping(self) -> bool:
        if not self.stop and self._stop_event is not None and self._stop_event.is_set():
            self.stop = True
        if not self.stop and self._parent_pid is not None and os.getppid() != self._parent_pid:
            self.stop = True  # the parent died (killed): no one would read our results
        return self.stop

    async def _replay_user(self, index: ConversationIndex, user_id: str, files: dict[int, IO[bytes]]) -> None:
        rows = index.pending(user_id)
        for n, (file_no, offset, line) in enumerate(rows):
            if self._stopping():
                self.report.conversations_deferred += len(rows) - n
                return
            conv = self._read(files, file_no, offset, line)
            if conv is None:
                continue
            if not await self._replay_conversation(conv):
                self.report.conversations_deferred += len(rows) - n - 1
                return

    def _read(self, files: dict[int, IO[bytes]], file_no: int, offset: int, line: int) -> Conversation | None:
        path = self.paths[file_no]
        try:
            fh = files.get(file_no)
            if fh is None:
                fh = files[file_no] = path.open("rb")
            return read_at(fh, offset, path=str(path), line=line, fmt=self.options.fmt)
        except (OSError, BadInput) as e:  # the file changed under us since the index pass
            self.report.unreadable += 1
            self._bad(BadLine(str(path), line, f"could not be read again: {e}"))
            return None

    async def _replay_conversation(self, conv: Conversation) -> bool:
        """Replay every turn; checkpoint the conversation. False when a turn failed or a stop came."""
        failed = False
        for k, (start, end) in enumerate(conv.turn_spans()):
            if self._stopping():
                self.report.conversations_deferred += 1
                return False
            if self._bucket is not None:
                await self._bucket.acquire()
            turn_id = turn_id_for(conv.user_id, conv.key, k)
            try:
                result = await self.pipe.aprocess_turn(
                    conv.user_id,
                    conv.messages[:end],
                    timestamp=conv.turn_timestamp(start),
                    conversation_id=conv.conversation_id,
                    turn_id=turn_id,
                )
            except Exception as e:  # a bug or a disk error: count it, keep the batch going
                log.warning("turn %s of user %s raised %s", turn_id, conv.user_id, type(e).__name__)
                self._turn_failed(conv, k, f"{type(e).__name__}: {guards.redact(str(e))[:200]}")
                failed = True
                break
            self._account(conv, result)
            if result.status == "failed":
                self._turn_failed(conv, k, result.error or "failed")
                failed = True
                break
        await asyncio.to_thread(self._checkpoint, conv, "failed" if failed else "done")
        if failed:
            self.report.conversations_failed += 1
        else:
            self.report.conversations_done += 1
        return not failed

    def _turn_failed(self, conv: Conversation, k: int, error: str) -> None:
        self.report.turns_failed += 1
        if len(self.report.turn_errors) < MAX_REPORTED_BAD_LINES:
            self.report.turn_errors.append(f"{conv.source}: turn {k}: {error}")
        self.hooks.turn(self.report)
        self._check_failures()

    def _checkpoint(self, conv: Conversation, status: str) -> None:
        self.pipe.store.checkpoint_batch(
            user_id=conv.user_id, conversation_key=conv.key, conversation_id=conv.conversation_id,
            turns=len(conv.turn_starts), status=status, source=conv.source,
        )

    def _account(self, conv: Conversation, result: TurnResult) -> None:
        r = self.report
        if result.status == "duplicate_turn":
            r.turns_duplicate += 1
        elif result.status == "done":
            r.turns_done += 1
        usage = result.usage
        r.calls += usage.calls
        r.input_tokens += usage.input_tokens
        r.output_tokens += usage.output_tokens
        r.cost_usd = None if r.cost_usd is None or usage.cost_usd is None else r.cost_usd + usage.cost_usd
        for d in result.decisions:
            if d.route == "skip":
                reason = d.reason or "unknown"
                r.skips[reason] = r.skips.get(reason, 0) + 1
            elif d.outcome == "written":
                r.writes[d.route] = r.writes.get(d.route, 0) + 1
            else:
                outcome = (d.outcome or "none").split(":")[0]
                r.outcomes[outcome] = r.outcomes.get(outcome, 0) + 1
        if (self._decisions is not None or self._emit_decisions is not None) and result.decisions:
            self._write_decisions(conv, result)
        self.hooks.turn(r)

    # -- audit log --

    def _open_decisions(self) -> None:
        if self.options.decisions_out:
            # Appended, so a resumed run completes the audit file; --restart starts a new one.
            mode = "w" if self.options.restart else "a"
            self._decisions = open(self.options.decisions_out, mode, encoding="utf-8")  # noqa: SIM115

    def _write_decisions(self, conv: Conversation, result: TurnResult) -> None:
        lines = [json.dumps(decision_record(conv, result, d), ensure_ascii=False) for d in result.decisions]
        text = "\n".join(lines) + "\n"
        if self._emit_decisions is not None:
            self._emit_decisions(text)
            return
        assert self._decisions is not None
        self._decisions.write(text)
        self._decisions.flush()

    # -- worker processes --

    def _replay_in_processes(self, index_path: Path, workers: int) -> None:
        """Share the users among worker processes; merge their counts; stop them on --max-failures."""
        ctx = multiprocessing.get_context("spawn")  # never fork a process holding SQLite connections and threads
        users_q: Any = ctx.Queue(maxsize=workers * 4)
        events: Any = ctx.Queue()
        stop = ctx.Event()
        per_worker = max(1, -(-self.options.concurrency // workers))
        spec = {
            "pipeline": self.options.pipeline_args,
            "paths": [str(p) for p in self.paths],
            "index": str(index_path),
            "fmt": self.options.fmt,
            "concurrency": per_worker,
            "rpm": self.options.rpm / workers if self.options.rpm else None,
            "decisions": self._decisions is not None,
        }
        procs = [
            ctx.Process(target=_worker_main, args=(spec, users_q, events, stop), daemon=True) for _ in range(workers)
        ]
        for proc in procs:
            proc.start()
        feeder = threading.Thread(target=_feed_users, args=(index_path, users_q, stop, procs), daemon=True)
        feeder.start()
        base = self.report
        latest: dict[int, dict[str, Any]] = {}
        finished: set[int] = set()
        while len(finished) < workers:
            try:
                kind, pid, payload = events.get(timeout=0.2)
            except queue.Empty:
                if all(not p.is_alive() for p in procs):
                    try:  # the last messages may still be in the pipe
                        kind, pid, payload = events.get(timeout=1.0)
                    except queue.Empty:
                        break
                else:
                    continue
            if kind == "decisions" and self._decisions is not None:
                self._decisions.write(payload)
                self._decisions.flush()
            elif kind == "bad":
                self.hooks.bad_line(BadLine(*payload))
            elif kind in ("report", "final"):
                latest[pid] = payload
                if kind == "final":
                    finished.add(pid)
                self.report = base.merged(list(latest.values()))
                limit = self.options.max_failures
                if limit is not None and self.report.failures >= limit and not stop.is_set():
                    stop.set()
                    base.stopped_early = True
                    self.report.stopped_early = True
                self.hooks.turn(self.report)
        stop.set()  # releases the feeder if it is still waiting
        for proc in procs:
            proc.join(timeout=10)
        feeder.join(timeout=5)
        crashed = [p for p in procs if p.pid not in finished]
        self.report = base.merged(list(latest.values()))
        self.report.workers = workers
        for proc in crashed:
            self.report.worker_crashes += 1
            self.report.turn_errors.append(f"worker process {proc.pid} exited with code {proc.exitcode}")


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
    pipe = _pipeline(**spec["pipeline"])
    pipe.engine.preload()
    # Everything imported so far lives as long as the process: keep the cyclic collector from
    # walking it again on every full collection (~6% of a worker's CPU otherwise).
    gc.freeze()
    with pipe:
        options = BatchOptions(fmt=spec["fmt"], concurrency=spec["concurrency"], rpm=spec["rpm"])
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


def decision_record(conv: Conversation, result: TurnResult, d: Decision) -> dict[str, Any]:
    """One audit line. Every piece of user text goes through guards.redact."""

    def r(text: str | None) -> str | None:
        return None if text is None else guards.redact(text)

    return {
        "user_id": result.user_id,
        "conversation_id": conv.conversation_id,
        "turn_id": result.turn_id,
        "source": conv.source,
        "route": d.route,
        "op": d.op,
        "reason": d.reason,
        "section": d.section,
        "key": r(d.key),
        "value": r(d.value),
        "entry": r(d.entry),
        "date": d.date,
        "topic": r(d.topic),
        "match": r(d.match),
        "quote": r(d.quote),
        "confidence": d.confidence,
        "detail": r(d.detail),
        "outcome": d.outcome,
        "engine": result.engine,
        "model": result.model,
    }


# ---- the root ---------------------------------------------------------------------------------


def move_aside(out: Path) -> Path | None:
    """--restart: move what the root holds into OUT/.before-restart-<time>/ (nothing is deleted)."""
    if not out.is_dir():
        return None
    entries = [p for p in out.iterdir() if not p.name.startswith(RESTART_PREFIX)]
    if not entries:
        return None
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = out / f"{RESTART_PREFIX}{stamp}"
    n = 1
    while target.exists():
        n += 1
        target = out / f"{RESTART_PREFIX}{stamp}-{n}"
    target.mkdir()
    for p in entries:
        p.rename(target / p.name)
    return target


def holds_foreign_memory(pipe: Any) -> bool:
    """Memory in the root and no trace of a batch (no checkpoint, no batch turn id) in its store."""
    store = pipe.store
    if store.has_batch_trace():
        return False
    if store.has_turns():
        return True
    return bool(pipe.documents.has_any_documents())


def _pipeline(
    root: Path | str,
    engine: str | None,
    model: str | None,
    api_base: str | None,
    user_limit: int | None,
    memory_limit: int | None,
    store: str | None = None,
) -> Any:
    """`store`: a postgresql:// URL to write to instead of the root (each worker process opens its own)."""
    from pipeline.core import MemoryPipeline

    where: dict[str, Any] = {}
    if store:
        from pipeline.store.postgres import open_postgres

        where["store"], where["documents"] = open_postgres(store)
    return MemoryPipeline(
        root=root, engine=engine, model=model, api_base=api_base, user_limit=user_limit, memory_limit=memory_limit,
        **where,
    )


__all__ = ["BatchOptions", "BatchReport", "BatchRunner", "Hooks", "holds_foreign_memory", "move_aside", "turn_id_for"]

"""PostTurnHook: call memroute after every chat turn without making anyone wait.

    hook = PostTurnHook(MemoryPipeline(root="./memory"))
    turn_id = hook.submit("jasmin", messages)      # persisted on disk, then returns (well under 1 ms)
    ...
    hook.close(timeout=10)                         # drains what it can; the rest waits on disk

Guarantees and choices (the why is in the code below):
- Durable: `submit` commits the turn to the store's `hook_queue` table before it returns. A
  new hook on the same root processes what an earlier (closed, crashed or killed) process
  left. Every turn is processed under a stable turn id and the pipeline is idempotent by turn
  id, so a turn that was applied just before a crash is not applied again.
- Ordered per user: one user's turns run in submission order, one at a time; different users
  run concurrently on `workers` threads.
- Debounce (off by default): with `debounce_s > 0`, a turn of the same user and conversation
  that arrives while the previous one is still waiting joins it, and the group is classified
  in ONE call (their user messages joined). The wait slides with each new turn, capped at
  `debounce_max_s` (default 10 x debounce_s) after the first one.
- Backpressure: at most `max_in_memory` turns are waiting or running. When full, `submit`
  BLOCKS up to `full_timeout_s` (default 0.25 s) for room, then raises `HookQueueFull`; the
  turn is then NOT stored and the caller decides (drop, retry, or answer 503).
- Faults: a failed turn (model error, or any exception) is retried with exponential backoff
  (`RetryPolicy`); the user's LATER turns wait behind it, to keep their order, until it
  succeeds or is PARKED after `max_attempts`. A user's turns are thus delayed by at most the
  policy's total backoff (about 31 s by default) plus the attempts themselves. A parked turn
  keeps only its redacted text and its error; `hook.retry_parked()` (or `run_parked` for the
  CLI) runs it again, after that user's newer turns, which have gone ahead.
- Privacy: the queue row holds the turn's real text only until the turn is done (then the
  payload is cleared, with SQLite's secure_delete, and `close` truncates the WAL) or fails
  (then only its redacted text stays, pipeline/guards/redaction.py); logs name the error type only.
- Read your own turns: `MemoryPipeline.context()` and `recall()` wait (bounded, 10 s by default) for
  the user's turns still queued or running in the hooks built on that pipeline; `flush()` runs what was
  submitted now (debounce windows end) and waits for it. A turn that failed once is not waited for.
- Durability level: WAL with synchronous=NORMAL survives any process crash (SIGKILL, OOM);
  only an OS crash or power loss can drop the last submits. `fsync_submits=True` closes
  that gap at a few ms per submit.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
import logging
import multiprocessing
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pipeline import observe
from pipeline._util.keyed import ID_KEY
from pipeline.errors import HookClosed, HookQueueFull
from pipeline.hook.runner import (
    GroupSettle,
    RetryPolicy,
    RunCounts,
    Settled,
    attempt,
    init_child,
    queueable,
    run_in_child,
    run_turn,
)
from pipeline.store.interface import QueuedTurn

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline

log = logging.getLogger("memroute.hook")

ADOPT_INTERVAL_S = 1.0  # how often a running hook looks for turns of a process that is gone


@dataclass
class _Group:
    """One unit of work: a turn, or several debounced turns of one conversation."""

    members: list[QueuedTurn]
    first_at: float
    debounce_until: float = 0.0
    retry_at: float = 0.0
    open: bool = False  # may still absorb newer turns (debounce)
    attempts: int = 0

    @property
    def user_id(self) -> str:
        return self.members[0].user_id

    @property
    def conversation_id(self) -> str | None:
        return self.members[0].conversation_id

    def ready_at(self, flushing: bool) -> float:
        return max(self.retry_at, 0.0 if flushing else self.debounce_until)


class PostTurnHook:
    """Background memory routing for chat apps (see the module doc for the guarantees).

    workers: threads processing turns (different users in parallel, one turn per user at a time).
    debounce_s: merge a conversation's turns that arrive within this many seconds (0 = off).
    max_in_memory: turns waiting or running before submit blocks (full_timeout_s) then raises.
    retry_policy: backoff and attempts before a failing turn is parked.
    debounce_max_s: the longest a debounced turn waits (default 10 x debounce_s).
    fsync_submits: fsync each submit (survives power loss; a few ms per submit).
    keep_done_s: finished queue rows older than this are deleted at start (default 7 days).
    processes, pipeline_factory: run the turns in this many processes (spawned, each building its
        own pipeline with the picklable `pipeline_factory`, e.g. functools.partial(MemoryPipeline,
        root=..., engine="offline")) instead of in the worker threads. For CPU-bound engines: the
        app process keeps its GIL, which keeps submit fast. (Not fork: a forked child can inherit
        a lock held by another thread and hang; we saw it with the LLM engine.)
    """

    def __init__(
        self,
        pipeline: MemoryPipeline,
        workers: int = 4,
        debounce_s: float = 0.0,
        max_in_memory: int = 1000,
        retry_policy: RetryPolicy | None = None,
        *,
        full_timeout_s: float = 0.25,
        debounce_max_s: float | None = None,
        fsync_submits: bool = False,
        keep_done_s: float = 7 * 24 * 3600,
        processes: int = 0,
        pipeline_factory: Callable[[], MemoryPipeline] | None = None,
    ) -> None:
        if workers < 1 or max_in_memory < 1:
            raise ValueError("workers and max_in_memory must be at least 1")
        self.pipeline = pipeline
        self.workers = workers
        self.debounce_s = max(0.0, debounce_s)
        self.debounce_max_s = debounce_max_s if debounce_max_s is not None else 10 * self.debounce_s
        self.max_in_memory = max_in_memory
        self.retry_policy = retry_policy or RetryPolicy()
        self.full_timeout_s = full_timeout_s
        self.queue = pipeline.store.open_hook_queue(fsync_submits=fsync_submits)
        pipeline.hooks.add(self)  # the pipeline's reads wait for this hook's turns of the user they read

        self._cond = threading.Condition()
        self._submit_lock = threading.Lock()
        self._pending: dict[str, deque[_Group]] = {}
        self._ready: deque[str] = deque()
        self._timers: list[tuple[float, int, str]] = []
        self._tick = itertools.count()
        self._scheduled: set[str] = set()
        self._running: dict[str, _Group] = {}
        self._unscrubbed: set[tuple[str, str]] = set()  # settled, the queue's storage not scrubbed yet
        self._in_memory = 0  # turns waiting or running
        self._counters = RunCounts()
        self._closed = False
        self._flushing = False
        self._stop = False
        self._async_executor: ThreadPoolExecutor | None = None
        self._parked_at_close: int | None = None
        self._pool: ProcessPoolExecutor | None = None
        if processes > 0:
            if pipeline_factory is None:
                raise ValueError(
                    "processes > 0 needs pipeline_factory: a picklable callable that builds the pipeline in each "
                    "process, e.g. functools.partial(MemoryPipeline, root=..., engine='offline')"
                )
            self._pool = ProcessPoolExecutor(
                max_workers=processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=init_child,
                initargs=(pipeline_factory,),
            )

        # Done rows only serve `memroute status` and duplicate detection; the pipeline's turn log
        # keeps idempotency, so old ones can go.
        self.queue.prune_done(keep_done_s)
        recovered = self.queue.adopt_unfinished()
        if recovered:
            log.info("hook: resuming %d unfinished turn(s) from the queue", len(recovered))
        with self._cond:
            self._add_recovered(recovered)
        self._threads = [
            threading.Thread(target=self._worker, name=f"memroute-hook-{i}", daemon=True) for i in range(workers)
        ]
        # Another process on this memory may die while we run: its accepted turns are taken over
        # within ADOPT_INTERVAL_S, not at our next start.
        self._threads.append(threading.Thread(target=self._adopter, name="memroute-hook-adopt", daemon=True))
        for t in self._threads:
            t.start()

    # ---- submitting ---------------------------------------------------------------------

    def submit(
        self,
        user_id: str,
        messages: Any,
        timestamp: datetime | str | None = None,
        conversation_id: str | None = None,
        turn_id: str | None = None,
    ) -> str:
        """Persist the turn in the queue and return its turn id; processing happens in the background.

        Invalid input (user id, messages, timestamp) raises here, at once. Submitting the same
        turn again (same turn id) is a no-op that returns the same id.
        """
        if self._closed:
            raise HookClosed("PostTurnHook is closed")
        turn, payload = queueable(user_id, messages, timestamp, conversation_id, turn_id,
                                  lambda: self.pipeline.store.secret_key(ID_KEY))
        deadline = time.monotonic() + self.full_timeout_s
        if not self._submit_lock.acquire(timeout=self.full_timeout_s):
            raise self._full()
        try:
            with self._cond:
                while self._in_memory >= self.max_in_memory and not self._closed:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise self._full()
                    self._cond.wait(remaining)
                if self._closed:
                    raise HookClosed("PostTurnHook is closed")
                self._in_memory += 1  # reserve room before the insert, so order on disk = order in memory
            try:
                row = self.queue.insert(user_id, turn.turn_id, conversation_id, payload)
            except BaseException:
                with self._cond:
                    self._in_memory -= 1
                    self._cond.notify_all()
                raise
            with self._cond:
                if row is None:  # already submitted before
                    self._in_memory -= 1
                    self._cond.notify_all()
                else:
                    self._enqueue(row)
        finally:
            self._submit_lock.release()
        if row is not None:
            observe.count_turn(self.pipeline.engine.name, "accepted")
        return turn.turn_id

    async def asubmit(
        self,
        user_id: str,
        messages: Any,
        timestamp: datetime | str | None = None,
        conversation_id: str | None = None,
        turn_id: str | None = None,
    ) -> str:
        """submit() for asyncio apps: runs on a dedicated thread (FIFO, so call order is kept)."""
        if self._closed:
            raise HookClosed("PostTurnHook is closed")
        if self._async_executor is None:
            with self._cond:
                if self._async_executor is None:
                    self._async_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memroute-asubmit")
        call = functools.partial(self.submit, user_id, messages, timestamp, conversation_id, turn_id)
        return await asyncio.get_running_loop().run_in_executor(self._async_executor, call)

    def _full(self) -> HookQueueFull:
        return HookQueueFull(
            f"memroute hook queue is full ({self.max_in_memory} turns waiting or running); "
            f"the turn was not stored: retry later or raise max_in_memory/workers"
        )

    # ---- scheduling (all under self._cond) ----------------------------------------------

    def _enqueue(self, row: QueuedTurn) -> None:
        now = time.time()
        dq = self._pending.setdefault(row.user_id, deque())
        tail = dq[-1] if dq else None
        if self.debounce_s > 0 and tail is not None and tail.open and tail.conversation_id == row.conversation_id:
            tail.members.append(row)
            tail.debounce_until = min(now + self.debounce_s, tail.first_at + self.debounce_max_s)
            return
        group = _Group([row], first_at=now)
        if self.debounce_s > 0:
            group.open = True
            group.debounce_until = now + self.debounce_s
        dq.append(group)
        self._schedule(row.user_id)

    def _add_recovered(self, rows: Iterable[QueuedTurn], *, count: bool = True) -> None:
        """Rows from disk keep the groups they were started with, and never absorb new turns."""
        for row in rows:
            dq = self._pending.setdefault(row.user_id, deque())
            tail = dq[-1] if dq else None
            if row.group_seq is not None and tail is not None and tail.members[0].group_seq == row.group_seq:
                tail.members.append(row)
            else:
                group = _Group([row], first_at=row.submitted_at, attempts=row.attempts)
                group.retry_at = row.next_attempt_at or 0.0
                dq.append(group)
            if count:
                self._in_memory += 1
            self._schedule(row.user_id)

    def _schedule(self, user_id: str) -> None:
        if user_id in self._running or user_id in self._scheduled:
            return
        dq = self._pending.get(user_id)
        if not dq:
            return
        self._scheduled.add(user_id)
        at = dq[0].ready_at(self._flushing)
        if at <= time.time():
            self._ready.append(user_id)
        else:
            heapq.heappush(self._timers, (at, next(self._tick), user_id))
        self._cond.notify_all()

    def _next_group(self) -> _Group | None:
        """Block until a user's head group is due; None when the hook stops."""
        while True:
            if self._stop:
                return None
            now = time.time()
            while self._timers and (self._timers[0][0] <= now or self._flushing):
                self._ready.append(heapq.heappop(self._timers)[2])
            while self._ready:
                user = self._ready.popleft()
                dq = self._pending.get(user)
                if not dq:
                    self._scheduled.discard(user)
                    continue
                at = dq[0].ready_at(self._flushing)
                if at > now:  # the debounce window slid, or a retry is not due yet
                    heapq.heappush(self._timers, (at, next(self._tick), user))
                    continue
                group = dq.popleft()
                if not dq:
                    del self._pending[user]
                group.open = False
                self._scheduled.discard(user)
                self._running[user] = group
                return group
            timeout = max(0.0, self._timers[0][0] - now) if self._timers else None
            self._cond.wait(timeout)

    # ---- processing ---------------------------------------------------------------------

    def _worker(self) -> None:
        while True:
            with self._cond:
                group = self._next_group()
            if group is None:
                return
            settled: Settled = "failed"
            error: str | None = None
            try:
                settled, error = self._process(group)
            except Exception as e:  # bookkeeping failed (e.g. the db): retry the whole group later
                # The type only: an exception's text can quote the turn (and logs are at rest too).
                log.error("hook: processing turn %s failed: %s", group.members[0].turn_id, type(e).__name__)
                error = f"{type(e).__name__}: {e}"
            self._settle(group, settled, error)
            # The settled turns' text may still sit in the queue's storage (a WAL frame): scrub it,
            # then let anyone waiting for these turns (wait_settled) go.
            try:
                self.queue.scrub()
            except Exception as e:
                log.error("hook: scrubbing the queue failed: %s", type(e).__name__)
            with self._cond:
                for m in group.members:
                    self._unscrubbed.discard((m.user_id, m.turn_id))
                self._cond.notify_all()

    def _adopter(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stop or self._closed, timeout=ADOPT_INTERVAL_S)
                if self._stop or self._closed:
                    return
            try:
                rows = self.queue.adopt_orphans()
            except Exception as e:  # the database is busy or gone: try again at the next tick
                log.debug("hook: looking for orphaned turns failed: %s", type(e).__name__)
                continue
            if rows:
                log.info("hook: taking over %d turn(s) of a process that is gone", len(rows))
                with self._cond:
                    self._add_recovered(rows)

    def _process(self, group: _Group) -> tuple[Settled, str | None]:
        """Run the group once (hook/runner.py: attempt). Returns (settled, error)."""
        members = group.members
        self.queue.start(members, members[0].seq if len(members) > 1 else None)
        pool = self._pool
        if pool is not None:
            def run() -> tuple[str, str | None]:
                status, error, events = pool.submit(run_in_child, members).result()
                observe.replay(events)  # the child's metrics (stages, model calls, outcome) count here
                return status, error
        else:
            def run() -> tuple[str, str | None]:
                return run_turn(self.pipeline, members)
        done = attempt(run, GroupSettle(self.queue, members), failures_before=group.attempts, policy=self.retry_policy)
        if done.settled == "parked":
            observe.count_turn(self.pipeline.engine.name, "parked")
            log.warning("hook: turn %s parked after %d attempts", members[0].turn_id, group.attempts + 1)
        if done.retry_at is not None:
            group.retry_at = done.retry_at
        return done.settled, done.error

    def _settle(self, group: _Group, settled: Settled, error: str | None) -> None:
        user = group.user_id
        n = len(group.members)
        with self._cond:
            del self._running[user]
            self._unscrubbed.update((m.user_id, m.turn_id) for m in group.members)
            if settled == "failed":  # a retry is due later; a bookkeeping error backs off like a model failure
                group.attempts += 1
                if group.retry_at <= time.time():
                    group.retry_at = time.time() + self.retry_policy.delay(group.attempts)
                self._pending.setdefault(user, deque()).appendleft(group)
            else:
                self._in_memory -= n
            self._counters.count(user, n, settled, self.pipeline.store.redact(error) if error is not None else None)
            self._schedule(user)
            self._cond.notify_all()

    def wait_settled(self, user_id: str, turn_id: str, timeout: float) -> bool:
        """Wait until this hook no longer holds the turn: applied and its queue row cleared (the
        text scrubbed from the database's WAL too), or handed back for a retry. True when it holds
        it no more (also when it never did); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._holds(user_id, turn_id) or (user_id, turn_id) in self._unscrubbed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def flush(self, user_id: str | None = None, timeout: float | None = 10.0) -> bool:
        """Run now what was submitted so far (of `user_id`, else of every user; debounce windows end now)
        and wait until each of those turns has been applied, or has failed once and waits for its retry.
        True when none is left within `timeout` (a read right after it sees the turns); False on timeout or
        after close(). `MemoryPipeline.context()` and `recall()` call this for the user they read."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            waiting = self._first_tries(user_id)
            if not waiting:
                return True
            self._hurry(user_id)
            while waiting & self._first_tries(user_id):
                left = None if deadline is None else deadline - time.monotonic()
                if self._stop or (left is not None and left <= 0):
                    return False
                self._cond.wait(left)
        return True

    def _first_tries(self, user_id: str | None) -> set[tuple[str, str]]:
        """(user, turn id) of the turns running now, or waiting for their first attempt (under self._cond)."""
        out: set[tuple[str, str]] = set()
        for user, group in self._running.items():
            if user_id is None or user == user_id:
                out.update((user, m.turn_id) for m in group.members)
        for user, dq in self._pending.items():
            if user_id is None or user == user_id:
                out.update((user, m.turn_id) for g in dq if not g.attempts for m in g.members)
        return out

    def _hurry(self, user_id: str | None) -> None:
        """End the debounce windows of the user's waiting turns (every user's for None): they run when due
        (under self._cond)."""
        users = [u for u in self._pending if user_id is None or u == user_id]
        for user in users:
            for group in self._pending[user]:
                group.debounce_until, group.open = 0.0, False
        timed = {u for _, _, u in self._timers}
        late = [u for u in users if u in timed]
        if late:  # scheduled for later: take the timer out and schedule again (now, unless a retry is due later)
            self._timers = [t for t in self._timers if t[2] not in late]
            heapq.heapify(self._timers)
            for user in late:
                self._scheduled.discard(user)
                self._schedule(user)
        self._cond.notify_all()

    def _holds(self, user_id: str, turn_id: str) -> bool:
        running = self._running.get(user_id)
        groups = [*self._pending.get(user_id, ()), *([running] if running is not None else [])]
        return any(m.turn_id == turn_id for g in groups for m in g.members)

    # ---- parked turns, observability, shutdown ------------------------------------------

    def retry_parked(self, user_id: str | None = None) -> int:
        """Queue parked turns again (attempts reset); returns how many. They run after that user's queue."""
        rows = self.queue.requeue_parked(user_id)
        with self._cond:
            self._add_recovered(rows)
        return len(rows)

    def stats(self, allow: Callable[[str], bool] | None = None) -> dict[str, Any]:
        """This hook's view: turns waiting (queued), running, waiting for a retry (failed), finished this
        session (done, of which duplicates), failed attempts, parked turns on disk, and the last error.
        `allow`: count only the users it accepts (a tenant's view: no other tenant's figures)."""
        ok = allow or (lambda _user: True)
        with self._cond:
            now = time.time()
            queued = failed = 0
            for user, dq in self._pending.items():
                if not ok(user):
                    continue
                for g in dq:
                    if g.retry_at > now or g.attempts:
                        failed += len(g.members)
                    else:
                        queued += len(g.members)
            running = sum(len(g.members) for u, g in self._running.items() if ok(u))
            c = self._counters
            users = {u: dict(v) for u, v in c.by_user.items() if ok(u)}
            if allow is None:
                done, duplicates, attempts, parked, last_error = (
                    c.done, c.duplicates, c.failed_attempts, c.parked, c.last_error)
            else:
                done = sum(v["done"] for v in users.values())
                duplicates = sum(v.get("duplicates", 0) for v in users.values())
                attempts = sum(v["failed_attempts"] for v in users.values())
                parked = sum(v["parked"] for v in users.values())
                last_error = None
            out: dict[str, Any] = {
                "queued": queued,
                "running": running,
                "failed": failed,
                "done": done,
                "duplicates": duplicates,
                "failed_attempts": attempts,
                "parked_this_session": parked,
                "last_error": last_error,
                "users": users,
            }
        if allow is None:
            out["parked"] = self._parked_at_close if self._parked_at_close is not None else self.queue.parked_count()
        return out

    def queue_gauges(self) -> dict[str, float]:
        """What /metrics shows of this queue: turns waiting (queued), running, waiting for a retry
        (retrying), parked on disk, and how long the oldest turn not yet finished has waited."""
        stats = self.stats()
        with self._cond:
            groups = [g for dq in self._pending.values() for g in dq] + list(self._running.values())
            oldest = min((g.first_at for g in groups), default=None)
        return {"queued": stats["queued"], "running": stats["running"], "retrying": stats["failed"],
                "parked": stats["parked"], "oldest_age_s": 0.0 if oldest is None else max(0.0, time.time() - oldest)}

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until nothing is waiting or running (debounce windows are not cut short) and the
        queue's storage holds no finished turn's text (scrubbed). True if idle."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._in_memory > 0 or self._unscrubbed:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True

    def close(self, timeout: float | None = 10.0) -> bool:
        """Stop accepting turns, process what can be within `timeout` (debounce windows end now),
        then stop the workers. Unfinished turns stay queued on disk for the next start.
        Returns True when everything was processed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            if self._stop:
                return self._in_memory == 0
            self._closed = True
            self._flushing = True
            self._cond.notify_all()
        drained = self.drain(None if deadline is None else max(0.0, deadline - time.monotonic()))
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        for t in self._threads:
            # A worker inside a model call cannot be interrupted; it is a daemon and its row stays on disk.
            t.join(0.05 if deadline is None else max(0.05, deadline - time.monotonic()))
        if self._async_executor is not None:
            self._async_executor.shutdown(wait=False)
        busy = any(t.is_alive() for t in self._threads)
        if self._pool is not None:
            self._pool.shutdown(wait=not busy, cancel_futures=True)
        self._parked_at_close = self.queue.parked_count()
        self.queue.release()  # a newer hook may take over what we leave, even while a worker is stuck
        if not busy:
            self.queue.close()
        else:
            log.warning("hook: closed with a turn still running; it stays queued on disk")
        return drained

    async def aclose(self, timeout: float | None = 10.0) -> bool:
        return await asyncio.to_thread(self.close, timeout)

    async def adrain(self, timeout: float | None = None) -> bool:
        return await asyncio.to_thread(self.drain, timeout)

    def __enter__(self) -> PostTurnHook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> PostTurnHook:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


__all__ = ["HookClosed", "HookQueueFull", "PostTurnHook", "RetryPolicy"]

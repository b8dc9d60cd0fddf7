"""The batch runner: index the inputs, replay each user's conversations in order through the
pipeline, checkpoint what is done (the steps are in pipeline/batch/__init__.py); with several worker
processes, the parent hands out users and each worker replays them with the same runner."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import gc
import json
import logging
import multiprocessing
import os
import queue
import re
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timezone
from pathlib import Path
from typing import IO, Any

from pipeline import guards
from pipeline._util.keyed import ID_KEY, keyed_id, unkeyed_id
from pipeline.batch.options import (
    EXTRA_USERS_PER_MODEL_SLOT,
    FILE_THREADS,
    MAX_AUTO_WORKERS,
    TURNS_PER_AUTO_WORKER,
    BatchOptions,
    Hooks,
    TokenBucket,
)
from pipeline.batch.report import MAX_REPORTED_BAD_LINES, BatchReport
from pipeline.batch.transcripts import BadLine, Conversation, read_at, read_conversations
from pipeline.engines.base import REQUEST_SLOTS
from pipeline.errors import BadInput
from pipeline.settings import build_pipeline
from pipeline.store.batch_index import ConversationIndex
from pipeline.types import Decision, Outcome, TurnResult

log = logging.getLogger("memroute.batch")


# Ids the inputs' parsers make from a conversation's own text when it has none (transcripts.py, sources.py).
_MADE_ID = re.compile(r"(line|json|text)-[0-9a-f]{16}")


def turn_id_for(id_key: bytes, user_id: str, conversation_key: str, index: int) -> str:
    """A batch turn's id: keyed (the store's ID_KEY), stable for this store, so a rerun finds it."""
    material = user_id + "\x00" + conversation_key
    return f"b-{keyed_id(id_key, material)}-{index}"


def unkeyed_turn_id_for(conv: Conversation, index: int) -> str:
    """The id older versions gave that turn (a plain sha256 of the user and the unkeyed conversation
    key): passed as process_turn's legacy_turn_id, looked up on a store that recorded turns then."""
    material = conv.user_id + "\x00" + (conv.unkeyed_key or conv.key)
    return f"b-{unkeyed_id(material, 20)}-{index}"


def keyed_conversation(id_key: bytes, conv: Conversation) -> Conversation:
    """`conv` with an id made from its text (a plain digest of the line: a short secret in it could be
    found by trying) replaced by a keyed one, before anything is stored under it; other ids are kept."""

    def keyed(value: str) -> str:
        made = _MADE_ID.fullmatch(value)
        return value if made is None else f"{made.group(1)}-{keyed_id(id_key, value, 16)}"

    conversation_id, key = keyed(conv.conversation_id), keyed(conv.key)
    if (conversation_id, key) == (conv.conversation_id, conv.key):
        return conv
    unkeyed_key = conv.key if key != conv.key else None
    return dataclasses.replace(conv, conversation_id=conversation_id, key=key, unkeyed_key=unkeyed_key)


def checkpointed_done(store: Any, conv: Conversation) -> bool:
    """Whether a run finished this conversation: under its key, or, on a store that recorded batches
    before ids were keyed, under the plain key it had then (looked up, never written)."""
    if store.batch_status(conv.user_id, conv.key) == "done":
        return True
    return (conv.unkeyed_key is not None and store.holds_unkeyed_ids()
            and store.batch_status(conv.user_id, conv.unkeyed_key) == "done")


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

    @functools.cached_property
    def id_key(self) -> bytes:
        """The store's key for ids made from what users wrote (pipeline/_util/keyed.py)."""
        key: bytes = self.pipe.store.secret_key(ID_KEY)
        return key

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
            name, fmt, user = self._file(file_no)
            for item in read_conversations(path, fmt, name=name, user=user):
                if isinstance(item, BadLine):
                    self._bad(item)
                else:
                    item = keyed_conversation(self.id_key, item)
                    self._add(index, file_no, item, done=checkpointed_done(store, item))
                if self.stop:
                    break
            if self.stop:
                break
        self.report.users = index.finish()

    def _file(self, file_no: int) -> tuple[str, str | None, str | None]:
        """How input `file_no` is named in reports, its line format and its default user id."""
        if self.options.files is not None:
            return self.options.files[file_no]
        return str(self.paths[file_no]), self.options.fmt, None

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
        if self.options.settings is None:
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
        name, fmt, user = self._file(file_no)
        try:
            fh = files.get(file_no)
            if fh is None:
                fh = files[file_no] = path.open("rb")
            return keyed_conversation(self.id_key, read_at(fh, offset, path=name, line=line, fmt=fmt, user=user))
        except (OSError, BadInput) as e:  # the file changed under us since the index pass
            self.report.unreadable += 1
            self._bad(BadLine(name, line, f"could not be read again: {e}"))
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
            turn_id = turn_id_for(self.id_key, conv.user_id, conv.key, k)
            try:
                result = await self.pipe.aprocess_turn(
                    conv.user_id,
                    conv.messages[:end],
                    timestamp=conv.turn_timestamp(start),
                    conversation_id=conv.conversation_id,
                    turn_id=turn_id,
                    legacy_turn_id=unkeyed_turn_id_for(conv, k),
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
            r.count_candidate(d)
            if d.route == "skip":
                reason = d.reason or "unknown"
                r.skips[reason] = r.skips.get(reason, 0) + 1
            elif d.outcome is Outcome.WRITTEN:
                r.writes[d.route] = r.writes.get(d.route, 0) + 1
            else:
                outcome = d.outcome.value if d.outcome is not None else "none"
                r.outcomes[outcome] = r.outcomes.get(outcome, 0) + 1
            for why in d.evicted:  # what left USER.md for this decision, and why (stages/clauses.py)
                r.evictions[why] = r.evictions.get(why, 0) + 1
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
            "settings": self.options.settings,
            "paths": [str(p) for p in self.paths],
            "index": str(index_path),
            "fmt": self.options.fmt,
            "files": self.options.files,
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

# ---- worker processes: the parent hands out users, each worker replays them with its own pipeline
# (built from the same Settings) and reports its counts back ------------------------------------------


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
        "rule": d.rule,
        "removal": d.removal_kind,  # as the decision log keeps it
        "asked": d.asked,
        "detail": r(d.detail),
        "outcome": r(d.outcome_text),
        "evicted": list(d.evicted),
        "engine": result.engine,
        "model": result.model,
    }


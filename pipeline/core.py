"""MemoryPipeline: the orchestration. Classify (engine) -> guards -> write (ledgers) -> commit (store + files).

Engines never touch files and ledgers know nothing of engines; this module is the only place
where the two meet.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pipeline import candidates as cands
from pipeline import guards
from pipeline.engines import make_engine
from pipeline.engines.base import Engine
from pipeline.erasure import Erased, erase_from_ledgers, erased_by_turn, scrub_backups
from pipeline.errors import MemrouteError
from pipeline.ledgers._text import norm_key, split_label
from pipeline.ledgers.memory_md import DEFAULT_MEMORY_LIMIT, MemoryLog, empty_memory_md
from pipeline.ledgers.user_md import DEFAULT_USER_LIMIT, UserProfile, empty_user_md
from pipeline.redaction import refuse_marked_writes
from pipeline.stages.consolidate import ConsolidationError, consolidate_log
from pipeline.stages.write import Change, WriteResult, apply_decisions, is_change_of_fact
from pipeline.store import Store
from pipeline.turns import build_turn, turn_payload
from pipeline.types import Classification, Turn, TurnResult, Usage
from pipeline.userdir import MEMORY_FILE, USER_FILE, LedgerTexts, UnreadableFile, UserDir

log = logging.getLogger("memroute.pipeline")


COMPACT_AT = 0.9  # USER.md is compacted (without an LLM) once it reaches this share of its cap ...
COMPACT_GOAL = 0.8  # ... down to this share, so the next facts find room


def default_root() -> Path:
    return Path(os.environ.get("MEMROUTE_HOME") or Path.home() / ".memroute")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def usage_line(text: str, limit: int) -> str:
    return f"{len(text):,}/{limit:,}"


# A file may exceed its cap (hand edits, imports); what goes into a prompt never exceeds this many caps.
PROMPT_CAP_FACTOR = 2


def prompt_view(text: str, limit: int, name: str) -> str:
    """`text` cut at a line boundary to PROMPT_CAP_FACTOR x its cap, with a line saying so."""
    budget = PROMPT_CAP_FACTOR * limit
    if len(text) <= budget:
        return text
    cut = text.rfind("\n", 0, budget)
    cut = cut if cut > 0 else budget
    return text[:cut] + f"\n[memroute: {len(text) - cut:,} more characters of {name} not shown: over its {limit:,}-character cap]\n"


@dataclass
class Ledgers:
    """Both files of one user, parsed, plus what was on disk."""

    profile: UserProfile
    log: MemoryLog
    texts: LedgerTexts
    user_refused: str | None = None  # why USER.md may not be rewritten (does not round-trip)
    memory_refused: str | None = None
    warnings: list[str] = field(default_factory=list)  # readers: what could not be read as is


class MemoryPipeline:
    def __init__(
        self,
        root: str | Path | None = None,
        *,
        engine: str | Engine | None = None,
        model: Any = None,
        api_base: str | None = None,
        user_limit: int | None = None,
        memory_limit: int | None = None,
        consolidate_at: float = 0.9,
        guard_policy: guards.GuardPolicy | None = None,
        cache_dir: str | Path | None = None,
        classify_model: str | None = None,
        consolidate_model: str | None = None,
        read_only: bool = False,
        candidate_ttl_days: float | None = None,
        log_quotes: bool | None = None,
    ) -> None:
        """`read_only`: for a root this process may not write; show, history, recall and context
        work, and any write fails.
        `log_quotes=True` (or env MEMROUTE_LOG_QUOTES=1) keeps the redacted words of skipped
        statements in the decision log, for debugging; by default only a digest of them is kept."""
        self.root = Path(root) if root is not None else default_root()
        if not read_only:
            self.root.mkdir(parents=True, exist_ok=True)
        self.engine: Engine = make_engine(
            engine,
            model=model,
            api_base=api_base,
            cache_dir=Path(cache_dir) if cache_dir else None,
            classify_model=classify_model,
            consolidate_model=consolidate_model,
        )
        self.user_limit = user_limit or DEFAULT_USER_LIMIT
        self.memory_limit = memory_limit or DEFAULT_MEMORY_LIMIT
        self.consolidate_at = consolidate_at
        self.guard_policy = guard_policy or guards.GuardPolicy()
        # Candidates not seen again for this many days are deleted (param, else env, else 60).
        self.candidate_ttl_days = _ttl_days(candidate_ttl_days)
        if log_quotes is None:
            log_quotes = os.environ.get("MEMROUTE_LOG_QUOTES", "").strip().lower() in ("1", "true", "yes", "on")
        self.store = Store(self.root, read_only=read_only, log_quotes=log_quotes)

    def close(self) -> None:
        """Close the store and the engine's pooled connections (if it has any)."""
        self.engine.close()
        self.store.close()

    async def aclose(self) -> None:
        """close(), plus the engine's connections opened on the running event loop (they close by
        themselves when the loop shuts down under asyncio.run; a loop you close yourself needs this)."""
        await self.engine.aclose()
        self.close()

    def __enter__(self) -> MemoryPipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the main job -------------------------------------------------------------------

    def process_turn(
        self,
        user_id: str,
        messages: Any,
        timestamp: datetime | str | None = None,
        conversation_id: str | None = None,
        turn_id: str | None = None,
    ) -> TurnResult:
        turn, udir, done = self._start(user_id, messages, timestamp, conversation_id, turn_id)
        if done is not None:
            return done
        try:
            current = self._load(udir)
        except (UnreadableFile, OSError) as e:  # kept for retry: fix the file, then `memroute retry`
            return self._fail(turn, e, Usage())
        try:
            classification = self.engine.classify(turn, *self._prompt_files(current))
        except Exception as e:
            return self._fail(turn, e, _usage_of(e))
        return self._apply_or_keep(turn, udir, classification, current)

    async def aprocess_turn(
        self,
        user_id: str,
        messages: Any,
        timestamp: datetime | str | None = None,
        conversation_id: str | None = None,
        turn_id: str | None = None,
    ) -> TurnResult:
        """process_turn for asyncio apps: the model call is awaited; the two small files are read
        inline, and the write and commit (locks, fsyncs, SQLite) run in a thread."""
        import asyncio  # here, not at the top: asyncio costs a CLI start ~60 ms

        turn, udir, done = self._start(user_id, messages, timestamp, conversation_id, turn_id)
        if done is not None:
            return done
        # Read inline: two capped files of a few KB cost less to read than a thread hop does.
        try:
            current = self._load(udir)
        except (UnreadableFile, OSError) as e:  # kept for retry: fix the file, then `memroute retry`
            return await asyncio.to_thread(self._fail, turn, e, Usage())
        try:
            classification = await self.engine.aclassify(turn, *self._prompt_files(current))
        except Exception as e:
            return await asyncio.to_thread(self._fail, turn, e, _usage_of(e))
        return await asyncio.to_thread(self._apply_or_keep, turn, udir, classification, current)

    def _start(
        self,
        user_id: str,
        messages: Any,
        timestamp: datetime | str | None,
        conversation_id: str | None,
        turn_id: str | None,
    ) -> tuple[Turn, UserDir, TurnResult | None]:
        """Validate the input and build the turn; a turn already applied comes back as done."""
        turn = build_turn(user_id, messages, timestamp=timestamp, conversation_id=conversation_id, turn_id=turn_id)
        udir = UserDir(self.root, user_id)
        done = self._already_done(turn) if self.store.turn_status(user_id, turn.turn_id) == "done" else None
        return turn, udir, done

    def retry(self, user_id: str | None = None) -> list[TurnResult]:
        """Run failed turns again, oldest first (their payloads were stored redacted)."""
        results = []
        for failed in self.store.failed_turns(user_id):
            payload = failed["payload"] or {}
            results.append(
                self.process_turn(
                    failed["user_id"],
                    payload.get("messages"),
                    timestamp=payload.get("timestamp"),
                    conversation_id=payload.get("conversation_id"),
                    turn_id=failed["turn_id"],
                )
            )
        return results

    def _prompt_files(self, current: Ledgers) -> tuple[str, str]:
        """What the engine is shown of the two files: each capped (a hand-edited 1 MB USER.md must
        not go whole into every prompt); the cut is said in the text itself."""
        return (
            prompt_view(current.profile.render(), self.user_limit, USER_FILE),
            prompt_view(current.log.render(), self.memory_limit, MEMORY_FILE),
        )

    def _already_done(self, turn: Turn) -> TurnResult:
        return TurnResult(
            user_id=turn.user_id,
            turn_id=turn.turn_id,
            conversation_id=turn.conversation_id,
            decisions=[],
            usage=Usage(),
            engine=self.engine.name,
            model=_model_name(self.engine),
            status="duplicate_turn",
        )

    def _apply_or_keep(self, turn: Turn, udir: UserDir, classification: Classification, seen: Ledgers) -> TurnResult:
        """_apply; a file that cannot be read or written (not UTF-8, permissions) fails the turn
        and keeps it for `retry` instead of losing it. Past the store's commit the turn is done."""
        try:
            return self._apply(turn, udir, classification, seen)
        except (UnreadableFile, OSError) as e:
            if self.store.turn_status(turn.user_id, turn.turn_id) == "done":
                raise
            return self._fail(turn, e, classification.usage)

    def _apply(self, turn: Turn, udir: UserDir, classification: Classification, seen: Ledgers) -> TurnResult:
        """Guard and write the decisions under the lock. `seen` is what the engine was shown; it is
        reused when the files did not change meanwhile (the engine only rendered it)."""
        decisions = guards.guard_decisions(classification.decisions, turn.user_text, self.guard_policy)
        decisions = refuse_marked_writes(decisions)  # a retried turn was stored redacted
        usage_parts: list[Usage] = [classification.usage]
        with udir.lock(recover=self._committed(turn.user_id)):
            if self.store.turn_status(turn.user_id, turn.turn_id) == "done":
                return self._already_done(turn)
            current = self._load(udir, reuse=seen)
            plan = cands.plan_turn(
                classification.decisions,
                decisions,
                self.store.candidates(turn.user_id),
                turn,
                {(cands.norm(f.key), cands.norm(f.value)) for f in current.profile.fields() if f.key},
                self.guard_policy,
            )
            try:
                written = apply_decisions(
                    plan.decisions,
                    current.profile,
                    current.log,
                    consolidate=self._consolidator(turn, usage_parts) if current.memory_refused is None else None,
                    consolidate_at=self.consolidate_at,
                    compact=self._compactor(turn.user_id, usage_parts),
                    compact_at=None if hasattr(self.engine, "compact_user") else COMPACT_AT,
                )
            except ConsolidationError as e:
                return self._fail(turn, e, _total([*usage_parts, _usage_of(e)]))
            except Exception as e:  # the engine failed while compacting: nothing was written
                return self._fail(turn, e, _total(usage_parts))
            _refuse_unsafe_rewrites(written, current)
            erased = _purge_plan(written)  # a forget in a turn erases, as `forget --purge` does
            usage = _total(usage_parts)
            files = self._changed_files(current, written)
            ts = _now()

            def store_commit() -> None:
                with self.store.transaction() as conn:
                    self._update_candidates(conn, turn, plan, written)
                    self.store.add_decisions(
                        conn,
                        user_id=turn.user_id,
                        turn_id=turn.turn_id,
                        conversation_id=turn.conversation_id,
                        decisions=written.decisions,
                        engine=classification.engine,
                        model=classification.model,
                        prompt_version=classification.prompt_version,
                        usage=usage,
                        ts=ts,
                    )
                    self._record(conn, turn.user_id, turn.turn_id, turn.conversation_id, written, classification, ts)
                    if erased:
                        self.store.purge_text(conn, turn.user_id, erased.needles, erased.keys)
                    self.store.mark_turn(
                        conn,
                        user_id=turn.user_id,
                        turn_id=turn.turn_id,
                        conversation_id=turn.conversation_id,
                        status="done",
                        ts=ts,
                    )

            udir.commit(turn.turn_id, files, store_commit)
            if erased:
                self._finish_erasure(udir, erased)
        return TurnResult(
            user_id=turn.user_id,
            turn_id=turn.turn_id,
            conversation_id=turn.conversation_id,
            decisions=written.decisions,
            usage=usage,
            engine=classification.engine,
            model=classification.model,
            prompt_version=classification.prompt_version,
            user_changed=USER_FILE in files,
            memory_changed=MEMORY_FILE in files,
            consolidated=written.consolidated,
        )

    def _update_candidates(self, conn: Any, turn: Turn, plan: cands.CandidatePlan, written: WriteResult) -> None:
        """Keep, bump, promote, supersede, forget and expire the user's candidates, in the turn's
        transaction. Sets each candidate decision's outcome (the decision log records it)."""
        user_id, seen_at = turn.user_id, cands.iso(cands.turn_time(turn))
        out = written.decisions
        # Keys the turn set firmly: whatever weaker value waited under them is replaced.
        firm_keys = {
            cands.norm(d.key)
            for d in out
            if d.route == "user" and d.op == "upsert" and d.key and d.outcome in ("written", "unchanged")
        }
        keep = dict(plan.keep)
        for i, cid in plan.promoted.items():
            if out[i].outcome == "written":
                out[i].outcome = "promoted"
            elif out[i].outcome != "unchanged":  # not written (cap, refused file): it keeps waiting
                if i in plan.waiting:
                    keep[i] = plan.waiting[i]
                    out[i].outcome = f"candidate: {out[i].outcome}"
                continue
            self.store.delete_candidates(conn, user_id, [cid])
        self.store.supersede_candidates(conn, user_id, sorted(firm_keys))
        for i, d in sorted(keep.items()):
            if cands.norm(d.key or "") in firm_keys:
                out[i].outcome = "skipped: the turn states this key firmly"
                continue
            self.store.upsert_candidate(
                conn, user_id=user_id, section=d.section, key=(d.key or "").strip(), value=(d.value or "").strip(),
                quote=d.quote, turn_id=turn.turn_id, conversation_id=turn.conversation_id, seen_at=seen_at,
            )
            out[i].candidate = True
            if out[i].outcome in (None, "skipped"):
                out[i].outcome = "candidate"
        # A forget covers the candidates it names, whether or not a file held them.
        for d in out:
            if d.op == "remove" and d.match and self.store.purge_candidates(conn, user_id, d.match):
                if d.outcome in (None, "not_found"):
                    d.outcome = "written: candidates erased"
        cutoff = cands.expiry_cutoff(cands.turn_time(turn), self.candidate_ttl_days)
        self.store.expire_candidates(conn, cutoff, user_id)

    def _fail(self, turn: Turn, error: BaseException, usage: Usage) -> TurnResult:
        message = f"{type(error).__name__}: {error}"
        log.warning("turn %s of user %s failed: %s", turn.turn_id, turn.user_id, type(error).__name__)
        with self.store.transaction() as conn:
            self.store.mark_turn(
                conn,
                user_id=turn.user_id,
                turn_id=turn.turn_id,
                conversation_id=turn.conversation_id,
                status="failed",
                error=message,
                payload=turn_payload(turn),
                ts=_now(),
            )
        return TurnResult(
            user_id=turn.user_id,
            turn_id=turn.turn_id,
            conversation_id=turn.conversation_id,
            decisions=[],
            usage=usage,
            engine=self.engine.name,
            model=_model_name(self.engine),
            status="failed",
            error=self.store.redact(message),
        )

    def _compactor(self, user_id: str, usage_parts: list[Usage]) -> Callable[[str, int], str | None]:
        """The engine's USER.md compaction (a model's, or the rule-based default); either way a field
        the user set by hand (tool, import: confirmed) or pinned never leaves."""

        def run(user_md: str, needed_chars: int) -> str | None:
            confirmed = self._confirmed_keys(user_id)
            done = self.engine.compact(user_md, needed_chars, protected=frozenset(confirmed),
                                       goal_chars=int(self.user_limit * COMPACT_GOAL))
            usage_parts.append(done.usage)  # this call's own usage, failed attempts included
            rewritten = done.value
            if rewritten is not None and not (confirmed & _keys(user_md)) <= _keys(rewritten):
                return None  # the engine dropped a field the user confirmed
            return rewritten

        return run

    def _confirmed_keys(self, user_id: str) -> set[str]:
        """USER.md keys whose current value the user set by hand (provenance: no engine decided it)."""
        latest: dict[str, str | None] = {}
        for row in self.store.provenance(user_id, target="user"):
            key = row.get("key") or split_label(str(row.get("value") or ""))[0]  # the tool records "Key: value"
            if key:
                latest[norm_key(key)] = row.get("engine")
        return {key for key, engine in latest.items() if engine == "manual"}

    def _consolidator(
        self, turn: Turn, usage_parts: list[Usage]
    ) -> Callable[[MemoryLog], tuple[list[Change], list[Change]]]:
        def run(memory: MemoryLog) -> tuple[list[Change], list[Change]]:
            return consolidate_log(
                memory, self.engine, memory_limit=self.memory_limit, today=turn.today, usage_sink=usage_parts
            )

        return run

    # ---- shared helpers for every write path --------------------------------------------

    def _committed(self, user_id: str) -> Callable[[str], bool]:
        return lambda turn_id: self.store.turn_status(user_id, turn_id) == "done"

    def _load(self, udir: UserDir, reuse: Ledgers | None = None, *, reader: bool = False) -> Ledgers:
        """Both files, parsed. A `reader` (show, context, recall, export) never raises for a bad
        file (it gets a warning instead), and first rolls forward a commit a killed writer left
        between the store's commit and the rename, so it never sees history ahead of the files."""
        warnings: list[str] = []
        if reader:
            if udir.has_pending_commit():
                with udir.lock(recover=self._committed(udir.user_id)):
                    pass
            texts, warnings = udir.read_lenient()
        else:
            texts = udir.read()
        if reuse is not None and (texts.user_raw, texts.memory_raw) == (reuse.texts.user_raw, reuse.texts.memory_raw):
            return reuse
        user_text = texts.user if texts.user is not None else empty_user_md()
        memory_text = texts.memory if texts.memory is not None else empty_memory_md()
        # Parsed with their caps: every growing op checks the cap and undoes itself when over.
        profile = UserProfile.parse(user_text, limit=self.user_limit)
        memory = MemoryLog.parse(memory_text, limit=self.memory_limit)
        current = Ledgers(profile=profile, log=memory, texts=texts, warnings=warnings)
        if texts.user_raw is not None and not profile.round_trips:
            bak = udir.backup(udir.user_path, texts.user_raw)
            current.user_refused = f"{USER_FILE} does not round-trip; left as is (copy at {bak.name}); fix it by hand"
        if texts.memory_raw is not None and not memory.round_trips:
            bak = udir.backup(udir.memory_path, texts.memory_raw)
            current.memory_refused = (
                f"{MEMORY_FILE} does not round-trip; left as is (copy at {bak.name}); fix it by hand"
            )
        return current

    def _changed_files(self, current: Ledgers, written: WriteResult) -> dict[str, str]:
        files: dict[str, str] = {}
        new_user = written.profile.render()
        if current.user_refused is None and new_user != (current.texts.user or ""):
            if current.texts.user is not None or written.profile.fields():
                files[USER_FILE] = new_user
        new_memory = written.log.render()
        if current.memory_refused is None and new_memory != (current.texts.memory or ""):
            if current.texts.memory is not None or written.log.entries:
                files[MEMORY_FILE] = new_memory
        return files

    def _record(
        self,
        conn: Any,
        user_id: str,
        turn_id: str,
        conversation_id: str | None,
        written: WriteResult,
        source: Classification | None,
        ts: str,
    ) -> None:
        engine = source.engine if source else "manual"
        model = source.model if source else None
        prompt_version = source.prompt_version if source else None
        for c in written.changes:
            self.store.add_change(
                conn,
                user_id=user_id,
                target=c.target,
                op=c.op,
                key=c.key,
                old=c.old,
                new=c.new,
                why=c.why,
                turn_id=turn_id,
                conversation_id=conversation_id,
                quote=c.quote,
                engine=engine,
                model=model,
                prompt_version=prompt_version,
                ts=ts,
            )
        for a in written.archive:
            text = f"{a.key}: {a.old}" if a.key and a.old else (a.old or "")
            self.store.add_archive(conn, user_id=user_id, target=a.target, text=text, why=a.why, ts=ts, turn_id=turn_id)

    # ---- reading ------------------------------------------------------------------------

    def show(self, user_id: str) -> dict[str, Any]:
        """Both files and their usage; `warnings` says what could not be read as is (a file that
        is not UTF-8 or not readable is shown as well as it can be, never an exception)."""
        current = self._load(UserDir(self.root, user_id), reader=True)
        user_text, memory_text = current.profile.render(), current.log.render()
        return {
            "warnings": current.warnings,
            "user_id": user_id,
            "user_md": user_text,
            "memory_md": memory_text,
            "user_usage": usage_line(user_text, self.user_limit),
            "memory_usage": usage_line(memory_text, self.memory_limit),
            "entry_count": len(current.log.entries),
            "field_count": len(current.profile.fields()),
        }

    def context(self, user_id: str) -> str:
        """The block a chat app puts in its system prompt at session start: USER, then MEMORY.

        It is a snapshot: keep the string for the whole session. Lines that the guards would
        block (for example a poisoned hand edit) are shown as blocked, and kept in the file.
        """
        shown = self.show(user_id)
        parts = []
        for title, text, usage in (  # each file capped like an engine prompt (a 1 MB hand edit is cut)
            ("USER PROFILE", prompt_view(shown["user_md"], self.user_limit, USER_FILE), shown["user_usage"]),
            ("MEMORY", prompt_view(shown["memory_md"], self.memory_limit, MEMORY_FILE), shown["memory_usage"]),
        ):
            safe = _without_hostile_lines(text, self.guard_policy)
            parts.append(f"══ {title} [{usage} chars] ══\n" + safe.strip())
        return "\n\n".join(parts) + "\n"

    def history(self, user_id: str) -> list[dict[str, Any]]:
        UserDir(self.root, user_id)  # validates the id
        return self.store.history(user_id)

    def recall(self, user_id: str, query: str, k: int = 5) -> list[dict[str, Any]]:
        """Full-text search over both files (current lines) and the archive of what left them."""
        current = self._load(UserDir(self.root, user_id), reader=True)
        terms = [t for t in query.lower().split() if t]
        hits: list[dict[str, Any]] = []
        for source, text in (("USER.md", current.profile.render()), ("MEMORY.md", current.log.render())):
            for line in text.splitlines():
                lowered = line.lower()
                if line.startswith("- ") and terms and all(t in lowered for t in terms):
                    hits.append({"source": source, "text": line[2:]})
        for cand in self.store.search_candidates(user_id, query, k=k):
            hits.append({"source": "candidate", "candidate": True, "text": f"{cand['key']}: {cand['value']}",
                         **_candidate_view(cand)})
        for row in self.store.recall_archive(user_id, query, k=k):
            hits.append({"source": "archive", **row})
        return hits[:k]

    # ---- candidates: facts waiting for confirmation (never in USER.md until promoted) ----

    def candidates(self, user_id: str) -> list[dict[str, Any]]:
        """The user's candidates, most recently seen first, each with when it expires."""
        UserDir(self.root, user_id)  # validates the id
        return [_candidate_view(row, self.candidate_ttl_days) for row in self.store.candidates(user_id)]

    def forget_candidates(self, user_id: str, key_or_text: str) -> int:
        """Erase the candidates a forget of `key_or_text` covers; returns how many went."""
        UserDir(self.root, user_id)
        with self.store.transaction() as conn:
            return self.store.purge_candidates(conn, user_id, key_or_text)

    def expire_candidates(self, user_id: str | None = None, now: datetime | None = None) -> int:
        """Delete candidates last seen more than candidate_ttl_days before `now` (default: the wall
        clock); every user's when user_id is None. Turns do this on their own clock as they arrive."""
        if user_id is not None:
            UserDir(self.root, user_id)
        cutoff = cands.expiry_cutoff(now or datetime.now(timezone.utc), self.candidate_ttl_days)
        with self.store.transaction() as conn:
            return self.store.expire_candidates(conn, cutoff, user_id)

    def confirm_candidate(self, user_id: str, ref: int | str) -> dict[str, Any]:
        """The user confirmed a candidate (by id, or by key when one candidate has it): write it to
        USER.md through the write path, history saying it was a confirmed candidate."""
        udir = UserDir(self.root, user_id)
        turn_id = f"confirm-{uuid.uuid4().hex[:12]}"
        with udir.lock(recover=self._committed(user_id)):  # a turn may promote or bump it meanwhile
            rows = self.store.candidates(user_id)
            if isinstance(ref, int) or str(ref).isdigit():
                found = [r for r in rows if r["id"] == int(ref)]
            else:
                found = [r for r in rows if r["key_norm"] == cands.norm(str(ref))]
            if len(found) != 1:
                why = "no candidate" if not found else f"{len(found)} candidates"
                raise CandidateNotFound(f"{why} for {ref!r}; see `memroute show {user_id} --candidates`")
            row = found[0]
            current = self._load(udir)
            written = apply_decisions([cands.confirmation(row)], current.profile, current.log)
            _refuse_unsafe_rewrites(written, current)
            decision = written.decisions[0]
            landed = decision.outcome in ("written", "unchanged")
            if decision.outcome == "written":
                decision.outcome = "promoted"
            if landed:  # over the cap or a refused file: nothing changes, the candidate keeps waiting
                self.commit_manual(
                    udir, turn_id, self._changed_files(current, written), written,
                    extra=lambda conn: self.store.supersede_candidates(conn, user_id, [row["key_norm"]]),
                )
        return {
            "success": landed,
            "outcome": decision.outcome,
            "field": f"{row['key']}: {row['value']}",
            "usage": usage_line(written.profile.render(), self.user_limit),
        }

    # ---- erasure and subject access --------------------------------------------------------

    def forget(self, user_id: str, key_or_text: str, *, purge: bool = False) -> dict[str, Any]:
        """Take a key ("Email", "phone number") or a text out of USER.md and MEMORY.md.

        Without `purge` it is an ordinary removal: the old value goes to the archive and history
        (recall can still find it). With `purge` every copy held for this user is erased: history,
        provenance, archive (and its full-text index), decision log, failed turns, hook queue,
        candidates and the .bak copies; then the database and its WAL are compacted, so a byte
        search of the root no longer finds the value. A forget request in a turn purges too.
        """
        udir = UserDir(self.root, user_id)
        turn_id = f"forget-{uuid.uuid4().hex[:12]}"
        with udir.lock(recover=self._committed(user_id)):
            current = self._load(udir)
            refused = current.user_refused or current.memory_refused
            if refused:
                raise ValueError(refused)
            erased = erase_from_ledgers(current.profile, current.log, key_or_text)
            written = WriteResult(profile=current.profile, log=current.log)
            if purge:
                written.changes = [_purge_record(c) for c in erased.changes]
            else:
                written.changes = erased.changes
                written.archive = [
                    Change(c.target, "removed", c.key, c.old, None, "forgotten at the user's request")
                    for c in erased.changes
                ]
            files = self._changed_files(current, written)
            ts = _now()
            counts: dict[str, int] = {}

            def store_commit() -> None:
                with self.store.transaction() as conn:
                    self._record(conn, user_id, turn_id, None, written, None, ts)
                    purged = 0
                    if purge:
                        purged = self.store.purge_text(conn, user_id, erased.needles, erased.keys)
                    else:
                        self.store.purge_candidates(conn, user_id, key_or_text)
                    counts["rows_erased"] = purged
                    self.store.mark_turn(conn, user_id=user_id, turn_id=turn_id, conversation_id=None, status="done", ts=ts)

            udir.commit(turn_id, files, store_commit)
            if purge:
                self._finish_erasure(udir, erased)
        return {
            "success": True,
            "removed": erased.labels,
            "purged": purge,
            "rows_erased": counts.get("rows_erased", 0),
            "message": (
                f"removed {len(erased.labels)} item(s)" + (" and erased every copy" if purge else " (kept in history and archive)")
                if erased
                else "nothing in USER.md or MEMORY.md matched" + ("; other copies erased" if purge else "")
            ),
        }

    def delete_user(self, user_id: str) -> dict[str, Any]:
        """Erase everything held about the user: both files and their folder, and every row in
        every table (then the database and its WAL are compacted)."""
        import shutil

        udir = UserDir(self.root, user_id)
        with udir.lock(recover=self._committed(user_id)):
            with self.store.transaction() as conn:
                rows = self.store.purge_user(conn, user_id)
            for child in udir.path.iterdir():
                if child.name == ".lock":
                    continue
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child)
                else:
                    child.unlink()
        shutil.rmtree(udir.path, ignore_errors=True)
        self.store.compact()
        return {"success": True, "user_id": user_id, "rows_erased": rows}

    def export_all(self, user_id: str) -> dict[str, Any]:
        """Everything memroute holds about the user (subject access), as JSON-ready data."""
        udir = UserDir(self.root, user_id)
        current = self._load(udir, reader=True)
        texts = current.texts
        return {
            "user_id": user_id,
            "warnings": current.warnings,
            "files": {USER_FILE: texts.user, MEMORY_FILE: texts.memory},
            "backups": {p.name: p.read_bytes().decode("utf-8", errors="replace") for p in sorted(udir.path.glob("*.bak"))},
            "store": self.store.everything_about(user_id),
        }

    def _finish_erasure(self, udir: UserDir, erased: Erased) -> None:
        scrub_backups(udir.path, erased.needles)
        self.store.compact()

    # ---- direct edits (Hermes-style tool), consolidation on demand, import/export --------

    def tool(
        self,
        user_id: str,
        action: str,
        target: str,
        content: str | None = None,
        old_text: str | None = None,
        section: str | None = None,
    ) -> dict[str, Any]:
        from pipeline.tool import run_tool

        return run_tool(self, user_id, action, target, content=content, old_text=old_text, section=section)

    def consolidate(self, user_id: str) -> dict[str, Any]:
        udir = UserDir(self.root, user_id)
        turn_id = f"consolidate-{uuid.uuid4().hex[:12]}"
        usage_parts: list[Usage] = []
        with udir.lock(recover=self._committed(user_id)):
            current = self._load(udir)
            if current.memory_refused:
                raise ConsolidationError(current.memory_refused)
            before = current.log.render()
            if not current.log.entries:
                return {
                    "success": True,
                    "message": "MEMORY.md has no entries: nothing to consolidate",
                    "before": usage_line(before, self.memory_limit),
                    "after": usage_line(before, self.memory_limit),
                    "entry_count": 0,
                    "archived": 0,
                }
            changes, archive = consolidate_log(
                current.log,
                self.engine,
                memory_limit=self.memory_limit,
                today=datetime.now(timezone.utc).date(),
                usage_sink=usage_parts,
            )
            written = WriteResult(profile=current.profile, log=current.log, changes=changes, archive=archive)
            if current.log.render() != before:  # a plan that keeps every entry as it was changes nothing
                self.commit_manual(udir, turn_id, {MEMORY_FILE: current.log.render()}, written)
        after = current.log.render()
        return {
            "success": True,
            "before": usage_line(before, self.memory_limit),
            "after": usage_line(after, self.memory_limit),
            "entry_count": len(current.log.entries),
            "archived": len(archive),
        }

    def commit_manual(
        self,
        udir: UserDir,
        turn_id: str,
        files: dict[str, str],
        written: WriteResult,
        extra: Callable[[Any], object] | None = None,
    ) -> None:
        """Commit a change that did not come from a chat turn (tool, consolidate, import). Call under lock.
        `extra(conn)` adds records of its own to the same transaction."""
        ts = _now()

        def store_commit() -> None:
            with self.store.transaction() as conn:
                if extra is not None:
                    extra(conn)
                self._record(conn, udir.user_id, turn_id, None, written, None, ts)
                self.store.mark_turn(
                    conn, user_id=udir.user_id, turn_id=turn_id, conversation_id=None, status="done", ts=ts
                )

        udir.commit(turn_id, files, store_commit)


def _without_hostile_lines(text: str, policy: guards.GuardPolicy) -> str:
    """`text` with each line the load scan flags replaced by a marker (the file keeps it)."""
    lines = text.splitlines()
    for number, rule in guards.scan_for_prompt(text, policy):  # numbered from 1
        lines[number - 1] = f"[blocked by memroute: {rule}]"
    return "\n".join(lines)


class CandidateNotFound(MemrouteError, LookupError):
    """confirm_candidate: no candidate, or more than one, answers to the reference."""


def _candidate_view(row: dict[str, Any], ttl_days: float | None = None) -> dict[str, Any]:
    """A stored candidate as users see it (API, --json, recall): no matching internals."""
    view = {
        k: row[k]
        for k in ("id", "section", "key", "value", "quote", "first_seen_at", "first_conversation_id",
                  "first_turn_id", "last_seen_at", "last_conversation_id", "times_seen")
    }
    if ttl_days is not None:
        last = datetime.fromisoformat(str(row["last_seen_at"]))
        view["expires_at"] = cands.iso(last + timedelta(days=ttl_days))
    return view


def _refuse_unsafe_rewrites(written: WriteResult, current: Ledgers) -> None:
    """A file that does not round-trip is never rewritten: mark the decisions that would have."""
    for d in written.decisions:
        if d.outcome != "written":
            continue
        refusal = current.user_refused if d.route == "user" else current.memory_refused
        if refusal:
            d.outcome = f"refused: {refusal}"
    if current.user_refused:
        written.changes = [c for c in written.changes if c.target != "user"]
        written.archive = [c for c in written.archive if c.target != "user"]
    if current.memory_refused:
        written.changes = [c for c in written.changes if c.target != "memory"]
        written.archive = [c for c in written.archive if c.target != "memory"]


def _keys(user_md: str) -> set[str]:
    return {norm_key(f.key) for f in UserProfile.parse(user_md).fields() if f.key}


def _purge_plan(written: WriteResult) -> Erased:
    """The values the turn's forget decisions took out of the files. Their removal is recorded
    without the value, and nothing of them goes to the archive: the store then erases every copy."""
    erased = erased_by_turn(written)
    if not erased:
        return erased
    for d in written.decisions:  # "forget that I use Vue": the words named are erased too
        if d.op == "remove" and d.outcome == "written" and d.match and not erased.keys:
            erased.add_needle(d.match)
    written.changes = [_purge_record(c) if c.op == "remove" and not is_change_of_fact(c.why) else c
                       for c in written.changes]
    written.archive = [a for a in written.archive if a.op != "removed" or is_change_of_fact(a.why)]
    return erased


def _purge_record(c: Change) -> Change:
    """History keeps that something was erased (and its key), never what."""
    key = c.key if c.target == "user" and c.key != c.old else None
    return Change(c.target, "purge", key, None, None, "erased at the user's request")


def _usage_of(error: BaseException) -> Usage:
    """What a failed engine call spent (LLMError carries it; a ConsolidationError wraps one)."""
    for candidate in (error, error.__cause__):
        usage = getattr(candidate, "usage", None)
        if isinstance(usage, Usage):
            return usage
    return Usage()


def _total(parts: list[Usage]) -> Usage:
    total = Usage()
    for part in parts:
        total = total + part
    return total


def _ttl_days(value: float | None) -> float:
    """candidate_ttl_days: the argument, else env MEMROUTE_CANDIDATE_TTL_DAYS, else 60 days."""
    if value is None:
        raw = os.environ.get("MEMROUTE_CANDIDATE_TTL_DAYS", "").strip()
        try:
            value = float(raw) if raw else float(cands.DEFAULT_TTL_DAYS)
        except ValueError:
            raise ValueError(f"MEMROUTE_CANDIDATE_TTL_DAYS must be a number of days, not {raw!r}") from None
    if not value > 0:
        raise ValueError(f"candidate_ttl_days must be a positive number of days, not {value!r}")
    return float(value)


def _model_name(engine: Engine) -> str | None:
    model = engine.model
    return model if isinstance(model, str) or model is None else type(model).__name__


__all__ = ["MemoryPipeline", "default_root"]

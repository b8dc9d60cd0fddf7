"""MemoryPipeline: the orchestration. Classify (engine) -> guards -> write (ledgers) -> commit (store + files).

Engines never touch files and ledgers know nothing of engines; this module is the only place
where the two meet. Every write goes through `edit()` (pipeline/ops/edit.py); what a chat turn
writes is in pipeline/ops/turn.py, the other writes in pipeline/ops/manual.py.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Protocol

from pipeline import guards, observe
from pipeline._util.keyed import ID_KEY
from pipeline.engines import make_engine
from pipeline.engines.base import DEFAULT_DEADLINE_S, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S, TURN_STARTED, Engine
from pipeline.engines.views import MemoryView, UserView
from pipeline.errors import ModelConfigError, UnreadableFile
from pipeline.ledgers.entry_dates import is_stamp
from pipeline.ledgers.memory_md import DEFAULT_MEMORY_LIMIT, entry_matches
from pipeline.ledgers.user_md import DEFAULT_USER_LIMIT
from pipeline.ops import manual, review
from pipeline.ops.edit import Edit, Ledgers
from pipeline.ops.turn import WritePolicy, already_done, apply_turn, fail_turn
from pipeline.ops.usage import usage_of
from pipeline.ops.workspace import Workspace, usage_line
from pipeline.stages import candidates as cands
from pipeline.stages.write import CONSOLIDATE_AT
from pipeline.store.files import MEMORY_FILE, USER_FILE, FileDocuments
from pipeline.store.interface import DocumentStore, MemoryStore, UserDocuments
from pipeline.store.location import Location, default_root
from pipeline.store.private import make_private_dir
from pipeline.store.rules import rule_matches
from pipeline.store.sqlite import SQLiteStore
from pipeline.turns import build_turn, made_turn_id, unkeyed_turn_id
from pipeline.types import FORGOTTEN, Classification, Turn, TurnResult, Usage

log = logging.getLogger("memroute.pipeline")


class TurnQueue(Protocol):
    """What reads wait for: a queue of this pipeline's turns in this process (PostTurnHook)."""

    def flush(self, user_id: str | None = None, timeout: float | None = 10.0) -> bool: ...


# How long a read (context, recall) waits for the user's turns still queued in this process's hooks.
READ_WAIT_S = 10.0

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


class MemoryPipeline:
    def __init__(
        self,
        root: str | Path | None = None,
        *,
        engine: str | Engine | None = None,
        model: Any = None,
        api_base: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        deadline: float | None = DEFAULT_DEADLINE_S,
        max_retries: int = DEFAULT_MAX_RETRIES,
        structured: str | None = None,
        user_limit: int | None = None,
        memory_limit: int | None = None,
        consolidate_at: float = CONSOLIDATE_AT,
        guard_policy: guards.GuardPolicy | None = None,
        cache_dir: str | Path | None = None,
        classify_model: str | None = None,
        consolidate_model: str | None = None,
        read_only: bool = False,
        candidate_ttl_days: float | None = None,
        log_quotes: bool = False,
        store: MemoryStore | None = None,
        documents: DocumentStore | None = None,
    ) -> None:
        """`engine`: an Engine, or a name; None means "llm" when `model` is given, else the offline
        engine (environment variables are the CLI's business, not the library's).
        `timeout`, `deadline`, `max_retries`: what a model-backed engine may spend (per request, per
        turn, retries per request); `structured`: how it asks for structured output (None: "auto").
        The defaults are the CLI's (engines/base.py), and
        `pipeline.settings.build_pipeline(Settings(...))` builds the same pipeline from one Settings.
        `read_only`: for a root this process may not write; show, history, recall and context
        work, and any write fails.
        `log_quotes=True` (the CLI's MEMROUTE_LOG_QUOTES / --log-quotes) keeps the redacted words of skipped
        statements in the decision log, for debugging; by default only a digest of them is kept."""
        self.root = Path(root) if root is not None else default_root()
        # The PostTurnHooks built on this pipeline (each adds itself): reads wait for their turns of the user.
        self.hooks: weakref.WeakSet[TurnQueue] = weakref.WeakSet()
        if not read_only and documents is None:  # documents kept elsewhere (a database) need no folder
            make_private_dir(self.root)
        if engine is None:  # no env lookup here (MEMROUTE_ENGINE/MODEL): the CLI resolves its settings
            engine = "offline" if model is None else "llm"
        self.engine: Engine = make_engine(
            engine,
            model=model,
            api_base=api_base,
            timeout=timeout,
            deadline=deadline,
            max_retries=max_retries,
            structured=structured,
            cache_dir=Path(cache_dir) if cache_dir else None,
            classify_model=classify_model,
            consolidate_model=consolidate_model,
        )
        # Candidates not seen again for this many days are deleted (param, else env, else 60).
        self.candidate_ttl_days = _ttl_days(candidate_ttl_days)
        self.consolidate_at = consolidate_at
        # How a turn's writes make room: chosen here, for this engine (ops/turn.py).
        self.policy = WritePolicy.for_engine(self.engine, consolidate_at=consolidate_at,
                                             candidate_ttl_days=self.candidate_ttl_days)
        # The records and the documents: SQLite and files under the root unless given (issue 19);
        # what the write operations (pipeline/ops/) work on.
        if store is None and documents is None:
            store, documents = Location(self.root).open(read_only=read_only, log_quotes=log_quotes)
        self.workspace = Workspace(
            store=store or SQLiteStore(self.root, read_only=read_only, log_quotes=log_quotes),
            documents=documents or FileDocuments(self.root),
            user_limit=user_limit or DEFAULT_USER_LIMIT,
            memory_limit=memory_limit or DEFAULT_MEMORY_LIMIT,
            guard_policy=guard_policy or guards.GuardPolicy(),
        )

    @property
    def store(self) -> MemoryStore:
        return self.workspace.store

    @property
    def documents(self) -> DocumentStore:
        return self.workspace.documents

    @property
    def user_limit(self) -> int:
        return self.workspace.user_limit

    @property
    def memory_limit(self) -> int:
        return self.workspace.memory_limit

    @property
    def guard_policy(self) -> guards.GuardPolicy:
        return self.workspace.guard_policy

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
        *,
        amend: Callable[[Turn, Classification], Classification] | None = None,
        legacy_turn_id: str | None = None,
    ) -> TurnResult:
        """Classify the turn, guard the decisions and write them. A turn applied before (the same turn id)
        comes back as `duplicate_turn`, nothing written twice. `amend(turn, classification)`, for an
        importer of memory that was curated elsewhere: changes the engine's decisions before the guards
        and the write. `legacy_turn_id`: for a caller that makes its own ids from what the user wrote
        (memroute's batch and imports), the plain id an older version gave this turn; a store that
        recorded turns then treats a turn applied under it as a duplicate too (looked up, never written)."""
        with _turn_clock(), _observed_turn(self.engine.name, turn_id) as seen:
            return seen(self._process_turn(user_id, messages, timestamp, conversation_id, turn_id, amend,
                                           legacy_turn_id))

    def _process_turn(
        self, user_id: str, messages: Any, timestamp: datetime | str | None, conversation_id: str | None,
        turn_id: str | None, amend: Callable[[Turn, Classification], Classification] | None = None,
        legacy_turn_id: str | None = None,
    ) -> TurnResult:
        turn, docs, done = self._start(user_id, messages, timestamp, conversation_id, turn_id, legacy_turn_id)
        if done is not None:
            return done
        try:
            current = self.workspace.read(docs)
        except (UnreadableFile, OSError) as e:  # kept for retry: fix the file, then `memroute retry`
            return fail_turn(self.store, self.engine, turn, e, Usage())
        try:
            with observe.stage("classify", self.engine.name):
                classification = self.engine.classify(turn, *self._prompt_files(current))
        except ModelConfigError:
            raise  # a missing API key: the caller must fix it; retrying the turn cannot help
        except Exception as e:
            return fail_turn(self.store, self.engine, turn, e, usage_of(e))
        if amend is not None:
            classification = amend(turn, classification)
        return apply_turn(self.workspace, self.engine, self.policy, turn, classification, current)

    async def aprocess_turn(
        self,
        user_id: str,
        messages: Any,
        timestamp: datetime | str | None = None,
        conversation_id: str | None = None,
        turn_id: str | None = None,
        *,
        legacy_turn_id: str | None = None,
    ) -> TurnResult:
        """process_turn for asyncio apps: the model call is awaited; the two small files are read
        inline, and the write and commit (locks, fsyncs, SQLite) run in a thread."""
        with _turn_clock(), _observed_turn(self.engine.name, turn_id) as seen:  # threads started below copy them
            return seen(await self._aprocess_turn(user_id, messages, timestamp, conversation_id, turn_id,
                                                  legacy_turn_id))

    async def _aprocess_turn(
        self, user_id: str, messages: Any, timestamp: datetime | str | None, conversation_id: str | None,
        turn_id: str | None, legacy_turn_id: str | None,
    ) -> TurnResult:
        import asyncio  # here, not at the top: asyncio costs a CLI start ~60 ms

        turn, docs, done = self._start(user_id, messages, timestamp, conversation_id, turn_id, legacy_turn_id)
        if done is not None:
            return done
        # Read inline: two capped files of a few KB cost less to read than a thread hop does.
        try:
            current = self.workspace.read(docs)
        except (UnreadableFile, OSError) as e:  # kept for retry: fix the file, then `memroute retry`
            return await asyncio.to_thread(fail_turn, self.store, self.engine, turn, e, Usage())
        try:
            with observe.stage("classify", self.engine.name):
                classification = await self.engine.aclassify(turn, *self._prompt_files(current))
        except ModelConfigError:
            raise
        except Exception as e:
            return await asyncio.to_thread(fail_turn, self.store, self.engine, turn, e, usage_of(e))
        return await asyncio.to_thread(apply_turn, self.workspace, self.engine, self.policy, turn, classification,
                                       current)

    def _start(
        self,
        user_id: str,
        messages: Any,
        timestamp: datetime | str | None,
        conversation_id: str | None,
        turn_id: str | None,
        legacy_turn_id: str | None = None,
    ) -> tuple[Turn, UserDocuments, TurnResult | None]:
        """Validate the input and build the turn; a turn already applied comes back as done."""
        key = self.store.secret_key(ID_KEY) if turn_id is None else None
        turn = build_turn(user_id, messages, timestamp=timestamp, conversation_id=conversation_id, turn_id=turn_id,
                          id_key=key)
        docs = self.documents.documents(user_id)
        applied = self.store.turn_status(user_id, turn.turn_id) == "done" or self._applied_unkeyed(
            turn, made=turn_id is None, legacy_turn_id=legacy_turn_id)
        return turn, docs, already_done(turn, self.engine) if applied else None

    def _applied_unkeyed(self, turn: Turn, *, made: bool, legacy_turn_id: str | None) -> bool:
        """Whether the store applied this turn before ids were keyed, under the plain id it had then:
        the caller's `legacy_turn_id`, else, when the turn's id is the one made from the turn (here,
        or by the hook or a queue, which make it the same way), the plain id made from it. Asked only
        of a store that recorded turns then; the plain id is looked up, never written or returned
        (the result carries the keyed id)."""
        if not self.store.holds_unkeyed_ids():
            return False
        if legacy_turn_id is None and (made or turn.turn_id == made_turn_id(self.store.secret_key(ID_KEY), turn)):
            legacy_turn_id = unkeyed_turn_id(turn)
        return legacy_turn_id is not None and self.store.turn_status(turn.user_id, legacy_turn_id) == "done"

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

    def _prompt_files(self, current: Ledgers) -> tuple[UserView, MemoryView]:
        """What the engine is shown of the two files: read-only views, parsed once here (engines/views.py),
        each capped (a hand-edited 1 MB USER.md must not go whole into every prompt); the cut is
        said in the text itself."""
        return (
            UserView(prompt_view(current.profile.render(), self.user_limit, USER_FILE)),
            MemoryView(prompt_view(current.log.render(), self.memory_limit, MEMORY_FILE)),
        )

    # ---- the one write path ---------------------------------------------------------------

    def edit(
        self,
        user_id: str,
        *,
        kind: str = "edit",
        turn_id: str | None = None,
        conversation_id: str | None = None,
        reuse: Ledgers | None = None,
    ) -> AbstractContextManager[Edit]:
        """`with pipe.edit(user_id) as tx:` the one write path (Workspace.edit, pipeline/ops/edit.py)."""
        return self.workspace.edit(user_id, kind=kind, turn_id=turn_id, conversation_id=conversation_id, reuse=reuse)

    def load(self, user_id: str, *, reader: bool = False) -> Ledgers:
        """Both documents of the user, parsed (read-only use; writes go through edit()). A `reader`
        never raises for a bad document: `warnings` says what could not be read as is."""
        return self.workspace.load(user_id, reader=reader)

    # ---- reading ------------------------------------------------------------------------

    def show(self, user_id: str) -> dict[str, Any]:
        """Both files and their usage; `warnings` says what could not be read as is (a file that
        is not UTF-8 or not readable is shown as well as it can be, never an exception)."""
        current = self.load(user_id, reader=True)
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

    def wait_for_turns(self, user_id: str, timeout: float = READ_WAIT_S) -> bool:
        """Wait, at most `timeout` seconds, until the turns of `user_id` submitted so far to the PostTurnHooks
        built on this pipeline (in this process) are applied, or have failed once and wait for a retry.
        True when none is left. context() and recall() call it, so what a user said is in the next read."""
        deadline = time.monotonic() + max(0.0, timeout)
        settled = True
        for hook in list(self.hooks):
            settled = hook.flush(user_id, timeout=max(0.0, deadline - time.monotonic())) and settled
        return settled

    def context(self, user_id: str, team: str | None = None, *, wait: float = READ_WAIT_S) -> str:
        """The block a chat app puts in its system prompt at session start: USER, then MEMORY
        (with `team`, the team profile "team+TEAM" after the user's own, when it exists).

        Turns of this user submitted to a PostTurnHook on this pipeline are applied first: the read waits
        for them, at most `wait` seconds (0: read at once). It is a snapshot: keep the string for the whole
        session. Lines that the guards would block (for example a poisoned hand edit) are shown as blocked,
        and kept in the file.
        """
        self.wait_for_turns(user_id, wait)
        shown = self.show(user_id)
        blocks = [  # each file capped like an engine prompt (a 1 MB hand edit is cut)
            ("USER PROFILE", prompt_view(shown["user_md"], self.user_limit, USER_FILE), shown["user_usage"]),
        ]
        if team is not None:
            team_md = self.show(review.team_user_id(team))["user_md"]
            if team_md.strip():
                blocks.append((f"TEAM PROFILE {team}", prompt_view(team_md, self.user_limit, USER_FILE),
                               usage_line(team_md, self.user_limit)))
        blocks.append(("MEMORY", prompt_view(shown["memory_md"], self.memory_limit, MEMORY_FILE), shown["memory_usage"]))
        parts = []
        for title, text, usage in blocks:
            safe = self.for_model(text)
            parts.append(f"══ {title} [{usage} chars] ══\n" + safe.strip())
        return "\n\n".join(parts) + "\n"

    def for_model(self, value: Any) -> Any:
        """What a read hands to a model: `value` (text, or JSON-like data) with every line the load scan
        flags (an injection, forged structure, a secret: a poisoned hand edit) replaced by a marker.
        `context()` and `recall()` pass through it; so do the MCP resources and profile tool."""
        return guards.hide_hostile(value, self.guard_policy)

    def history(self, user_id: str) -> list[dict[str, Any]]:
        self.documents.documents(user_id)  # validates the id
        return self.store.history(user_id) if self.store.exists() else []

    def decisions(self, user_id: str, turn_id: str | None = None, rule: str | None = None) -> list[dict[str, Any]]:
        """The decision log, oldest first: each statement's route, op, outcome, its `rule` (the id of what
        decided), `removal` (forget or change_of_fact, for a removal) and `asked`, with `detail` in words.
        `rule` keeps the decisions of that id or kind ("guard" keeps every guard/...)."""
        self.documents.documents(user_id)  # validates the id
        rows = self.store.decisions(user_id, turn_id) if self.store.exists() else []
        return rows if rule is None else [r for r in rows if rule_matches(r.get("rule"), rule)]

    def recall(self, user_id: str, query: str, k: int = 5, *, wait: float = READ_WAIT_S) -> list[dict[str, Any]]:
        """Full-text search over both files (current lines) and the archive of what left them. A date in the
        query finds the entries whose date overlaps it: "2026-07-14" finds "[2026-07]" and "[2026]" too.
        A hit the load scan flags (a hostile hand edit, a secret) comes back as a marker (`for_model`).
        Like context(), it first waits (at most `wait` seconds) for the user's turns queued in this process."""
        self.wait_for_turns(user_id, wait)
        current = self.load(user_id, reader=True)
        terms = [t for t in query.lower().split() if t]
        hits: list[dict[str, Any]] = []
        for source, text in (("USER.md", current.profile.render()), ("MEMORY.md", current.log.render())):
            for line in text.splitlines():
                lowered = line.lower()
                if not line.startswith("- ") or not terms:
                    continue
                if all(t in lowered for t in terms) or (source == "MEMORY.md" and entry_matches(line[2:], terms)):
                    hits.append({"source": source, "text": line[2:]})
        for cand in self.store.search_candidates(user_id, query, k=k):
            hits.append({"source": "candidate", "candidate": True, "text": f"{cand['key']}: {cand['value']}",
                         **_candidate_view(cand)})
        for row in self._recall_archive(user_id, query, terms, k):
            hits.append({"source": "archive", **row})
        hits = hits[:k]
        # Hits reach agents (recall tools) and prompts: a hostile line comes back as a marker.
        blocked: list[dict[str, Any]] = self.for_model(hits)
        return blocked

    def _recall_archive(self, user_id: str, query: str, terms: list[str], k: int) -> list[dict[str, Any]]:
        """The archive's hits. A date in the query is matched by overlap, not as words: the archive is searched
        for the other words (or the date's year) and an archived entry kept when its date overlaps."""
        def hidden(row: dict[str, Any]) -> bool:  # what a forget took out is never recalled (--purge erases it)
            return row.get("why") == FORGOTTEN

        days = [t for t in terms if is_stamp(t)]
        if not days:
            return [r for r in self.store.recall_archive(user_id, query, k=20 * k) if not hidden(r)][:k]
        words = " ".join(t for t in terms if not is_stamp(t)) or days[0][:4]
        rows = self.store.recall_archive(user_id, words, k=20 * k)
        return [r for r in rows if not hidden(r) and (all(t in str(r["text"]).lower() for t in terms)
                or (r["target"] == "memory" and entry_matches(str(r["text"]), terms)))][:k]

    # ---- candidates: facts waiting for confirmation (never in USER.md until promoted) ----

    def candidates(self, user_id: str) -> list[dict[str, Any]]:
        """The user's candidates, most recently seen first, each with when it expires."""
        self.documents.documents(user_id)  # validates the id
        return [_candidate_view(row, self.candidate_ttl_days) for row in self.store.candidates(user_id)]

    def forget_candidates(self, user_id: str, key_or_text: str) -> int:
        """Erase the candidates a forget of `key_or_text` covers; returns how many went."""
        self.documents.documents(user_id)  # validates the id
        with self.store.transaction() as conn:
            return self.store.purge_candidates(conn, user_id, key_or_text)

    def expire_candidates(self, user_id: str | None = None, now: datetime | None = None) -> int:
        """Delete candidates last seen more than candidate_ttl_days before `now` (default: the wall
        clock); every user's when user_id is None. Turns do this on their own clock as they arrive."""
        if user_id is not None:
            self.documents.documents(user_id)  # validates the id
        cutoff = cands.expiry_cutoff(now or datetime.now(timezone.utc), self.candidate_ttl_days)
        with self.store.transaction() as conn:
            return self.store.expire_candidates(conn, cutoff, user_id)

    def confirm_candidate(self, user_id: str, ref: int | str) -> dict[str, Any]:
        """The user confirmed a candidate (by id, or by key when one candidate has it): write it to
        USER.md through the write path, history saying it was a confirmed candidate."""
        return manual.confirm_candidate(self.workspace, user_id, ref)

    # ---- erasure and subject access --------------------------------------------------------

    def forget(self, user_id: str, key_or_text: str, *, purge: bool = False) -> dict[str, Any]:
        """Take a key ("Email", "phone number") or a text out of USER.md and MEMORY.md.

        Without `purge` the value leaves the files and every read: recall (Python, CLI, HTTP, MCP) never
        returns it again, nor an older archived copy of it; history and `export --all` still record the
        change. With `purge` every copy held for this user is erased: history,
        provenance, archive (and its full-text index), decision log, failed turns, hook queue,
        candidates and the .bak copies; then the database and its WAL are compacted, so a byte
        search of the root no longer finds the value. A forget request in a turn purges too.
        """
        return manual.forget(self.workspace, user_id, key_or_text, purge=purge)

    def delete_user(self, user_id: str) -> dict[str, Any]:
        """Erase everything held about the user: both files and their folder, and every row in
        every table (then the database and its WAL are compacted)."""
        return manual.delete_user(self.workspace, user_id)

    def export_all(self, user_id: str) -> dict[str, Any]:
        """Everything memroute holds about the user (subject access), as JSON-ready data."""
        return manual.export_all(self.workspace, user_id)

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
        """The Hermes Agent memory tool. Its answer goes to an agent: the entries it lists pass the load scan."""
        from pipeline.ops.tool import run_tool

        answer = run_tool(self.workspace, user_id, action, target, content=content, old_text=old_text, section=section)
        shown: dict[str, Any] = self.for_model(answer)
        return shown

    def consolidate(self, user_id: str) -> dict[str, Any]:
        """Rewrite MEMORY.md below its cap now (nothing lost: what leaves goes to the archive)."""
        return manual.consolidate(self.workspace, self.engine, user_id)

    # ---- review actions (the review page, the API and the CLI): pipeline/ops/review.py ----
    # `target` is "user" (ref: a field's key) or "memory" (ref: an entry's id, annotations.entry_id).

    def correct(self, user_id: str, target: str, ref: str, value: str) -> dict[str, Any]:
        """Set a field's value or an entry's text (guards apply); history source "review"."""
        return review.correct(self.workspace, user_id, target, ref, value)

    def delete(self, user_id: str, target: str, ref: str, *, purge: bool = False) -> dict[str, Any]:
        """Take one field or entry out (archived), or with `purge` erase every copy of it."""
        return review.delete(self.workspace, user_id, target, ref, purge=purge)

    def annotate(self, user_id: str, target: str, ref: str, kind: str, value: str = "", *,
                 remove: bool = False) -> dict[str, Any]:
        """Pin ("pin": never compacted or consolidated away) or tag ("project", "task", "tag")."""
        return review.annotate(self.workspace, user_id, target, ref, kind, value, remove=remove)

    def annotations(self, user_id: str) -> list[dict[str, Any]]:
        """The user's pins and tags."""
        self.documents.documents(user_id)  # validates the id
        return self.store.annotations(user_id)

    def drop_candidate(self, user_id: str, candidate_id: int) -> dict[str, Any]:
        """Delete a candidate the user says is wrong (history records it)."""
        return review.drop_candidate(self.workspace, user_id, candidate_id)

    def undo(self, user_id: str) -> dict[str, Any]:
        """Put the files back as they were before the last change, through the write path."""
        return review.undo(self.workspace, user_id)


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


def _ttl_days(value: float | None) -> float:
    """candidate_ttl_days: the argument, else 60 days (the CLI resolves MEMROUTE_CANDIDATE_TTL_DAYS)."""
    if value is None:
        value = float(cands.DEFAULT_TTL_DAYS)
    if not value > 0:
        raise ValueError(f"candidate_ttl_days must be a positive number of days, not {value!r}")
    return float(value)


__all__ = ["MemoryPipeline", "default_root", "usage_line"]


@contextmanager
def _observed_turn(engine: str, turn_id: str | None) -> Iterator[Callable[[TurnResult], TurnResult]]:
    """The turn's span and its count by outcome (applied, failed, duplicate; error when it raised)."""
    with observe.turn(engine, turn_id):
        outcome = "error"

        def seen(result: TurnResult) -> TurnResult:
            nonlocal outcome
            outcome = observe.TURN_OUTCOMES.get(result.status, result.status)
            observe.set_turn_status(outcome)
            return result

        try:
            yield seen
        finally:
            observe.count_turn(engine, outcome)


@contextmanager
def _turn_clock() -> Iterator[None]:
    """An engine's deadline spans all of one turn's stages: they share the turn's start."""
    token = TURN_STARTED.set([])
    try:
        yield
    finally:
        TURN_STARTED.reset(token)

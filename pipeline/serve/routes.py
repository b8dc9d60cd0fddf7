"""The /v1 endpoints. Reads and edits call the pipeline's public methods in a worker thread (plain
`def` endpoints); a turn goes through the durable hook, so a 202 means it is on disk."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from pipeline.ops.review import check_ref
from pipeline.serve.auth import Caller, Tenant
from pipeline.serve.config import ServeConfig
from pipeline.serve.errors import ApiError, ErrorBody
from pipeline.serve.models import (
    Changes,
    ContextOut,
    DecisionLog,
    FieldIn,
    Health,
    Hits,
    ToolIn,
    TurnAccepted,
    TurnApplied,
    TurnIn,
)
from pipeline.serve.profile import ProfileView, profile_view
from pipeline.serve.turns import LOGGED_KEYS, decision_out, submit_turn, wait_for_turn

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline
    from pipeline.hook.post_turn import PostTurnHook

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody} for status in (401, 404, 409, 413, 422, 503)
}
router = APIRouter()
USER = "/v1/users/{user}"
DELETE_FIELD = "Remove a USER.md field (archived); ?purge=true erases every copy of it (the review page's delete)"
DELETE_ENTRY = "Remove a MEMORY.md entry by its id (archived); ?purge=true erases every copy of it"


def _pipe(request: Request) -> MemoryPipeline:
    pipe: MemoryPipeline = request.app.state.pipe
    return pipe


def _hook(request: Request) -> PostTurnHook:
    hook: PostTurnHook = request.app.state.hook
    return hook


def _config(request: Request) -> ServeConfig:
    config: ServeConfig = request.app.state.config
    return config


def _existing(request: Request, user: str) -> MemoryPipeline:
    """The pipeline, when the user exists (else 404 user_not_found)."""
    pipe = _pipe(request)
    if not pipe.documents.has_user(user):
        raise ApiError(404, "user_not_found", f"no user {user!r}")
    return pipe


# ---- turns ---------------------------------------------------------------------------------


@router.post(USER + "/turns", status_code=202, response_model=TurnAccepted | TurnApplied, responses=ERRORS,
             summary="Queue a chat turn (202: stored durably); ?wait=true answers 200 with its decisions")
async def post_turn(request: Request, response: Response, body: TurnIn, user: Tenant,
                    wait: bool = Query(False, description="wait until the turn is applied and answer its decisions")
                    ) -> TurnAccepted | TurnApplied:
    turn_id = await submit_turn(_hook(request), _config(request), user, body)
    if not wait:  # answered as is, without a second validation of the response model
        return JSONResponse({"turn_id": turn_id, "status": "queued"}, status_code=202)  # type: ignore[return-value]
    settled = await wait_for_turn(_hook(request), _pipe(request), user, turn_id, _config(request).wait_timeout_s)
    if settled["status"] != "done":
        return TurnAccepted(**settled)
    response.status_code = 200
    return TurnApplied(**settled)


# ---- reading -------------------------------------------------------------------------------


@router.get(USER + "/profile", response_model=ProfileView, responses=ERRORS,
            summary="Both files, their usage, and each field and entry with its provenance")
def get_profile(request: Request, user: Tenant) -> ProfileView:
    _pipe(request).wait_for_turns(user)  # a turn this server accepted a moment ago is in the answer
    _existing(request, user)
    return profile_view(_pipe(request), user)


@router.get(USER + "/recall", response_model=Hits, responses=ERRORS,
            summary="Full-text search over both files, waiting candidates and the archive")
def recall(request: Request, user: Tenant, q: str = Query(min_length=1, max_length=500),
           k: int = Query(5, ge=1, le=100)) -> Hits:
    _pipe(request).wait_for_turns(user)
    _existing(request, user)
    return Hits(hits=_pipe(request).recall(user, q, k=k))


@router.get(USER + "/history", response_model=Changes, responses=ERRORS,
            summary="Every change to the user's files, old -> new, with its source")
def history(request: Request, user: Tenant) -> Changes:
    _pipe(request).wait_for_turns(user)
    _existing(request, user)
    return Changes(changes=_pipe(request).history(user))


@router.get(USER + "/decisions", response_model=DecisionLog, responses=ERRORS,
            summary="The decision log: each statement's route, the rule that decided (?rule= keeps one id or kind), "
                    "the removal kind and what the write did")
def decisions(request: Request, user: Tenant, turn_id: str | None = Query(None, max_length=200),
              rule: str | None = Query(None, min_length=1, max_length=200)) -> DecisionLog:
    _pipe(request).wait_for_turns(user)
    _existing(request, user)
    rows = _pipe(request).decisions(user, turn_id=turn_id, rule=rule)
    return DecisionLog.model_validate({"decisions": [decision_out(row, LOGGED_KEYS) for row in rows]})


@router.get(USER + "/context", response_model=ContextOut, responses=ERRORS,
            summary="The block a chat app puts in its system prompt (the user's accepted turns applied first, up to 10 s)")
def context(request: Request, user: Tenant) -> ContextOut:
    return ContextOut(context=_pipe(request).context(user))


# ---- edits ---------------------------------------------------------------------------------


def _tool_result(result: dict[str, Any]) -> dict[str, Any]:
    """A tool answer as an edit endpoint's: success, or the error it names with its code."""
    if result.get("success"):
        return result
    error = str(result.get("error") or "the change was refused")
    if "current_entries" in result and "usage" in result:
        raise ApiError(409, "over_cap", error, details=result)
    if error.startswith("blocked"):
        raise ApiError(422, "blocked", error)
    raise ApiError(409, "conflict", error, details=result)


@router.put(USER + "/fields/{key}", responses=ERRORS, summary="Set or correct a USER.md field (guards and cap apply)")
def put_field(request: Request, key: str, body: FieldIn, user: Tenant) -> dict[str, Any]:
    check_ref("user", key)  # 422 for "", ".", "..", control characters
    if ": " in key:
        raise ApiError(422, "invalid_request", "a field key is a short label without ': ' or line breaks")
    value = " ".join(body.value.split())
    result = _pipe(request).tool(user, "add", "user", f"{key.strip()}: {value}", None, body.section)
    return {**_tool_result(result), "key": key.strip(), "value": value}


@router.delete(USER + "/fields/{key}", responses=ERRORS, summary=DELETE_FIELD)
def delete_field(request: Request, key: str, user: Tenant, purge: bool = False) -> dict[str, Any]:
    """The review page's delete (pipeline/ops/review.py): one field, by its key in any case."""
    check_ref("user", key)  # an invalid key is 422 before the user is looked up
    return _existing(request, user).delete(user, "user", key, purge=purge)


@router.delete(USER + "/entries/{entry_id}", responses=ERRORS, summary=DELETE_ENTRY)
def delete_entry(request: Request, entry_id: str, user: Tenant, purge: bool = False) -> dict[str, Any]:
    """The review page's delete: one entry, by the id `profile` shows (it changes with the text)."""
    check_ref("memory", entry_id)
    return _existing(request, user).delete(user, "memory", entry_id, purge=purge)


@router.delete(USER, responses=ERRORS, summary="Erase everything held about the user")
async def delete_user(request: Request, user: Tenant) -> dict[str, Any]:
    _existing(request, user)
    # A turn still queued would write the user back after the erasure: let the queue run first.
    if not await _hook(request).adrain(_config(request).wait_timeout_s):
        raise ApiError(503, "busy", "turns are still being applied; nothing was erased: retry", headers={"Retry-After": "5"})
    return await asyncio.to_thread(_pipe(request).delete_user, user)


@router.post(USER + "/memory", responses=ERRORS,
             summary="The Hermes Agent memory tool: add / replace / remove on user or memory (same answers as `memroute tool`)")
def memory_tool(request: Request, body: ToolIn, user: Tenant) -> dict[str, Any]:
    return _pipe(request).tool(user, body.action, body.target, body.content, body.old_text, body.section)


# ---- service -------------------------------------------------------------------------------


@router.get("/v1/status", responses=ERRORS, summary="Queue depth, failed and parked turns")
def status(request: Request, grant: Caller) -> dict[str, Any]:
    """The admin token sees the whole server; any other token sees its own users' figures only
    (another tenant's traffic, failures and errors are not its business)."""
    pipe = _pipe(request)
    stats = _hook(request).stats(None if grant.admin else grant.allows)
    failed = pipe.store.failed_turns()
    stats["failed_turns"] = len([t for t in failed if grant.allows(t["user_id"])])
    if not grant.admin:
        on_disk = pipe.store.hook_queue_status().get("users", {})
        stats["parked"] = sum(int(v.get("parked", 0)) for u, v in on_disk.items() if grant.allows(u))
    return stats


@router.get("/healthz", response_model=Health, summary="Liveness: the server answers")
def healthz() -> Health:
    from pipeline import __version__

    return Health(ok=True, version=__version__)

"""The review page's routes: server-rendered HTML (Jinja2, autoescaped), one POST endpoint for every
action (CSRF-checked), each calling the pipeline's public review methods (the one write path)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from pipeline.errors import Conflict, InvalidUserId, MemrouteError, UsageError
from pipeline.ops.review import TEAM_PREFIX
from pipeline.review import security
from pipeline.review.view import PEOPLE_SHOWN, human_time, people, shown_quote, user_view
from pipeline.store.files import validate_user_id

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline
    from pipeline.serve.config import Grant

HERE = Path(__file__).parent
templates = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True))
# An element id from any text (keys and entry ids hold spaces and other scripts).
templates.globals["loop_id"] = lambda text: hashlib.sha256(str(text).encode("utf-8")).hexdigest()[:10]
templates.filters["human_time"] = human_time
templates.filters["shown_quote"] = shown_quote
router = APIRouter(prefix="/review", include_in_schema=False)
# What a finished action says (only these are shown: a link cannot put other words in the green box).
DONE = frozenset({"Corrected.", "Erased everywhere.", "Deleted (kept in the archive).", "Pinned.", "Unpinned.",
                  "Tagged.", "Tag removed.", "Undone.", "Kept.", "Dropped."})


def _pipe(request: Request) -> MemoryPipeline:
    pipe: MemoryPipeline = request.app.state.pipe
    return pipe


def _secrets(request: Request) -> security.Secrets:
    found: security.Secrets = request.app.state.review_secrets
    return found


def _render(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A page with the CSRF token of this browser (a new browser id cookie when it has none)."""
    browser = request.cookies.get(security.CSRF_COOKIE) or security.new_browser_id()
    csrf = _secrets(request).csrf_token(browser, security.session_token(request))
    html = templates.get_template(name).render(csrf=csrf, signed_in=security.session_token(request) is not None,
                                               **context)
    response = HTMLResponse(html, status_code=status, headers=security.SECURITY_HEADERS)
    if request.cookies.get(security.CSRF_COOKIE) != browser:
        _cookie(request, response, security.CSRF_COOKIE, browser)
    return response


def _cookie(request: Request, response: Response, name: str, value: str) -> None:
    response.set_cookie(name, value, path=security.COOKIE_PATH, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")


def _not_found(request: Request) -> HTMLResponse:
    return _render(request, "error.html", status=404, message="No such user here.")


def _visible(request: Request, grant: Grant) -> tuple[list[str], list[str]]:
    """(users, teams) the grant may see that have memory here."""
    names = [u["user_id"] for u in _pipe(request).documents.user_summaries() if grant.allows(u["user_id"])]
    users = [n for n in names if not n.startswith(TEAM_PREFIX)]
    teams = [n[len(TEAM_PREFIX):] for n in names if n.startswith(TEAM_PREFIX)]
    return users, teams


def _allowed(request: Request, grant: Grant, user: str) -> bool:
    try:
        validate_user_id(user)
    except InvalidUserId:
        return False
    return grant.allows(user) and _pipe(request).documents.has_user(user)


@router.get("/", response_class=HTMLResponse)
def index(request: Request, q: str | None = None) -> Response:
    """Everyone this token may see, as cards (name, role, how full each file is, last change); `q` finds by id
    or name."""
    grant = security.grant_of(request)
    if grant is None:
        return RedirectResponse("/review/login", status_code=303)
    pipe = _pipe(request)
    rows = [u for u in pipe.documents.user_summaries() if grant.allows(u["user_id"])]
    users = [u for u in rows if not u["user_id"].startswith(TEAM_PREFIX)]
    teams = [u for u in rows if u["user_id"].startswith(TEAM_PREFIX)]
    query = (q or "").strip()[:100]
    if query:  # by id among everyone, by name among the people the page would show
        fold = query.casefold()
        cards = people(pipe, [u for u in users if fold in u["user_id"].casefold()])
        found = {c.user_id for c in cards}
        cards += [p for p in people(pipe, users) if p.user_id not in found and fold in (p.name or "").casefold()]
    else:
        cards = people(pipe, users)
    return _render(request, "index.html", people=cards, total=len(users), teams=people(pipe, teams, TEAM_PREFIX),
                   q=query, shown_at_most=PEOPLE_SHOWN)


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, error: str | None = None, sig: str | None = None) -> Response:
    return _render(request, "login.html", error=_secrets(request).note_ok(error, sig))


def _signed_error(request: Request, message: str) -> dict[str, str]:
    """?error=...&sig=...: a message of ours, signed, so the page shows it (and no other)."""
    text = (message.splitlines() or [""])[0][:300]
    return {"error": text, "sig": _secrets(request).note_sig(text)}


@router.post("/login")
async def login(request: Request) -> Response:
    form = await request.form()
    if not _form_ok(request, form, session=None):
        return _render(request, "error.html", status=403, message="The form expired: reload the page and try again.")
    token = str(form.get("token") or "").strip()
    from pipeline.serve.errors import ApiError

    try:
        request.app.state.tenancy.grant(token)
    except ApiError:
        return RedirectResponse("/review/login?" + urlencode(_signed_error(request, "That token is not known here.")), 303)
    response = RedirectResponse("/review/", status_code=303)
    _cookie(request, response, security.SESSION_COOKIE, token)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    form = await request.form()
    if not _form_ok(request, form, session=security.session_token(request)):
        return _render(request, "error.html", status=403, message="The form expired: reload the page and try again.")
    response = RedirectResponse("/review/login", status_code=303)
    response.delete_cookie(security.SESSION_COOKIE, path=security.COOKIE_PATH)
    return response


def _form_ok(request: Request, form: Any, session: str | None) -> bool:
    browser = request.cookies.get(security.CSRF_COOKIE)
    sent = form.get("csrf")
    return security.same_origin(request) and _secrets(request).csrf_ok(
        browser, session, sent if isinstance(sent, str) else None)


@router.get("/u/{user}", response_class=HTMLResponse)
def user_page(request: Request, user: str, q: str | None = None, done: str | None = None,
              error: str | None = None, sig: str | None = None) -> Response:
    grant = security.grant_of(request)
    if grant is None:
        return RedirectResponse("/review/login", status_code=303)
    if not _allowed(request, grant, user):
        return _not_found(request)
    pipe = _pipe(request)
    _, teams = _visible(request, grant)
    team_views = [(t, user_view(pipe, TEAM_PREFIX + t)) for t in teams if TEAM_PREFIX + t != user]
    query = (q or "").strip()[:200]
    hits = pipe.recall(user, query, k=20) if query else []
    return _render(request, "user.html", view=user_view(pipe, user), teams=team_views, q=query, hits=hits,
                   page_user=user, done=done if done in DONE else None, error=_secrets(request).note_ok(error, sig))


@router.post("/u/{user}/act")
async def act(request: Request, user: str) -> Response:
    """One action on `user` (a person or a team+NAME profile); back to the page `back` names."""
    grant = security.grant_of(request)
    form = await request.form()
    if grant is None or not _allowed(request, grant, user):
        return _not_found(request)
    if not _form_ok(request, form, session=security.session_token(request)):
        return _render(request, "error.html", status=403, message="The form expired: reload the page and try again.")
    fields = {k: v for k, v in form.items() if isinstance(v, str)}
    back = fields.get("back") or user
    if not _allowed(request, grant, back):
        back = user
    action = fields.get("action", "")
    try:
        done = _run(_pipe(request), user, action, fields)
        params = {"done": done}
    except MemrouteError as e:  # usage, not found, conflict: said on the page
        params = _signed_error(request, str(e))
    return RedirectResponse(f"/review/u/{quote(back, safe='')}?{urlencode(params)}", status_code=303)


def _run(pipe: MemoryPipeline, user: str, action: str, form: dict[str, str]) -> str:
    """Do one action; what to tell the person."""
    target, ref = form.get("target", ""), form.get("ref", "")
    if action in ("correct", "delete", "purge", "pin", "unpin", "tag", "untag") and target not in ("user", "memory"):
        raise UsageError("unknown target")
    if action == "correct":
        pipe.correct(user, target, ref, form.get("value", ""))
        return "Corrected."
    if action in ("delete", "purge"):
        pipe.delete(user, target, ref, purge=action == "purge")
        return "Erased everywhere." if action == "purge" else "Deleted (kept in the archive)."
    if action in ("pin", "unpin"):
        pipe.annotate(user, target, ref, "pin", remove=action == "unpin")
        return "Pinned." if action == "pin" else "Unpinned."
    if action in ("tag", "untag"):
        pipe.annotate(user, target, ref, form.get("kind", "tag"), form.get("value", ""), remove=action == "untag")
        return "Tagged." if action == "tag" else "Tag removed."
    if action == "undo":
        pipe.undo(user)
        return "Undone."
    if action in ("keep", "drop"):
        candidate = int(form.get("candidate", "0") or 0)
        if action == "keep":
            result = pipe.confirm_candidate(user, candidate)
            if not result.get("success"):
                raise Conflict(f"not kept: {result.get('outcome')}")
            return "Kept."
        pipe.drop_candidate(user, candidate)
        return "Dropped."
    raise UsageError(f"unknown action {action!r}")

"""Who may see the review page, and proof that a form was sent by it.

- Sign-in: the same bearer tokens as the API. A browser cannot send an Authorization header by
  itself, so the token typed on the sign-in form is kept in an HttpOnly, SameSite=Strict cookie
  scoped to /review/ and checked on every request like a bearer token (a server without tokens,
  loopback only, needs no sign-in). A user the token may not see is 404, as in the API.
- CSRF: every form carries a token derived (HMAC) from a random per-browser cookie and the
  signed-in token; a POST without the matching pair is 403. The key is $MEMROUTE_REVIEW_SECRET
  when set (servers on several hosts share it that way), else one made once and kept in the root
  (`memroute.review.key`, mode 0600, a name no user id can take; an older root's `review.key` is
  moved there): a form rendered before a restart, or by another server process on the same root,
  still works. A key file that is empty or damaged is refused at start, never used.
  The cookies are SameSite=Strict as well, and a POST whose Origin is another site is refused.
- Every response forbids scripts and styles from anywhere but the page's own static files
  (Content-Security-Policy), so a stored value can never run as script even if it escaped.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.requests import Request

from pipeline.store.files import MOVED_SERVER_FILES, move_server_file
from pipeline.store.private import private_key

if TYPE_CHECKING:
    from pipeline.serve.auth import Tenancy
    from pipeline.serve.config import Grant

SESSION_COOKIE = "memroute_review"
CSRF_COOKIE = "memroute_csrf"
COOKIE_PATH = "/review/"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; "
       "base-uri 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


# In the store's reserved namespace ("memroute."): no user id can be this name (pipeline/store/files.py).
LEGACY_SECRET_FILE = "review.key"  # where older versions kept it, among the user folders
SECRET_FILE = MOVED_SERVER_FILES[LEGACY_SECRET_FILE]
SECRET_ENV = "MEMROUTE_REVIEW_SECRET"


def stored_key(root: Path) -> bytes:
    """The root's CSRF key, made the first time; an older root's review.key is moved to its place.
    BadKeyFile (exit 2) when the file is empty or damaged."""
    move_server_file(root, LEGACY_SECRET_FILE)
    return private_key(root / SECRET_FILE)


class Secrets:
    """The CSRF key: derived from `configured` (a secret the operator set), else the root's stored one,
    read (or made) on first use: an app built only for its schema writes nothing."""

    def __init__(self, root: str | Path, configured: str | None = None) -> None:
        self._root = Path(root)
        self._configured = configured
        self._key: bytes | None = None
        self._lock = threading.Lock()

    @property
    def key(self) -> bytes:
        with self._lock:
            if self._key is None:
                self._key = (hashlib.sha256(b"memroute review csrf\0" + self._configured.encode("utf-8")).digest()
                             if self._configured else stored_key(self._root))
            return self._key

    def csrf_token(self, browser: str, session: str | None) -> str:
        message = f"{browser}\0{session or ''}".encode("utf-8", "surrogateescape")
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()

    def csrf_ok(self, browser: str | None, session: str | None, sent: str | None) -> bool:
        if not browser or not sent:
            return False
        return hmac.compare_digest(self.csrf_token(browser, session), sent)

    def note_sig(self, text: str) -> str:
        """The signature of a message this server put in a redirect (?error=...&sig=...)."""
        return hmac.new(self.key, b"note\0" + text.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()

    def note_ok(self, text: str | None, sig: str | None) -> str | None:
        """`text` when this server signed it, else None: a page never shows words a link brought
        (a crafted ?error= is a phishing message in the page's own alert box)."""
        if not text or not sig:
            return None
        return text if hmac.compare_digest(self.note_sig(text), sig) else None


def new_browser_id() -> str:
    return secrets.token_urlsafe(24)


def session_token(request: Request) -> str | None:
    return request.cookies.get(SESSION_COOKIE) or None


def grant_of(request: Request) -> Grant | None:
    """The grant of the signed-in token (every user when the server has no tokens); None: sign in."""
    from pipeline.serve.errors import ApiError

    tenancy: Tenancy = request.app.state.tenancy
    if tenancy.open:
        return tenancy.grant(None)
    token = session_token(request)
    if not token:
        return None
    try:
        return tenancy.grant(token)
    except ApiError:
        return None


def same_origin(request: Request) -> bool:
    """A POST's Origin (when the browser sends one) names this server."""
    origin = request.headers.get("origin")
    if origin is None:  # not sent (some browsers on same-origin requests): the CSRF token still decides
        return True
    host = request.headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")

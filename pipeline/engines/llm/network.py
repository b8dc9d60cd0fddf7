"""The switch that keeps test suites off the network: when model requests are disabled, a real
transport refuses to send (a loopback api_base, a local scripted server, stays allowed).

`pipeline.testing` re-exports these names; env MEMROUTE_ALLOW_MODEL_REQUESTS=0 disables requests.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from pipeline.errors import ModelRequestsDisabled


def _env_allows() -> bool:
    return os.environ.get("MEMROUTE_ALLOW_MODEL_REQUESTS", "1").strip().lower() not in ("0", "false", "no", "off")


# None follows env MEMROUTE_ALLOW_MODEL_REQUESTS (default: allowed); True/False overrides it.
ALLOW_MODEL_REQUESTS: bool | None = None


def _is_loopback(api_base: str | None) -> bool:
    if not api_base:
        return False
    host = urlsplit(api_base).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def model_requests_allowed() -> bool:
    return ALLOW_MODEL_REQUESTS if ALLOW_MODEL_REQUESTS is not None else _env_allows()


def check_model_request(model: str, api_base: str | None = None) -> None:
    """Refuse a real model request when disabled; a loopback endpoint (a local test server) is no network."""
    if model_requests_allowed() or _is_loopback(api_base):
        return
    raise ModelRequestsDisabled(
        f"real model requests are disabled (pipeline.testing.allow_model_requests / "
        f"MEMROUTE_ALLOW_MODEL_REQUESTS=0); refused a request to {model!r}"
    )


@contextmanager
def allow_model_requests(allow: bool = True) -> Iterator[None]:
    """Temporarily allow (or forbid) real model requests, whatever the env var says."""
    global ALLOW_MODEL_REQUESTS
    before = ALLOW_MODEL_REQUESTS
    ALLOW_MODEL_REQUESTS = allow
    try:
        yield
    finally:
        ALLOW_MODEL_REQUESTS = before

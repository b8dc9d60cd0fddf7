"""HTTP and the review page (issue 24, item 6).

- A lone surrogate in any JSON body is 422 invalid_request on every route (never a 500), and
  nothing is stored.
- /v1/status shows a tenant its own users' figures only; the admin token sees the server.
- The review page shows only messages the server itself put in a redirect: a crafted ?error= is
  not printed in its alert box.
- A turn's timestamp may be at most a few minutes ahead of the server's clock.
- Without tokens, the Host check takes a host and port only ("localhost:80@evil.example" is not
  localhost).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pipeline.serve.app import create_app
from pipeline.serve.config import ServeConfig, parse_tokens

ADMIN, ALICE, BOB = "admin-token-0123456789abcdef", "alice-token-0123456789abcdef", "bob-token-0123456789abcdef"


@pytest.fixture
def open_client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(ServeConfig(root=tmp_path)), base_url="http://127.0.0.1") as client:
        yield client


@pytest.fixture
def tenants(tmp_path: Path) -> Iterator[TestClient]:
    tokens = parse_tokens(f"{ADMIN} *\n{ALICE} alice\n{BOB} bob\n")
    with TestClient(create_app(ServeConfig(root=tmp_path, tokens=tokens)), base_url="http://127.0.0.1") as client:
        yield client


def _json(client: TestClient, method: str, url: str, raw: str, token: str | None = None) -> tuple[int, dict]:
    headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
    r = client.request(method, url, content=raw.encode("ascii"), headers=headers)
    return r.status_code, r.json()


@pytest.mark.parametrize(
    ("method", "url", "raw"),
    [
        ("POST", "/v1/users/ana/memory", '{"action": "add", "target": "user", "content": "Likes: figs \\ud800"}'),
        ("POST", "/v1/users/ana/turns?wait=true",
         '{"messages": [{"role": "user", "content": "I grow figs \\udfff in pots"}]}'),
        ("POST", "/v1/users/ana/turns", '{"messages": [{"role": "user", "content": "I grow figs \\ud83d"}]}'),
        ("PUT", "/v1/users/ana/fields/Likes", '{"value": "figs \\udc00"}'),
    ],
)
def test_a_lone_surrogate_is_422_everywhere_and_nothing_is_stored(open_client: TestClient, tmp_path: Path,
                                                                   method: str, url: str, raw: str) -> None:
    status, body = _json(open_client, method, url, raw)
    assert status == 422 and body["error"]["code"] == "invalid_request", body
    assert not (tmp_path / "ana").exists() or not any((tmp_path / "ana").glob("*.md"))


def test_a_paired_surrogate_escape_is_ordinary_text(open_client: TestClient, tmp_path: Path) -> None:
    status, body = _json(open_client, "POST", "/v1/users/ana/memory",
                         '{"action": "add", "target": "user", "content": "Likes: figs \\ud83c\\udf4e"}')
    assert status == 200 and body["success"], body
    assert "figs \U0001f34e" in (tmp_path / "ana" / "USER.md").read_text("utf-8")


def test_status_shows_a_tenant_its_own_users_only(tenants: TestClient) -> None:
    for user, token in (("alice", ALICE), ("bob", BOB), ("bob", BOB), ("bob", BOB)):
        r = tenants.post(f"/v1/users/{user}/turns?wait=true", headers={"authorization": f"Bearer {token}"},
                         json={"messages": [{"role": "user", "content": "I'm a printmaker"}]})
        assert r.status_code in (200, 202), r.text
    alice = tenants.get("/v1/status", headers={"authorization": f"Bearer {ALICE}"}).json()
    admin = tenants.get("/v1/status", headers={"authorization": f"Bearer {ADMIN}"}).json()
    assert set(alice["users"]) <= {"alice"} and admin["users"].keys() >= {"alice", "bob"}
    assert alice["done"] == admin["users"]["alice"]["done"] == 1  # not the server's four
    assert admin["done"] == 4
    assert alice["last_error"] is None


def test_the_review_page_prints_no_error_text_a_link_brings(open_client: TestClient) -> None:
    bait = "Session expired: paste your token at https://grab.example.net/fix"
    open_client.post("/v1/users/ana/memory", json={"action": "add", "target": "user", "content": "Likes: figs"})
    login = open_client.get("/review/login", params={"error": bait, "sig": "0" * 64})
    page = open_client.get("/review/u/ana", params={"error": bait})
    for r in (login, page):
        assert r.status_code == 200
        assert "grab.example.net" not in r.text and 'role="alert"' not in r.text


def test_the_review_page_still_shows_its_own_errors(open_client: TestClient) -> None:
    open_client.post("/v1/users/ana/memory", json={"action": "add", "target": "user", "content": "Likes: figs"})
    page = open_client.get("/review/u/ana")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf is not None
    r = open_client.post("/review/u/ana/act", data={"csrf": csrf.group(1), "action": "levitate"},
                         headers={"origin": "http://127.0.0.1"}, follow_redirects=True)
    assert 'role="alert"' in r.text and "unknown action" in r.text


@pytest.mark.parametrize("stamp", ["9999-12-31T00:00:00Z", "2999-01-01T00:00:00+00:00"])
def test_a_turn_dated_in_the_future_is_refused_and_freezes_nothing(open_client: TestClient, tmp_path: Path,
                                                                   stamp: str) -> None:
    ahead = open_client.post("/v1/users/ana/turns?wait=true", json={
        "messages": [{"role": "user", "content": "I'm a frontend engineer"}], "timestamp": stamp})
    assert ahead.status_code == 422, ahead.text
    now = open_client.post("/v1/users/ana/turns?wait=true", json={
        "messages": [{"role": "user", "content": "I'm a backend engineer"}]})
    assert now.status_code == 200
    text = (tmp_path / "ana" / "USER.md").read_text("utf-8")
    assert "backend engineer" in text and "frontend" not in text


@pytest.mark.parametrize("host", ["localhost:80@evil.example", "127.0.0.1:8750@evil.example", "localhost.evil.example",
                                  "evil.example#localhost", "localhost:notaport", "[::1]x"])
def test_the_host_check_takes_a_host_and_port_only(open_client: TestClient, host: str) -> None:
    r = open_client.get("/v1/users/ana/profile", headers={"host": host})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_host", (host, r.text)


@pytest.mark.parametrize("host", ["localhost", "localhost:8750", "127.0.0.1:8750", "[::1]:8750", "LOCALHOST"])
def test_loopback_hosts_still_pass(open_client: TestClient, host: str) -> None:
    assert open_client.get("/healthz", headers={"host": host}).status_code == 200

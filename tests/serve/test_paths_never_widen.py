"""A request that changes something names exactly what it changes: the server never redirects a
DELETE, POST, PUT or PATCH (DELETE /v1/users/tess/ is not sent on to DELETE /v1/users/tess, the
whole user), and a field key or entry id that names nothing ("", ".", "..", not 12 hex digits) is
422 before anything is looked up. The API, the review page and the CLI share one check."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from pipeline.core import MemoryPipeline  # noqa: E402
from pipeline.ops import review  # noqa: E402
from pipeline.ops.pins import entry_id  # noqa: E402
from pipeline.serve.app import create_app  # noqa: E402
from pipeline.serve.config import ServeConfig  # noqa: E402

USER_MD = "# USER\n\n## Identity\n- Name: Tess\n- Role: pilot\n"
MEMORY_MD = "# MEMORY\n\n- [2026-07-01] flight: first solo flight\n"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    (tmp_path / "tess").mkdir()
    (tmp_path / "tess" / "USER.md").write_text(USER_MD, "utf-8")
    (tmp_path / "tess" / "MEMORY.md").write_text(MEMORY_MD, "utf-8")
    config = ServeConfig(root=tmp_path, wait_timeout_s=20)
    with TestClient(create_app(config, lambda: MemoryPipeline(root=tmp_path)), base_url="http://127.0.0.1") as c:
        yield c


def intact(client: TestClient) -> bool:
    profile = client.get("/v1/users/tess/profile")
    return profile.status_code == 200 and profile.json()["user_md"]["text"] == USER_MD


@pytest.mark.parametrize("path", ["/v1/users/tess/", "/v1/users/tess/fields/", "/v1/users/tess/entries/",
                                  "/v1/users/tess/memory/", "/v1/users/tess/turns/"])
@pytest.mark.parametrize("method", ["DELETE", "POST", "PUT", "PATCH"])
def test_a_write_is_never_redirected_even_to_a_route_that_exists(client: TestClient, path: str, method: str) -> None:
    answer = client.request(method, path, follow_redirects=False, json={} if method != "DELETE" else None)
    assert not 300 <= answer.status_code < 400, answer.headers.get("location")
    assert answer.status_code in (404, 405), answer.text
    assert intact(client)


def test_a_read_may_still_be_redirected_to_its_slash(client: TestClient) -> None:
    assert client.get("/v1/users/tess/profile/", follow_redirects=False).status_code == 307


@pytest.mark.parametrize("path", [
    "/v1/users/tess/fields/%2E%2E", "/v1/users/tess/fields/%2e", "/v1/users/tess/fields/%20",
    "/v1/users/tess/fields/...", "/v1/users/tess/fields/Role%0A", "/v1/users/tess/fields/" + "k" * 2_100,
    "/v1/users/tess/entries/%2E%2E", "/v1/users/tess/entries/Role", "/v1/users/tess/entries/0123456789AB",
    "/v1/users/tess/entries/0123456789abc", "/v1/users/ghost/fields/%2E%2E",
])
@pytest.mark.parametrize("purge", ["", "?purge=true"])
def test_a_key_or_entry_id_that_names_nothing_is_422(client: TestClient, path: str, purge: str) -> None:
    answer = client.delete(path + purge)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["code"] == "invalid_request"
    assert intact(client)


def test_a_put_of_a_dot_key_is_422_and_writes_nothing(client: TestClient) -> None:
    for key in ("%2E%2E", "%2E", "%E2%80%8B"):  # .., ., a zero-width space alone
        answer = client.put(f"/v1/users/tess/fields/{key}", json={"value": "x"})
        assert answer.status_code == 422, (key, answer.text)
    assert intact(client)


def test_valid_refs_still_delete_one_item(client: TestClient) -> None:
    assert client.delete("/v1/users/tess/fields/role").status_code == 200
    eid = entry_id("[2026-07-01] flight: first solo flight")
    assert client.delete(f"/v1/users/tess/entries/{eid}?purge=true").json()["purged"] is True
    profile = client.get("/v1/users/tess/profile").json()
    assert [f["key"] for f in profile["fields"]] == ["Name"] and profile["entries"] == []
    assert client.delete("/v1/users/tess/fields/Nope").status_code == 404  # valid, but not there


def test_every_door_that_names_an_item_calls_the_one_check(
        client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, str]] = []
    real = review.check_ref

    def spy(target: str, ref: str) -> str:
        seen.append((target, ref))
        return real(target, ref)

    monkeypatch.setattr(review, "check_ref", spy)
    monkeypatch.setattr("pipeline.serve.routes.check_ref", spy)
    client.delete("/v1/users/tess/fields/%2E%2E")
    client.delete("/v1/users/tess/entries/%2E%2E")
    client.put("/v1/users/tess/fields/%2E%2E", json={"value": "x"})
    assert [("user", ".."), ("memory", ".."), ("user", "..")] == seen
    seen.clear()
    with MemoryPipeline(root=tmp_path) as pipe:  # the library, the review page and the CLI call these
        calls: list[Any] = [lambda: pipe.delete("tess", "user", ".."), lambda: pipe.correct("tess", "memory", "..", "x"),
                            lambda: pipe.annotate("tess", "user", ".", "pin")]
        for call in calls:
            with pytest.raises(review.ReviewRefused):
                call()
    assert seen == [("user", ".."), ("memory", ".."), ("user", ".")]

"""The server calls the library's paths (in process, over the ASGI app): one accept path for POST
turns whichever layer answers, `?wait=true` waiting on the hook instead of polling the database,
and DELETE of a field or an entry through the review page's own delete."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from pipeline.core import MemoryPipeline  # noqa: E402
from pipeline.ops.pins import entry_id  # noqa: E402
from pipeline.serve.app import create_app  # noqa: E402
from pipeline.serve.config import Limits, ServeConfig  # noqa: E402


def says(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}], "timestamp": "2026-07-30T09:00:00Z"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[TestClient, MemoryPipeline]]:
    pipes: list[MemoryPipeline] = []

    def factory() -> MemoryPipeline:
        pipes.append(MemoryPipeline(root=tmp_path))
        return pipes[-1]

    config = ServeConfig(root=tmp_path, limits=Limits(max_message_chars=200), wait_timeout_s=20)
    with TestClient(create_app(config, factory), base_url="http://127.0.0.1") as client:
        yield client, pipes[0]


def test_the_fast_path_and_the_route_accept_and_refuse_a_turn_alike(served: tuple[TestClient, MemoryPipeline]) -> None:
    client, _ = served
    long = says("I'm Zed. " + "z" * 300)
    fast = client.post("/v1/users/zed/turns", json=long)  # no query: answered below the framework
    routed = client.post("/v1/users/zed/turns?wait=false", json=long)  # a query: the route answers
    assert fast.status_code == routed.status_code == 422
    assert fast.json()["error"]["code"] == routed.json()["error"]["code"] == "message_too_long"
    bad_user = [client.post(f"/v1/users/memroute.db/turns{q}", json=says("I'm Eve.")) for q in ("", "?wait=false")]
    assert [r.json()["error"]["code"] for r in bad_user] == ["invalid_user_id"] * 2
    ok = [client.post(f"/v1/users/zed/turns{q}", json=says("I'm Zed.")) for q in ("", "?wait=false")]
    assert [r.status_code for r in ok] == [202, 202] and all(r.json()["status"] == "queued" for r in ok)


def test_wait_answers_the_decisions_without_polling_the_database(
    served: tuple[TestClient, MemoryPipeline], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, pipe = served
    reads: list[str] = []
    status_of = pipe.store.turn_status

    def counted(user_id: str, turn_id: str) -> str | None:
        reads.append(threading.current_thread().name)
        return status_of(user_id, turn_id)

    monkeypatch.setattr(pipe.store, "turn_status", counted)
    answer = client.post("/v1/users/ana/turns?wait=true", json=says("I'm Ana, a nurse in Lyon."))
    assert answer.status_code == 200 and answer.json()["status"] == "done"
    assert any(d["key"] == "Role" and d["outcome"] == "written" for d in answer.json()["decisions"])
    # The route read the turn's status once it was settled, in a worker thread; the 10 ms poll read it
    # on the event loop dozens of times. (The hook's own reads run in its worker threads.)
    route_reads = [name for name in reads if not name.startswith("memroute-hook")]
    assert len(route_reads) <= 1 and not any(name == "MainThread" for name in route_reads)


def test_delete_goes_through_the_review_pages_delete(served: tuple[TestClient, MemoryPipeline]) -> None:
    client, pipe = served
    pipe.tool("edith", "add", "user", "Role: paramedic")
    pipe.tool("edith", "add", "memory", "[2026-07-30] docs: moved to Vercel")
    gone = client.delete("/v1/users/edith/fields/role")  # a key in any case, as on the review page
    assert gone.status_code == 200 and gone.json()["success"] is True and gone.json()["purged"] is False
    entry = entry_id("[2026-07-30] docs: moved to Vercel")
    assert client.delete(f"/v1/users/edith/entries/{entry}").status_code == 200
    # One action, one history shape: the same rows the review page's delete writes.
    rows = [r for r in pipe.history("edith") if r["op"] == "remove"]
    assert [(r["target"], r["key"], r["old_value"], r["why"]) for r in rows] == [
        ("user", "Role", "paramedic", "review: deleted"),
        ("memory", None, "[2026-07-30] docs: moved to Vercel", "review: deleted"),
    ]
    assert all(str(r["turn_id"]).startswith("review-") for r in rows)
    missing = client.delete("/v1/users/edith/fields/Role")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("purge", [False, True])
def test_a_field_in_a_file_that_cannot_be_rewritten_is_a_409_with_or_without_purge(
    served: tuple[TestClient, MemoryPipeline], tmp_path: Path, purge: bool
) -> None:
    client, pipe = served
    pipe.tool("hana", "add", "user", "Role: nurse")
    user_md = tmp_path / "hana" / "USER.md"
    user_md.write_bytes(user_md.read_bytes().replace(b"\n", b"\r\n", 1))  # mixed line endings: not rewritten
    assert not pipe.load("hana", reader=True).profile.round_trips  # a hand edit the parser will not rewrite
    answer = client.delete("/v1/users/hana/fields/Role", params={"purge": "true"} if purge else {})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "conflict"
    assert b"Role: nurse" in user_md.read_bytes()  # left as it was

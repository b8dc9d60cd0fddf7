"""POST a turn, then read at once: the server applies the user's accepted turns before it answers a read
(context, profile, recall; bounded), so the back-to-back pair of the README shows the fact."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.serve.test_serve import _slow_server, says
from tests.servers import free_port, running, serve_argv, wait_until_up


def test_post_then_get_context_back_to_back_shows_the_fact(tmp_path: Path) -> None:
    port = free_port()
    with running(serve_argv(tmp_path / "root", port), tmp_path / "home", port) as url, \
            httpx.Client(base_url=url, timeout=30) as http:
        for user in ("jasmin", "noor", "ravi"):  # each a new user: the first turn creates the memory
            posted = http.post(f"/v1/users/{user}/turns",
                               json={"messages": [{"role": "user", "content": "I am a nurse in Lyon."}]})
            assert posted.status_code == 202
            context = http.get(f"/v1/users/{user}/context").json()["context"]
            assert "- Role: nurse" in context and "- Location: Lyon" in context, context


def test_reads_wait_for_a_slow_turn_of_that_user(tmp_path: Path) -> None:
    root, port = tmp_path / "root", free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _slow_server(tmp_path, root, port, sleep=0.8)  # each turn takes the model 0.8 s
    try:
        wait_until_up(url, proc)
        with httpx.Client(base_url=url, timeout=30) as http:
            assert http.post("/v1/users/ann/turns", json=says("ann moved to Porto")).status_code == 202
            profile = http.get("/v1/users/ann/profile")  # a new user: 200 once the turn is in, not 404
            assert profile.status_code == 200 and "ann moved to Porto" in profile.text
            assert http.post("/v1/users/ann/turns", json=says("ann bought a kayak")).status_code == 202
            assert any("kayak" in h["text"] for h in http.get("/v1/users/ann/recall", params={"q": "kayak"}).json()["hits"])
            assert http.post("/v1/users/ann/turns", json=says("ann started pottery")).status_code == 202
            assert "ann started pottery" in http.get("/v1/users/ann/context").json()["context"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)

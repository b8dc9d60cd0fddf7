"""`memroute serve --store postgresql://...`: the HTTP API and the review page on the PostgreSQL
store find users in the database (there is no per-user folder under the root)."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.servers import free_port, running, serve_argv


def test_serve_on_postgresql_answers_a_user_held_in_the_database(pg_dsn: str, tmp_path: Path) -> None:
    port = free_port()
    root = tmp_path / "root"
    with running(serve_argv(root, port, "--store", pg_dsn), tmp_path / "home", port) as url:
        turn = {"messages": [{"role": "user", "content": "I'm Jasmin, a frontend engineer."}]}
        r = httpx.post(f"{url}/v1/users/jasmin/turns?wait=true", json=turn, timeout=60)
        assert r.status_code == 200, r.text
        profile = httpx.get(f"{url}/v1/users/jasmin/profile", timeout=30)
        assert profile.status_code == 200, profile.text
        assert "frontend engineer" in profile.json()["user_md"]["text"]
        assert "frontend engineer" in httpx.get(f"{url}/v1/users/jasmin/context", timeout=30).text
        page = httpx.get(f"{url}/review/u/jasmin", timeout=30, follow_redirects=True)
        assert page.status_code == 200 and "frontend engineer" in page.text
        assert httpx.get(f"{url}/v1/users/nobody/profile", timeout=30).status_code == 404
    # the documents live in the database: nothing of the user was written under the root
    assert not (root / "jasmin").exists()


def test_the_banner_names_the_store_the_server_uses(pg_dsn: str, tmp_path: Path) -> None:
    import subprocess

    from tests.servers import env, wait_until_up

    port = free_port()
    proc = subprocess.Popen(serve_argv(tmp_path / "root", port, "--store", pg_dsn), env=env(tmp_path / "home"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_until_up(f"http://127.0.0.1:{port}", proc)
        assert proc.stderr is not None
        banner = proc.stderr.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    from pipeline.store.location import shown_url

    assert banner.startswith(f"memroute: serving {shown_url(pg_dsn)} on http://127.0.0.1:{port} ")
    assert str(tmp_path / "root") not in banner

"""The review page's index lists the users and the team profiles the store holds, on both stores
(files + SQLite, and PostgreSQL, where there is no folder to scan): DocumentStore.user_summaries()."""

from __future__ import annotations

import pytest

pytest.importorskip("jinja2")
from fastapi.testclient import TestClient  # noqa: E402
from memory_fixture import Memory  # noqa: E402

from pipeline.serve.app import create_app  # noqa: E402
from pipeline.serve.config import ServeConfig  # noqa: E402


def test_the_index_lists_users_and_teams_on_either_store(mem: Memory) -> None:
    with mem.pipeline() as pipe:
        pipe.tool("ana", "add", "user", "Role: frontend engineer")
        pipe.tool("bob", "add", "memory", "[2026-11-02] billing: moved invoices to Stripe")
        pipe.tool("team+web", "add", "user", "Stack: Next.js and Postgres")
    config = ServeConfig(root=mem.root)  # no tokens: a loopback server shows every user
    with TestClient(create_app(config, mem.pipeline), base_url="http://127.0.0.1") as client:
        page = client.get("/review/")
        assert page.status_code == 200
        html = page.text
    users = html.split("Team profiles")[0]
    assert 'href="/review/u/ana"' in users and 'href="/review/u/bob"' in users
    assert 'href="/review/u/team%2Bweb"' in html and "team+web</a>" not in users  # a team, not a user

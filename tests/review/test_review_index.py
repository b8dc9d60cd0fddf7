"""The review page's index lists the users and the team profiles the store holds, on both stores
(files + SQLite, and PostgreSQL, where there is no folder to scan): DocumentStore.user_summaries()."""

from __future__ import annotations

import pytest

pytest.importorskip("jinja2")
from pathlib import Path  # noqa: E402

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


def test_the_index_shows_each_person_as_a_card_and_finds_by_name(tmp_path: Path) -> None:
    from pipeline import MemoryPipeline

    with MemoryPipeline(root=tmp_path) as pipe:
        pipe.process_turn("jasmin", [{"role": "user", "content": "I'm Jasmin, a nurse in Lyon."}])
        pipe.tool("omar", "add", "user", "Role: architect")
    with TestClient(create_app(ServeConfig(root=tmp_path)), base_url="http://127.0.0.1") as client:
        html = client.get("/review/").text
        assert "<h1>People</h1>" in html and "2 of 2 people" in html
        assert ">Jasmin</a>" in html and "Nurse · Lyon" in html and "Architect" in html
        assert html.count("<meter") == 4 and "Last change" in html  # how full each file is, and when it changed
        found = client.get("/review/", params={"q": "jas"}).text
        assert 'href="/review/u/jasmin"' in found and 'href="/review/u/omar"' not in found
        assert "Nobody found" in client.get("/review/", params={"q": "zz"}).text


def test_a_persons_page_speaks_their_terms_identity_first_and_no_erased_fragments(tmp_path: Path) -> None:
    from pipeline import MemoryPipeline

    with MemoryPipeline(root=tmp_path) as pipe:
        pipe.process_turn("jasmin", [{"role": "user", "content": "I'm Jasmin, a nurse in Lyon. I'm allergic to peanuts."}],
                          timestamp="2026-11-02T09:00:00Z")
        pipe.forget("jasmin", "nurse", purge=True)  # "a nurse" leaves the quote Name and Location share
        assert any("[erased]" in str(p["quote"]) for p in pipe.store.provenance("jasmin"))
    user_md = tmp_path / "jasmin" / "USER.md"  # a hand edit put Constraints first
    text = user_md.read_text("utf-8")
    constraints = text[text.index("## Constraints"):]
    user_md.write_text("# USER\n\n" + constraints.rstrip("\n") + "\n\n" + text[len("# USER\n\n"):text.index("## Constraints")],
                       "utf-8")
    assert user_md.read_text("utf-8").index("## Constraints") < user_md.read_text("utf-8").index("## Identity")
    with TestClient(create_app(ServeConfig(root=tmp_path)), base_url="http://127.0.0.1") as client:
        html = client.get("/review/u/jasmin").text
    assert "[erased]" not in html and "nurse" not in html
    assert html.index("<h3>Identity</h3>") < html.index("<h3>Constraints</h3>")
    assert "Confidence" not in html and "offline" not in html and "USER.md" not in html
    assert "<h1>Jasmin" in html and "I&#39;m allergic to peanuts" in html

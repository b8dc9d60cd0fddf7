"""The review page, driven in headless Chromium (Playwright) against a real `memroute serve` on a free
loopback port: sign in with a token, correct a field, pin a fact, tag an entry, undo, erase a value
everywhere; each checked in the files, the history and the next context(). A stored <script> stays
inert, another user is 404, a form without its CSRF token is refused. Screenshots of each view are
written under the test's tmp dir."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("jinja2")
sync_api = pytest.importorskip("playwright.sync_api")

from pipeline.core import MemoryPipeline  # noqa: E402
from pipeline.ops.pins import entry_id  # noqa: E402
from tests.servers import bytes_under, free_port, running, serve_argv  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ANA = "ana-token-0123456789abcdef"
ENTRY = "[2026-11-02] billing: moved invoices to Stripe"
SECRET_ENTRY = "[2026-11-03] infra: the staging box is called blue-heron-42"
HOSTILE = "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)")


SAID = "I live in Lyon."
SAID_AT = "2026-11-02T23:30:00Z"  # 3 Nov, 08:30 in Tokyo, where the browser below is


def seed(root: Path) -> None:
    with MemoryPipeline(root=root) as pipe:
        pipe.process_turn("ana", [{"role": "user", "content": SAID}], timestamp=SAID_AT)  # a fact from a chat turn
        pipe.tool("ana", "add", "user", "Role: frontend engineer")
        pipe.tool("ana", "add", "user", "Editor: vim")
        pipe.tool("ana", "add", "memory", ENTRY)
        pipe.tool("ana", "add", "memory", SECRET_ENTRY)
        pipe.tool("team+web", "add", "user", "Stack: Next.js and Postgres")
        pipe.tool("bob", "add", "user", "Role: designer")
        with pipe.store.transaction() as tx:  # two facts said too weakly to write, waiting for the user
            for key, value in (("Music", "jazz"), ("Usual drink", "green tea")):
                pipe.store.upsert_candidate(tx, user_id="ana", section="Preferences", key=key, value=value,
                                            quote=f"maybe {value}?", turn_id="t-1", conversation_id="c-1",
                                            seen_at="2026-11-29T10:00:00+00:00")
    # A hand edit holding markup: the page must show it as text, never run it.
    user_md = root / "ana" / "USER.md"
    user_md.write_text(user_md.read_text("utf-8") + f"- Motto: {HOSTILE}\n", "utf-8")


def reader(root: Path) -> MemoryPipeline:
    return MemoryPipeline(root=root, read_only=True)


def history(root: Path) -> list[dict[str, Any]]:
    with reader(root) as pipe:
        return [r for r in pipe.history("ana") if str(r["turn_id"]).startswith("review-")]


def context(root: Path) -> str:
    with reader(root) as pipe:
        return pipe.context("ana", team="web")


def user_md(root: Path) -> str:
    return (root / "ana" / "USER.md").read_text("utf-8")


def memory_md(root: Path) -> str:
    return (root / "ana" / "MEMORY.md").read_text("utf-8")


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "memory"
    seed(root)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"{ANA} ana,team+web\n", "utf-8")
    port = free_port()
    with running(serve_argv(root, port, "--tokens", str(tokens)), tmp_path / "home", port) as url:
        yield url, root


@pytest.fixture()
def page(tmp_path: Path) -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # The viewer's zone and language: times on the page are theirs, not the server's.
        context = browser.new_context(viewport={"width": 1100, "height": 900}, timezone_id="Asia/Tokyo", locale="en-GB")
        pg = context.new_page()
        pg.set_default_timeout(20_000)
        yield pg
        context.close()
        browser.close()


def sign_in(page: Any, url: str, shots: Path) -> None:
    page.goto(url + "/review/")
    assert page.url.endswith("/review/login")
    page.screenshot(path=str(shots / "login.png"))
    page.fill("#token", ANA)
    page.keyboard.press("Enter")  # keyboard: the form submits without a mouse
    page.wait_for_url(url + "/review/")
    page.click("text=ana")
    page.wait_for_url(re.compile(r"/review/u/ana"))


def field(page: Any, key: str) -> Any:
    return page.locator('#profile section').first.locator(f'li[data-field="{key}"]')


def act(page: Any, card: Any, selector: str) -> None:
    """Click an action of a card; one that lives in the card's "More" menu is reached through it."""
    target = card.locator(selector).first
    if not target.is_visible():
        card.locator('summary[data-act="more"]').first.click()
    with page.expect_navigation():
        target.click()


DOCS = Path(__file__).resolve().parents[2] / "docs"


def keep_screenshot(shot: Path, name: str) -> None:
    """MEMROUTE_SCREENSHOTS=docs: the page's pictures in docs/ are regenerated from this run."""
    if os.environ.get("MEMROUTE_SCREENSHOTS") == "docs":
        (DOCS / name).write_bytes(shot.read_bytes())


def test_the_review_page_end_to_end(server: tuple[str, Path], page: Any, tmp_path: Path) -> None:
    url, root = server
    shots = tmp_path / "shots"
    shots.mkdir()
    sign_in(page, url, shots)

    # A stored <script> is text on the page and never runs.
    assert page.evaluate("window.__pwned") is None
    assert HOSTILE in field(page, "Motto").locator(".v").inner_text()
    page.screenshot(path=str(shots / "profile.png"), full_page=True)
    page.set_viewport_size({"width": 1100, "height": 1000})
    page.screenshot(path=str(shots / "review.png"))
    keep_screenshot(shots / "review.png", "review.png")
    page.set_viewport_size({"width": 1100, "height": 900})

    # The fact from a chat turn says where it came from and when the user said it, in the viewer's zone.
    lyon = field(page, "Location")
    prov = lyon.locator("dl.prov").inner_text()
    assert SAID in prov and "offline" not in prov and "Confidence" not in prov  # the person's terms, no internals
    said = lyon.locator("dl.prov time").first
    assert said.get_attribute("datetime") == "2026-11-02T23:30:00+00:00"
    assert "3 Nov 2026" in said.inner_text() and "08:30" in said.inner_text()  # Tokyo, not the server's UTC
    # One primary action per card; the others wait in its menu.
    visible = [b for b in lyon.locator("button:visible, summary:visible").all_inner_texts()]
    assert visible == ["Correct", "More"], visible
    # No emoji anywhere (they need a font the viewer may not have): the pin is a drawing.
    assert not re.search("[\U0001F000-\U0001FAFF\u2600-\u27BF]", page.content())

    team = page.locator("#profile section").nth(1)
    assert "Team profile: web" in team.inner_text() and "Next.js and Postgres" in team.inner_text()

    # Correct a field inline.
    role = field(page, "Role")
    role.locator('summary[data-act="correct-open"]').click()
    role.locator("input.fix").fill("staff engineer")
    act(page, role, 'button[data-act="correct"]')
    assert "Corrected." in page.locator(".flash.ok").inner_text()
    assert "- Role: staff engineer" in user_md(root)
    row = history(root)[-1]
    assert (row["op"], row["old_value"], row["new_value"]) == ("replace", "frontend engineer", "staff engineer")
    assert "Role: staff engineer" in context(root)
    assert "frontend engineer" in (field(page, "Role").locator(".earlier").text_content() or "")  # an earlier value

    # Undo it: the file, the history and the context are back to the old value.
    act(page, page.locator("nav.tabs"), 'button[data-act="undo"]')
    assert "- Role: frontend engineer" in user_md(root)
    assert history(root)[-1]["why"].startswith("review: undo of ")
    assert "Role: frontend engineer" in context(root) and "staff engineer" not in context(root)

    # A turn's fact corrected, then the correction undone: it says again where it came from.
    lyon = field(page, "Location")
    lyon.locator('summary[data-act="correct-open"]').click()
    lyon.locator("input.fix").fill("Paris")
    act(page, lyon, 'button[data-act="correct"]')
    assert "Set by hand" in field(page, "Location").locator("dl.prov").inner_text()
    act(page, page.locator("nav.tabs"), 'button[data-act="undo"]')
    prov = field(page, "Location").locator("dl.prov").inner_text()
    assert SAID in prov and "by hand" not in prov

    # Pin a fact.
    act(page, field(page, "Editor"), 'button[data-act="pin"]')
    assert "pinned" in field(page, "Editor").inner_text()
    assert history(root)[-1]["op"] == "pin"
    with reader(root) as pipe:
        assert [(a["target"], a["ref"], a["kind"]) for a in pipe.annotations("ana")] == [("user", "editor", "pin")]
    assert "- Editor: vim" in user_md(root) and "Editor: vim" in context(root)  # files and context unchanged

    # Tag an entry with a project.
    entry = page.locator(f'li[data-entry="{entry_id(ENTRY)}"]')
    entry.locator('summary[data-act="more"]').click()
    entry.locator('select[name="kind"]').select_option("project")
    entry.locator("input.tag-value").fill("billing-v2")
    act(page, entry, 'button[data-act="tag"]')
    assert "project: billing-v2" in page.locator(f'li[data-entry="{entry_id(ENTRY)}"]').inner_text()
    assert history(root)[-1]["op"] == "tag" and "billing-v2" in history(root)[-1]["why"]
    assert ENTRY in memory_md(root) and "moved invoices to Stripe" in context(root)
    page.locator("#memory").screenshot(path=str(shots / "memory.png"))
    keep_screenshot(shots / "memory.png", "review-memory.png")

    # Erase a value everywhere (the confirm dialog is accepted).
    page.once("dialog", lambda dialog: dialog.accept())
    act(page, page.locator(f'li[data-entry="{entry_id(SECRET_ENTRY)}"]'), 'button[data-act="purge"]')
    assert "Erased everywhere." in page.locator(".flash.ok").inner_text()
    assert "blue-heron-42" not in memory_md(root) and "blue-heron-42" not in context(root)
    assert history(root)[-1]["op"] == "purge"
    assert bytes_under(root, "blue-heron-42") == []  # no copy left anywhere under the root

    # Archive search from the page (FTS recall): a plain delete keeps the value findable.
    act(page, field(page, "Editor"), 'button[data-act="delete"]')
    assert "- Editor:" not in user_md(root)
    page.fill("#q", "vim")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "archive" in page.locator(".hits").inner_text() and "vim" in page.locator(".hits").inner_text()
    page.locator("#candidates").screenshot(path=str(shots / "candidates.png"))
    keep_screenshot(shots / "candidates.png", "review-candidates.png")

    # Candidates: keep one (it lands in USER.md), drop the other (it is gone, history says so).
    jazz = page.locator("li[data-candidate]", has_text="jazz")
    act(page, jazz, 'button[data-act="keep"]')
    assert "- Music: jazz" in user_md(root) and "Music: jazz" in context(root)
    act(page, page.locator("li[data-candidate]", has_text="green tea"), 'button[data-act="drop"]')
    assert page.locator("li[data-candidate]").count() == 0
    assert history(root)[-1]["op"] == "drop candidate" and "green tea" not in user_md(root)
    with reader(root) as pipe:
        assert pipe.candidates("ana") == []
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    page.screenshot(path=str(shots / "phone.png"), full_page=True)
    keep_screenshot(shots / "phone.png", "review-phone.png")
    assert page.evaluate("window.__pwned") is None
    for name in ("login", "profile", "memory", "candidates", "phone"):
        assert (shots / f"{name}.png").stat().st_size > 1000


def test_other_users_are_404_and_forms_need_their_csrf_token(server: tuple[str, Path], page: Any,
                                                             tmp_path: Path) -> None:
    url, root = server
    shots = tmp_path / "shots"
    shots.mkdir()
    sign_in(page, url, shots)
    assert page.goto(url + "/review/u/bob").status == 404
    assert page.goto(url + "/review/u/nobody").status == 404
    page.goto(url + "/review/u/ana")
    assert "bob" not in page.locator("main").inner_text().split("\n")[0]
    before = user_md(root)
    # A form posted without the page's CSRF token (as another site would) is refused and writes nothing.
    answer = page.request.post(url + "/review/u/ana/act",
                               form={"action": "delete", "target": "user", "ref": "Role", "csrf": "forged"})
    assert answer.status == 403 and user_md(root) == before
    # Without signing in there is nothing to see.
    import httpx

    assert httpx.get(url + "/review/u/ana", follow_redirects=False).status_code == 303


def test_a_form_rendered_before_a_restart_still_works(tmp_path: Path, page: Any) -> None:
    root = tmp_path / "memory"
    seed(root)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"{ANA} ana,team+web\n", "utf-8")
    shots = tmp_path / "shots"
    shots.mkdir()
    port = free_port()
    argv = serve_argv(root, port, "--tokens", str(tokens))
    with running(argv, tmp_path / "home", port) as url:
        sign_in(page, url, shots)
        role = field(page, "Role")
        role.locator('summary[data-act="correct-open"]').click()
        role.locator("input.fix").fill("staff engineer")
    # The server stopped and started again; the form in the browser is the one rendered before.
    with running(argv, tmp_path / "home", port):
        act(page, field(page, "Role"), 'button[data-act="correct"]')
        assert "Corrected." in page.locator(".flash.ok").inner_text()
    assert "- Role: staff engineer" in user_md(root)
    assert oct((root / "memroute.review.key").stat().st_mode & 0o777) == "0o600"


def test_a_form_from_one_server_process_works_on_another_of_the_same_root(tmp_path: Path) -> None:
    import httpx

    root = tmp_path / "memory"
    seed(root)
    first, second = free_port(), free_port()
    with running(serve_argv(root, first), tmp_path / "home", first) as a, \
            running(serve_argv(root, second), tmp_path / "home", second) as b:
        with httpx.Client(base_url=a) as browser:
            html = browser.get("/review/u/ana").text
            match = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
            assert match is not None
            answer = httpx.post(f"{b}/review/u/ana/act", cookies=dict(browser.cookies),
                                data={"csrf": match.group(1), "action": "pin", "target": "user", "ref": "Editor"})
    assert answer.status_code == 303 and "done=Pinned." in answer.headers["location"]
    with reader(root) as pipe:
        assert [(a["ref"], a["kind"]) for a in pipe.annotations("ana")] == [("editor", "pin")]

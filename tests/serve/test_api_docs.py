"""/docs renders with no network (issue 26): the page is built on the server from the app's own
OpenAPI schema, with no script or asset from elsewhere; checked in headless Chromium with every
request that leaves the server refused."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
sync_api = pytest.importorskip("playwright.sync_api")

from tests.servers import free_port, running, serve_argv  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def test_docs_page_is_self_contained(tmp_path: Path) -> None:
    port = free_port()
    with running(serve_argv(tmp_path / "root", port), tmp_path / "home", port) as url:
        r = httpx.get(url + "/docs")
        assert r.status_code == 200 and "default-src 'none'" in r.headers["content-security-policy"]
        assert "<script" not in r.text and "cdn" not in r.text.lower() and "http" not in r.text.replace(url, "")
        assert "/v1/users/{user}/turns" in r.text and 'id="schema-TurnIn"' in r.text
        assert httpx.get(url + "/redoc").text == r.text


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing (.ci/run installs chromium)")
def test_docs_renders_in_chromium_with_the_network_blocked(tmp_path: Path) -> None:
    port = free_port()
    with running(serve_argv(tmp_path / "root", port), tmp_path / "home", port) as url, \
            sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context()
        outside: list[str] = []

        def only_the_server(route: Any) -> None:
            if route.request.url.startswith(url):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        context.route("**/*", only_the_server)
        page = context.new_page()
        page.goto(url + "/docs", wait_until="networkidle")
        assert outside == []
        assert page.title() == "memroute API"
        ops = page.locator(".op h3").all_inner_texts()
        assert any("POST" in t and "/v1/users/{user}/turns" in t for t in ops)
        assert page.locator("#schema-TurnIn").is_visible()
        page.click("a[href='#schema-TurnIn']")
        assert page.evaluate("location.hash") == "#schema-TurnIn"
        page.screenshot(path=str(tmp_path / "docs.png"), full_page=False)
        browser.close()

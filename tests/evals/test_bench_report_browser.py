"""The write benchmark's HTML report in a real browser (headless Chromium through Playwright): the
turns behind a figure are hidden until the figure is clicked, then shown with what was stored."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")

from pipeline.evals import load_cases  # noqa: E402
from pipeline.evals.bench import run_bench  # noqa: E402
from pipeline.evals.bench_render import write_bench_html  # noqa: E402
from pipeline.evals.bench_scores import build_bench_report, system_block  # noqa: E402
from pipeline.evals.systems import SystemSpec  # noqa: E402
from tests.evals.bench_helpers import write_suite  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)")


@pytest.fixture()
def page() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        pg = context.new_page()
        pg.set_default_timeout(20_000)
        yield pg
        context.close()
        browser.close()


def test_click_a_figure_and_see_the_turns_behind_it(tmp_path: Path, page: Any) -> None:
    suite = write_suite(tmp_path / "suite.jsonl")
    specs = [SystemSpec("keep-everything"), SystemSpec("keep-nothing")]
    records = run_bench(load_cases([suite]), specs)
    report = build_bench_report([system_block(s, records[s.label]) for s in specs], [str(suite)],
                                datetime(2026, 7, 30, tzinfo=timezone.utc), 1.0)
    html = tmp_path / "bench.html"
    write_bench_html(report, html)
    page.goto(html.as_uri())
    examples = page.locator("#x-0-false_writes-all")
    assert not examples.is_visible()  # hidden until asked for
    page.locator('table[data-scope="all"] a[href="#x-0-false_writes-all"]').click()
    assert examples.is_visible()
    shown = examples.inner_text()
    assert "b-skip" in shown and "You're welcome!" in shown and "2 turn(s)" in shown
    # per language too: the zh table's recall figure shows the one zh turn and the value found
    page.locator('table[data-scope="zh"] a[href="#x-0-user_facts-zh"]').click()
    zh = page.locator("#x-0-user_facts-zh")
    assert zh.is_visible() and not examples.is_visible()
    assert "found: 林晓梅" in zh.inner_text()

"""The HTML eval report renders in a real browser (headless Chromium), offline, without scripts."""

from __future__ import annotations

import struct
import subprocess
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pipeline.evals import CaseOutcome, EngineSpec, EvalCase, build_report, score_case, score_run
from pipeline.evals.render import write_html

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)")


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


class _Collect(HTMLParser):
    """Element counts by tag.class and by id, and the visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.classes: dict[str, int] = {}
        self.tags: dict[str, int] = {}
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if a.get("id"):
            self.ids.add(str(a["id"]))
        for cls in (a.get("class") or "").split():
            key = f"{tag}.{cls}"
            self.classes[key] = self.classes.get(key, 0) + 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _outcome(cid: str, text: str, expected: str, predicted: str, lang: str, run: str, **kw: str) -> CaseOutcome:
    case = EvalCase(
        id=cid,
        lang=lang,
        messages=[{"role": "user", "content": text}],
        expect={"route": expected},
    )
    o = CaseOutcome(case=case, run=run, predicted=predicted, latency_s=0.01, **kw)  # type: ignore[arg-type]
    score_case(o)
    return o


def _report(tmp_path: Path) -> Path:
    specs = [EngineSpec("offline"), EngineSpec("llm", "openai/gpt-4o-mini")]
    rows = [
        ("u1", "I'm Jasmin, a frontend engineer.", "user", "user", "en"),
        ("u2", "Saya suka jawaban singkat.", "user", "memory", "id"),
        ("m1", "我们昨天把首页改成了动画渐变。", "memory", "memory", "zh"),
        ("s1", "วันนี้ปวดหัวมาก <script>alert(1)</script>", "skip", "user", "th"),
        ("x1", "I'm Jasmin and we shipped the demo.", "mixed", "mixed", "en"),
    ]
    runs = []
    for i, spec in enumerate(specs):
        outcomes = [
            _outcome(
                cid,
                text,
                exp,
                exp if i == 1 else pred,
                lang,
                spec.name,
                user_md="# USER\n\n## Identity\n- Name: Jasmin\n",
                memory_md="# MEMORY\n",
            )
            for cid, text, exp, pred, lang in rows
        ]
        runs.append(score_run(outcomes, spec))
    report = build_report(runs, ["evals/a.jsonl"], datetime(2026, 7, 30, tzinfo=timezone.utc), 1.0)
    out = tmp_path / "report.html"
    write_html(report.to_json(), out, min_accuracy=0.8)
    return out


def test_report_dom_has_summary_heatmap_and_failing_cases(tmp_path: Path) -> None:
    page = _report(tmp_path)
    done = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = _Collect()
    dom.feed(done.stdout)
    assert {"summary-table", "confusion", "lang-table", "failures"} <= dom.ids
    # 2 runs x 4 expected routes x 4 predicted routes.
    assert dom.classes.get("td.heat") == 32
    # offline got u2 and s1 wrong; the llm run got everything right.
    assert dom.classes.get("article.failure") == 2
    assert "fail-0-u2" in dom.ids and "fail-0-s1" in dom.ids
    text = "".join(dom.text)
    assert "openai/gpt-4o-mini" in text and "วันนี้ปวดหัวมาก <script>alert(1)</script>" in text
    assert dom.tags.get("script", 0) == 0  # user text is shown, never executed
    assert "route: expected skip, got user" in text


def test_report_screenshot(tmp_path: Path) -> None:
    page = _report(tmp_path)
    shot = tmp_path / "report.png"
    done = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,1600", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 1600)

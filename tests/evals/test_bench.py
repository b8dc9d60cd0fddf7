"""The write benchmark (`memroute eval SUITE --system NAME`): the bounds and memroute's engines on
a small labelled suite, the scores and the turns behind them, the leak search over every byte a
system keeps, the CLI's report files and its usage errors."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.evals import load_cases
from pipeline.evals.bench import run_bench, run_turn
from pipeline.evals.bench_render import render_bench_html
from pipeline.evals.bench_scores import build_bench_report, system_block
from pipeline.evals.systems import (
    KeepEverything,
    StoredItem,
    SystemSpec,
    SystemUnderTest,
    system_factory,
)
from tests.evals.bench_helpers import (
    CASES,
    PLANTED,
    PLANTED_CASE,
    default_elsewhere,
    unreported,
    watched,
    write_suite,
)
from tests.servers import Reply, ScriptedServer


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME and the temp dir inside the test's folder, so a search of them is small and ours."""
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp_path


def _run(tmp_path: Path, *systems: str, cases: list[dict[str, Any]] = CASES) -> dict[str, Any]:
    suite = write_suite(tmp_path / "suite.jsonl", cases)
    specs = [SystemSpec(s) for s in systems]
    records = run_bench(load_cases([suite]), specs)
    blocks = [system_block(s, records[s.label]) for s in specs]
    from datetime import datetime, timezone

    return build_bench_report(blocks, [str(suite)], datetime.now(timezone.utc), 0.0)


def test_the_bounds_frame_every_score(sandbox: Path) -> None:
    report = _run(sandbox, "keep-everything", "keep-nothing")
    every, none = (s["totals"] for s in report["systems"])
    # keep-everything stores every message: each skip-labelled turn is a false write, its items rejects
    assert every["items_made"] == 5  # 1 + 2 (user and assistant) + 1 + 1
    assert (every["false_writes"], every["skip_turns"], every["false_write_rate"]) == (2, 2, 1.0)
    assert every["rejected_items"] == 3 and every["rejected_share"] == 3 / 5
    assert every["user_fact_recall"] == 1.0
    assert every["leaks"] >= 1 and every["examples"]["leaks"] == ["b-secret"]
    # keep-nothing: nothing stored, nothing recalled, nothing leaked
    assert (none["items_made"], none["false_writes"], none["user_facts_found"], none["leaks"]) == (0, 0, 0, 0)
    assert none["user_fact_recall"] == 0.0
    # per language, with the turns behind each figure
    zh = report["systems"][0]["by_lang"]["zh"]
    assert zh["turns"] == 1 and zh["examples"]["user_facts_found"] == [["b-zh", "林晓梅"]]
    assert report["systems"][1]["by_lang"]["zh"]["examples"]["user_facts_missed"] == [["b-zh", "林晓梅"]]


def test_saved_reports_in_parts_add_up_to_the_whole(sandbox: Path) -> None:
    from pipeline.evals.bench_scores import merge_blocks

    whole = _run(sandbox, "keep-everything")["systems"][0]
    parts = [_run(sandbox, "keep-everything", cases=[c])["systems"][0] for c in CASES]
    merged = merge_blocks(json.loads(json.dumps(parts)))
    assert len(merged) == 1
    strip = {"seconds", "seconds_per_turn", "seconds_p50", "seconds_p95"}
    assert {k: v for k, v in merged[0]["totals"].items() if k not in strip} == {
        k: v for k, v in whole["totals"].items() if k not in strip}
    assert merged[0]["by_lang"]["zh"]["examples"] == whole["by_lang"]["zh"]["examples"]


def test_memroute_offline_through_the_public_api(sandbox: Path) -> None:
    report = _run(sandbox, "memroute-offline")
    block = report["systems"][0]
    totals = block["totals"]
    assert totals["failed"] == 0 and totals["calls"] == 0
    assert totals["leaks"] == 0, block["turns"]
    turns = {t["id"]: t for t in block["turns"]}
    assert any("Halvard" in item["text"] for item in turns["b-user"]["made"])
    assert all(item["where"].startswith(("USER.md", "MEMORY.md")) for t in block["turns"] for item in t["made"])
    assert turns["b-user"]["made"][0]["turn"] == "b-user"  # attributed from memroute's history
    assert turns["b-skip"]["made"] == []


def test_a_turn_that_raises_is_a_failure_and_the_run_goes_on(sandbox: Path) -> None:
    class Broken(KeepEverything):
        def add(self, user: str, messages: list[dict[str, Any]], timestamp: Any, **kw: Any) -> None:
            if "PIN" in messages[0]["content"]:
                raise RuntimeError("backend down")
            super().add(user, messages, timestamp, **kw)

    suite = write_suite(sandbox / "suite.jsonl")
    spec = SystemSpec("broken")
    records = run_bench(load_cases([suite]), [spec], factories={"broken": lambda s, w: Broken(w)})["broken"]
    totals = system_block(spec, records)["totals"]
    assert totals["failed"] == 1 and totals["examples"]["failed"] == ["b-secret"]
    assert [r.error for r in records if r.error] == ["RuntimeError: backend down"]
    assert totals["turns"] == 4 and totals["items_made"] == 4


def test_a_stopped_run_keeps_the_turns_that_finished(sandbox: Path) -> None:
    import threading

    stop = threading.Event()
    suite = write_suite(sandbox / "suite.jsonl")
    specs = [SystemSpec("keep-everything"), SystemSpec("keep-nothing")]
    records = run_bench(load_cases([suite]), specs, on_done=lambda r: stop.set(), stop=stop)
    assert [r.case.id for r in records["keep-everything"]] == ["b-user"]
    assert "keep-nothing" not in records  # not reached
    from datetime import datetime, timezone

    report = build_bench_report([system_block(specs[0], records["keep-everything"])], [str(suite)],
                                datetime.now(timezone.utc), 0.0,
                                not_run={"keep-everything": ["b-skip", "b-secret", "b-zh"], "keep-nothing": ["b-user"]})
    assert report["complete"] is False and report["systems"][0]["totals"]["turns"] == 1
    assert "Stopped early: keep-nothing did not run 1 turn(s)." in render_bench_html(report)


# ---- the leak search: every place a system keeps data -----------------------------------------


@pytest.mark.parametrize("name", ["keep-everything", "memroute-offline"])
def test_every_file_holding_a_planted_value_is_reported(sandbox: Path, name: str) -> None:
    case = load_cases([write_suite(sandbox / "p.jsonl", [PLANTED_CASE])])[0]
    seen: dict[str, Any] = {}
    record = run_turn(case, SystemSpec(name), watched(system_factory(name), default_elsewhere(), seen))
    assert record.error is None
    assert seen.get("files"), f"{name} stored the planted value nowhere: the test would prove nothing"
    assert unreported(record, seen) == []


class _Hides(SystemUnderTest):
    """Keeps a copy outside its work directory and may or may not say so."""

    def __init__(self, workdir: Path, declare: bool) -> None:
        self.elsewhere = Path.home() / "hidden-store"
        self.declare = declare

    def add(self, user: str, messages: list[dict[str, Any]], timestamp: Any, **kw: Any) -> None:
        self.elsewhere.mkdir(exist_ok=True)
        (self.elsewhere / "copy.bin").write_bytes(messages[0]["content"].encode("utf-8"))

    def stored(self, user: str) -> list[StoredItem]:
        return []

    def data_paths(self) -> list[Path]:
        return [self.elsewhere] if self.declare else []


def test_a_system_that_keeps_data_it_does_not_declare_is_caught(sandbox: Path) -> None:
    """The check above fails for an adapter whose storage the benchmark does not search."""
    case = load_cases([write_suite(sandbox / "p.jsonl", [PLANTED_CASE])])[0]
    for declare, missing in ((False, 1), (True, 0)):
        seen: dict[str, Any] = {}
        factory = watched(lambda s, w, d=declare: _Hides(w, d), default_elsewhere(), seen)  # type: ignore[misc]
        record = run_turn(case, SystemSpec("hides"), factory)
        assert len(unreported(record, seen)) == missing
        if declare:
            assert any(leak["where"].endswith("copy.bin") for leak in record.leaks)
        for f in (Path.home() / "hidden-store").glob("*"):
            f.unlink()


def test_needles_are_found_in_any_case_and_in_json_escapes(sandbox: Path) -> None:
    from pipeline.evals.leaks import search_bytes

    d = sandbox / "store"
    d.mkdir()
    (d / "a.json").write_text(json.dumps({"v": "林晓梅 QUORBLAXE"}), encoding="utf-8")  # \\u escapes
    (d / "b.txt").write_text("nothing here", encoding="utf-8")
    found = search_bytes(["林晓梅", "quorblaxe", "absent"], [d], base=d)
    assert sorted(found) == [("quorblaxe", "file a.json"), ("林晓梅", "file a.json")]


# ---- memroute's llm engine on the fake model server ---------------------------------------------


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as srv:
        yield srv


def test_memroute_llm_counts_calls_and_tokens(
    sandbox: Path, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    stmt = {"statements": [{"quote": PLANTED, "route": "user", "section": "Identity", "key": "Name", "value": PLANTED}]}
    server.then(Reply(arguments=stmt, prompt_tokens=700, completion_tokens=40))
    case = load_cases([write_suite(sandbox / "p.jsonl", [PLANTED_CASE])])[0]
    spec = SystemSpec("memroute-llm", model="openai/gpt-4o-mini", api_base=server.api_base,
                      options={"engine_options": {"structured": "tools", "timeout": 5.0}})
    seen: dict[str, Any] = {}
    record = run_turn(case, spec, watched(system_factory("memroute-llm"), default_elsewhere(), seen))
    assert record.error is None, record.error
    assert (record.usage.calls, record.usage.prompt_tokens, record.usage.completion_tokens) == (1, 700, 40)
    assert [i.text for i in record.made] == [f"Name: {PLANTED}"]
    assert seen.get("files") and unreported(record, seen) == []


# ---- the command --------------------------------------------------------------------------------


def test_the_command_writes_json_and_html_side_by_side(sandbox: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = write_suite(sandbox / "suite.jsonl")
    out, page = sandbox / "r.json", sandbox / "r.html"
    code = main(["eval", str(suite), "--system", "keep-everything", "--system", "memroute-offline",
                 "--json", str(out), "--report", str(page)])
    assert code == 0, capsys.readouterr().err
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["kind"] == "memroute-write-benchmark"
    assert [s["label"] for s in report["systems"]] == ["keep-everything", "memroute-offline"]
    assert set(report["systems"][0]["by_lang"]) == {"en", "zh"}
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html
    # every figure links to a section that exists and shows the turns behind it, with their items
    targets = set(re.findall(r'href="#(x-[^"]+)"', html))
    ids = set(re.findall(r'id="(x-[^"]+)"', html))
    assert targets and targets <= ids
    section = html.split('id="x-0-false_writes-all"', 1)[1].split("</section>", 1)[0]
    assert 'data-case="b-skip"' in section and "You&#x27;re welcome!" in section
    assert "write benchmark" in capsys.readouterr().out


def test_html_escapes_what_systems_store(sandbox: Path) -> None:
    report = _run(sandbox, "keep-everything", cases=[
        {"id": "x", "lang": "en", "messages": [{"role": "user", "content": "<img src=x onerror=alert(1)>"}],
         "expect": {"route": "skip"}}])
    html = render_bench_html(report)
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--system", "nope"], "unknown system 'nope'"),
        (["--system", "memroute-llm"], "--system memroute-llm needs a --model"),
        (["--system", "keep-nothing", "--engine", "offline"], "--engine does not go with --system"),
        (["--system", "keep-nothing", "--min-accuracy", "0.5"], "--min-accuracy does not go with --system"),
        (["--system", "keep-nothing", "--model", "a", "--model", "b"], "give --model once"),
        (["--embed-dims", "8"], "go with --system"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(
    sandbox: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMROUTE_MODEL", raising=False)
    suite = write_suite(sandbox / "suite.jsonl")
    out = sandbox / "r.json"
    assert main(["eval", str(suite), *argv, "--json", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not out.exists()


def test_import_pipeline_loads_no_benchmark_adapter() -> None:
    import subprocess
    import sys

    code = "import sys, pipeline, pipeline.evals; print(sorted(m for m in sys.modules if 'mem0' in m or 'systems' in m or 'qdrant' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"

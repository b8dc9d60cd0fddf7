"""`memroute batch`: formats, bad input, order, dates, resume after SIGKILL, restart, audit log."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import pipeline.core
from pipeline.batch import BatchOptions, BatchRunner, TokenBucket
from pipeline.batch.transcripts import BadLine, Conversation, read_conversations
from pipeline.cli.batch_run import run_batch_cli
from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine
from pipeline.engines.offline import OfflineEngine
from pipeline.settings import Settings
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Turn

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from gen_transcripts import generate_lines, write  # noqa: E402


def jsonl(path: Path, *rows: Any) -> Path:
    with path.open("wb") as fh:
        for row in rows:
            fh.write(row if isinstance(row, bytes) else json.dumps(row, ensure_ascii=False).encode())
            fh.write(b"\n")
    return path


def batch(
    inputs: list[Path], out: Path, capsys: pytest.CaptureFixture[str], **kw: Any
) -> tuple[int, dict[str, Any], str]:
    options: dict[str, Any] = {
        "fmt": None,
        "concurrency": 4,
        "rpm": None,
        "restart": False,
        "json_out": True,
        "decisions_out": None,
        "max_failures": None,
        "settings": Settings(engine="offline"),
        "progress": False,
    }
    options.update(kw)
    code = run_batch_cli([str(p) for p in inputs], str(out), **options)
    captured = capsys.readouterr()
    summary = json.loads(captured.out) if captured.out.strip().startswith("{") else {}
    return code, summary, captured.err


def ledgers(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.glob("*/*.md"))
        if not p.parent.name.startswith(".")
    }


OPENAI = {
    "id": "c-openai",
    "user_id": "jasmin",
    "timestamp": "2025-03-10T09:00:00Z",
    "messages": [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "I'm Jasmin, a frontend engineer."},
        {"role": "assistant", "content": "Nice to meet you."},
        {"role": "user", "content": "Yesterday we shipped the new pricing page.", "timestamp": "2025-03-12T10:00:00Z"},
        {"role": "assistant", "content": "Congrats!"},
    ],
}
SHAREGPT = {
    "id": "c-share",
    "user_id": "budi",
    "timestamp": 1741597200,  # epoch seconds: 2025-03-10T09:00:00Z
    "conversations": [{"from": "human", "value": "Nama saya Budi."}, {"from": "gpt", "value": "Halo Budi!"}],
}
TURNS = {
    "conversation_id": "c-turns",
    "user_id": "mali",
    "turns": [
        {"timestamp": "2025-04-01T08:00:00Z", "user": "I live in Chiang Mai.", "assistant": "Lovely city."},
        {"timestamp": "2025-04-02T08:00:00Z", "user": "Ugh, tired today."},
    ],
}


def test_detects_and_parses_the_three_formats(tmp_path: Path) -> None:
    items = list(read_conversations(jsonl(tmp_path / "in.jsonl", OPENAI, SHAREGPT, TURNS)))
    convs = [c for c in items if isinstance(c, Conversation)]
    assert len(convs) == 3
    openai, share, turns = convs
    assert [c.fmt for c in convs] == ["openai", "sharegpt", "turns"]
    assert (openai.user_id, openai.conversation_id, openai.line) == ("jasmin", "c-openai", 1)
    # A turn is a user message and what follows it; the system message is context only.
    assert openai.turn_spans() == [(1, 3), (3, 5)]
    assert str(openai.turn_timestamp(1)) == "2025-03-10 09:00:00+00:00"
    assert str(openai.turn_timestamp(3)) == "2025-03-12 10:00:00+00:00"
    assert [m.role for m in share.messages] == ["user", "assistant"]
    assert str(share.timestamp) == "2025-03-10 09:00:00+00:00"  # from epoch seconds
    assert [m.role for m in turns.messages] == ["user", "assistant", "user"]
    assert turns.turn_spans() == [(0, 2), (2, 3)] and str(turns.turn_timestamp(2)) == "2025-04-02 08:00:00+00:00"


def test_forced_format_reports_lines_of_another_format(tmp_path: Path) -> None:
    items = list(read_conversations(jsonl(tmp_path / "in.jsonl", OPENAI, SHAREGPT), fmt="sharegpt"))
    assert isinstance(items[0], BadLine) and items[0].line == 1 and "not sharegpt format" in items[0].reason
    assert isinstance(items[1], Conversation)


def test_bad_lines_are_reported_with_file_and_line_counted_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {**OPENAI, "id": "ok"}
    src = jsonl(
        tmp_path / "in.jsonl",
        good,
        b'{"id": "broken", "user_id": "x", "messages": [',  # malformed JSON
        {"id": "r", "user_id": "x", "messages": [{"role": "wizard", "content": "hi"}]},  # unknown role
        {"id": "u", "messages": [{"role": "user", "content": "hi"}]},  # missing user id
        b'{"id": "b", "user_id": "x", "messages": [{"role": "user", "content": "caf\xe9"}]}',  # invalid UTF-8
        {"id": "big", "user_id": "x", "messages": [{"role": "user", "content": "a" * 1_000_001}]},  # > 1 MB
        {**SHAREGPT},
    )
    code, summary, err = batch([src], tmp_path / "out", capsys)
    assert code == 1
    assert summary["bad_lines"] == 5 and summary["failures"] == 5
    reasons = {int(item.split(":")[1]): item for item in summary["bad_line_list"]}
    assert sorted(reasons) == [2, 3, 4, 5, 6]
    assert all(item.startswith(f"{src}:") for item in reasons.values())
    assert "malformed JSON" in reasons[2] and "unknown role" in reasons[3] and "missing user_id" in reasons[4]
    assert "invalid UTF-8" in reasons[5] and "1,000,001 characters" in reasons[6]
    # The rest of the batch went on.
    assert summary["conversations"]["done"] == 2 and summary["turns"]["done"] == 3
    assert "Jasmin" in (tmp_path / "out" / "jasmin" / "USER.md").read_text()
    assert "Traceback" not in err


def test_max_failures_stops_early(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows: list[Any] = [b"not json"] * 5 + [{**OPENAI, "id": f"c{i}"} for i in range(3)]
    code, summary, _ = batch([jsonl(tmp_path / "in.jsonl", *rows)], tmp_path / "out", capsys, max_failures=2)
    assert code == 1 and summary["stopped_early"] is True
    assert summary["bad_lines"] == 2  # it stopped reading at the second failure
    assert summary["turns"]["done"] == 0


def test_dates_come_from_transcript_timestamps_and_each_user_replays_in_time_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    later = {
        "id": "later",
        "user_id": "jasmin",
        "messages": [{"role": "user", "content": "I live in Hamburg now.", "timestamp": "2025-06-02T09:00:00Z"}],
    }
    earlier = {
        "id": "earlier",
        "user_id": "jasmin",
        "messages": [
            {"role": "user", "content": "I live in Berlin.", "timestamp": "2025-06-01T09:00:00Z"},
            {"role": "assistant", "content": "Noted."},
            {
                "role": "user",
                "content": "Yesterday we shipped the new pricing page.",
                "timestamp": "2025-06-01T09:05:00Z",
            },
        ],
    }
    # ShareGPT messages carry no time: the conversation's timestamp dates its turns.
    untimed_messages = {
        "id": "s1",
        "user_id": "kai",
        "timestamp": "2025-02-10T12:00:00Z",
        "conversations": [{"from": "human", "value": "Yesterday we shipped the new pricing page."}],
    }
    # The file holds the later conversation first: the batch must still replay "earlier" first.
    src = jsonl(tmp_path / "in.jsonl", later, untimed_messages, earlier)
    code, summary, _ = batch([src], tmp_path / "out", capsys)
    assert code == 0, summary
    user_md = (tmp_path / "out" / "jasmin" / "USER.md").read_text()
    memory_md = (tmp_path / "out" / "jasmin" / "MEMORY.md").read_text()
    assert "Hamburg" in user_md and "Berlin" not in user_md
    assert "- [2025-05-31]" in memory_md  # "yesterday" relative to the transcript, not to today
    assert "- [2025-02-09]" in (tmp_path / "out" / "kai" / "MEMORY.md").read_text()


def test_a_generated_set_runs_and_a_rerun_skips_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    write(src, generate_lines(users=12, conversations=60, seed=3))
    decisions = tmp_path / "decisions.jsonl"
    code, summary, _ = batch([src], tmp_path / "out", capsys, decisions_out=str(decisions))
    assert code == 0 and summary["users"] == 12
    assert summary["conversations"]["done"] == 60 and summary["turns"]["done"] == summary["turns"]["total"] > 100
    assert summary["writes"]["user"] > 0 and summary["writes"]["memory"] > 0 and summary["skips"]
    assert len(list((tmp_path / "out").glob("*/USER.md"))) == 12
    lines = decisions.read_text().splitlines()
    assert len(lines) == sum(summary["writes"].values()) + sum(summary["skips"].values()) + sum(
        summary["outcomes"].values()
    )
    before = ledgers(tmp_path / "out")
    code, again, _ = batch([src], tmp_path / "out", capsys)
    assert code == 0
    assert again["conversations"]["skipped_already_done"] == 60 and again["turns"]["done"] == 0
    assert ledgers(tmp_path / "out") == before


def test_decisions_audit_log_is_redacted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    email = "jasmin.k@example.com"
    convo = {
        "id": "c1",
        "user_id": "jasmin",
        "timestamp": "2025-03-10T09:00:00Z",
        "messages": [{"role": "user", "content": f"I'm Jasmin. My email is {email} by the way."}],
    }
    decisions = tmp_path / "decisions.jsonl"
    code, _, _ = batch([jsonl(tmp_path / "in.jsonl", convo)], tmp_path / "out", capsys, decisions_out=str(decisions))
    assert code == 0
    text = decisions.read_text()
    assert text.strip() and email not in text
    assert all(json.loads(line)["source"].endswith("in.jsonl:1") for line in text.splitlines())


def _count(db: Path, sql: str) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute(sql).fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("workers", [1, 2])
def test_killed_and_resumed_gives_the_same_files_as_an_uninterrupted_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], workers: int
) -> None:
    src = tmp_path / "in.jsonl"
    write(src, generate_lines(users=10, conversations=150, seed=11))
    code, full, _ = batch([src], tmp_path / "a", capsys)
    assert code == 0

    killed = tmp_path / "b"
    child = (
        "import sys\nfrom pipeline.cli.batch_run import run_batch_cli\nfrom pipeline.settings import Settings\n"
        f"sys.exit(run_batch_cli([{str(src)!r}], {str(killed)!r}, fmt=None, concurrency=4, rpm=None, restart=False,"
        " json_out=True, decisions_out=None, max_failures=None, settings=Settings(engine='offline'),"
        f" progress=False, workers={workers}))\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = killed / "memroute.db"
    deadline = time.monotonic() + 30
    while _count(db, "SELECT COUNT(*) FROM turns WHERE status = 'done'") < 60 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done_then = _count(db, "SELECT COUNT(*) FROM batch_conversations WHERE status = 'done'")
    assert 0 < _count(db, "SELECT COUNT(*) FROM turns") and done_then < 150, "the kill came too late to test a resume"

    code, resumed, _ = batch([src], killed, capsys)
    assert code == 0
    # (A worker process may finish the turn it was in after the parent died, never more.)
    assert resumed["conversations"]["skipped_already_done"] >= done_then
    assert resumed["conversations"]["skipped_already_done"] + resumed["conversations"]["done"] == 150
    assert ledgers(killed) == ledgers(tmp_path / "a") != {}
    # No turn applied twice: as many decisions and changes as the uninterrupted run.
    for table in ("decisions", "history"):
        assert _count(db, f"SELECT COUNT(*) FROM {table}") == _count(
            tmp_path / "a" / "memroute.db", f"SELECT COUNT(*) FROM {table}"
        )


class FlakyEngine(OfflineEngine):
    """The offline engine, except that it fails on turns that say FAIL while `broken` is set."""

    broken = True

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        if self.broken and "FAIL" in turn.user_text:
            raise RuntimeError("model unavailable")
        return super().classify(turn, user_md, memory_md)


def test_a_failed_turn_defers_the_users_later_conversations_and_a_rerun_finishes_in_order(tmp_path: Path) -> None:
    def conv(cid: str, day: int, text: str) -> dict[str, Any]:
        return {
            "id": cid,
            "user_id": "jasmin",
            "messages": [
                {"role": "user", "content": text, "timestamp": f"2025-06-{day:02d}T09:00:00Z"},
            ],
        }

    rows = [
        conv("c1", 1, "I live in Berlin."),
        conv("c2", 2, "FAIL. I live in Paris."),
        conv("c3", 3, "I live in Hamburg now."),
        {**SHAREGPT},
    ]
    src = jsonl(tmp_path / "in.jsonl", *rows)
    engine = FlakyEngine()
    with MemoryPipeline(root=tmp_path / "out", engine=engine) as pipe:
        report = BatchRunner(pipe, [src], BatchOptions()).run()
    assert (report.conversations_done, report.conversations_failed, report.conversations_deferred) == (2, 1, 1)
    assert report.turns_failed == 1 and any("in.jsonl:2" in e for e in report.turn_errors)
    assert "Berlin" in (tmp_path / "out" / "jasmin" / "USER.md").read_text()  # c3 did not jump the queue

    engine.broken = False
    with MemoryPipeline(root=tmp_path / "out", engine=engine) as pipe:
        report = BatchRunner(pipe, [src], BatchOptions()).run()
    assert (report.conversations_skipped, report.conversations_done, report.failures) == (2, 2, 0)
    assert "Hamburg" in (tmp_path / "out" / "jasmin" / "USER.md").read_text()


def test_restart_moves_the_previous_memory_aside_and_foreign_memory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with MemoryPipeline(root=out) as pipe:  # memory a live hook wrote
        pipe.process_turn("jasmin", [{"role": "user", "content": "I live in Oslo."}], timestamp="2026-01-01T00:00:00Z")
    src = jsonl(tmp_path / "in.jsonl", OPENAI)
    code, _, err = batch([src], out, capsys)
    assert code == 2 and "--restart" in err and "Traceback" not in err
    assert "Oslo" in (out / "jasmin" / "USER.md").read_text()

    code, summary, err = batch([src], out, capsys, restart=True)
    assert code == 0
    aside = Path(summary["moved_aside"])
    assert aside.parent == out and "Oslo" in (aside / "jasmin" / "USER.md").read_text()
    user_md = (out / "jasmin" / "USER.md").read_text()
    assert "Jasmin" in user_md and "Oslo" not in user_md


@pytest.mark.parametrize(
    ("inputs", "kw", "message"),
    [
        (["missing.jsonl"], {}, "input not found"),
        (None, {"fmt": "csv"}, "unknown --format"),
        (None, {"concurrency": 0}, "--concurrency"),
        (None, {"rpm": 0}, "--rpm"),
        (None, {"max_failures": 0}, "--max-failures"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], inputs: list[str] | None, kw: dict[str, Any], message: str
) -> None:
    paths = [tmp_path / p for p in inputs] if inputs else [jsonl(tmp_path / "in.jsonl", OPENAI)]
    code, _, err = batch(paths, tmp_path / "out", capsys, **kw)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_rpm_caps_the_request_rate() -> None:
    async def take(n: int) -> float:
        bucket = TokenBucket(rpm=600)  # 10 per second
        started = time.monotonic()
        for _ in range(n):
            await bucket.acquire()
        return time.monotonic() - started

    assert asyncio.run(take(5)) >= 0.35  # the first is free, then one every 0.1 s


def test_worker_processes_give_the_same_files_and_counts_as_one_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.jsonl"
    write(src, generate_lines(users=8, conversations=40, seed=5))
    code1, one, _ = batch([src], tmp_path / "one", capsys, workers=1)
    decisions = tmp_path / "decisions.jsonl"
    code2, two, _ = batch([src], tmp_path / "two", capsys, workers=2, decisions_out=str(decisions))
    assert (code1, code2) == (0, 0) and (one["workers"], two["workers"]) == (1, 2)
    assert ledgers(tmp_path / "two") == ledgers(tmp_path / "one") != {}
    for key in ("users", "conversations", "turns", "writes", "skips"):
        assert two[key] == one[key], key
    assert len(decisions.read_text().splitlines()) == sum(one["writes"].values()) + sum(one["skips"].values()) + sum(
        one["outcomes"].values()
    )


def test_max_failures_counts_failed_turns_and_stops_the_replay(tmp_path: Path) -> None:
    rows = [
        {
            "id": f"c{u}-{i}",
            "user_id": f"user{u}",
            "timestamp": f"2025-06-0{i + 1}T09:00:00Z",
            "messages": [{"role": "user", "content": "FAIL. I live in Paris."}],
        }
        for u in range(6)
        for i in range(3)
    ]
    src = jsonl(tmp_path / "in.jsonl", *rows)
    with MemoryPipeline(root=tmp_path / "out", engine=FlakyEngine()) as pipe:
        report = BatchRunner(pipe, [src], BatchOptions(concurrency=1, max_failures=2)).run()
    assert report.stopped_early and report.turns_failed == 2 and report.failures == 2
    # Each failure deferred its user's later conversations; the users never started are deferred too.
    assert report.conversations_failed == 2 and report.conversations_deferred == 18 - 2


def test_concurrency_bounds_the_model_requests_in_flight_and_keeps_them_busy(tmp_path: Path) -> None:
    """With a model, --concurrency N means at most N requests open at the provider at any moment
    (what rate limits count), and the runner keeps all N busy while users remain."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from pipeline.engines.llm import LLMEngine
    from pipeline.testing import completion_body

    state = {"open": 0, "most": 0, "served": 0}
    lock = threading.Lock()
    answer = {"statements": [{"quote": "hello", "route": "skip", "reason": "mood"}]}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                state["open"] += 1
                state["most"] = max(state["most"], state["open"])
            time.sleep(0.05)
            with lock:
                state["open"] -= 1
                state["served"] += 1
            data = json.dumps(completion_body(
                model="m", arguments=json.dumps(answer), tool="Statements", prompt_tokens=50, completion_tokens=9
            )).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        rows = [
            {"id": f"c{u}-{i}", "user_id": f"user{u}", "timestamp": f"2025-06-0{i + 1}T09:00:00Z",
             "messages": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]}
            for u in range(12)
            for i in range(2)
        ]
        src = jsonl(tmp_path / "in.jsonl", *rows)
        engine = LLMEngine("openai/gpt-4o-mini", api_base=f"http://127.0.0.1:{httpd.server_address[1]}/v1",
                           api_key="sk-test-not-a-key")
        with MemoryPipeline(root=tmp_path / "out", engine=engine) as pipe:
            report = BatchRunner(pipe, [src], BatchOptions(concurrency=3)).run()
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert report.turns_done == 24 and state["served"] == 24
    assert state["most"] == 3


class HedgingEngine(Engine):
    """Each known sentence is a candidate Music field (what an engine makes of a hedged statement)."""

    name = "hedging"
    model = None
    VALUES = {"I think I'm kind of into jazz lately": "jazz", "jazz, mostly, I guess": "jazz music",
              "maybe I like some folk too": "folk"}

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        value = self.VALUES.get(turn.user_text)
        if value is None:
            return Classification(decisions=[Decision(quote=turn.user_text, route="skip", reason="one_off")],
                                  engine=self.name)
        return Classification(engine=self.name, decisions=[Decision(
            quote=turn.user_text, route="skip", reason="vague", section="Preferences", key="Music", value=value,
            candidate=True)])

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        raise AssertionError("no consolidation expected")


def test_the_summary_counts_candidates_kept_seen_again_and_promoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline.core, "make_engine", lambda *a, **k: HedgingEngine())
    first = {"conversation_id": "monday", "user_id": "jo", "turns": [
        {"timestamp": "2025-04-07T08:00:00Z", "user": "I think I'm kind of into jazz lately"},
        {"timestamp": "2025-04-07T08:05:00Z", "user": "maybe I like some folk too"},
        {"timestamp": "2025-04-07T08:09:00Z", "user": "maybe I like some folk too"}]}
    later = {"conversation_id": "friday", "user_id": "jo", "turns": [
        {"timestamp": "2025-04-11T08:00:00Z", "user": "jazz, mostly, I guess"}]}
    src = jsonl(tmp_path / "in.jsonl", first, later)
    code, summary, _ = batch([src], tmp_path / "out", capsys, workers=1)
    assert code == 0
    assert summary["candidates"] == {"kept": 2, "seen_again": 1, "promoted": 1}
    assert "- Music: jazz music" in (tmp_path / "out" / "jo" / "USER.md").read_text()
    code = run_batch_cli([str(src)], str(tmp_path / "again"), fmt=None, concurrency=1, rpm=None, restart=False,
                         json_out=False, decisions_out=None, max_failures=None, settings=Settings(engine="offline"),
                         progress=False, workers=1)
    assert code == 0 and "candidates: 2 kept, 1 seen again, 1 promoted" in capsys.readouterr().out

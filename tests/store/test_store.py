"""pipeline/store/ (SQLite): migrations, tenant isolation, FTS recall in four languages, redaction, concurrency."""

from __future__ import annotations

import multiprocessing
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from pipeline.store import MIGRATIONS, Store
from pipeline.types import Decision, Usage

TS = "2026-07-30T09:00:00+00:00"
SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c"
EMAIL = "jasmin.private@example.com"


def fake_redact(text: str) -> str:
    """Stand-in for pipeline.guards.redact: masks API keys and emails."""
    text = re.sub(r"sk-[A-Za-z0-9-]{8,}", "[REDACTED:api_key]", text)
    return re.sub(r"[\w.+-]+@[\w-]+\.[\w.]+", "[REDACTED:email]", text)


def open_store(root: Path | str, **kw: Any) -> Any:
    """The store at `root`: a folder (SQLite), or a postgresql:// database (the PostgreSQL store)."""
    if str(root).startswith("postgresql://"):
        from pipeline.store.postgres.store import PostgresStore

        return PostgresStore(str(root), redact=fake_redact, **kw)
    return Store(root, redact=fake_redact, **kw)


# The tests that take `store` or `location` run on both stores (PostgreSQL: skipped when not installed).
@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return str(tmp_path) if request.param == "sqlite" else str(request.getfixturevalue("pg_dsn"))


@pytest.fixture
def store(location: str) -> Any:
    s = open_store(location)
    yield s
    s.close()


def _integrity_errors() -> tuple[type[Exception], ...]:
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the PostgreSQL cases are skipped then
        return (sqlite3.IntegrityError,)
    return (sqlite3.IntegrityError, psycopg.IntegrityError)


def change(store: Store, conn: sqlite3.Connection, user_id: str, **kw: Any) -> None:
    args: dict[str, Any] = dict(
        user_id=user_id, target="user", op="upsert", key="Name", old=None, new="Jasmin", why="stated",
        turn_id="t1", conversation_id="c1", quote="I'm Jasmin", engine="offline", model=None,
        prompt_version=None, ts=TS,
    )
    args.update(kw)
    store.add_change(conn, **args)


# ---- setup and migrations ---------------------------------------------------------------


def test_database_lives_in_root_in_wal_mode_with_foreign_keys(tmp_path: Path) -> None:
    s = open_store(tmp_path / "fresh" / "root")
    assert s.path == tmp_path / "fresh" / "root" / "memroute.db"
    assert s.path.exists()
    assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert s.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert s.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30000
    with pytest.raises(sqlite3.IntegrityError):  # provenance must point at a real history row
        with s.transaction() as conn:
            conn.execute(
                "INSERT INTO provenance (history_id, user_id, target, value, ts) VALUES (999, 'u', 'user', 'v', ?)",
                (TS,),
            )
    s.close()


def test_reopen_applies_no_migration_twice_and_a_new_one_once(tmp_path: Path) -> None:
    s = open_store(tmp_path)
    names = [name for name, _ in MIGRATIONS]
    assert s.applied_migrations() == names
    with s.transaction() as conn:
        change(s, conn, "jasmin")
    s.close()

    # Re-opening keeps data and applies nothing (a re-applied CREATE TABLE would raise).
    s = open_store(tmp_path)
    assert s.applied_migrations() == names
    assert len(s.history("jasmin")) == 1
    s.close()

    extra = [*MIGRATIONS, ("m999_notes", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);")]
    for _ in range(2):
        s = open_store(tmp_path, migrations=extra)
        assert s.applied_migrations() == [*names, "m999_notes"]
        count = s.conn.execute("SELECT COUNT(*) FROM migrations WHERE name = 'm999_notes'").fetchone()[0]
        assert count == 1
        s.conn.execute("INSERT INTO notes (body) VALUES ('x')")
        s.close()
    s = open_store(tmp_path, migrations=extra)
    assert s.conn.execute("SELECT COUNT(*) FROM notes").fetchone()[0] == 2  # table not recreated
    s.close()


def test_failed_migration_leaves_nothing_half_applied(tmp_path: Path) -> None:
    bad = [*MIGRATIONS, ("m900_bad", "CREATE TABLE half (id INTEGER); INSERT INTO nowhere VALUES (1);")]
    with pytest.raises(sqlite3.OperationalError):
        open_store(tmp_path, migrations=bad)
    s = open_store(tmp_path)
    assert "m900_bad" not in s.applied_migrations()
    assert s.conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'half'").fetchone()[0] == 0
    s.close()


def test_default_redact_is_the_one_redaction(tmp_path: Path) -> None:
    from pipeline.guards.redaction import redact_for_storage

    s = Store(tmp_path)
    assert s.redact is redact_for_storage
    with s.transaction() as conn:
        change(s, conn, "jasmin", quote=f"I'm Jasmin, write to {EMAIL}")
        s.mark_turn(conn, user_id="jasmin", turn_id="t1", conversation_id=None, status="failed",
                    payload={"text": f"my email is {EMAIL}"}, ts=TS)
    assert s.find_text("jasmin", EMAIL) == []
    assert "I'm Jasmin" in s.provenance("jasmin")[0]["quote"]
    s.close()


# ---- history, provenance, transactions --------------------------------------------------


def test_change_writes_history_and_provenance_only_for_new_values(store: Store) -> None:
    with store.transaction() as conn:
        change(store, conn, "jasmin", key="Role", new="Frontend engineer", quote="I'm a frontend engineer")
        change(store, conn, "jasmin", key="Role", old="Frontend engineer", new="Staff engineer",
               why="overwritten", turn_id="t2", quote="I'm a staff engineer now")
        change(store, conn, "jasmin", key="Role", op="remove", old="Staff engineer", new=None,
               why="user asked to forget", turn_id="t3", quote="forget my role")
    hist = store.history("jasmin")
    assert [(h["op"], h["old_value"], h["new_value"]) for h in hist] == [
        ("upsert", None, "Frontend engineer"),
        ("upsert", "Frontend engineer", "Staff engineer"),
        ("remove", "Staff engineer", None),
    ]
    assert [h["turn_id"] for h in store.history("jasmin", limit=2)] == ["t2", "t3"]  # latest two, oldest first
    prov = store.provenance("jasmin", "user")
    assert [(p["value"], p["quote"], p["turn_id"]) for p in prov] == [
        ("Frontend engineer", "I'm a frontend engineer", "t1"),
        ("Staff engineer", "I'm a staff engineer now", "t2"),
    ]
    assert store.provenance("jasmin", "memory") == []
    assert [p["value"] for p in store.provenance("jasmin", key="role")] == ["Frontend engineer", "Staff engineer"]


def test_transaction_rolls_back_every_record_of_a_failed_turn(store: Store) -> None:
    with pytest.raises(RuntimeError):
        with store.transaction() as conn:
            change(store, conn, "jasmin")
            store.add_archive(conn, user_id="jasmin", target="memory", text="old entry", why="removed", ts=TS)
            store.mark_turn(conn, user_id="jasmin", turn_id="t1", conversation_id=None, status="done", ts=TS)
            raise RuntimeError("write stage crashed")
    assert store.history("jasmin") == []
    assert store.archive("jasmin") == []
    assert store.turn_status("jasmin", "t1") is None
    with pytest.raises(_integrity_errors()):  # an invalid target is refused by the schema
        with store.transaction() as conn:
            change(store, conn, "jasmin", target="elsewhere")
    with store.transaction() as conn:  # and the store stays usable after both failures
        change(store, conn, "jasmin")
    assert len(store.history("jasmin")) == 1


def test_nested_transaction_is_a_savepoint(store: Store) -> None:
    with store.transaction() as conn:
        change(store, conn, "jasmin", key="Name")
        with pytest.raises(ValueError):
            with store.transaction() as inner:
                change(store, inner, "jasmin", key="Role")
                raise ValueError("inner failed")
    assert [h["key"] for h in store.history("jasmin")] == ["Name"]


# ---- tenant isolation -------------------------------------------------------------------


def test_no_read_returns_another_users_rows(store: Store) -> None:
    for user, name in (("alice", "Alice"), ("bob", "Bob")):
        with store.transaction() as conn:
            change(store, conn, user, new=name, quote=f"I'm {name}, I use Postgres")
            store.add_archive(conn, user_id=user, target="memory", text=f"{name} migrated the Postgres database",
                              why="consolidated", ts=TS)
            store.add_decisions(conn, user_id=user, turn_id="t1", conversation_id=None,
                                decisions=[Decision(quote=f"I'm {name}", route="user", op="upsert",
                                                    section="Identity", key="Name", value=name)],
                                engine="llm", model="m", prompt_version="v1",
                                usage=Usage(calls=1, input_tokens=10, output_tokens=5, cost_usd=0.5), ts=TS)
            store.mark_turn(conn, user_id=user, turn_id="t1", conversation_id=None, status="failed",
                            error="timeout", payload={"text": name}, ts=TS)

    for user, name, other in (("alice", "Alice", "Bob"), ("bob", "Bob", "Alice")):
        reads: list[list[dict[str, Any]]] = [
            store.history(user), store.provenance(user), store.recall_archive(user, "Postgres"),
            store.recall_archive(user, "Po"), store.decisions(user), store.decisions(user, "t1"),
            store.failed_turns(user), store.usage_rows(user),
        ]
        for rows in reads:
            assert rows, "each read should find the user's own row"
            assert all(row["user_id"] == user for row in rows)
            assert other not in repr(rows)
        assert store.recall_archive(user, "Postgres")[0]["text"].startswith(name)
        assert store.usage_totals(user)["calls"] == 1
    assert store.usage_totals()["calls"] == 2
    assert store.turn_status("carol", "t1") is None
    assert len(store.failed_turns()) == 2  # every user only when asked for every user


# ---- archive recall (FTS5 trigram) ------------------------------------------------------


ARCHIVE = [
    ("en", "agent-demo: switched the staging database from MySQL to Postgres 16."),
    ("en", "Decided to ship the hero section with an animated gradient."),
    ("id", "Kami memindahkan basis data ke server baru di Jakarta minggu lalu."),
    ("id", "Rapat dengan tim desain tentang warna tombol."),
    ("zh", "我们把数据库从 MySQL 迁移到了 Postgres。"),
    ("zh", "首页的主视觉改成了渐变动画。"),
    ("th", "ย้ายฐานข้อมูลไปยังเซิร์ฟเวอร์ใหม่เมื่อสัปดาห์ที่แล้ว"),
    ("th", "ประชุมกับทีมออกแบบเรื่องสีของปุ่ม"),
]


@pytest.fixture
def archived(store: Store) -> Store:
    with store.transaction() as conn:
        for _, text in ARCHIVE:
            store.add_archive(conn, user_id="jasmin", target="memory", text=text, why="consolidated", ts=TS)
        # Another user with the same facts: never returned for jasmin.
        store.add_archive(conn, user_id="other", target="memory", text="我们的数据库很慢。", why="removed", ts=TS)
    return store


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("STAGING", ARCHIVE[0][1]),  # case-insensitive
        ("animated gradient", ARCHIVE[1][1]),
        ("basis data", ARCHIVE[2][1]),
        ("desain", ARCHIVE[3][1]),
        ("数据库", ARCHIVE[4][1]),
        ("渐变动画", ARCHIVE[5][1]),
        ("ฐานข้อมูล", ARCHIVE[6][1]),
        ("ทีมออกแบบ", ARCHIVE[7][1]),
    ],
)
def test_recall_finds_archived_text_in_four_languages(archived: Store, query: str, expected: str) -> None:
    hits = archived.recall_archive("jasmin", query)
    assert hits and hits[0]["text"] == expected
    assert all(h["user_id"] == "jasmin" for h in hits)
    assert hits[0]["score"] is not None


def test_recall_ranks_the_better_match_first_and_respects_k(archived: Store) -> None:
    assert {h["text"] for h in archived.recall_archive("jasmin", "postgres")} == {ARCHIVE[0][1], ARCHIVE[4][1]}
    hits = archived.recall_archive("jasmin", "MySQL Postgres database", k=5)
    # Both database entries mention MySQL and Postgres; the English one also says "database".
    assert hits[0]["text"] == ARCHIVE[0][1]
    assert ARCHIVE[4][1] in [h["text"] for h in hits]
    assert len(archived.recall_archive("jasmin", "the", k=1)) == 1
    assert archived.recall_archive("jasmin", "kubernetes") == []


def test_short_queries_fall_back_to_like(archived: Store) -> None:
    assert [h["text"] for h in archived.recall_archive("jasmin", "迁移")] == [ARCHIVE[4][1]]
    assert [h["text"] for h in archived.recall_archive("jasmin", "16")] == [ARCHIVE[0][1]]
    assert archived.recall_archive("jasmin", "%") == []  # LIKE wildcards are literal
    assert archived.recall_archive("jasmin", "  ") == []
    hit = archived.recall_archive("jasmin", "数据")
    assert [h["text"] for h in hit] == [ARCHIVE[4][1]] and hit[0]["score"] is None


def test_fts_syntax_in_queries_is_harmless(archived: Store) -> None:
    for query in ('"unbalanced', "NEAR(", "AND OR NOT", "col:umn*", "a-b-c"):
        archived.recall_archive("jasmin", query)  # must not raise


# ---- decision log and usage -------------------------------------------------------------


def test_decision_log_keeps_every_decision_and_null_cost(store: Store) -> None:
    decisions = [
        Decision(quote="I'm Jasmin", route="user", op="upsert", section="Identity", key="Name", value="Jasmin",
                 confidence=0.9, outcome="written"),
        Decision(quote="We changed the hero", route="memory", op="append", entry="hero changed", date="2026-07-23",
                 topic="agent-demo", outcome="written"),
        Decision(quote="my head hurts", route="skip", reason="mood", detail="momentary"),
    ]
    with store.transaction() as conn:
        store.add_decisions(conn, user_id="jasmin", turn_id="t1", conversation_id="c1", decisions=decisions,
                            engine="llm", model="unpriced/model", prompt_version="classify-v1",
                            usage=Usage(calls=2, input_tokens=300, output_tokens=40, cost_usd=None, latency_s=1.5),
                            ts=TS)
        store.add_decisions(conn, user_id="jasmin", turn_id="t2", conversation_id="c1", decisions=decisions[:1],
                            engine="llm", model="openai/gpt-4o-mini", prompt_version="classify-v1",
                            usage=Usage(calls=1, input_tokens=100, output_tokens=10, cost_usd=0.25, latency_s=0.5),
                            ts=TS)
    rows = store.decisions("jasmin", "t1")
    assert [(r["position"], r["route"], r["op"], r["reason"]) for r in rows] == [
        (0, "user", "upsert", None), (1, "memory", "append", None), (2, "skip", "none", "mood")]
    assert rows[0]["confidence"] == 0.9 and rows[1]["date"] == "2026-07-23" and rows[2]["detail"] == "momentary"
    assert rows[0]["prompt_version"] == "classify-v1" and rows[0]["model"] == "unpriced/model"
    assert len(store.decisions("jasmin")) == 4

    unpriced = store.usage_rows("jasmin", "t1")
    assert unpriced[0]["cost_usd"] is None  # unknown, not free
    totals = store.usage_totals("jasmin")
    assert (totals["turns"], totals["calls"], totals["input_tokens"], totals["output_tokens"]) == (2, 3, 400, 50)
    assert totals["cost_usd"] is None and totals["cost_usd_known"] == 0.25 and totals["cost_unknown_rows"] == 1
    assert totals["latency_s"] == pytest.approx(2.0)
    by_model = {m["model"]: m for m in totals["by_model"]}
    assert by_model["unpriced/model"]["cost_usd"] is None
    assert by_model["openai/gpt-4o-mini"]["cost_usd"] == 0.25
    empty = store.usage_totals("nobody")
    assert empty["calls"] == 0 and empty["cost_usd"] == 0.0


# ---- turns: idempotency and retry -------------------------------------------------------


def test_turn_status_upsert_and_retry_payload(store: Store) -> None:
    payload = {"messages": [{"role": "user", "content": "hello"}], "timestamp": TS}
    with store.transaction() as conn:
        store.mark_turn(conn, user_id="jasmin", turn_id="t1", conversation_id="c1", status="failed",
                        error="RateLimitError: try later", payload=payload, ts=TS)
    assert store.turn_status("jasmin", "t1") == "failed"
    [failed] = store.failed_turns("jasmin")
    assert failed["payload"] == payload and failed["error"] == "RateLimitError: try later"
    assert failed["attempts"] == 1 and failed["conversation_id"] == "c1"

    with store.transaction() as conn:
        store.mark_turn(conn, user_id="jasmin", turn_id="t1", conversation_id=None, status="done",
                        ts="2026-07-30T10:00:00+00:00")
    assert store.turn_status("jasmin", "t1") == "done"
    assert store.failed_turns() == []
    [row] = store.turns("jasmin")
    assert row["attempts"] == 2 and row["error"] is None and row["payload"] is None
    assert row["created_at"] == TS and row["updated_at"] == "2026-07-30T10:00:00+00:00"
    assert row["conversation_id"] == "c1"
    with pytest.raises(ValueError):
        with store.transaction() as conn:
            store.mark_turn(conn, user_id="jasmin", turn_id="t2", conversation_id=None, status="weird", ts=TS)


# ---- redaction --------------------------------------------------------------------------


def test_secrets_in_user_text_never_reach_the_database(tmp_path: Path) -> None:
    s = open_store(tmp_path)
    quote = f"My OpenAI key is {SECRET}, mail me at {EMAIL}. I'm Jasmin."
    with s.transaction() as conn:
        change(s, conn, "jasmin", quote=quote, why=f"stated in a message from {EMAIL}")
        s.add_decisions(conn, user_id="jasmin", turn_id="t1", conversation_id=None, engine="llm", model="m",
                        prompt_version="v1", usage=Usage(), ts=TS, decisions=[
                            Decision(quote=quote, route="skip", reason="sensitive", value=SECRET, entry=EMAIL,
                                     key="API key", detail=f"matched {SECRET}"),
                            Decision(quote=quote, route="user", op="upsert", section="Identity", key="Name",
                                     value="Jasmin"),
                        ])
        s.mark_turn(conn, user_id="jasmin", turn_id="t1", conversation_id=None, status="failed",
                    error=f"provider rejected key {SECRET}",
                    payload={"messages": [{"role": "user", "content": quote}], "n": 1}, ts=TS)
    [prov] = s.provenance("jasmin")
    assert SECRET not in prov["quote"] and "[REDACTED:api_key]" in prov["quote"] and "I'm Jasmin" in prov["quote"]
    skipped, written = s.decisions("jasmin", "t1")
    # A skipped statement was not kept: its fields are dropped and only a digest of its quote stays.
    assert skipped["value"] is None and skipped["entry"] is None and skipped["quote"].startswith("hmac:")
    assert skipped["route"] == "skip" and skipped["reason"] == "sensitive"
    assert written["value"] == "Jasmin"
    [turn] = s.failed_turns("jasmin")
    assert turn["payload"]["messages"][0]["role"] == "user" and turn["payload"]["n"] == 1
    assert SECRET not in turn["payload"]["messages"][0]["content"]
    assert SECRET not in turn["error"]
    assert s.find_text("jasmin", SECRET) == [] and s.find_text("jasmin", EMAIL.upper()) == []
    assert "provenance.quote" in s.find_text("jasmin", "i'm jasmin")
    with s.transaction() as conn:  # a value the ledger held is kept verbatim, and the leak check sees it
        change(s, conn, "jasmin", key="Work email", new="team@agent-demo.test", turn_id="t9")
    assert s.find_text("jasmin", "TEAM@agent-demo.test") == ["history.new_value", "provenance.value"]
    assert s.find_text("someone-else", "team@agent-demo.test") == []
    s.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("memroute.db"))
    assert SECRET.encode() not in raw and EMAIL.encode() not in raw
    assert b"Jasmin" in raw  # the check reads real data


# ---- concurrency ------------------------------------------------------------------------

WRITES_PER_WORKER = 40


def _write_turns(root: str, worker: int, start: Any, errors: Any) -> None:
    try:
        start.wait(timeout=30)
        s = open_store(root)  # every process migrates a fresh db at the same moment
        user = f"user{worker % 2}"  # two workers share each user
        for i in range(WRITES_PER_WORKER):
            turn = f"w{worker}-t{i}"
            with s.transaction() as conn:
                s.add_change(conn, user_id=user, target="memory", op="append", key=None, old=None,
                             new=f"entry {turn}", why="stated", turn_id=turn, conversation_id=None,
                             quote=f"quote {turn}", engine="offline", model=None, prompt_version=None, ts=TS)
                s.add_archive(conn, user_id=user, target="memory", text=f"archived {turn}", why="x", ts=TS)
                s.add_decisions(conn, user_id=user, turn_id=turn, conversation_id=None,
                                decisions=[Decision(quote=f"quote {turn}", route="memory", op="append")],
                                engine="offline", model=None, prompt_version=None,
                                usage=Usage(calls=1, cost_usd=None), ts=TS)
                s.mark_turn(conn, user_id=user, turn_id=turn, conversation_id=None, status="done", ts=TS)
            s.recall_archive(user, "archived")  # reads interleaved with other processes' writes
        s.close()
    except BaseException as exc:  # surfaced to the parent, which fails the test
        errors.put(f"worker {worker}: {exc!r}")
        raise


def _check_all_written(s: Store, workers: int) -> None:
    for user in ("user0", "user1"):
        expected = {f"w{w}-t{i}" for w in range(workers) if f"user{w % 2}" == user for i in range(WRITES_PER_WORKER)}
        assert {h["turn_id"] for h in s.history(user)} == expected
        assert len(s.history(user)) == len(expected)
        assert len(s.provenance(user)) == len(expected)
        assert len(s.archive(user)) == len(expected)
        assert len(s.decisions(user)) == len(expected)
        assert all(s.turn_status(user, t) == "done" for t in expected)
        assert s.usage_totals(user)["cost_usd"] is None
        assert len(s.recall_archive(user, "archived", k=len(expected) + 10)) == len(expected)


@pytest.mark.timeout(120)
def test_several_processes_write_at_once_and_lose_nothing(location: str) -> None:
    workers = 6
    ctx = multiprocessing.get_context("fork")
    start, errors = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_write_turns, args=(location, w, start, errors)) for w in range(workers)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(timeout=100)
    problems = []
    while not errors.empty():
        problems.append(errors.get())
    assert problems == []
    assert [p.exitcode for p in procs] == [0] * workers
    s = open_store(location)
    if isinstance(s, Store):
        assert s.applied_migrations() == [name for name, _ in MIGRATIONS]
    _check_all_written(s, workers)
    s.close()


@pytest.mark.timeout(120)
def test_threads_share_one_store(store: Any) -> None:
    s = store
    workers = 8
    errors: list[str] = []
    barrier = threading.Barrier(workers)

    def run(worker: int) -> None:
        try:
            barrier.wait()
            user = f"user{worker % 2}"
            for i in range(WRITES_PER_WORKER):
                turn = f"w{worker}-t{i}"
                with s.transaction() as conn:
                    s.add_change(conn, user_id=user, target="memory", op="append", key=None, old=None,
                                 new=f"entry {turn}", why="stated", turn_id=turn, conversation_id=None,
                                 quote="q", engine="offline", model=None, prompt_version=None, ts=TS)
                    s.add_archive(conn, user_id=user, target="memory", text=f"archived {turn}", why="x", ts=TS)
                    s.add_decisions(conn, user_id=user, turn_id=turn, conversation_id=None,
                                    decisions=[Decision(quote="q", route="memory", op="append")],
                                    engine="offline", model=None, prompt_version=None,
                                    usage=Usage(calls=1, cost_usd=None), ts=TS)
                    s.mark_turn(conn, user_id=user, turn_id=turn, conversation_id=None, status="done", ts=TS)
        except BaseException as exc:
            errors.append(repr(exc))

    threads = [threading.Thread(target=run, args=(w,)) for w in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _check_all_written(s, workers)
    s.close()


def _use_inherited_store(s: Store, errors: Any) -> None:
    try:
        with s.transaction() as conn:  # must open its own connection, not reuse the parent's
            s.mark_turn(conn, user_id="child", turn_id="t1", conversation_id=None, status="done", ts=TS)
        s.close()
    except BaseException as exc:
        errors.put(repr(exc))
        raise


def test_a_forked_child_can_use_the_parents_store(store: Store) -> None:
    assert store.turn_status("parent", "t0") is None  # the parent holds an open connection
    ctx = multiprocessing.get_context("fork")
    errors = ctx.Queue()
    child = ctx.Process(target=_use_inherited_store, args=(store, errors))
    child.start()
    child.join(timeout=60)
    assert errors.empty() and child.exitcode == 0
    assert store.turn_status("child", "t1") == "done"  # and the parent's connection still works


def _hold_writer_lock(root: str, held: Any, release: Any) -> None:
    with Store(root).transaction() as conn:
        conn.execute("INSERT INTO migrations (name, applied_at) VALUES ('held', 'now')")
        held.set()
        release.wait(30)


def test_writers_take_turns_across_processes_and_a_stuck_one_gives_a_clear_error(tmp_path: Path) -> None:
    """Writers queue on the store's writer lock (woken at once, not by SQLite's sleeping busy
    handler); one kept waiting past the busy timeout gets "database is locked", nothing written."""
    ctx = multiprocessing.get_context("spawn")
    held, release = ctx.Event(), ctx.Event()
    other = ctx.Process(target=_hold_writer_lock, args=(str(tmp_path), held, release))
    with Store(tmp_path, busy_timeout_s=0.3) as waiting:
        other.start()
        assert held.wait(30)
        try:
            with pytest.raises(sqlite3.OperationalError, match="database is locked"):
                with waiting.transaction() as conn:
                    conn.execute("INSERT INTO migrations (name, applied_at) VALUES ('late', 'now')")
            release.set()
            other.join(30)
            with waiting.transaction() as conn:  # the lock is free again: this one goes through
                conn.execute("INSERT INTO migrations (name, applied_at) VALUES ('next', 'now')")
            names = {row[0] for row in waiting.conn.execute("SELECT name FROM migrations")}
        finally:
            release.set()
            other.join(30)
    assert {"held", "next"} <= names and "late" not in names


def test_a_nul_in_a_recall_query_is_no_crash(archived: Store) -> None:
    assert archived.recall_archive("jasmin", "\x00") == []
    plain = archived.recall_archive("jasmin", "staging")
    assert plain and archived.recall_archive("jasmin", "staging\x00") == plain

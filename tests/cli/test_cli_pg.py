"""`memroute --store postgresql://...` (and MEMROUTE_STORE, and memroute.toml's `store`): the commands a
user runs, on the PostgreSQL store, with the same answers as on a root; export-store / import-store;
worker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


SAYS = [
    "I'm Jasmin, a frontend engineer. I like conclusion-first answers.",
    "I moved to Lyon last month.",
    "Yesterday we shipped the new checkout page for the global site.",
    "I now live in Berlin.",
]


def _turns(capsys: pytest.CaptureFixture[str], *where: str) -> None:
    for i, text in enumerate(SAYS):
        code, _, err = run(capsys, "turn", "jasmin", "--text", text, "--timestamp", f"2026-11-2{i}T10:00:00Z",
                           "--json", *where)
        assert code == 0, err


def test_the_same_commands_give_the_same_answers_on_a_root_and_on_postgresql(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shown = {}
    for name, where in (("root", ("--root", str(tmp_path / "root"))), ("pg", ("--store", pg_dsn))):
        _turns(capsys, *where)
        code, out, _ = run(capsys, "show", "jasmin", "--json", *where)
        assert code == 0
        data = json.loads(out)
        code, out, _ = run(capsys, "recall", "jasmin", "Lyon", "--json", *where)
        recalled = [h["text"] for h in json.loads(out)]
        code, out, _ = run(capsys, "history", "jasmin", "--json", *where)
        history = [(h["target"], h["op"], h["key"], h["old_value"], h["new_value"]) for h in json.loads(out)]
        shown[name] = (data["user_md"], data["memory_md"], recalled, history)
    assert shown["pg"] == shown["root"]
    assert "Berlin" in shown["pg"][0] and any("Lyon" in t for t in shown["pg"][2])
    assert not (tmp_path / "pg-has-no-folder").exists()


def test_hermes_export_forget_purge_and_delete_user_on_postgresql(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ("--store", pg_dsn)
    _turns(capsys, *where)
    code, out, _ = run(capsys, "export", "jasmin", "--json", "--format", "hermes", "--out", str(tmp_path / "hermes"), *where)
    assert code == 0
    exported = (tmp_path / "hermes" / "memories" / "USER.md").read_text("utf-8")
    assert "Berlin" in exported  # rendered from the database
    code, out, _ = run(capsys, "forget", "--json", "--yes", "jasmin", "Lyon", "--purge", *where)
    assert code == 0 and json.loads(out)["purged"]
    code, out, _ = run(capsys, "export", "jasmin", "--all", *where)
    assert code == 0 and "Lyon" not in out and "Berlin" in out
    code, out, _ = run(capsys, "delete-user", "--json", "--yes", "jasmin", *where)
    assert code == 0
    code, _, err = run(capsys, "show", "jasmin", *where)
    assert code == 1 and "no user 'jasmin'" in err


def test_the_store_comes_from_the_environment_or_the_config_file_and_a_bad_one_is_a_usage_error(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    monkeypatch.setenv("MEMROUTE_STORE", pg_dsn)
    assert run(capsys, "turn", "amy", "--text", "I'm Amy, a nurse.", "--root", str(root))[0] == 0
    monkeypatch.delenv("MEMROUTE_STORE")
    assert not (root / "amy").exists()  # it went to the database
    root.mkdir(parents=True, exist_ok=True)
    (root / "memroute.toml").write_text(f'store = "{pg_dsn}"\n', "utf-8")
    code, out, _ = run(capsys, "show", "amy", "--json", "--root", str(root))
    assert code == 0 and "nurse" in json.loads(out)["user_md"]
    code, _, err = run(capsys, "show", "amy", "--store", "mysql://nowhere/db", "--root", str(root))
    assert code == 2 and "postgresql://" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "show", "amy", "--store", "postgresql://memroute:s3cret@/nodb?host=/nonexistent")
    assert code == 1 and "s3cret" not in err and len(err.strip().splitlines()) == 1


def test_export_store_then_import_store_round_trip_through_the_cli(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, back = tmp_path / "first", tmp_path / "back"
    _turns(capsys, "--root", str(first))
    code, out, err = run(capsys, "export-store", pg_dsn, "--root", str(first))
    assert code == 0, err
    assert "copied 1 user(s)" in out
    code, _, err = run(capsys, "export-store", pg_dsn, "--root", str(first))  # never into a store with data
    assert code == 1 and "already holds data" in err
    code, out, err = run(capsys, "import-store", pg_dsn, "--root", str(back))
    assert code == 0, err
    for name in ("USER.md", "MEMORY.md"):
        assert (back / "jasmin" / name).read_bytes() == (first / "jasmin" / name).read_bytes()
    code, _, err = run(capsys, "export-store", str(tmp_path / "elsewhere"), "--root", str(first))
    assert code == 1 and "not between two root folders" in err


def test_worker_applies_what_app_servers_queued(pg_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.hook.worker import submit
    from pipeline.store.postgres.store import PostgresStore

    with PostgresStore(pg_dsn) as store:
        for i, text in enumerate(SAYS):
            submit(store.queue(), "jasmin", [{"role": "user", "content": text}], turn_id=f"t{i}")
    code, out, err = run(capsys, "worker", "--store", pg_dsn, "--until-empty", "--threads", "2", "--json")
    assert code == 0, err
    assert json.loads(out)["done"] == len(SAYS)
    code, out, _ = run(capsys, "show", "jasmin", "--json", "--store", pg_dsn)
    assert "Berlin" in json.loads(out)["user_md"]
    code, _, err = run(capsys, "worker", "--until-empty")
    assert code == 2 and "--store" in err


def test_status_users_and_doctor_read_the_postgresql_store(
    pg_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ("--store", pg_dsn)
    code, _, err = run(capsys, "users", *where)
    assert code == 0 and "no users in postgresql://" in err
    _turns(capsys, *where)
    code, out, _ = run(capsys, "users", "--json", *where)
    [row] = json.loads(out)
    assert row["user_id"] == "jasmin" and row["user_chars"] > 0 and row["last_change"]
    code, out, _ = run(capsys, "status", "--json", *where)
    assert code == 0 and json.loads(out)["failed_turns"] == 0
    code, out, _ = run(capsys, "doctor", "--json", *where)
    data = json.loads(out)
    assert code == 0 and data["ok"]
    checks = {c["name"]: c for c in data["checks"]}
    assert checks["store"]["ok"] and "reachable" in checks["store"]["detail"]
    assert checks["migrations"]["ok"] and "applied" in checks["migrations"]["detail"]
    assert checks["PostgreSQL extensions"]["detail"] == "pg_trgm installed"
    assert any(s["name"] == "store" and s["value"].startswith("postgresql://") for s in data["settings"])


def test_import_pipeline_the_cli_start_and_the_offline_path_never_load_psycopg(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import pipeline, pipeline.cli\n"
        "from pipeline.cli import main\n"
        f"assert main(['turn', 'amy', '--text', 'I am a nurse.', '--root', {str(tmp_path)!r}]) == 0\n"
        "pipeline.cli.build_parser().format_help()\n"
        "print(sorted(m for m in sys.modules if m.startswith('psycopg')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_batch_writes_to_postgresql_resumes_from_its_checkpoints_and_matches_a_root(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"id": "earlier", "user_id": "jasmin", "messages": [
            {"role": "user", "content": "I live in Berlin.", "timestamp": "2025-06-01T09:00:00Z"},
            {"role": "assistant", "content": "Noted."},
            {"role": "user", "content": "Yesterday we shipped the new pricing page.", "timestamp": "2025-06-01T09:05:00Z"},
        ]},
        {"id": "later", "user_id": "jasmin", "messages": [
            {"role": "user", "content": "I live in Hamburg now.", "timestamp": "2025-06-02T09:00:00Z"}]},
        {"id": "k", "user_id": "kai", "messages": [
            {"role": "user", "content": "I'm Kai, a nurse.", "timestamp": "2025-06-01T08:00:00Z"}]},
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    code, out, err = run(capsys, "batch", str(source), "--store", pg_dsn, "--engine", "offline", "--json")
    assert code == 0, err
    assert json.loads(out)["turns"]["done"] == 4
    code, out, err = run(capsys, "batch", str(source), "--store", pg_dsn, "--engine", "offline", "--json")
    assert code == 0 and json.loads(out)["turns"]["done"] == 0  # every conversation checkpointed: nothing again
    code, _, err = run(capsys, "batch", str(source), "--out", str(tmp_path / "root"), "--engine", "offline")
    assert code == 0, err
    shown = {}
    for user in ("jasmin", "kai"):
        code, out, _ = run(capsys, "show", user, "--json", "--store", pg_dsn)
        shown[user] = json.loads(out)
        assert shown[user]["user_md"] == (tmp_path / "root" / user / "USER.md").read_text("utf-8")
        root_memory = tmp_path / "root" / user / "MEMORY.md"
        if root_memory.exists():
            assert shown[user]["memory_md"] == root_memory.read_text("utf-8")
    assert "Hamburg" in shown["jasmin"]["user_md"] and "Berlin" not in shown["jasmin"]["user_md"]  # in time order
    code, _, err = run(capsys, "batch", str(source), "--store", pg_dsn, "--restart")
    assert code == 2 and "--restart" in err


def test_a_worker_with_many_threads_has_connections_for_all_of_them(pg_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.hook.worker import submit
    from pipeline.store.postgres.store import PostgresStore

    with PostgresStore(pg_dsn) as store:
        for i in range(2):
            for u in range(10):
                submit(store.queue(), f"user{u}", [{"role": "user", "content": f"Yesterday we shipped release {i}."}],
                       turn_id=f"u{u}-t{i}")
    code, out, err = run(capsys, "worker", "--store", pg_dsn, "--until-empty", "--threads", "10", "--json")
    assert code == 0, err
    assert json.loads(out) == {"done": 20, "duplicates": 0, "failed_attempts": 0, "parked": 0}


@pytest.mark.parametrize("kind", ["root", "postgresql"])
def test_import_hermes_then_export_gives_back_the_same_hermes_files_on_both_stores(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    where = ("--root", str(tmp_path / "root")) if kind == "root" else ("--store", str(request.getfixturevalue("pg_dsn")))
    source = tmp_path / "hermes" / "memories"
    source.mkdir(parents=True)
    (source / "USER.md").write_bytes("\n§\n".join(["Name: Jasmin", "Role: Frontend engineer"]).encode())
    (source / "MEMORY.md").write_bytes("\n§\n".join([
        "[2026-07-30] agent-demo: hero section changed to an animated gradient.",
        "ลูกค้าต้องการเปิดตัวเว็บไซต์ภาษาไทย\nภายในเดือนกันยายน",
    ]).encode())
    code, _, err = run(capsys, "import-hermes", "--json", str(tmp_path / "hermes"), "--user", "jasmin", *where)
    assert code == 0, err
    code, _, err = run(capsys, "export", "jasmin", "--format", "hermes", "--out", str(tmp_path / "out"), *where)
    assert code == 0, err
    for name in ("USER.md", "MEMORY.md"):
        assert (tmp_path / "out" / "memories" / name).read_bytes() == (source / name).read_bytes()


def test_batch_refuses_a_database_that_holds_memory_no_batch_wrote(
    pg_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "turn", "amy", "--text", "I'm Amy, a nurse.", "--store", pg_dsn)[0] == 0
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": "c", "user_id": "amy", "messages": [
        {"role": "user", "content": "I'm a teacher.", "timestamp": "2025-01-01T09:00:00Z"}]}) + "\n", "utf-8")
    code, _, err = run(capsys, "batch", str(source), "--store", pg_dsn)
    assert code == 2 and "already holds memory that no batch wrote" in err and "--restart" not in err
    code, out, _ = run(capsys, "show", "amy", "--json", "--store", pg_dsn)
    assert "nurse" in json.loads(out)["user_md"]

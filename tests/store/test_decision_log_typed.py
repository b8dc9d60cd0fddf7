"""The decision log keeps the typed decision beside its words, on both stores: `rule` (the id of what
decided), `removal` (op remove only: forget or change_of_fact) and `asked`. A database from before the
columns existed opens, migrates, and reads its old rows with None; new turns store the rule. Rule ids
and removal kinds are the project's own constants: no value the user stated reaches them, and a skipped
statement still keeps no words.

Every sentence here is written for the project.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_fixture import Memory

from pipeline.store import MIGRATIONS, Store
from pipeline.store.rules import rule_matches

TS = "2026-05-02T08:00:00+00:00"


def _say(pipe: Any, user: str, text: str, day: int) -> None:
    result = pipe.process_turn(user, [{"role": "user", "content": text}], timestamp=f"2026-05-{day:02d}T09:00:00Z")
    assert result.status == "done", result.error


def _turns(job: str, city: str, secret: str, email: str) -> list[str]:
    return [f"I'm a {job} and I live in {city}.", f"I no longer live in {city}.",
            f"hi! my password is {secret}, don't keep it", f"please save my email {email}"]


FIRST = _turns("harbour pilot", "Ostrava", "hunter2-Quokka", "tove.k@example.org")
SECOND = _turns("tram driver", "Brno", "lantern-Mossbank7", "ilse.v@example.net")
# The values the user stated in FIRST: none may appear in a stored rule or removal kind.
STATED = ["harbour", "pilot", "Ostrava", "hunter2", "Quokka", "tove.k", "example.org"]


def test_each_logged_decision_says_its_rule_its_removal_kind_and_whether_it_was_asked(mem: Memory) -> None:
    with mem.pipeline(engine="offline") as pipe:
        for day, text in enumerate(FIRST, 1):
            _say(pipe, "tove", text, day)
        rows = pipe.decisions("tove")
        guarded = pipe.decisions("tove", rule="guard")
        changed = pipe.decisions("tove", rule="change/no-longer")

    role = next(r for r in rows if r["key"] == "Role")
    assert isinstance(role["rule"], str) and role["rule"] and role["removal"] is None and role["asked"] is False
    assert role["detail"]  # the words for people stay beside the id
    [removed] = [r for r in rows if r["op"] == "remove"]
    assert (removed["rule"], removed["removal"], removed["outcome"]) == ("change/no-longer", "change_of_fact", "written")
    assert changed == [removed]
    email = next(r for r in rows if r["key"] == "Email")
    assert email["asked"] is True and email["rule"] == "contact/asked"
    skipped = [r for r in rows if r["route"] == "skip"]
    assert skipped and all(r["rule"] for r in skipped) and all(r["removal"] is None for r in skipped)
    # a skipped statement still keeps no words: a digest, no key or value; its rule is an id
    assert all(str(r["quote"]).startswith("hmac:") and r["key"] is None and r["value"] is None for r in skipped)
    assert guarded and all(rule_matches(r["rule"], "guard") and r["rule"].startswith("guard/") for r in guarded)
    assert {r["id"] for r in guarded} < {r["id"] for r in rows}

    # at rest, as someone holding the store reads it: one row per decision, asked stored as 0/1
    at_rest = mem.rows("decisions")
    assert sorted((r["rule"], r["removal"], r["asked"]) for r in at_rest) == sorted(
        (r["rule"], r["removal"], int(r["asked"])) for r in rows)
    for r in at_rest:
        for column in ("rule", "removal"):
            kept = str(r[column] or "").casefold()
            assert not [w for w in STATED if w.casefold() in kept], (column, r[column])


def test_the_rule_of_a_decision_is_the_same_whatever_values_the_user_said(tmp_path: Path) -> None:
    """Rule ids and removal kinds are our constants: other values in the same sentences log the same ids."""
    logged = []
    for n, turns in enumerate((FIRST, SECOND)):
        with Memory(tmp_path / str(n), None).pipeline(engine="offline") as pipe:
            for day, text in enumerate(turns, 1):
                _say(pipe, "tove", text, day)
            logged.append([(r["route"], r["op"], r["rule"], r["removal"], r["asked"]) for r in pipe.decisions("tove")])
    assert logged[0] == logged[1] and all(rule for _, _, rule, _, _ in logged[0])


# ---- a store from before the typed log ---------------------------------------------------------------

OLD_COLUMNS = ("user_id, turn_id, conversation_id, position, quote, route, op, reason, section, key, value, entry, "
               "date, topic, match_text, confidence, detail, outcome, engine, model, prompt_version, ts")
OLD_ROW = ("tove", "t-old", None, 0, "I'm a harbour pilot", "user", "upsert", None, "Identity", "Role",
           "harbour pilot", None, None, None, None, 0.9, "extractor: Role", "written", "offline", None, "offline-2", TS)


@pytest.fixture(params=["sqlite", "postgresql"])
def before_the_typed_log(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Memory]:
    """A memory whose database was made by the release before the typed log, holding one logged decision
    as that release wrote it (no rule, removal or asked column)."""
    if request.param == "sqlite":
        old = Store(tmp_path, migrations=[m for m in MIGRATIONS if m[0] != "m012_decision_rule"])
        with old.transaction() as conn:
            conn.execute(f"INSERT INTO decisions ({OLD_COLUMNS}) VALUES ({', '.join('?' * len(OLD_ROW))})", OLD_ROW)
        assert "rule" not in {c[1] for c in old.conn.execute("PRAGMA table_info(decisions)")}
        old.close()
        yield Memory(tmp_path, None)
        return
    from pipeline.store.postgres.schema import MIGRATIONS as PG_MIGRATIONS
    from pipeline.store.postgres.store import PostgresStore

    cluster = request.getfixturevalue("pg_cluster")
    name = f"t_{uuid.uuid4().hex[:12]}"
    dsn = cluster.create_database(name)
    try:
        with PostgresStore(dsn, migrations=[m for m in PG_MIGRATIONS if m[0] != "p009_decision_rule"]) as pg:
            with pg.transaction() as conn:
                conn.execute(f"INSERT INTO decisions ({OLD_COLUMNS}) VALUES ({', '.join(['%s'] * len(OLD_ROW))})",
                             OLD_ROW)
            assert "rule" not in pg.db.rows("SELECT * FROM decisions")[0]
        yield Memory(tmp_path, dsn)
    finally:
        cluster.drop_database(name)


def test_a_store_from_before_the_typed_log_upgrades_old_rows_read_none_new_turns_store_the_rule(
    before_the_typed_log: Memory,
) -> None:
    mem = before_the_typed_log
    with mem.pipeline(engine="offline") as pipe:
        migrated = "m012_decision_rule" if not mem.on_postgres else "p009_decision_rule"
        assert migrated in pipe.store.applied_migrations()
        [old] = pipe.decisions("tove")
        assert (old["rule"], old["removal"], old["asked"]) == (None, None, None)  # logged before: not known
        assert (old["key"], old["value"], old["detail"], old["match"]) == ("Role", "harbour pilot", "extractor: Role", None)
        _say(pipe, "tove", "I live in Ostrava.", 3)
        _say(pipe, "tove", "I no longer live in Ostrava.", 4)
        rows = pipe.decisions("tove")
        assert pipe.decisions("tove", rule="change") == [rows[-1]]
    assert rows[0] == old
    assert all(r["rule"] and r["asked"] is False for r in rows[1:])
    assert (rows[-1]["rule"], rows[-1]["removal"]) == ("change/no-longer", "change_of_fact")


def test_a_read_only_root_from_before_the_typed_log_reads_its_decisions_with_none(tmp_path: Path) -> None:
    """A root this process may not migrate (opened read-only) still answers in the new shape."""
    old = Store(tmp_path, migrations=[m for m in MIGRATIONS if m[0] != "m012_decision_rule"])
    with old.transaction() as conn:
        conn.execute(f"INSERT INTO decisions ({OLD_COLUMNS}) VALUES ({', '.join('?' * len(OLD_ROW))})", OLD_ROW)
    old.close()
    with Store(tmp_path, read_only=True) as reader:
        [row] = reader.decisions("tove")
    assert (row["rule"], row["removal"], row["asked"], row["match"]) == (None, None, None, None)


@pytest.mark.parametrize("rule, wanted, kept", [
    ("guard/sensitive", "guard", True), ("guard/sensitive", "guard/", True), ("guard/sensitive", "guard/sensitive", True),
    ("fact/role-noun+sentence", "fact/role-noun", True), ("guardian/x", "guard", False), ("fact/role", "fact/role-noun", False),
    (None, "guard", False), ("guard/sensitive", "", False),
])
def test_a_rule_filter_keeps_the_id_and_its_kind(rule: str | None, wanted: str, kept: bool) -> None:
    assert rule_matches(rule, wanted) is kept

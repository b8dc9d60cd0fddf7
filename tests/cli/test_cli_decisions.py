"""`memroute decisions USER`: the decision log as a user reads it, on both stores. Each statement says the
rule that decided and, for a removal, whether it was a forget or a change of fact.

Every sentence here is written for the project.
"""

from __future__ import annotations

import json

import pytest
from memory_fixture import Memory

from pipeline.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _turn(capsys: pytest.CaptureFixture[str], mem: Memory, text: str, day: int) -> str:
    code, out, err = run(capsys, "turn", "tove", "--text", text, "--timestamp", f"2026-05-{day:02d}T09:00:00Z",
                         "--json", *mem.store_args())
    assert code == 0, err
    return str(json.loads(out)["turn_id"])


def test_the_log_shows_the_rule_and_that_no_longer_is_a_change_of_fact(mem: Memory, capsys: pytest.CaptureFixture[str]) -> None:
    where = mem.store_args()
    first = _turn(capsys, mem, "I'm a harbour pilot and I live in Ostrava.", 1)
    second = _turn(capsys, mem, "I no longer live in Ostrava.", 2)

    code, out, _ = run(capsys, "decisions", "tove", "--json", *where)
    assert code == 0
    rows = json.loads(out)
    role = next(r for r in rows if r["key"] == "Role" and r["op"] == "upsert")
    assert role["turn_id"] == first and role["rule"] and role["removal"] is None and role["detail"]
    [change] = [r for r in rows if r["turn_id"] == second]
    assert (change["op"], change["key"], change["rule"], change["removal"]) == (
        "remove", "Location", "change/no-longer", "change_of_fact")

    # a forget is the other kind: it erases every copy, its own line of the log included; a change of fact
    # keeps its record. A forget that found nothing stays in the log, by its kind.
    forgot = _turn(capsys, mem, "please forget my job", 3)
    missed = _turn(capsys, mem, "please forget my shoe size", 4)
    code, out, _ = run(capsys, "decisions", "tove", "--json", *where)
    rows = json.loads(out)
    assert not [r for r in rows if r["turn_id"] == forgot or r["key"] == "Role"] and change in rows
    [forget] = [r for r in rows if r["turn_id"] == missed]
    assert (forget["op"], forget["removal"], forget["rule"], forget["outcome"]) == (
        "remove", "forget", "forget/nothing-matches", "not_found")

    # one turn, one rule kind: the same rows, filtered
    code, out, _ = run(capsys, "decisions", "tove", "--turn", second, "--json", *where)
    assert json.loads(out) == [change]
    code, out, _ = run(capsys, "decisions", "tove", "--rule", "change", "--json", *where)
    assert json.loads(out) == [change]

    # as text: one line per decision, the rule in brackets, the removal by its kind
    code, out, _ = run(capsys, "decisions", "tove", *where)
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(rows)
    said = next(line for line in lines if second in line)
    assert '[change/no-longer]' in said and 'no longer "Location"' in said and "-> written" in said
    dropped = next(line for line in lines if missed in line)
    assert f"[{forget['rule']}]" in dropped and "forget " in dropped and "no longer" not in dropped


def test_an_empty_rule_filter_is_a_usage_error_and_an_unknown_rule_lists_nothing(
    mem: Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    _turn(capsys, mem, "I'm a harbour pilot.", 1)
    code, out, err = run(capsys, "decisions", "tove", "--rule", "", *mem.store_args())
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "--rule" in err
    code, out, err = run(capsys, "decisions", "tove", "--rule", "no-such-rule", "--json", *mem.store_args())
    assert code == 0 and json.loads(out) == []

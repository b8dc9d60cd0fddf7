"""The leak search finds a secret however it was stored, and does not call a number leaked when its digits
only happen to stand inside a longer number, a clock reading or a hex digest (which would fail a clean run
by chance)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pipeline.evals import find_leaks
from pipeline.evals.leaks import search_bytes


def test_a_stored_number_is_found_in_any_wording() -> None:
    for text in ("my pin is 4821", '{"value": "4821"}', "PIN: 4821.", "4821", "4821-ok", "card 4539 1488 0343 6467 saved"):
        assert find_leaks(["4821", "4539 1488 0343 6467"], {"f": text}) != [], text


def test_digits_inside_other_numbers_and_digests_are_not_the_number() -> None:
    places = {"usage": "latency 0.004821337", "clock": "2026-12-03T10:58:20.148213+00:00",
              "digest": "e3b0a4821fc1", "queue": "owner 8123-14821a"}
    assert find_leaks(["4821", "5820"], places) == []


def test_words_are_still_found_inside_other_text() -> None:
    assert find_leaks(["Hobart", "储物柜"], {"f": "livesinHobart", "g": "我的储物柜密码"}) == [("Hobart", "f"), ("储物柜", "g")]


def test_the_byte_search_follows_the_same_rule(tmp_path: Path) -> None:
    (tmp_path / "leaked.json").write_text('{"quote": "my pin is 4821"}', encoding="utf-8")
    (tmp_path / "clean.log").write_text("took 0.0048213 s, digest a4821f", encoding="utf-8")
    db = tmp_path / "memroute.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x TEXT, y REAL)")
        conn.execute("INSERT INTO t VALUES ('code 7319 noted', 1796293144.14821)")
    conn.close()
    found = search_bytes(["4821", "7319"], [tmp_path], base=tmp_path)
    assert ("4821", "file leaked.json") in found and not any("clean.log" in w for _, w in found)
    assert any(n == "7319" and "table t" in w for n, w in found)
    assert not any(n == "4821" and "table t" in w for n, w in found)

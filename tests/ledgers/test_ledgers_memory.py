from __future__ import annotations

import random

import pytest

from pipeline.ledgers import (
    DEFAULT_MEMORY_LIMIT,
    CapExceeded,
    LedgerError,
    MatchError,
    MemoryEntry,
    MemoryLog,
    UnparseableLedger,
    empty_memory_md,
    needs_consolidation,
)

SEED = (
    "# MEMORY\n\n"
    "- [2026-07-30] agent-demo: hero section on the global site changed to an animated gradient.\n"
    "- [2026-07-30] Related project: agent-demo / global site (global region)\n"
)
HERO = MemoryEntry("hero section on the global site changed to an animated gradient.", "2026-07-30", "agent-demo")
RELATED = MemoryEntry("Related project: agent-demo / global site (global region)", "2026-07-30")


def test_seed_appends_build_the_canonical_design_file() -> None:
    log = MemoryLog.parse(empty_memory_md())
    log.append(HERO)
    log.append(RELATED)
    assert log.render() == SEED


def test_canonical_file_round_trips_and_entries_are_parsed() -> None:
    log = MemoryLog.parse(SEED)
    assert log.round_trips and log.render() == SEED
    assert log.entries[0] == HERO
    assert [e.date for e in log.entries] == ["2026-07-30", "2026-07-30"]
    assert log.entry_strings() == [line[2:] for line in SEED.splitlines()[2:]]


@pytest.mark.parametrize(
    ("entry", "line"),
    [
        (HERO, "- [2026-07-30] agent-demo: hero section on the global site changed to an animated gradient."),
        (MemoryEntry("Postgres chosen over MySQL"), "- Postgres chosen over MySQL"),
        (MemoryEntry("Postgres chosen", topic="db"), "- db: Postgres chosen"),
        (MemoryEntry("line one\nline two", "2026-08-01"), "- [2026-08-01] line one\n  line two"),
    ],
)
def test_entry_line_format(entry: MemoryEntry, line: str) -> None:
    assert entry.line() == line


def test_related_project_line_renders_the_same_whether_or_not_it_parses_as_a_topic() -> None:
    parsed = MemoryLog.parse(SEED).entries[1]
    assert parsed.line() == RELATED.line() == "- [2026-07-30] Related project: agent-demo / global site (global region)"
    assert MemoryEntry.parse(RELATED.body()).body() == RELATED.body()


def test_find_exact_then_unique_case_insensitive_substring() -> None:
    log = MemoryLog.parse(SEED)
    assert log.find("[2026-07-30] Related project: agent-demo / global site (global region)") == 1
    assert log.find("hero section on the global site changed to an animated gradient.") == 0
    assert log.find("ANIMATED gradient") == 0
    with pytest.raises(MatchError) as many:
        log.find("agent-demo")
    assert "Be more specific" in str(many.value) and many.value.ambiguous
    assert many.value.current_entries == log.entry_strings()
    with pytest.raises(MatchError) as none:
        log.find("kubernetes")
    assert "No entry matched" in str(none.value)


def test_replace_and_remove() -> None:
    log = MemoryLog.parse(SEED)
    old = log.replace("gradient", MemoryEntry("hero section reverted to a static image.", "2026-08-02", "agent-demo"))
    assert old == HERO
    assert log.render().splitlines()[2] == "- [2026-08-02] agent-demo: hero section reverted to a static image."
    assert log.remove("global region").topic == "Related project"
    assert log.remove("static image").date == "2026-08-02"
    assert log.render() == empty_memory_md()


def test_has_duplicate_ignores_date_case_whitespace_and_trailing_punctuation() -> None:
    log = MemoryLog.parse(SEED)
    assert log.has_duplicate(MemoryEntry("Hero section on the  global site changed to an animated gradient", "2026-09-01", "AGENT-DEMO"))
    assert log.has_duplicate(MemoryEntry("agent-demo: hero section on the global site changed to an animated gradient!"))
    assert not log.has_duplicate(MemoryEntry("hero section on the global site changed to a static image."))


def test_append_over_the_cap_raises_the_hermes_error_and_changes_nothing() -> None:
    limit = len(SEED) + 20
    log = MemoryLog.parse(SEED, limit=limit)
    new = MemoryEntry("deployed the global site to Vercel in the Singapore region", "2026-08-03", "agent-demo")
    with pytest.raises(CapExceeded) as info:
        log.append(new)
    assert log.render() == SEED
    payload = info.value.payload()
    assert payload == {
        "success": False,
        "error": payload["error"],
        "current_entries": MemoryLog.parse(SEED).entry_strings(),
        "usage": f"{len(SEED)}/{limit}",
    }
    assert payload["error"].startswith(
        f"Memory at {len(SEED)}/{limit} chars. Adding this entry ({len(new.body())} chars) would exceed the limit. "
        "Consolidate now:"
    )


def test_replace_and_set_entries_are_capped_too() -> None:
    log = MemoryLog.parse(SEED, limit=len(SEED))
    with pytest.raises(CapExceeded):
        log.replace("gradient", MemoryEntry(HERO.text + " Also added a dark mode toggle.", HERO.date, HERO.topic))
    with pytest.raises(CapExceeded):
        log.set_entries([HERO, RELATED, MemoryEntry("one more")])
    assert log.render() == SEED
    log.set_entries([RELATED])  # shrinking is fine
    assert log.render() == "# MEMORY\n\n" + RELATED.line() + "\n"


def test_default_cap_and_no_write_leaves_the_file_over_it() -> None:
    log = MemoryLog.parse(empty_memory_md(), limit=DEFAULT_MEMORY_LIMIT)
    assert DEFAULT_MEMORY_LIMIT == 2200
    with pytest.raises(CapExceeded) as info:
        for day in range(1, 200):
            log.append(MemoryEntry(f"rapat mingguan nomor {day}: keputusan desain disetujui", f"2026-08-{day % 28 + 1:02d}"))
    assert len(log.render()) <= 2200
    assert info.value.usage.endswith("/2,200")


def test_needs_consolidation_at_90_percent() -> None:
    assert not needs_consolidation("x" * 1979, 2200)
    assert needs_consolidation("x" * 1980, 2200)
    assert needs_consolidation("x" * 50, 100, threshold=0.5)


def test_set_entries_keeps_heading_and_hand_written_lines() -> None:
    text = "# MEMORY\n<!-- consolidated weekly -->\n\n- [2026-07-01] a\n- [2026-07-02] b\n\n## Notes\nkeep me\n"
    log = MemoryLog.parse(text)
    log.set_entries([MemoryEntry("a and b merged", "2026-07-02")])
    assert log.render() == "# MEMORY\n<!-- consolidated weekly -->\n\n- [2026-07-02] a and b merged\n\n## Notes\nkeep me\n"


def test_set_entries_on_a_file_without_entries_appends_after_the_heading() -> None:
    log = MemoryLog.parse(empty_memory_md())
    log.set_entries([HERO, RELATED])
    assert log.render() == SEED
    log.set_entries([])
    assert log.render() == empty_memory_md()


def test_hand_edited_file_with_bom_comments_and_crlf_round_trips() -> None:
    text = "\ufeff# MEMORY\r\n\r\nNotes kept by hand.\r\n* [2026-07-01] Migrasi ke Postgres selesai\r\n- 2026-07 roughly: no date parsed\r\n"
    log = MemoryLog.parse(text)
    assert log.round_trips and log.had_bom
    assert log.render() == text[1:]
    assert [e.date for e in log.entries] == ["2026-07-01", None]
    log.append(MemoryEntry("切换到 pnpm", "2026-07-05", "monorepo"))
    assert log.render().endswith("no date parsed\r\n- [2026-07-05] monorepo: 切换到 pnpm\r\n")


def test_mixed_line_endings_do_not_round_trip_and_replace_or_remove_is_refused() -> None:
    log = MemoryLog.parse("# MEMORY\r\n\n- [2026-07-01] a\n- b\r\n")
    assert not log.round_trips
    for refused in (lambda: log.remove("a"), lambda: log.replace("b", MemoryEntry("c")), lambda: log.set_entries([])):
        with pytest.raises(UnparseableLedger):
            refused()
    assert [e.text for e in log.entries] == ["a", "b"]
    log.append(MemoryEntry("c"))
    assert log.render() == "# MEMORY\n\n- [2026-07-01] a\n- b\n- c\n"


def test_invalid_entries_are_refused() -> None:
    log = MemoryLog.parse(SEED)
    for bad in (MemoryEntry("x", "30-07-2026"), MemoryEntry("x", "2026-02-30"), MemoryEntry("   ")):
        with pytest.raises(LedgerError):
            log.append(bad)
    assert log.render() == SEED


def test_multi_line_entries_round_trip() -> None:
    log = MemoryLog.parse(SEED)
    log.append(MemoryEntry("ตัดสินใจใช้ Next.js\nเหตุผล: SEO และ SSR", "2026-08-01", "agent-demo"))
    text = log.render()
    assert text.endswith("- [2026-08-01] agent-demo: ตัดสินใจใช้ Next.js\n  เหตุผล: SEO และ SSR\n")
    again = MemoryLog.parse(text)
    assert again.round_trips
    assert again.entries[-1].text == "ตัดสินใจใช้ Next.js\nเหตุผล: SEO และ SSR"


def test_parse_never_raises_and_round_trips_arbitrary_text() -> None:
    pieces = ["- ", "* ", "# ", "  ", ": ", "[2026-07-30] ", "[", "x", "\n", "\n", "§", "topic", "中文", "ไทย"]
    rng = random.Random(11)
    for _ in range(500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        log = MemoryLog.parse(text)
        assert log.render() == text and log.round_trips


def test_set_entries_keeps_the_original_lines_of_entries_it_keeps() -> None:
    text = "# MEMORY\n\n* [2026-07-01]  Migrasi ke Postgres selesai\n- [2026-07-02] b\n- [2026-07-03] c\n"
    log = MemoryLog.parse(text)
    kept = log.entries
    log.append(MemoryEntry("d", "2026-07-04"))
    log.set_entries(kept)  # e.g. undoing the append, or a consolidation that keeps these as they are
    assert log.render() == text
    log.set_entries([kept[0], MemoryEntry("b and c merged", "2026-07-03")])
    assert log.render() == "# MEMORY\n\n* [2026-07-01]  Migrasi ke Postgres selesai\n- [2026-07-03] b and c merged\n"


# -- issue 29: an entry's date at the precision said: a day, a month or a year ---------------------------

COARSE = (
    "# MEMORY\n\n"
    "- [2025] Moved the team to Lisbon.\n"
    "- [2026-06] I started a pottery class.\n"
    "- [2026-07] studio: we repainted the studio.\n"
    "- [2026-07-29] We adopted a puppy.\n"
    "- Back in college I played bass in a band.\n"
)


def test_month_and_year_entries_parse_and_round_trip_byte_for_byte() -> None:
    log = MemoryLog.parse(COARSE)
    assert log.round_trips and log.render() == COARSE
    assert [(e.date, e.topic) for e in log.entries] == [
        ("2025", None), ("2026-06", None), ("2026-07", "studio"), ("2026-07-29", None), (None, None)]
    rebuilt = MemoryLog.parse(empty_memory_md())
    for entry in log.entries[:4]:
        rebuilt.append(entry)
    assert rebuilt.render() == COARSE.replace("- Back in college I played bass in a band.\n", "")


@pytest.mark.parametrize("day", ["2026-13", "2026-00", "2026-02-30", "26", "2026-7", "0000"])
def test_impossible_coarse_dates_are_refused(day: str) -> None:
    with pytest.raises(LedgerError, match="invalid entry date"):
        MemoryLog.parse(empty_memory_md()).append(MemoryEntry("x", day))


def test_a_month_sorts_at_its_first_day_ahead_of_that_days_entries_and_a_year_ahead_of_its_first_month() -> None:
    """docs/design.md, "File formats": stamps compare as strings, so a month sorts at its first day, before
    the entries dated that day, and a year before its first month."""
    log = MemoryLog.parse(empty_memory_md())
    for text, day in [("june 30", "2026-06-30"), ("july 2", "2026-07-02"), ("august", "2026-08")]:
        log.append(MemoryEntry(text, day))
    log.append(MemoryEntry("july 1", "2026-07-01"))  # a late turn: before the later entries
    log.append(MemoryEntry("july", "2026-07"))  # after june 30, before july 1
    log.append(MemoryEntry("the year", "2026"))  # ahead of all its months and days
    log.append(MemoryEntry("new year's eve", "2025-12-31"))
    assert [e.text for e in log.entries] == ["new year's eve", "the year", "june 30", "july", "july 1", "july 2", "august"]


def test_recall_matching_finds_a_month_entry_by_one_of_its_days_and_a_day_entry_by_its_month() -> None:
    from pipeline.ledgers.memory_md import entry_matches

    assert entry_matches("[2026-07] we repainted the studio", ["2026-07-14"])
    assert entry_matches("[2026-07-14] we repainted the studio", ["2026-07", "studio"])
    assert entry_matches("[2026] we repainted the studio", ["2026-07-14"])
    assert not entry_matches("[2026-06] we repainted the studio", ["2026-07-14"])
    assert not entry_matches("[2026-07] we repainted the studio", ["2026-07-14", "kitchen"])

"""Consolidation without an LLM: fits the target, keeps every source exactly once, never re-dates a fact."""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path

import pytest

from pipeline.core import MemoryPipeline
from pipeline.engines.offline import OfflineEngine
from pipeline.engines.offline.consolidate import real_topic, render
from pipeline.errors import ConsolidationError
from pipeline.ledgers.memory_md import MemoryLog
from pipeline.stages.consolidate import items_of, validate_plan
from pipeline.types import ConsolidatedEntry, ConsolidationPlan, MemoryItem

ENGINE = OfflineEngine()
TODAY = date(2026, 8, 1)
TOPICS = [None, "agent-demo", "billing", "site", "infra"]
WORDS = ("deployed migrated fixed the login flow cache hero section gradient invoices Stripe Postgres Redis queue "
         "dashboard retries timeout staging release notes design review 登录 页面 上线 ดีพลอย เซิร์ฟเวอร์ rilis fitur").split()


def random_log(rng: random.Random, n: int) -> list[MemoryItem]:
    items = []
    for i in range(n):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 14)))
        if items and rng.random() < 0.15:  # exact and near duplicates happen in real logs
            text = items[rng.randrange(len(items))].text + rng.choice(["", ".", " again"])
        # dates at every precision (issue 29): a day, a month, a year, none
        day = rng.choice([None, f"2026-0{rng.randint(1, 7)}-{rng.randint(10, 28)}", f"2026-0{rng.randint(1, 7)}", "2025"])
        items.append(MemoryItem(index=i, date=day, topic=rng.choice(TOPICS), text=text))
    return items


@pytest.mark.parametrize("seed", range(60))
def test_every_source_kept_exactly_once_and_the_file_fits(seed: int) -> None:
    rng = random.Random(seed)
    items = random_log(rng, rng.randint(0, 60))
    target = rng.randint(10, 2200)
    plan = ENGINE.consolidate(items, target_chars=target, today=TODAY)
    seen = [i for e in plan.entries for i in e.sources] + list(plan.archived)
    assert sorted(seen) == [it.index for it in items]
    assert len(render(plan.entries)) <= max(target, len("# MEMORY\n\n"))
    by_index = {it.index: it for it in items}
    for entry in plan.entries:
        dates = [by_index[i].date for i in entry.sources if by_index[i].date]
        assert entry.date == (max(dates) if dates else None)  # a merged entry takes the newest date
        for day in dates:  # and cites the others, at their own precision: no part moves to another day
            assert day == entry.date or f"({day})" in entry.text
    assert plan.engine == "offline" and plan.usage.calls == 0
    if plan.entries:  # (a target too small for any entry archives them all, which the stage refuses)
        validate_plan(plan, items, render(plan.entries), max(target, len("# MEMORY\n\n")))  # the stage accepts it


def test_a_file_that_fits_loses_only_its_duplicates() -> None:
    items = [MemoryItem(index=0, date="2026-07-01", topic="billing", text="moved invoices to Stripe"),
             MemoryItem(index=1, date="2026-07-02", topic="infra", text="Redis upgraded to 7.2"),
             MemoryItem(index=2, date="2026-07-05", topic="billing", text="Moved invoices to Stripe.")]
    plan = ENGINE.consolidate(items, target_chars=2000, today=TODAY)
    assert [(e.sources, e.date) for e in plan.entries] == [([1], "2026-07-02"), ([2], "2026-07-05")]
    assert plan.archived == [0]  # the older copy is archived with its own date, not re-dated


def test_a_duplicate_leaves_for_the_archive_then_the_oldest_leave() -> None:
    items = [
        MemoryItem(index=0, date="2026-06-01", topic="infra", text="nightly backups run at 02:00 UTC"),
        MemoryItem(index=1, date="2026-06-03", topic="site", text="hero section uses an animated gradient"),
        MemoryItem(index=2, date="2026-07-09", topic="site", text="hero section uses an animated gradient"),
        MemoryItem(index=3, date="2026-07-20", topic="billing", text="switched the payment provider to Stripe"),
    ]
    full = len(render([]))  # header only
    target = full + 3 * 60
    plan = ENGINE.consolidate(items, target_chars=target, today=TODAY)
    kept = {tuple(e.sources): e for e in plan.entries}
    assert (2,) in kept and kept[(2,)].date == "2026-07-09" and 1 in plan.archived  # one copy, its own date
    assert len(render(plan.entries)) <= target
    plan = ENGINE.consolidate(items, target_chars=full + 70, today=TODAY)
    assert plan.archived[0] == 0  # the oldest entry leaves first
    assert 3 in [i for e in plan.entries for i in e.sources]  # the newest stays


def test_a_superseded_entry_leaves_for_the_archive() -> None:
    items = [
        MemoryItem(index=0, date="2026-05-02", topic="infra", text="the job queue runs on RabbitMQ"),
        MemoryItem(index=1, date="2026-06-10", topic="site", text="landing page copy approved by marketing"),
        MemoryItem(index=2, date="2026-07-21", topic="infra", text="switched the job queue from RabbitMQ to Kafka"),
    ]
    full = len(render([]))
    plan = ENGINE.consolidate(items, target_chars=full + 110, today=TODAY)
    kept = {tuple(e.sources): e for e in plan.entries}
    assert (2,) in kept and "Kafka" in kept[(2,)].text and kept[(2,)].date == "2026-07-21" and 0 in plan.archived
    assert 1 in [i for e in plan.entries for i in e.sources] + plan.archived


def test_a_merged_entry_cites_the_date_of_each_part() -> None:
    items = [
        MemoryItem(index=0, date="2026-07-12", topic="agent-demo", text="hero section changed to an animated gradient"),
        MemoryItem(index=1, date="2026-06-02", topic="billing", text="invoices now go through Stripe"),
        MemoryItem(index=2, date="2026-07-30", topic="agent-demo", text="pricing page translated to Thai."),
    ]
    full = len(render([]))
    plan = ENGINE.consolidate(items, target_chars=full + 186, today=TODAY)  # one char short of all three
    merged = next(e for e in plan.entries if e.sources == [0, 2])
    assert merged.date == "2026-07-30" and merged.topic == "agent-demo"
    assert merged.text == ("hero section changed to an animated gradient (2026-07-12); "
                           "pricing page translated to Thai (2026-07-30)")
    assert "[2026-06-02] billing: invoices now go through Stripe" in render(plan.entries)  # untouched, own date
    log = MemoryLog.parse(render(plan.entries))  # the merged line reads back as one dated, topical entry
    assert [(e.date, e.topic) for e in log.entries] == [("2026-07-30", "agent-demo"), ("2026-06-02", "billing")]


@pytest.mark.parametrize("word", ["and", "to", "last", "The", "yang", "然后", "แล้ว"])
def test_a_function_word_is_never_a_topic_to_merge_under(word: str) -> None:
    items = [MemoryItem(index=i, date=f"2026-07-{10 + i}", topic=word, text=f"note number {i} about the garden shed")
             for i in range(4)]
    plan = ENGINE.consolidate(items, target_chars=len(render([])) + 120, today=TODAY)
    assert all(len(e.sources) == 1 for e in plan.entries)  # nothing merged under "and:"
    assert real_topic(word) is None and real_topic("agent-demo") == "agent-demo"


def test_the_stage_refuses_a_plan_that_moves_a_fact_to_another_day() -> None:
    log = MemoryLog.parse("# MEMORY\n\n- [2026-05-01] garden: planted tomatoes\n- [2026-07-20] garden: built a shed\n")
    items = items_of(log)
    redated = ConsolidationPlan(entries=[ConsolidatedEntry(date="2026-07-20", topic="garden",
                                                           text="planted tomatoes; built a shed", sources=[0, 1])],
                                engine="t")
    with pytest.raises(ConsolidationError, match="does not cite"):
        validate_plan(redated, items, render(redated.entries), 2000)
    moved = ConsolidationPlan(entries=[ConsolidatedEntry(date="2026-07-21", topic="garden", text="built a shed",
                                                         sources=[1])], archived=[0], engine="t")
    with pytest.raises(ConsolidationError, match="dated 2026-07-21"):
        validate_plan(moved, items, render(moved.entries), 2000)
    cited = ConsolidationPlan(entries=[ConsolidatedEntry(date="2026-07-20", topic="garden",
                                                         text="planted tomatoes (2026-05-01); built a shed", sources=[0, 1])],
                              engine="t")
    validate_plan(cited, items, render(cited.entries), 2000)  # no error


def hand_edited_memory(n: int, seed: int = 7) -> str:
    """A long log pasted by hand: many topics, some bad ones, repeated lines, undated lines."""
    rng = random.Random(seed)
    topics = ["agent-demo", "billing", "garden", "and", "last", "", "", ""]
    vocab = ["".join(rng.choice("bcdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3)) for _ in range(1500)]
    lines: list[str] = []
    for _ in range(n):
        if lines and rng.random() < 0.1:
            lines.append(lines[rng.randrange(len(lines))])
            continue
        topic = rng.choice(topics)
        words = " ".join(rng.choices(vocab, k=rng.randint(3, 12)))
        day = "" if rng.random() < 0.05 else f"[2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}] "
        lines.append(f"- {day}{topic + ': ' if topic else ''}{words}")
    return "# MEMORY\n\n" + "\n".join(lines) + "\n"


def test_a_hand_edited_file_of_4000_entries_consolidates_keeping_every_entry(tmp_path: Path) -> None:
    folder = tmp_path / "u"
    folder.mkdir()
    (folder / "MEMORY.md").write_text(hand_edited_memory(4000), "utf-8")
    before = MemoryLog.parse((folder / "MEMORY.md").read_text("utf-8"))
    with MemoryPipeline(root=tmp_path, engine="offline") as pipe:
        report = pipe.consolidate("u")
    after = MemoryLog.parse((folder / "MEMORY.md").read_text("utf-8"))
    assert len((folder / "MEMORY.md").read_text("utf-8")) <= 0.75 * 2200
    assert report["success"] and report["archived"] + len(after.entries) <= len(before.entries)
    assert report["archived"] + sum(e.text.count("; ") + 1 for e in after.entries) >= len(before.entries)
    known = {e.date for e in before.entries}
    assert all(e.date in known for e in after.entries)  # no entry carries a date its sources did not have


# -- issue 29: entries dated to a month or a year merge and cite at that precision -------------------------


def test_a_merged_entry_cites_a_month_part_as_a_month_and_sorts_by_the_stated_rule() -> None:
    items = [
        MemoryItem(index=0, date="2026-06", topic="garden", text="planted tomatoes"),
        MemoryItem(index=1, date="2025", topic="infra", text="the job queue runs on RabbitMQ and nothing else at all"),
        MemoryItem(index=2, date="2026-07-20", topic="garden", text="built a shed."),
    ]
    full = len(render([]))
    plan = ENGINE.consolidate(items, target_chars=full + 110, today=TODAY)
    merged = next(e for e in plan.entries if e.sources == [0, 2])
    assert merged.date == "2026-07-20"  # the newest part: a day sorts after its month
    assert merged.text == "planted tomatoes (2026-06); built a shed (2026-07-20)"
    validate_plan(plan, items, render(plan.entries), full + 110)


def test_the_stage_refuses_a_merge_that_gives_a_month_part_a_day() -> None:
    log = MemoryLog.parse("# MEMORY\n\n- [2026-06] garden: planted tomatoes\n- [2026-07-20] garden: built a shed\n")
    items = items_of(log)

    def plan(text: str) -> ConsolidationPlan:
        return ConsolidationPlan(entries=[ConsolidatedEntry(date="2026-07-20", topic="garden", text=text, sources=[0, 1])],
                                 engine="t")

    for invented in ("planted tomatoes (2026-06-15); built a shed", "planted tomatoes (2026-06-01 to 2026-06-20); built a shed"):
        with pytest.raises(ConsolidationError, match="does not cite"):
            validate_plan(plan(invented), items, render(plan(invented).entries), 2000)
    for honest in ("planted tomatoes (2026-06); built a shed", "planted tomatoes and built a shed (2026-06 to 2026-07)",
                   "planted tomatoes and built a shed (2026-06-01 to 2026-07-20)"):
        validate_plan(plan(honest), items, render(plan(honest).entries), 2000)  # no error

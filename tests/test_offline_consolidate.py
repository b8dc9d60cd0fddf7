"""Consolidation without an LLM: fits the target, keeps every source exactly once, keeps dates."""

from __future__ import annotations

import random
from datetime import date

import pytest

from pipeline.engines.offline import OfflineEngine
from pipeline.engines.offline.consolidate import render
from pipeline.types import MemoryItem

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
        day = rng.choice([None, f"2026-0{rng.randint(1, 7)}-{rng.randint(10, 28)}"])
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
    assert plan.engine == "offline" and plan.usage.calls == 0


def test_a_file_that_fits_loses_only_its_duplicates() -> None:
    items = [MemoryItem(index=0, date="2026-07-01", topic="billing", text="moved invoices to Stripe"),
             MemoryItem(index=1, date="2026-07-02", topic="infra", text="Redis upgraded to 7.2"),
             MemoryItem(index=2, date="2026-07-05", topic="billing", text="Moved invoices to Stripe.")]
    plan = ENGINE.consolidate(items, target_chars=2000, today=TODAY)
    assert [(e.sources, e.date) for e in plan.entries] == [([0, 2], "2026-07-05"), ([1], "2026-07-02")]
    assert plan.archived == []


def test_duplicates_merge_into_the_newest_then_the_oldest_leave() -> None:
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
    assert (1, 2) in kept and kept[(1, 2)].date == "2026-07-09"  # the duplicate merged, newest date kept
    assert len(render(plan.entries)) <= target
    plan = ENGINE.consolidate(items, target_chars=full + 70, today=TODAY)
    assert plan.archived[0] == 0  # the oldest entry leaves first
    assert 3 in [i for e in plan.entries for i in e.sources]  # the newest stays


def test_a_superseded_entry_folds_into_the_change() -> None:
    items = [
        MemoryItem(index=0, date="2026-05-02", topic="infra", text="the job queue runs on RabbitMQ"),
        MemoryItem(index=1, date="2026-06-10", topic="site", text="landing page copy approved by marketing"),
        MemoryItem(index=2, date="2026-07-21", topic="infra", text="switched the job queue from RabbitMQ to Kafka"),
    ]
    full = len(render([]))
    plan = ENGINE.consolidate(items, target_chars=full + 110, today=TODAY)
    kept = {tuple(e.sources): e for e in plan.entries}
    assert (0, 2) in kept and "Kafka" in kept[(0, 2)].text and kept[(0, 2)].date == "2026-07-21"
    assert 1 in [i for e in plan.entries for i in e.sources] + plan.archived

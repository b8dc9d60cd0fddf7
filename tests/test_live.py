"""The same scenarios against a real model. Marked `live`; skipped unless a model and key are set.

Run: MEMROUTE_LIVE_MODEL=openai/gpt-4o-mini OPENAI_API_KEY=... pytest -m live tests/test_live.py
(any litellm model string works; MEMROUTE_LIVE_API_BASE for an OpenAI-compatible server).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import date, datetime, timezone

import pytest

from pipeline import testing
from pipeline.engines.llm import LLMEngine, rendered_size
from pipeline.types import MemoryItem, Message, Turn

LIVE_MODEL = os.environ.get("MEMROUTE_LIVE_MODEL") or (
    "openai/gpt-4o-mini" if os.environ.get("OPENAI_API_KEY") else None
)

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(LIVE_MODEL is None, reason="set MEMROUTE_LIVE_MODEL (and its provider key) to run live tests"),
]


@pytest.fixture
def engine() -> Iterator[LLMEngine]:
    assert LIVE_MODEL is not None
    with testing.allow_model_requests():
        yield LLMEngine(LIVE_MODEL, api_base=os.environ.get("MEMROUTE_LIVE_API_BASE"), timeout=60.0)


def turn(text: str) -> Turn:
    return Turn(
        user_id="live",
        turn_id="t1",
        timestamp=datetime(2026, 7, 30, 9, 0, tzinfo=timezone.utc),
        messages=[Message(role="user", content=text)],
    )


def test_seed_turn_routes_identity_and_event(engine: LLMEngine) -> None:
    result = engine.classify(
        turn(
            "I'm Jasmin, a frontend engineer. Yesterday we changed the hero section of agent-demo to an animated gradient."
        ),
        "",
        "",
    )
    routes = {d.route for d in result.decisions}
    assert {"user", "memory"} <= routes
    name = [d for d in result.decisions if d.route == "user" and d.value and "Jasmin" in d.value]
    assert name and name[0].section == "Identity"
    event = [d for d in result.decisions if d.route == "memory"]
    assert event[0].date == "2026-07-29"  # "yesterday" resolved against the turn time
    assert result.usage.calls >= 1 and result.usage.input_tokens > 0


def test_overwrite_reuses_the_existing_key(engine: LLMEngine) -> None:
    user_md = "# USER\n\n## Preferences\n- Usual stack: Next.js\n"
    result = engine.classify(turn("These days I mostly build with SvelteKit, not Next.js anymore."), user_md, "")
    users = [d for d in result.decisions if d.route == "user"]
    assert users and users[0].key == "Usual stack" and "SvelteKit" in (users[0].value or "")


@pytest.mark.parametrize(
    ("text", "reason"),
    [("Ugh, my head really hurts today.", "mood"), ("My card number is 4111 1111 1111 1111.", "sensitive")],
)
def test_skips_with_reason(engine: LLMEngine, text: str, reason: str) -> None:
    decisions = engine.classify(turn(text), "", "").decisions
    assert decisions and all(d.route == "skip" for d in decisions)
    assert any(d.reason == reason for d in decisions)


def test_consolidation_fits_and_accounts_for_every_entry(engine: LLMEngine) -> None:
    items = [
        MemoryItem(
            index=i,
            date=f"2026-07-{i + 1:02d}",
            topic="agent-demo",
            text=f"Iteration {i} of the hero section reviewed and adjusted.",
        )
        for i in range(20)
    ]
    target = int(rendered_size([(it.date, it.topic, it.text) for it in items]) * 0.6)
    plan = engine.consolidate(items, target_chars=target, today=date(2026, 7, 30))
    covered = {i for e in plan.entries for i in e.sources} | set(plan.archived)
    assert covered == set(range(20))
    assert rendered_size([(e.date, e.topic, e.text) for e in plan.entries]) <= target

"""LLM pipeline cost and overhead, measured with the packaged fake model (issue 3).

Run: .venv/bin/python benchmarks/bench_pipeline.py [--turns 60]

A FunctionModel stands in for the LLM: it answers classify calls with the offline engine's
decisions for the same turn and consolidation calls with the offline consolidation plan, so the
files grow and consolidate as they would in use. Prints:
- LLM calls per turn (classify + consolidation, amortised);
- prompt tokens of one classify call besides the turn (litellm's bundled tokenizer for
  gpt-4o-mini; the schema counted separately: tools mode sends it as prompt text, json_schema
  mode as a grammar) with empty files and with both files full:
  for a turn that shares no word with MEMORY.md (only the newest entries are sent) and the worst
  case, a turn that shares a word with every entry (the whole file is sent);
- pipeline overhead per turn outside the model (median and p95): wall time minus the time
  spent inside the fake model.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from typing import Any

from pipeline.core import MemoryPipeline
from pipeline.engines.llm import LLMEngine, Statements
from pipeline.engines.offline import OfflineEngine
from pipeline.ledgers.memory_md import MemoryEntry
from pipeline.testing import CallInfo, FunctionModel
from pipeline.turns import build_turn
from pipeline.types import MemoryItem

# The project's own turns: profile facts, project events, and skips, in four languages.
TURNS = [
    "I'm Dana, a platform engineer at a fintech startup.",
    "We decided to move the billing service to Postgres.",
    "my head hurts today",
    "Yesterday we shipped the new onboarding flow for agent-demo.",
    "I prefer answers with the conclusion first.",
    "change this title to Quarterly Review",
    "Last week we migrated the CI pipeline to GitHub Actions.",
    "I'm allergic to shellfish.",
    "saya tinggal di Bandung",
    "kemarin kami deploy versi 2 ke production",
    "我是一名前端工程师",
    "上周我们把登录页改成了深色主题",
    "ผมชื่อสมชายครับ",
    "เมื่อวานเราดีพลอย v2 ขึ้น production แล้ว",
    "We agreed to freeze the API schema until the beta ends.",
    "I guess I kind of like shorter stuff",
    "The load test showed p95 latency of 180 ms on the search endpoint.",
    "We chose Redis streams for the notification queue.",
    "I work in the Europe/Berlin time zone.",
    "Two days ago we rotated the staging database credentials.",
]

_ENTRY_LINE = re.compile(r"^\[(\d+)\] (.*)$")
_TARGET = re.compile(r"Target: at most (\d+) characters")


class OfflineBackedModel:
    """Answers like a good LLM would, using the offline engine on the same input."""

    def __init__(self) -> None:
        self.engine = OfflineEngine()
        self.turn: Any = None
        self.seconds_inside = 0.0

    def __call__(self, messages: list[dict[str, Any]], info: CallInfo) -> Any:
        started = time.perf_counter()
        try:
            if info.stage == "classify":
                decisions = self.engine.classify(self.turn, "", "").decisions
                return {"statements": [_statement(d.model_dump()) for d in decisions]}
            return self._consolidate(str(messages[-1]["content"]))
        finally:
            self.seconds_inside += time.perf_counter() - started

    def _consolidate(self, prompt: str) -> dict[str, Any]:
        items = []
        for line in prompt.split("Entries:\n", 1)[1].splitlines():
            m = _ENTRY_LINE.match(line)
            if m:
                entry = MemoryEntry.parse(m.group(2))
                items.append(MemoryItem(index=int(m.group(1)), date=entry.date, topic=entry.topic, text=entry.text))
        target_match = _TARGET.search(prompt)
        target = int(target_match.group(1)) if target_match else 1650
        plan = self.engine.consolidate(items, target_chars=target, today=date.today())
        return {"entries": [e.model_dump() for e in plan.entries], "archived": plan.archived}


def _statement(d: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "quote",
        "route",
        "reason",
        "section",
        "key",
        "value",
        "entry",
        "date",
        "topic",
        "op",
        "match",
        "confidence",
    )
    out = {k: d.get(k) for k in keys}
    if out["reason"] == "blocked":
        out["reason"] = "sensitive"
    return out


def full_files() -> tuple[str, str]:
    """USER.md and MEMORY.md at their caps, in realistic prose (digit-heavy filler would tokenize
    worse than real files do)."""
    user_md = (
        "# USER\n\n## Identity\n- Name: Jasmin\n- Role: Frontend engineer\n- Location: Hamburg\n\n## Preferences\n"
    )
    user_md += "".join(
        f"- Preference {i}: concise answers with TypeScript samples and the summary first\n" for i in range(20)
    )
    user_md = user_md[:1374] + "\n"
    memory_md = "# MEMORY\n\n" + "".join(
        f"- [2026-07-{i % 28 + 1:02d}] agent-demo: the team shipped the redesigned pricing page and moved docs to Vercel\n"
        for i in range(30)
    )
    memory_md = memory_md[:2199] + "\n"
    assert len(user_md) == 1375 and len(memory_md) == 2200
    return user_md, memory_md


def classify_prompt_tokens(user_md: str, memory_md: str, said: str = "x") -> tuple[int, int]:
    """(message tokens besides the turn, tool schema tokens) of one classify call (gpt-4o-mini's
    tokenizer, litellm's bundled copy)."""
    from pipeline.engines.llm import load_litellm  # imports litellm offline (bundled cost map, no telemetry)

    litellm = load_litellm()
    engine = LLMEngine("openai/gpt-4o-mini")
    turn = build_turn("u", [{"role": "user", "content": said}], timestamp="2026-07-30T09:00:00Z")
    messages = engine.classify_messages(turn, user_md, memory_md)
    message_tokens = litellm.token_counter(model="gpt-4o-mini", messages=messages)
    turn_tokens = litellm.token_counter(model="gpt-4o-mini", text=said)
    schema = json.dumps(Statements.model_json_schema(), separators=(",", ":"))
    schema_tokens = litellm.token_counter(model="gpt-4o-mini", text=schema)
    return message_tokens - turn_tokens, schema_tokens


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    model_fn = OfflineBackedModel()
    fake = FunctionModel(model_fn, name="bench-fake")
    overheads: list[float] = []
    calls = 0
    start = datetime(2026, 7, 1, 9, 0, tzinfo=timezone.utc)
    with tempfile.TemporaryDirectory() as root, MemoryPipeline(root=root, model=fake) as pipe:
        for i in range(args.turns):
            text = TURNS[i % len(TURNS)] + ("" if i < len(TURNS) else f" (note {i})")
            messages = [{"role": "user", "content": text}]
            when = start + timedelta(hours=6 * i)
            model_fn.turn = build_turn("bench", messages, timestamp=when)
            inside_before = model_fn.seconds_inside
            t0 = time.perf_counter()
            result = pipe.process_turn("bench", messages, timestamp=when)
            wall = time.perf_counter() - t0
            if result.status != "done":
                raise SystemExit(f"turn {i} failed: {result.error}")
            calls += result.usage.calls
            overheads.append(wall - (model_fn.seconds_inside - inside_before))
        shown = pipe.show("bench")
    user_md, memory_md = full_files()
    rows = [
        ("empty files", classify_prompt_tokens("", "")),
        ("full files, a turn sharing no word with MEMORY.md", classify_prompt_tokens(user_md, memory_md)),
        # A turn that shares a word with every entry: the whole MEMORY.md is sent.
        ("full files, worst case (whole MEMORY.md sent)", classify_prompt_tokens(user_md, memory_md, memory_md)),
    ]
    overheads.sort()
    print(f"turns: {args.turns}; final files USER.md {shown['user_usage']}, MEMORY.md {shown['memory_usage']}")
    print(f"LLM calls per turn: {calls / args.turns:.2f} (target 1 for a typical turn; consolidation amortised)")
    print(
        "classify prompt tokens per turn besides the turn (target <= 1,100 with full files): json_schema mode "
        "(what auto picks for a local server: the schema is a grammar, not prompt text) = the messages; "
        "tools mode (OpenAI's API) = messages + tool schema:"
    )
    for label, (besides_turn, schema_tokens) in rows:
        print(f"  {label}: json_schema {besides_turn}; tools {besides_turn} + {schema_tokens} = {besides_turn + schema_tokens}")
    print(
        f"pipeline overhead per turn outside the model: median {statistics.median(overheads) * 1000:.2f} ms, "
        f"p95 {overheads[int(0.95 * (len(overheads) - 1))] * 1000:.2f} ms (target median < 5 ms)"
    )

if __name__ == "__main__":
    main()

"""Would sending only the MEMORY.md entries that share words with the turn (plus the newest few)
change what gets decided? An offline measure (issue 14), no model and no network.

Run: .venv/bin/python benchmarks/bench_memory_selection.py

The files grow as they would in use: the offline engine processes the project's own transcripts
(benchmarks/data, four languages, each language's conversations as one user) and bench_pipeline's
turns. Before each turn, a content-aware stand-in for the model (the offline engine, which reads
MEMORY.md to spot repeats, duplicates and what a forget request names) classifies the turn twice:
with the whole MEMORY.md and with the selection; a control classifies it with no MEMORY.md, to show
how often the stand-in's decisions depend on the file at all. Prints, per corpus, the turns whose decisions
differ, the entries kept, and the MEMORY.md tokens sent (gpt-4o-mini's tokenizer, litellm's bundled
copy).

What it can show: whether a reader that uses MEMORY.md by its words loses an entry it needed, and
the tokens saved. What it cannot show: how a real model uses entries that share no word with the
turn (a follow-up about "the migration" when the entry says "moved to Postgres", dates resolved
against an earlier plan, a topic named differently); only a model-graded eval can.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pipeline import TURNS  # noqa: E402

from pipeline.core import MemoryPipeline  # noqa: E402
from pipeline.engines.llm.inputs import compact_file, relevant_memory  # noqa: E402
from pipeline.engines.offline import OfflineEngine  # noqa: E402
from pipeline.turns import build_turn  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
FIELDS = ("route", "reason", "op", "section", "key", "value", "entry", "date", "topic", "match", "candidate")


def transcripts(language: str) -> list[tuple[list[dict[str, str]], str]]:
    """(messages up to and including the user's message, timestamp) for every user turn."""
    out: list[tuple[list[dict[str, str]], str]] = []
    for line in (DATA / f"conversations_{language}.jsonl").read_text(encoding="utf-8").splitlines():
        history: list[dict[str, str]] = []
        for t in json.loads(line)["turns"]:
            history.append({"role": "user", "content": t["user"]})
            out.append((list(history[-6:]), t["timestamp"]))
            if t.get("assistant"):
                history.append({"role": "assistant", "content": t["assistant"]})
    return out


def bench_turns(n: int = 200) -> list[tuple[list[dict[str, str]], str]]:
    from datetime import datetime, timedelta, timezone

    start = datetime(2026, 7, 1, 9, 0, tzinfo=timezone.utc)
    return [
        (
            [{"role": "user", "content": TURNS[i % len(TURNS)] + ("" if i < len(TURNS) else f" (note {i})")}],
            (start + timedelta(hours=6 * i)).isoformat(),
        )
        for i in range(n)
    ]


def _view(decisions: list[Any]) -> list[dict[str, Any]]:
    return [d.model_dump(include=set(FIELDS)) for d in decisions]


def measure(name: str, turns: list[tuple[list[dict[str, str]], str]], tokens: Any) -> dict[str, Any]:
    engine = OfflineEngine()
    differ = kept = total = control = 0
    full_tokens: list[int] = []
    sent_tokens: list[int] = []
    examples: list[str] = []
    with tempfile.TemporaryDirectory() as root, MemoryPipeline(root=root) as pipe:
        for messages, when in turns:
            shown = pipe.show("u")
            turn = build_turn("u", messages, timestamp=when)
            text = "\n".join(m.content for m in [*turn.history, *turn.messages])
            selected = relevant_memory(shown["memory_md"], text)
            a = engine.classify(turn, shown["user_md"], shown["memory_md"]).decisions
            b = engine.classify(turn, shown["user_md"], selected).decisions
            if _view(a) != _view(b):
                differ += 1
                examples.append(turn.user_text[:60])
            # The control: with no MEMORY.md at all. Differences here show the stand-in reads the file.
            control += _view(a) != _view(engine.classify(turn, shown["user_md"], "").decisions)
            entries = shown["entry_count"]
            total += entries
            kept += sum(1 for line in selected.splitlines() if line.lstrip().startswith("- "))
            if entries:
                full_tokens.append(tokens(compact_file(shown["memory_md"])))
                sent_tokens.append(tokens(compact_file(selected)))
            pipe.process_turn("u", messages, timestamp=when)
    return {
        "corpus": name,
        "turns": len(turns),
        "decisions_differ": differ,
        "control_differ_without_memory": control,
        "examples": examples[:3],
        "entries_kept": f"{kept}/{total}",
        "memory_tokens_mean_full_vs_selected": [
            round(statistics.mean(full_tokens or [0])),
            round(statistics.mean(sent_tokens or [0])),
        ],
        "memory_tokens_max_full_vs_selected": [max(full_tokens or [0]), max(sent_tokens or [0])],
    }


def main() -> None:
    from pipeline.engines.llm import load_litellm  # litellm offline: bundled tokenizer, no telemetry

    litellm = load_litellm()

    def tokens(text: str) -> int:
        return int(litellm.token_counter(model="gpt-4o-mini", text=text))

    languages = ("en", "id", "th", "zh")
    corpora = [(lang, transcripts(lang)) for lang in languages]
    # One user through all four languages' transcripts, so MEMORY.md holds more than the newest few.
    corpora.append(("all four, one user", [t for lang in languages for t in transcripts(lang)]))
    corpora.append(("bench_pipeline", bench_turns()))
    for name, turns in corpora:
        print(json.dumps(measure(name, turns, tokens), ensure_ascii=False))


if __name__ == "__main__":
    main()

"""The write benchmark's published table, from one or more `memroute eval --system ... --json` reports
(a slow system can run on its own, even one language at a time, and still land in one row):

    python benchmarks/bench_writes_table.py r_offline.json r_mem0.json r_llm.json > table.md

Prints Markdown: one row per system over all turns, then USER-fact recall and the false-write rate
per language. `--same-turns` scores every system on the turns all of them ran (when a run was
stopped early, its report holds the turns that finished)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def num(x: float | None, fmt: str = "{:,.0f}") -> str:
    return "—" if x is None else fmt.format(x)


def systems(paths: list[str], *, same_turns: bool = False) -> list[dict[str, Any]]:
    """The system blocks of the reports, those of one system (run in parts) put together; with
    `same_turns`, every system scored on the turns all of them ran (a run stopped early)."""
    from pipeline.evals.bench_scores import merge_blocks

    out: list[dict[str, Any]] = []
    for path in paths:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
        if report.get("kind") != "memroute-write-benchmark":
            raise SystemExit(f"{path}: not a write-benchmark report (run memroute eval with --system)")
        out += report["systems"]
    merged = merge_blocks(out)
    if same_turns:
        common = set.intersection(*({t["id"] for t in b["turns"]} for b in merged))
        for b in merged:
            b["turns"] = [t for t in b["turns"] if t["id"] in common]
        merged = merge_blocks(merged)
    return merged


def table(blocks: list[dict[str, Any]]) -> str:
    head = (
        "| system | turns | failed | items stored (per turn) | false-write rate | USER-fact recall "
        "| items a curator would reject | leaks | chat calls / turn | prompt tokens / turn "
        "| completion tokens / turn | embedding calls / turn | seconds / turn (p50) |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    rows = []
    for s in blocks:
        t = s["totals"]
        rows.append(
            f"| {s['label']} | {t['turns']} | {t['failed']} | {t['items_made']} ({num(t['items_per_turn'], '{:.2f}')}) "
            f"| {pct(t['false_write_rate'])} ({t['false_writes']}/{t['skip_turns']}) "
            f"| {pct(t['user_fact_recall'])} ({t['user_facts_found']}/{t['user_facts']}) "
            f"| {t['rejected_items']} ({pct(t['rejected_share'])}) | {t['leaks']} "
            f"| {num(t['calls_per_turn'], '{:.2f}')} | {num(t['prompt_tokens_per_turn'])} "
            f"| {num(t['completion_tokens_per_turn'])} | {num(t['embed_calls_per_turn'], '{:.2f}')} "
            f"| {num(t['seconds_per_turn'], '{:.1f}')} ({num(t['seconds_p50'], '{:.1f}')}) |"
        )
    langs = sorted({lang for s in blocks for lang in s["by_lang"]})
    lang_head = "| system | " + " | ".join(f"{lang}: recall / false writes / items" for lang in langs) + " |\n"
    lang_head += "|---|" + "---|" * len(langs) + "\n"
    lang_rows = []
    for s in blocks:
        cells = []
        for lang in langs:
            m = s["by_lang"].get(lang)
            cells.append("—" if m is None else f"{pct(m['user_fact_recall'])} / {pct(m['false_write_rate'])} / {m['items_made']}")
        lang_rows.append(f"| {s['label']} | " + " | ".join(cells) + " |")
    return head + "\n".join(rows) + "\n\n" + lang_head + "\n".join(lang_rows) + "\n"


if __name__ == "__main__":
    args = sys.argv[1:]
    same = "--same-turns" in args
    paths = [a for a in args if a != "--same-turns"]
    if not paths:
        raise SystemExit(__doc__)
    sys.stdout.write(table(systems(paths, same_turns=same)))

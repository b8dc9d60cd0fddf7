"""The write benchmark's scores, per system and per language, each with the turns behind it.

- items per turn: what each turn added to what the system holds;
- false-write rate: of the turns the label skips (`expect.route: skip`), the share where the
  system stored anything;
- USER-fact recall: of the case's `user_md_contains` values, the share found (case-insensitive)
  in what the system holds after the turn;
- items a curator would reject, estimated by the label of the turn that made them: every item
  made by a turn the label skips;
- leaks: `never_written` values found anywhere the system keeps data;
- cost: chat calls, prompt and completion tokens, embedding calls, seconds, per turn;
- failures: turns whose add raised (their cost still counts).
A turn that failed counts in the rates as a turn that stored nothing it could show."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pipeline.evals.bench import TurnRecord, turn_json
from pipeline.evals.scorers import percentile
from pipeline.evals.systems import SystemSpec

REPORT_KIND = "memroute-write-benchmark"


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def score_turns(records: Sequence[TurnRecord]) -> dict[str, Any]:
    """The metrics of a set of turns, and the turn ids (the examples) behind each count."""
    ran = [r for r in records if r.error is None]
    labelled = [r for r in ran if r.case.expect.get("route") is not None]
    skips = [r for r in labelled if r.case.expect["route"] == "skip"]
    made_by = {r.case.id: len(r.made) for r in records}
    false_writes = [r for r in skips if r.made]
    facts_found: list[list[str]] = []
    facts_missed: list[list[str]] = []
    for r in records:
        held = "\n".join(i.text for i in r.after).casefold()
        for needle in r.case.expect.get("user_md_contains") or []:
            (facts_found if r.error is None and needle.casefold() in held else facts_missed).append([r.case.id, needle])
    rejected = sum(made_by[r.case.id] for r in skips)
    made_labelled = sum(made_by[r.case.id] for r in labelled)
    write_turns = [r for r in labelled if r.case.expect["route"] != "skip"]
    seconds = [r.seconds for r in records if r.seconds is not None]
    n = len(records)
    totals = {k: sum(getattr(r.usage, k) for r in records) for k in (
        "calls", "prompt_tokens", "completion_tokens", "embed_calls", "embed_tokens")}
    return {
        "turns": n,
        "failed": n - len(ran),
        "items_made": sum(made_by.values()),
        "items_per_turn": _ratio(sum(len(r.made) for r in ran), len(ran)),
        "items_removed": sum(len(r.removed) for r in ran),
        "skip_turns": len(skips),
        "false_writes": len(false_writes),
        "false_write_rate": _ratio(len(false_writes), len(skips)),
        "write_turns": len(write_turns),
        "write_turns_stored": sum(1 for r in write_turns if r.made),
        "user_facts": len(facts_found) + len(facts_missed),
        "user_facts_found": len(facts_found),
        "user_fact_recall": _ratio(len(facts_found), len(facts_found) + len(facts_missed)),
        "rejected_items": rejected,
        "rejected_share": _ratio(rejected, made_labelled),
        "leaks": sum(len(r.leaks) for r in records),
        "leak_turns": sum(1 for r in records if r.leaks),
        **totals,
        **{f"{k}_per_turn": _ratio(v, n) for k, v in totals.items()},
        "seconds": sum(seconds),
        "seconds_per_turn": _ratio(sum(seconds), len(seconds)),
        "seconds_p50": percentile(seconds, 0.5),
        "seconds_p95": percentile(seconds, 0.95),
        "examples": {
            "items_made": [r.case.id for r in ran if r.made],
            "false_writes": [r.case.id for r in false_writes],
            "write_turns_stored": [r.case.id for r in write_turns if r.made],
            "user_facts_found": facts_found,
            "user_facts_missed": facts_missed,
            "rejected_items": [r.case.id for r in false_writes],
            "leaks": [r.case.id for r in records if r.leaks],
            "failed": [r.case.id for r in records if r.error is not None],
        },
    }


def system_block(spec: SystemSpec, records: Sequence[TurnRecord]) -> dict[str, Any]:
    notes = list(dict.fromkeys(n for r in records for n in r.notes))
    langs = sorted({r.case.lang for r in records})
    seeded = [r.case.id for r in records if r.seeded is False]
    extra = [f"could not start from the case's initial files: {len(seeded)} turn(s)"] if seeded else []
    return {
        "label": spec.label,
        "system": spec.system,
        "model": spec.model,
        "api_base": spec.api_base,
        "notes": [*notes, *extra],
        "totals": score_turns(records),
        "by_lang": {lang: score_turns([r for r in records if r.case.lang == lang]) for lang in langs},
        "turns": [turn_json(r) for r in records],
    }


def build_bench_report(
    blocks: Sequence[dict[str, Any]],
    files: Sequence[str],
    started: datetime,
    wall_s: float,
    *,
    not_run: dict[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The benchmark's JSON report: one block per system, side by side, in the order given.
    `not_run`: per system, the cases a stopped run did not reach (the report is then incomplete)."""
    missing = {label: ids for label, ids in (not_run or {}).items() if ids}
    return {
        "kind": REPORT_KIND,
        "version": 1,
        "date": started.isoformat(timespec="seconds"),
        "suites": [str(f) for f in files],
        "wall_s": wall_s,
        "complete": not missing,
        "not_run": missing,
        "systems": list(blocks),
    }


def records_from_report(block: dict[str, Any]) -> list[TurnRecord]:
    """A saved system block's turns as records again, so saved reports can be re-scored or put
    together (cases run alone, so reports of parts of a suite add up to the whole)."""
    from pipeline.evals.cases import parse_case
    from pipeline.evals.systems import StoredItem, SystemUsage

    def items(rows: list[dict[str, Any]]) -> list[StoredItem]:
        return [StoredItem(text=r["text"], where=r.get("where", ""), turn=r.get("turn")) for r in rows]

    out = []
    for t in block["turns"]:
        case = parse_case({k: t.get(k) for k in ("id", "lang", "timestamp", "history", "messages", "expect")},
                          t.get("file") or "<report>", t.get("line") or 0)
        after = items(t["held"])
        made = Counter(items(t["made"]))
        before = []
        for item in after:  # held after the turn, less what it made, plus what it removed
            if made[item] > 0:
                made[item] -= 1
            else:
                before.append(item)
        before += items(t["removed"])
        record = TurnRecord(case=case, system=block["label"], before=before, after=after,
                            usage=SystemUsage(**t["usage"]), seconds=t.get("seconds"), error=t.get("error"),
                            seeded=t.get("seeded"), leaks=list(t.get("leaks") or []), notes=tuple(block.get("notes", [])))
        out.append(record)
    return out


def merge_blocks(blocks: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """System blocks of several reports, one per label (the turns of same-labelled blocks together)."""
    by_label: dict[str, list[dict[str, Any]]] = {}
    for b in blocks:
        by_label.setdefault(b["label"], []).append(b)
    merged = []
    for parts in by_label.values():
        first = parts[0]
        spec = SystemSpec(first["system"], model=first.get("model"), api_base=first.get("api_base"))
        merged.append(system_block(spec, [r for b in parts for r in records_from_report(b)]))
    return merged

"""Scorers: the route a case's turn took (read from the files it left behind, not from the
engine's claims), each case's checks, and one run's metrics (accuracy, precision, latency, cost)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pipeline.evals.cases import ROUTES, CaseOutcome, Check, EngineSpec
from pipeline.evals.report import CaseResult, LangCases, Leak, RouteScore, RunMetrics, WriteMetrics
from pipeline.types import Usage


def content_lines(text: str, *, with_sections: bool) -> Counter[tuple[str, str]]:
    """The bullet/content lines of a ledger file, normalised, as a multiset.

    Headings, blank lines and whitespace/bullet-marker differences don't count, so a file
    created with only its heading, or re-rendered in canonical form, is "unchanged".
    USER.md lines carry their section: moving a field to another section is a change.
    """
    lines: Counter[tuple[str, str]] = Counter()
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if line.startswith("##"):
                section = " ".join(line.lstrip("#").split()).lower()
            continue
        if line[0] in "-*+" and (len(line) == 1 or line[1].isspace()):
            line = line[1:]
        line = " ".join(line.split())
        if line:
            lines[(section if with_sections else "", line)] += 1
    return lines


def predicted_route(user_before: str, user_after: str, memory_before: str, memory_after: str) -> str:
    user_changed = content_lines(user_before, with_sections=True) != content_lines(user_after, with_sections=True)
    memory_changed = content_lines(memory_before, with_sections=False) != content_lines(
        memory_after, with_sections=False
    )
    if user_changed and memory_changed:
        return "mixed"
    if user_changed:
        return "user"
    if memory_changed:
        return "memory"
    return "skip"


def _contains_checks(label: str, text: str, items: Sequence[str], *, present: bool) -> list[Check]:
    checks = []
    low = text.casefold()
    for s in items:
        ok = (s.casefold() in low) == present
        verb = "contains" if present else "does not contain"
        checks.append(
            Check(f"{label} {verb} {s!r}", ok, "" if ok else f"{label} {'lacks' if present else 'has'} {s!r}")
        )
    return checks


def score_case(outcome: CaseOutcome) -> None:
    """Fill outcome.checks from the case's expectations (one check per assertion)."""
    e = outcome.case.expect
    errored = outcome.error is not None
    checks: list[Check] = []
    if e.get("route") is not None:
        ok = not errored and outcome.predicted == e["route"]
        checks.append(Check("route", ok, "" if ok else f"route: expected {e['route']}, got {outcome.predicted}"))
    if e.get("reason") is not None:
        got = [d.get("reason") for d in outcome.decisions if d.get("route") == "skip"]
        ok = not errored and e["reason"] in got
        shown = ", ".join(str(r) for r in got) or "no skip"
        checks.append(Check("reason", ok, "" if ok else f"reason: expected skip as {e['reason']}, got {shown}"))
    checks += _contains_checks("USER.md", outcome.user_md, e.get("user_md_contains") or [], present=True)
    checks += _contains_checks("USER.md", outcome.user_md, e.get("user_md_not_contains") or [], present=False)
    checks += _contains_checks("MEMORY.md", outcome.memory_md, e.get("memory_md_contains") or [], present=True)
    checks += _contains_checks("MEMORY.md", outcome.memory_md, e.get("memory_md_not_contains") or [], present=False)
    leaked = {leak["needle"] for leak in outcome.leaks}
    for needle in e.get("never_written") or []:
        ok = needle not in leaked
        wheres = ", ".join(leak["where"] for leak in outcome.leaks if leak["needle"] == needle)
        checks.append(Check(f"never written {needle!r}", ok, "" if ok else f"leak: {needle!r} found in {wheres}"))
    for label, key, text in (
        ("USER.md", "user_md_max_chars", outcome.user_md),
        ("MEMORY.md", "memory_md_max_chars", outcome.memory_md),
    ):
        if e.get(key) is not None:
            ok = len(text) <= e[key]
            checks.append(
                Check(f"{label} <= {e[key]} chars", ok, "" if ok else f"{label} is {len(text)} chars > {e[key]}")
            )
    if errored:
        # Every assertion of an errored case fails, whatever the files happen to say.
        for c in checks:
            if c.passed:
                c.passed, c.detail = False, f"{c.name}: not checked, the turn failed"
    outcome.checks = checks


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default); None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _by_stage(outcomes: Sequence[CaseOutcome]) -> dict[str, dict[str, int]]:
    """Calls and tokens per stage over the run (each case's store rows; failed turns included)."""
    out: dict[str, dict[str, int]] = {}
    for o in outcomes:
        for stage, counts in o.usage_by_stage.items():
            into = out.setdefault(stage, dict.fromkeys(counts, 0))
            for name, n in counts.items():
                into[name] = into.get(name, 0) + n
    return dict(sorted(out.items()))


def _failure(o: CaseOutcome) -> CaseResult:
    c = o.case
    return CaseResult.model_validate({
        "id": c.id,
        "file": c.file,
        "line": c.line,
        "lang": c.lang,
        "problems": ([o.error] if o.error else []) + [ch.detail for ch in o.checks if not ch.passed],
        "error": o.error,
        "expected_route": c.expect.get("route"),
        "predicted_route": o.predicted,
        "expect": c.expect,
        "input": {
            "history": c.history,
            "messages": c.messages,
            "timestamp": c.timestamp.isoformat() if c.timestamp else None,
        },
        "initial": {"user_md": c.initial_user_md, "memory_md": c.initial_memory_md},
        "actual": {"user_md": o.user_md, "memory_md": o.memory_md},
        "decisions": o.decisions,
        "usage_by_stage": o.usage_by_stage,
    })


def write_metrics(outcomes: Sequence[CaseOutcome]) -> WriteMetrics:
    """How much the engine writes, and how much of it should have been written.

    Over the cases with an expected route whose turn ran: `user_md_precision` is, of the cases
    where USER.md changed (predicted user or mixed), the share whose expected route is user or
    mixed; `memory_md_precision` likewise for MEMORY.md; `write_rate` is the share of cases where
    any file changed, beside `expected_write_rate`, the share a curator would have written.
    """
    ran = [o for o in outcomes if o.case.expect.get("route") is not None and o.error is None]
    user_writes = [o for o in ran if o.predicted in ("user", "mixed")]
    memory_writes = [o for o in ran if o.predicted in ("memory", "mixed")]
    return WriteMetrics.model_validate({
        "user_md_precision": _ratio(
            sum(1 for o in user_writes if o.case.expect["route"] in ("user", "mixed")), len(user_writes)
        ),
        "memory_md_precision": _ratio(
            sum(1 for o in memory_writes if o.case.expect["route"] in ("memory", "mixed")), len(memory_writes)
        ),
        "write_rate": _ratio(sum(1 for o in ran if o.predicted != "skip"), len(ran)),
        "expected_write_rate": _ratio(sum(1 for o in ran if o.case.expect["route"] != "skip"), len(ran)),
        "user_md_writes": len(user_writes),
        "memory_md_writes": len(memory_writes),
        "write_rate_cases": len(ran),
    })


def score_run(outcomes: Sequence[CaseOutcome], spec: EngineSpec) -> RunMetrics:
    """The metrics block of one engine/model (the report keys of docs/design.md's eval contract and a few more)."""
    routed = [o for o in outcomes if o.case.expect.get("route") is not None]
    correct = [o for o in routed if o.error is None and o.predicted == o.case.expect["route"]]

    lang_total: Counter[str] = Counter(o.case.lang for o in routed)
    lang_right: Counter[str] = Counter(o.case.lang for o in correct)
    by_lang = {lang: lang_right[lang] / n for lang, n in sorted(lang_total.items())}

    confusion: dict[str, dict[str, int]] = {}
    for o in routed:
        row = confusion.setdefault(o.case.expect["route"], {})
        row[o.predicted] = row.get(o.predicted, 0) + 1

    by_route: dict[str, RouteScore] = {}
    for route in ROUTES:
        tp = sum(1 for o in correct if o.predicted == route)
        support = sum(1 for o in routed if o.case.expect["route"] == route)
        predicted = sum(1 for o in routed if o.predicted == route)
        precision, recall = _ratio(tp, predicted), _ratio(tp, support)
        f1 = (
            2 * precision * recall / (precision + recall)
            if precision and recall
            else (0.0 if support or predicted else None)
        )
        by_route[route] = RouteScore(precision=precision, recall=recall, f1=f1, support=support, predicted=predicted)

    reasoned = [o for o in outcomes if o.case.expect.get("reason") is not None]
    reason_right = sum(1 for o in reasoned for c in o.checks if c.name == "reason" and c.passed)

    # A false block: the case expects a write, but a guard or the engine skipped a statement of it
    # as sensitive or blocked (the price of caution, reported next to leaks).
    expect_write = [o for o in routed if o.case.expect["route"] in ("user", "memory", "mixed")]
    false_blocks = [
        o.case.id
        for o in expect_write
        if any(d.get("route") == "skip" and d.get("reason") in ("sensitive", "blocked") for d in o.decisions)
    ]

    usages = [o.usage for o in outcomes if o.usage is not None]
    total = sum(usages, Usage())
    latencies = [o.latency_s for o in outcomes if o.latency_s is not None]
    checks = [c for o in outcomes for c in o.checks]
    return RunMetrics.model_validate({
        "engine": spec.engine_name,
        "model": spec.model_name,
        "label": spec.name,
        "cases": len(outcomes),
        "route_cases": len(routed),
        "route_correct": len(correct),
        "route_accuracy": _ratio(len(correct), len(routed)),
        "reason_cases": len(reasoned),
        "reason_accuracy": _ratio(reason_right, len(reasoned)),
        "by_lang": by_lang,
        "lang_cases": {lang: LangCases(cases=n, correct=lang_right[lang]) for lang, n in sorted(lang_total.items())},
        "by_route": by_route,
        "confusion": confusion,
        **write_metrics(outcomes).model_dump(),
        "lang_writes": {
            lang: write_metrics([o for o in outcomes if o.case.lang == lang]) for lang in sorted(lang_total)
        },
        "leaks": [Leak.model_validate(leak) for o in outcomes for leak in o.leaks],
        "false_blocks": false_blocks,
        "false_block_rate": _ratio(len(false_blocks), len(expect_write)),
        "write_cases": len(expect_write),
        "assertions_passed": sum(1 for c in checks if c.passed),
        "assertions_total": len(checks),
        "errors": sum(1 for o in outcomes if o.error is not None),
        "failures": [_failure(o) for o in outcomes if o.failed],
        "calls": total.calls,
        # Cases that raised report no usage; their cost is unknown, so the total is too.
        "input_tokens": total.input_tokens,
        "output_tokens": total.output_tokens,
        "cached_tokens": total.cached_tokens,  # of input_tokens, from the server's prompt cache
        "retries": total.retries,
        "reasks": total.reasks,
        "usage_by_stage": _by_stage(outcomes),
        "cost_usd": total.cost_usd if len(usages) == len(outcomes) else None,
        "latency_p50_s": percentile(latencies, 0.50),
        "latency_p95_s": percentile(latencies, 0.95),
    })


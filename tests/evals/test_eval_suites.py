"""The eval suites in evals/ keep the case contract of docs/design.md, so the runner can trust them.

These checks read the JSONL only; they never run an engine. A malformed case, a duplicate id,
an impossible expectation (a skip that expects a new value in a file) or a suite that lost
coverage fails here, before it can make an eval figure meaningless.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from pipeline._util.jsonl import read_jsonl
from pipeline.errors import JSONLError
from pipeline.types import SKIP_REASONS, USER_SECTIONS

EVALS = Path(__file__).resolve().parents[2] / "evals"
CORE_GLOB = "core_*.jsonl"
ROUTES = {"user", "memory", "skip", "mixed"}
BASE_REASONS = ("mood", "one_off", "vague", "inferable", "sensitive")
LANGS = {"en", "id", "zh", "th"}
USER_CAP, MEMORY_CAP = 1375, 2200
LIST_KEYS = {
    "user_md_contains",
    "user_md_not_contains",
    "memory_md_contains",
    "memory_md_not_contains",
    "never_written",
}
EXPECT_KEYS = LIST_KEYS | {"route", "reason", "user_md_max_chars", "memory_md_max_chars"}
# An entry date at the precision said (issue 29): a day, or a bracketed month or year ("[2026-07]", "[2026]").
DATE = re.compile(r"\d{4}-\d{2}-\d{2}|\[\d{4}(?:-\d{2})?\]")
USER_FIELD = re.compile(r"- [^:\n]+: \S.*")
MEMORY_ENTRY = re.compile(r"- \[\d{4}(?:-\d{2}){0,2}\] \S.*")


def _load(paths: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    cases = []
    for path in paths:
        try:
            for lineno, case in read_jsonl(path):  # the runner's own reader: lines end at "\n" only
                cases.append((f"{path.name}:{lineno}", case))
        except JSONLError as exc:  # pragma: no cover - reported as a failure
            pytest.fail(str(exc))
    return cases


ALL = _load(sorted(EVALS.glob("*.jsonl")))
CORE = _load(sorted(EVALS.glob(CORE_GLOB)))


def _fail_if(errors: list[str]) -> None:
    assert not errors, f"{len(errors)} problem(s):\n" + "\n".join(errors[:40])


def _canonical_user_problem(text: str) -> str | None:
    lines = text.split("\n")
    if lines[:2] != ["# USER", ""] or not text.endswith("\n"):
        return "does not start with '# USER' and a blank line, or lacks the final newline"
    order = []
    for line in lines[2:]:
        if line.startswith("## "):
            order.append(line[3:])
        elif line and not USER_FIELD.fullmatch(line):
            return f"line is not '- Key: value': {line!r}"
    if any(s not in USER_SECTIONS for s in order) or order != sorted(order, key=USER_SECTIONS.index):
        return f"sections out of canonical order: {order}"
    return None


def _canonical_memory_problem(text: str) -> str | None:
    lines = text.split("\n")
    if lines[:2] != ["# MEMORY", ""] or not text.endswith("\n"):
        return "does not start with '# MEMORY' and a blank line, or lacks the final newline"
    bad = [line for line in lines[2:] if line and not MEMORY_ENTRY.fullmatch(line)]
    return f"line is not '- [YYYY-MM-DD] ...': {bad[0]!r}" if bad else None


def test_files_exist_and_parse() -> None:
    assert list(EVALS.glob(CORE_GLOB)), "no core suites in evals/"
    assert ALL


def test_ids_are_unique_across_all_suites() -> None:
    counts = Counter(case.get("id") for _, case in ALL)
    _fail_if([f"duplicate id {i!r} x{n}" for i, n in counts.items() if n > 1])


def test_every_case_has_the_contract_shape() -> None:
    errors = []
    for where, case in ALL:

        def bad(msg: str, where: str = where, cid: object = case.get("id")) -> None:
            errors.append(f"{where} {cid}: {msg}")

        if not isinstance(case.get("id"), str) or not case["id"]:
            bad("missing id")
        if "lang" in case and case["lang"] not in LANGS:
            bad(f"unknown lang {case['lang']!r}")
        if "timestamp" in case:
            try:
                ts = datetime.fromisoformat(case["timestamp"].replace("Z", "+00:00"))
                if ts.tzinfo is None:
                    bad("timestamp without a time zone")
            except (ValueError, AttributeError):
                bad(f"bad timestamp {case['timestamp']!r}")
        for key in ("history", "messages"):
            msgs = case.get(key, [])
            if not isinstance(msgs, list) or not all(
                isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
                for m in msgs
            ):
                bad(f"{key} must be a list of {{role, content}}")
        if not any(m.get("role") == "user" for m in case.get("messages", []) if isinstance(m, dict)):
            bad("messages hold no user message")
        expect = case.get("expect")
        if not isinstance(expect, dict):
            bad("missing expect")
            continue
        if extra := set(expect) - EXPECT_KEYS:
            bad(f"unknown expect keys {sorted(extra)}")
        if "route" in expect and expect["route"] not in ROUTES:
            bad(f"unknown route {expect['route']!r}")
        if expect.get("reason") is not None:
            if expect["reason"] not in SKIP_REASONS:
                bad(f"unknown reason {expect['reason']!r}")
            if expect.get("route", "skip") != "skip":
                bad("a skip reason on a case whose route is not skip")
        for key in LIST_KEYS & set(expect):
            if not isinstance(expect[key], list) or not all(isinstance(s, str) and s for s in expect[key]):
                bad(f"{key} must be a list of non-empty strings")
        for a, b in (("user_md_contains", "user_md_not_contains"), ("memory_md_contains", "memory_md_not_contains")):
            both = {s.lower() for s in expect.get(a, [])} & {s.lower() for s in expect.get(b, [])}
            if both:
                bad(f"{sorted(both)} both required and forbidden")
        initial = case.get("initial", {})
        for key, cap in (("user_md", USER_CAP), ("memory_md", MEMORY_CAP)):
            if key in initial and len(initial[key]) > cap:
                bad(f"initial {key} is {len(initial[key])} chars, over the {cap} cap")
    _fail_if(errors)


def test_core_initial_files_are_canonical() -> None:
    errors = []
    for where, case in CORE:
        initial = case.get("initial", {})
        for key, check in (("user_md", _canonical_user_problem), ("memory_md", _canonical_memory_problem)):
            if key in initial and (problem := check(initial[key])):
                errors.append(f"{where} {case['id']}: initial {key} {problem}")
    _fail_if(errors)


def test_expectations_are_consistent_with_the_route() -> None:
    """A file the route says is untouched can only 'contain' what it already held."""
    errors = []
    untouched = {"skip": ("user_md", "memory_md"), "user": ("memory_md",), "memory": ("user_md",)}
    for where, case in ALL:
        expect, initial = case["expect"], case.get("initial", {})
        for file in untouched.get(expect.get("route", ""), ()):
            before = initial.get(file, "").lower()
            for s in expect.get(f"{file}_contains", []):
                if s.lower() not in before:
                    errors.append(
                        f"{where} {case['id']}: route {expect['route']} leaves {file} alone, yet expects {s!r}"
                    )
        if expect.get("route") == "skip" and expect.get("reason") is None and "initial" not in case:
            # a skip without a reason is only meaningful as a duplicate of what the files hold, or filler
            if "filler" not in case.get("tags", []):
                errors.append(f"{where} {case['id']}: reasonless skip with no initial files")
    _fail_if(errors)


def test_relative_dates_are_asserted_as_absolute_dates() -> None:
    errors = []
    for where, case in ALL:
        if "relative_date" not in case.get("tags", []) or case["expect"].get("route") == "skip":
            continue
        if "timestamp" not in case:
            errors.append(f"{where} {case['id']}: relative date without a timestamp")
        if not any(DATE.fullmatch(s) for s in case["expect"].get("memory_md_contains", [])):
            errors.append(f"{where} {case['id']}: relative date but no date (YYYY-MM-DD, [YYYY-MM] or [YYYY]) in memory_md_contains")
    _fail_if(errors)


def test_near_cap_cases_start_near_the_cap_and_assert_it() -> None:
    errors = []
    for where, case in ALL:
        if "near_cap" not in case.get("tags", []):
            continue
        initial, expect = case.get("initial", {}), case["expect"]
        near = [
            key
            for key, cap in (("user_md", USER_CAP), ("memory_md", MEMORY_CAP))
            if len(initial.get(key, "")) >= 0.9 * cap and f"{key}_max_chars" in expect
        ]
        if not near:
            errors.append(f"{where} {case['id']}: near_cap without a file at >=90% of its cap and a max_chars check")
    _fail_if(errors)


def test_core_suites_are_big_enough_and_cover_every_route_and_reason() -> None:
    by_lang: dict[str, list[dict[str, Any]]] = {}
    for _, case in CORE:
        by_lang.setdefault(case.get("lang", "?"), []).append(case)
    assert len(CORE) >= 400, f"core suites hold {len(CORE)} cases, need >= 400"
    errors = []
    for lang in ("id", "zh", "th"):
        if len(by_lang.get(lang, [])) < 60:
            errors.append(f"{lang}: {len(by_lang.get(lang, []))} cases, need >= 60")
    for lang in sorted(LANGS):
        cases = by_lang.get(lang, [])
        routes = {c["expect"].get("route") for c in cases}
        reasons = {c["expect"].get("reason") for c in cases}
        tags = {t for c in cases for t in c.get("tags", [])}
        errors += [f"{lang}: no case with route {r}" for r in ("user", "memory", "skip", "mixed") if r not in routes]
        errors += [f"{lang}: no skip with reason {r}" for r in BASE_REASONS if r not in reasons]
        needed = ("overwrite", "correction", "forget", "duplicate", "relative_date", "near_cap", "multi", "hard")
        errors += [f"{lang}: no case tagged {t}" for t in needed if t not in tags]
        if not any(c.get("history") and c["expect"].get("reason") == "inferable" for c in cases):
            errors.append(f"{lang}: no inferable case with history")
    _fail_if(errors)


def test_core_initial_files_round_trip_through_the_ledgers() -> None:
    """Seed files must be read as the fields and entries they show, and render back unchanged."""
    from pipeline.ledgers import MemoryLog, UserProfile

    errors = []
    for where, case in CORE:
        initial = case.get("initial", {})
        if "user_md" in initial:
            text = initial["user_md"]
            profile = UserProfile.parse(text)
            shown = sum(line.startswith("- ") for line in text.splitlines())
            if profile.render() != text or len(profile.fields()) != shown:
                errors.append(f"{where} {case['id']}: initial user_md parses to {len(profile.fields())}/{shown} fields")
        if "memory_md" in initial:
            text = initial["memory_md"]
            log = MemoryLog.parse(text)
            shown = sum(line.startswith("- ") for line in text.splitlines())
            dated = [e for e in log.entries if e.date]
            if log.render() != text or len(dated) != shown:
                errors.append(f"{where} {case['id']}: initial memory_md parses to {len(dated)}/{shown} dated entries")
    _fail_if(errors)

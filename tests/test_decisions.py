"""Typed decisions: why a decision was made is its `rule` (a stable id) and, for a removal, its `removal` kind;
`detail` is words for people. No module branches on `detail`; rewording every detail changes no file, no outcome
and nothing the learned extractor reads; a removal erases or archives by its kind, whatever its words say."""

from __future__ import annotations

import ast
import random
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine
from pipeline.evals.cases import EngineSpec, load_cases
from pipeline.evals.runner import run_eval
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Turn

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "pipeline"

# --- nothing branches on detail -------------------------------------------------------------------------------------

# Callables a detail may be handed to: they carry it on (into a record, a redacted copy, a history line) or show it.
CARRIERS = {"r", "str", "Change", "Decision", "redact", "redact_for_storage", "_aside"}


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _branches_on_detail(tree: ast.AST) -> list[tuple[int, str]]:
    parent: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parent[child] = node
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _callee(node) in ("getattr", "hasattr") and any(
                isinstance(a, ast.Constant) and a.value == "detail" for a in node.args):
            found.append((node.lineno, "getattr(..., 'detail')"))
        if not (isinstance(node, ast.Attribute) and node.attr == "detail" and isinstance(node.ctx, ast.Load)):
            continue
        child: ast.AST = node
        up = parent.get(child)
        while up is not None and not isinstance(up, ast.stmt):
            if isinstance(up, (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.JoinedStr)) or (
                    isinstance(up, (ast.ListComp, ast.GeneratorExp)) and child is up.elt):
                break  # carried on as a value: a record, a list to show, a formatted string
            why = None
            if isinstance(up, ast.Compare):
                why = "compared"
            elif isinstance(up, (ast.IfExp, ast.If, ast.While, ast.Assert)) and child is up.test:
                why = "tested"
            elif isinstance(up, ast.comprehension) and child in up.ifs:
                why = "tested"
            elif isinstance(up, ast.Subscript) and child is up.value:
                why = "sliced"
            elif isinstance(up, ast.Attribute):
                why = f"read through .{up.attr}"
            elif isinstance(up, ast.Call) and child is not up.func:
                if _callee(up) in CARRIERS:
                    break
                why = f"handed to {_callee(up) or 'a call'}()"
            if why is not None:
                found.append((node.lineno, why))
                break
            child, up = up, parent.get(up)
        if isinstance(up, (ast.If, ast.While, ast.Assert)) and child is getattr(up, "test", None):
            found.append((node.lineno, "tested"))
    return found


def test_the_scan_finds_a_branch_on_detail() -> None:
    for code in ('if d.detail == "x": pass', 'y = d.detail in LOOSE', 'y = (d.detail or "").startswith("a")',
                 'y = f(d.detail)', 'y = d.detail[:3]', 'y = [a for a in b if a.detail]', 'if d.detail: pass',
                 'y = getattr(d, "detail")'):
        assert _branches_on_detail(ast.parse(code)), code
    for code in ('y = f"{d.detail}"', 'y = {"detail": r(d.detail)}', 'y = (d.detail or "") + ", more"',
                 'y = Change("user", "upsert", k, o, v, d.detail or "profile fact")'):
        assert not _branches_on_detail(ast.parse(code)), code


def test_no_module_reads_detail_to_decide_anything() -> None:
    offenders = {
        f"{path.relative_to(REPO)}:{line} ({why})"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, why in _branches_on_detail(ast.parse(path.read_text("utf-8")))
    }
    assert offenders == set()


# --- rewording every detail changes nothing --------------------------------------------------------------------------

SUITES = sorted((REPO / "evals").glob("*.jsonl"))


def _sample() -> list[Any]:
    cases = load_cases(SUITES)
    return cases[::6]  # every sixth case of every suite: each language, conversations, the adversarial suite


def _run(cases: list[Any]) -> list[tuple[Any, ...]]:
    outcomes = run_eval(cases, [EngineSpec("offline")], concurrency=2)["offline"]
    return [(o.case.id, o.predicted, o.error, [(c.name, c.passed) for c in o.checks], o.leaks, o.user_md, o.memory_md,
             [{k: v for k, v in d.items() if k != "detail"} for d in o.decisions]) for o in outcomes]


def _readings(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """What the learned models say of each turn (every probability), recorded as the engine reads it."""
    from pipeline.engines.offline import engine as offline_engine

    seen: list[tuple[Any, ...]] = []
    real_read = offline_engine.read

    def spy(ex: Any, text: str, assistant: str, decisions: Any, *args: Any) -> Any:
        reading = real_read(ex, text, assistant, decisions, *args)
        seen.append((text, assistant, tuple(reading.gate), reading.p_field, tuple(map(tuple, reading.tag_probs)),
                     tuple(reading.guesses)))
        return reading

    monkeypatch.setattr(offline_engine, "read", spy)
    return seen


def test_rewording_every_detail_changes_no_file_no_outcome_and_no_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = _sample()
    assert len(cases) > 200
    models = _readings(monkeypatch)
    plain = _run(cases)
    plain_models = sorted(models, key=repr)
    models.clear()
    noise = random.Random(7)
    read = Decision.__getattribute__

    def reworded(self: Decision, name: str) -> Any:
        value = read(self, name)
        if name == "detail" and value is not None:  # every read of a detail gets other words, each time
            return "".join(noise.choice("abc xyz:(),->") for _ in range(noise.randint(0, 40)))
        return value

    monkeypatch.setattr(Decision, "__getattribute__", reworded)
    assert Decision(quote="q", route="skip", detail="greeting, thanks or acknowledgement").detail != (
        "greeting, thanks or acknowledgement")
    again = _run(cases)
    changed = [a[0] for a, b in zip(plain, again, strict=True) if a != b]
    assert changed == []
    assert any(d["route"] != "skip" for case in plain for d in case[-1])  # the sample writes
    # ... and the models' every probability is what it was: no weight reads a detail.
    assert len(plain_models) > 200 and sorted(models, key=repr) == plain_models


def _old_head(detail: str | None) -> str:
    """How the shipped weights were trained to read a rule decision: the first words of its detail."""
    if not detail:
        return "-"
    return detail.split(":", 1)[0].split("(", 1)[0].strip()[:40]


def test_the_models_read_each_rule_decision_as_they_were_trained_to(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every rule decision the extractor reads carries a rule id, and the id stands for exactly the words the
    weights learned (the features `r:d=` and `st:d=` are what they were), so no weight went stale."""
    from pipeline.engines.offline import engine as offline_engine
    from pipeline.engines.offline.extractor_inputs import rule_class

    seen: list[Decision] = []
    real_read = offline_engine.read

    def spy(ex: Any, text: str, assistant: str, decisions: Any, *args: Any) -> Any:
        seen.extend(decisions)
        return real_read(ex, text, assistant, decisions, *args)

    monkeypatch.setattr(offline_engine, "read", spy)
    _run(_sample())
    assert len(seen) > 200
    assert [d for d in seen if not d.rule] == []
    # A sensitive skip's detail names only the kinds of data now ("health", not "sensitive: health": the reason
    # already says sensitive); its rule id still reads as the words the weights learned.
    sensitive = [d for d in seen if d.rule == "guard/sensitive"]
    assert sensitive and {rule_class(d) for d in sensitive} == {"sensitive"}
    assert {(d.rule, _old_head(d.detail)) for d in seen
            if d.rule != "guard/sensitive" and rule_class(d) != _old_head(d.detail)} == set()


# --- a removal erases or archives by its kind ------------------------------------------------------------------------


class Scripted(Engine):
    name = "scripted"

    def __init__(self, *batches: list[Decision]) -> None:
        self.batches = list(batches)

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        return Classification(decisions=self.batches.pop(0), engine=self.name)

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        raise AssertionError("not reached")


def _said(pipe: MemoryPipeline, user: str, text: str) -> None:
    pipe.process_turn(user, [{"role": "user", "content": text}])


def test_a_removal_erases_or_archives_by_its_kind_not_by_its_words(tmp_path: Path) -> None:
    write = Decision(quote="I'm a nurse", route="user", op="upsert", section="Identity", key="Role", value="nurse")
    # Words that say the opposite of each kind: the kind decides.
    change = Decision(quote="I'm not a nurse any more", route="user", op="remove", match="Role",
                      removal="change_of_fact", detail="forget requested")
    forget = Decision(quote="forget my job", route="user", op="remove", match="Role", detail="no longer true: removes it")
    with MemoryPipeline(root=tmp_path / "a", engine=Scripted([write], [change])) as pipe:
        _said(pipe, "ana", "I'm a nurse")
        _said(pipe, "ana", "I'm not a nurse any more")
        assert "nurse" not in pipe.show("ana")["user_md"]
        assert any("nurse" in hit["text"] for hit in pipe.recall("ana", "nurse"))  # archived like an overwrite
    with MemoryPipeline(root=tmp_path / "b", engine=Scripted([write.model_copy()], [forget])) as pipe:
        _said(pipe, "bo", "I'm a nurse")
        _said(pipe, "bo", "forget my job")
        assert "nurse" not in pipe.show("bo")["user_md"]
        assert pipe.recall("bo", "nurse") == []  # erased everywhere
        assert all("nurse" not in str(row.get("old_value")) for row in pipe.history("bo") if row["op"] != "upsert")
    assert Decision(quote="q", route="user", op="remove").removal == "forget"  # the privacy-safe default


def test_the_offline_rules_say_which_kind_of_removal(tmp_path: Path) -> None:
    with MemoryPipeline(root=tmp_path) as pipe:
        _said(pipe, "ana", "I'm a nurse.")
        changed = pipe.process_turn("ana", [{"role": "user", "content": "I'm no longer a nurse"}]).decisions
        _said(pipe, "ana", "I live in Lyon.")
        forgot = pipe.process_turn("ana", [{"role": "user", "content": "forget where I live"}]).decisions
    assert [(d.op, d.rule, d.removal) for d in changed] == [("remove", "change/no-longer", "change_of_fact")]
    assert [(d.op, d.removal) for d in forgot] == [("remove", "forget")] and forgot[0].rule.startswith("forget/")

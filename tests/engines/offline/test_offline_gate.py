"""The learned gate over the offline rules: small talk the rules would write is skipped, explicit asks stay."""

from __future__ import annotations

import ast
import json
from datetime import datetime, timezone
from pathlib import Path

from pipeline.engines.offline import OfflineEngine
from pipeline.engines.offline.gate import WEIGHTS_PATH, FeatureConfig, Gate, default_gate, turn_features
from pipeline.engines.offline.rules import EN
from pipeline.types import Decision, Message, Turn

CLASSES = ("user", "memory", "mood", "one_off", "vague", "inferable", "sensitive")


def turn(text: str, assistant: str = "") -> Turn:
    history = [Message(role="assistant", content=assistant)] if assistant else []
    return Turn(user_id="u", turn_id="t", timestamp=datetime(2026, 7, 30, 9, tzinfo=timezone.utc),
                messages=[Message(role="user", content=text)], history=history)


def veto_gate(word: str, *, write_threshold: float = 0.5, candidate_threshold: float = 0.5) -> Gate:
    """A hand-set gate: a turn containing `word` is vague small talk, anything else is a profile fact."""
    return Gate(CLASSES, [2.0, -5, -5, -5, -3.0, -5, -5], {"w:" + word: [-2.0, 0, 0, 0, 3.0, 0, 0]},
                FeatureConfig(), write_threshold, candidate_threshold)


def writes(decisions: list[Decision]) -> set[str]:
    return {d.route for d in decisions if d.route != "skip"}


def test_gate_vetoes_a_rule_write_and_says_why() -> None:
    text = "I like hiking in the mountains, cool"
    assert writes(OfflineEngine(gate=False).classify(turn(text), "", "").decisions) == {"user"}
    decisions = OfflineEngine(gate=veto_gate("cool")).classify(turn(text), "", "").decisions
    assert writes(decisions) == set()
    assert {d.reason for d in decisions} == {"vague"}
    assert all(not d.candidate for d in decisions)


def test_gate_lets_a_fact_through_unchanged() -> None:
    text = "I like hiking in the mountains"
    plain = OfflineEngine(gate=False).classify(turn(text), "", "").decisions
    gated = OfflineEngine(gate=veto_gate("cool")).classify(turn(text), "", "").decisions
    assert gated == plain and writes(gated) == {"user"}


def test_borderline_fact_becomes_a_candidate_not_a_write() -> None:
    gate = veto_gate("cool", write_threshold=0.9, candidate_threshold=0.05)
    decisions = OfflineEngine(gate=gate).classify(turn("I like hiking in the mountains, cool"), "", "").decisions
    assert writes(decisions) == set()
    cands = [d for d in decisions if d.candidate]
    assert cands and all(d.route == "skip" and d.key and d.value and d.section for d in cands)


def test_explicit_requests_are_never_vetoed() -> None:
    gate = veto_gate("cool")
    engine = OfflineEngine(gate=gate)
    forget = engine.classify(turn("cool. forget my location"), "# USER\n\n## Identity\n- Location: Bandung\n", "").decisions
    assert any(d.op == "remove" for d in forget)
    remember = engine.classify(turn("remember that I'm allergic to cool peanuts"), "", "").decisions
    assert writes(remember)


def test_assistant_line_and_rules_are_features() -> None:
    feats = turn_features("a nurse", "What do you do for work?", EN, [], FeatureConfig())
    assert "aw:work" in feats and "a:ends?" in feats and "r:turn=skip" in feats
    assert "w:nurse" in feats and "w:<s> a" in feats


def test_shipped_weights_load_with_the_standard_library() -> None:
    gate = default_gate()
    assert gate is not None and WEIGHTS_PATH.stat().st_size < 1_500_000
    data = json.loads(WEIGHTS_PATH.read_text(encoding="utf-8"))
    assert Gate.from_json(data).classes == gate.classes
    assert 0.0 < gate.candidate_threshold <= gate.write_threshold < 1.0
    source = Path(__file__).resolve().parents[3] / "pipeline" / "engines" / "offline" / "gate.py"
    imported = {a.name.split(".")[0] for node in ast.walk(ast.parse(source.read_text())) if isinstance(node, ast.Import)
                for a in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(ast.parse(source.read_text()))
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"__future__", "json", "math", "re", "collections", "dataclasses", "functools", "pathlib",
                        "typing", "operator", "pipeline"}


def test_round_trip_keeps_the_verdict() -> None:
    gate = veto_gate("cool")
    again = Gate.from_json(json.loads(json.dumps(gate.to_json())))
    feats = turn_features("that's cool", "", EN, [], FeatureConfig())
    assert again.verdict(feats) == gate.verdict(feats)


def test_fields_the_gate_was_not_trained_on_are_left_to_the_rules() -> None:
    text = "I'm allergic to peanuts, cool"
    plain = OfflineEngine(gate=False).classify(turn(text), "", "").decisions
    assert any(d.key == "Allergies" for d in plain)
    judged_all = OfflineEngine(gate=veto_gate("cool")).classify(turn(text), "", "").decisions
    assert not writes(judged_all)
    gate = veto_gate("cool")
    narrow = Gate(gate.classes, gate.bias, gate.weights, gate.config, 0.5, 0.5, judged_keys=["Likes"])
    decisions = OfflineEngine(gate=narrow).classify(turn(text), "", "").decisions
    assert any(d.key == "Allergies" and d.route == "user" for d in decisions)


def test_shipped_gate_keeps_plain_answers_about_oneself() -> None:
    engine = OfflineEngine()  # the shipped learned model: the extractor (extractor.py), or this gate without it
    assert engine.extractor is not None or engine.gate is not None
    for text, asked in [("I work as a nurse at a children's hospital", "What do you do for a living?"),
                        ("I have two cats, Miso and Tofu", "Do you have any pets?")]:
        assert writes(engine.classify(turn(text, asked), "", "").decisions) == {"user"}, text

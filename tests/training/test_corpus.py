"""The labeled training corpus stays sound: every label follows training/KEYS.md, and conversations expand."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _corpus() -> ModuleType:
    spec = importlib.util.spec_from_file_location("training_corpus", ROOT / "training" / "corpus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


corpus = _corpus()


def test_every_label_in_the_repository_passes_the_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert corpus.main(["check"]) == 0, capsys.readouterr().out


def test_the_vocabulary_is_read_from_keys_md_with_a_section_per_key() -> None:
    assert corpus.KEYS["Location"] == "Identity"
    assert corpus.KEYS["Response style"] == "Preferences"
    assert corpus.KEYS["Allergies"] == "Constraints"
    assert corpus.KEYS["Goal"] == "Goals"
    assert set(corpus.KEYS.values()) <= set(corpus.SECTIONS)


@pytest.mark.parametrize(
    ("labels", "problem"),
    [
        ({"fields": [["Location", "Busan"]]}, "not a span"),
        ({"fields": [["Hometown", "Seoul"]]}, "outside the vocabulary"),
        ({"skip": "boring"}, "skip reason"),
        ({"skip": "vague", "fields": [["Name", "Bo"]]}, "carries fields"),
        ({}, "non-empty"),
    ],
)
def test_a_bad_label_is_named(labels: dict[str, object], problem: str) -> None:
    errors = corpus.label_errors(labels, "I'm Bo and I live in Seoul.")
    assert any(problem in e for e in errors), errors


def test_a_written_conversation_becomes_one_case_per_labeled_user_line(tmp_path: Path) -> None:
    conv = {
        "conv": "t-001", "lang": "en", "setting": "peer", "timestamp": "2026-07-06T19:40:00+01:00",
        "lines": [
            ["other", "hey, new here?"],
            ["user", "yes! I'm Bo and I live in Seoul", {"fields": [["Name", "Bo"], ["Location", "Seoul"]]}],
            ["other", "nice, what brought you?"],
            ["user", "adopted a puppy last week haha", {"entries": [["Adopted a puppy.", "last week"]]}],
            ["user", "anyway how are you", {"skip": "one_off"}],
        ],
    }
    path = tmp_path / "x.conv.jsonl"
    path.write_text(json.dumps(conv) + "\n", encoding="utf-8")
    cases = list(corpus.all_labeled_turns([path]))
    assert [c["expect"].get("route") for c in cases] == ["user", "memory", "skip"]
    assert cases[0]["messages"][0] == {"role": "assistant", "content": "hey, new here?"}
    assert cases[0]["expect"]["user_md_contains"] == ["Bo", "Seoul"]
    assert cases[1]["history"][-1]["content"].startswith("yes! I'm Bo")
    assert {c["group"] for c in cases} == {"t-001"}


def test_the_corpus_is_large_enough_to_learn_from() -> None:
    # The shared real training turns join when they are beside the checkout; the repository alone must hold 6,500.
    own = sum(1 for _ in corpus.all_labeled_turns(real_train=None))
    assert own >= 6500


def test_one_source_for_every_real_turn_id() -> None:
    """Leave-one-source-out folds and the per-source figures read the same mapping (corpus.source_of)."""
    assert [corpus.source_of(i) for i in ("xp-en-valid-1-t3", "xp-zh-2", "mwoz-9", "kd-4", "ccd-1", "star-7", "spc-031")] \
        == ["xp-en", "xp-zh", "multiwoz", "kdconv", "chitchat", "star", "spc"]
    assert corpus.source_of("adv-en-benign-28") == "written"
    assert all(i.startswith(corpus.REAL_PREFIXES) for i in ("xp-en-1", "mwoz-1", "kd-1", "ccd-1", "star-1", "spc-1"))

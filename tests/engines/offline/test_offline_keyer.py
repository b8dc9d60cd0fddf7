"""The keyer: a self-attributed fact no fact rule names becomes a USER.md field under a key its words name."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from pipeline.engines.offline import OfflineEngine
from pipeline.engines.offline.key_cues import key_for
from pipeline.engines.offline.keyer import WEIGHTS_PATH, Keyer, default_keyer
from pipeline.types import Decision, Message, Turn


def turn(text: str, assistant: str = "") -> Turn:
    history = [Message(role="assistant", content=assistant)] if assistant else []
    return Turn(user_id="u", turn_id="t", timestamp=datetime(2026, 7, 30, 9, tzinfo=timezone.utc),
                messages=[Message(role="user", content=text)], history=history)


def sure_keyer(write_threshold: float = 0.5, candidate_threshold: float = 0.35, p: float = 0.95) -> Keyer:
    """A hand-set keyer whose fact model rates every eligible clause `p`."""
    import math

    return Keyer([0.0, 0.0], {"bias": [0.0, math.log(p / (1 - p))]}, write_threshold, candidate_threshold)


def engine(keyer: Keyer | None) -> OfflineEngine:
    return OfflineEngine(gate=False, keyer=keyer if keyer is not None else False)


def user_writes(decisions: list[Decision]) -> list[Decision]:
    return [d for d in decisions if d.route == "user" and d.op == "upsert"]


# Sentences no fact rule names (the rules alone skip them), one per language.
NO_RULE = [
    ("my older brother fixes boats for a living down in Lisbon", "Family", "brother"),
    ("adik saya masih kuliah teknik sipil di Surabaya", "Family", "adik"),
    ("我们家三个孩子都在学钢琴", "Family", "孩子"),
    ("พี่สาวผมสอนภาษาอังกฤษอยู่ที่ขอนแก่น", "Family", "พี่สาว"),
]


@pytest.mark.parametrize(("text", "key", "word"), NO_RULE)
def test_rules_alone_skip_what_the_keyer_writes_under_a_named_key(text: str, key: str, word: str) -> None:
    assert user_writes(engine(None).classify(turn(text), "", "").decisions) == []
    written = user_writes(engine(sure_keyer()).classify(turn(text), "", "").decisions)
    assert [(d.key, word in (d.value or "")) for d in written] == [(key, True)]
    assert written[0].detail is not None and written[0].detail.startswith("keyer:")


def test_no_named_key_no_field() -> None:
    # A first-person remark whose words name no key: there is no catch-all field to put it in.
    text = "I said pretty much the same thing to her"
    assert key_for(text, "en") is None
    assert user_writes(engine(sure_keyer()).classify(turn(text), "", "").decisions) == []


def test_negation_and_tense_are_kept_in_the_value() -> None:
    written = user_writes(engine(sure_keyer()).classify(turn("my parents never owned a television"), "", "").decisions)
    assert written and "never owned" in (written[0].value or "")
    written = user_writes(engine(sure_keyer()).classify(turn("anak saya tidak suka sayur sama sekali"), "", "").decisions)
    assert written and "tidak suka" in (written[0].value or "")


def test_under_the_write_threshold_the_fact_is_a_candidate_not_a_field() -> None:
    decisions = engine(sure_keyer(p=0.4)).classify(turn("my older brother fixes boats for a living down in Lisbon"), "", "").decisions
    assert user_writes(decisions) == []
    candidates = [d for d in decisions if d.candidate]
    assert [(c.key, c.route) for c in candidates] == [("Family", "skip")]


def test_far_under_the_threshold_nothing_is_kept() -> None:
    decisions = engine(sure_keyer(p=0.1)).classify(turn("my older brother fixes boats for a living down in Lisbon"), "", "").decisions
    assert user_writes(decisions) == [] and not any(d.candidate for d in decisions)


def test_a_guess_never_replaces_a_stated_single_field_but_joins_a_collecting_one() -> None:
    user_md = "## Identity\n- Location: Porto\n- Family: two sisters\n"
    decisions = engine(sure_keyer()).classify(turn("we live out near the old harbour now, quieter town"), user_md, "").decisions
    assert user_writes(decisions) == []  # Location is one value the user stated: a guess does not overwrite it
    decisions = engine(sure_keyer()).classify(turn("my older brother fixes boats for a living down in Lisbon"), user_md, "").decisions
    written = user_writes(decisions)
    assert written and written[0].value is not None and written[0].value.startswith("two sisters; ")


def test_questions_greetings_and_the_other_speakers_facts_stay_skipped() -> None:
    keyer = sure_keyer()
    for text in ("do you have any kids?", "hi there, thanks so much!", "your brother sounds like a great guy",
                 "你女儿在哪里上学？"):
        assert user_writes(engine(keyer).classify(turn(text), "", "").decisions) == [], text


def test_the_rules_write_is_left_alone() -> None:
    # When a fact rule names the field, the keyer adds nothing.
    decisions = engine(sure_keyer()).classify(turn("I live in Porto and my sister is a nurse"), "", "").decisions
    assert not any((d.detail or "").startswith("keyer:") for d in decisions)


def test_sensitive_turns_gain_nothing() -> None:
    text = "my wife's card number is 4111 1111 1111 1111"
    decisions = engine(sure_keyer()).classify(turn(text), "", "").decisions
    assert user_writes(decisions) == []
    assert "4111" not in json.dumps([d.model_dump() for d in decisions])


def test_shipped_weights_are_small_and_load_with_the_standard_library() -> None:
    assert WEIGHTS_PATH.is_file() and WEIGHTS_PATH.stat().st_size < 400 * 1024
    keyer = default_keyer()
    assert keyer is not None and 0.0 < keyer.candidate_threshold <= keyer.write_threshold < 1.0


# With the shipped weights: plain answers about one's own people, pets and work, in four languages.
SHIPPED = [
    ("do you have any siblings?", "yeah, my little sister is a dentist in Leeds", "sister"),
    ("kamu punya hewan peliharaan?", "punya dong, dua kucing oren di rumah", "kucing"),
    ("你有孩子吗？", "有，我儿子今年上小学三年级", "儿子"),
    ("ทำงานอะไรอยู่ครับ", "ตอนนี้ทำงานเป็นพยาบาลที่โรงพยาบาลในเชียงใหม่ครับ", "พยาบาล"),
]


@pytest.mark.parametrize(("assistant", "text", "word"), SHIPPED)
def test_shipped_keyer_writes_plain_answers_about_oneself(assistant: str, text: str, word: str) -> None:
    decisions = OfflineEngine().classify(turn(text, assistant), "", "").decisions
    written = user_writes(decisions)
    assert written and any(word in (d.value or "") for d in written), [d.detail for d in decisions]


def test_shipped_keyer_skips_small_talk() -> None:
    for assistant, text in (("how was your weekend?", "it was fine, nothing special really"),
                            ("what do you think of that?", "haha that's so funny, love it")):
        assert user_writes(OfflineEngine().classify(turn(text, assistant), "", "").decisions) == [], text


def test_a_plan_is_never_a_profile_field() -> None:
    for text in ("my wife and I will fly to Osaka to see her parents", "saya dan istri akan pindah ke Bali bulan depan",
                 "我和我女朋友打算下个月去成都", "ผมกับแฟนจะไปเที่ยวเชียงรายกัน"):
        decisions = engine(sure_keyer()).classify(turn(text), "", "").decisions
        assert not any((d.detail or "").startswith(("keyer:", "candidate: keyer")) for d in decisions), text


def test_the_value_starts_where_the_user_speaks_of_themselves() -> None:
    written = user_writes(engine(sure_keyer()).classify(turn("all good thanks, these days my sister and I share a flat"), "", "").decisions)
    assert [d.value for d in written] == ["these days my sister and I share a flat"]


def test_narration_does_not_remove_a_field_that_only_shares_a_pronoun() -> None:
    user_md = "## Identity\n- Family: gue tinggal sama istri di Depok\n"
    decisions = OfflineEngine(gate=False, keyer=False).classify(turn("gue berhenti dari klub catur, ga sempet lagi"), user_md, "").decisions
    assert not any(d.op == "remove" for d in decisions)


def test_a_plural_subject_is_kept_whole_in_the_value() -> None:
    written = user_writes(engine(sure_keyer()).classify(turn("我们全家周末都去郊外钓鱼"), "", "").decisions)
    assert [d.value for d in written] == ["我们全家周末都去郊外钓鱼"]

"""The offline engine as every user meets it: the rules plus the learned extractor (extractor.py).

The first tests are sentences a new user types on day one; the rest pin the write policy's "clean values or
nothing" (training/KEYS.md): a value is a short span of the user's own words, never a fragment, a function word, a
question, advice to the other person, an exclamation or a cut that inverts the meaning.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from pipeline.engines.offline import extractor as X
from pipeline.engines.offline.engine import OfflineEngine, _what_it_was_about
from pipeline.engines.offline.rules import LEXICONS
from pipeline.types import Decision, Message, Turn

ENGINE = OfflineEngine()
RULES = OfflineEngine(extractor=False)
needs_weights = pytest.mark.skipif(ENGINE.extractor is None, reason="the extractor's weights are not shipped")


def classify(text: str, *, engine: OfflineEngine = ENGINE, user_md: str = "", assistant: str = "") -> list[Decision]:
    history = [Message(role="assistant", content=assistant)] if assistant else []
    turn = Turn(user_id="u", turn_id="t", timestamp=datetime.fromisoformat("2026-07-30T09:00:00+00:00"),
                messages=[Message(role="user", content=text)], history=history)
    return engine.classify(turn, user_md, "").decisions


def fields(text: str, **kw: object) -> dict[str, str]:
    return {d.key or "": d.value or "" for d in classify(text, **kw) if d.route == "user" and d.op == "upsert"}  # type: ignore[arg-type]


# --- sentences a user would recognise --------------------------------------------------------------------------------


@needs_weights
def test_a_name_and_a_city() -> None:
    assert fields("I'm Bo and I live in Seoul.") == {"Name": "Bo", "Location": "Seoul"}


@needs_weights
def test_a_name_a_job_and_a_city_in_one_breath() -> None:
    assert fields("I'm Ana, a data engineer in Porto.") == {"Name": "Ana", "Role": "data engineer", "Location": "Porto"}


@needs_weights
@pytest.mark.parametrize("number", ["1", "3"])
def test_a_name_and_a_favourite_number(number: str) -> None:
    got = fields(f"I'm Priya and my favourite number is {number}.")
    assert got.pop("Name") == "Priya"
    assert [v for v in got.values() if number in v], got  # the favourite is kept, under a favourite key ...
    assert all(k.startswith("Favo") for k in got), got
    assert not any("Priya" in v for v in got.values()), got  # ... never `Likes: Priya and my favourite number is 1`


@needs_weights
def test_the_same_sentence_with_another_number_behaves_the_same() -> None:
    one = fields("I'm Priya and my favourite number is 1.")
    three = fields("I'm Priya and my favourite number is 3.")
    assert sorted(one) == sorted(three)
    assert {k: v.replace("1", "3") for k, v in one.items()} == three


# --- clean values or nothing -----------------------------------------------------------------------------------------

EVERYDAY = [
    "I'm Bo and I live in Seoul.", "I'm Ana, a data engineer in Porto.", "I have two cats and a dog named Rex",
    "I work as a nurse at the city hospital", "my wife is a teacher", "I'm vegetarian", "I don't eat meat",
    "I grew up in a small town in Ohio", "I'm 34", "I love country music", "saya tinggal di Bandung",
    "aku kerja jadi perawat", "我住在首尔", "我是护士", "我有两只猫", "ผมชื่อสมชาย", "ฉันชอบกาแฟดำ",
    "hey! yeah I'm a huge fan of hiking, what about you?", "haha yes, I have two cats, what about you?",
]
_NOT_AT_START = {"and", "but", "or", "so", "i", "i'm", "me", "is", "am", "dan", "tapi", "saya", "aku"}
_NOT_AT_END = {"and", "or", "but", "to", "of", "the", "a", "an", "in", "on", "at", "with", "for", "my", "is", "dan", "di"}


@needs_weights
@pytest.mark.parametrize("text", EVERYDAY)
def test_values_are_clean_spans_of_the_users_words(text: str) -> None:
    for d in classify(text):
        if d.route != "user" or d.op != "upsert" or not d.value or (d.detail or "").startswith("profile fact"):
            continue  # the rules' own values are theirs to keep clean (test_offline_policy.py)
        for value in d.value.split("; "):  # a collecting key holds several values
            assert value.casefold() in text.casefold(), (value, text)
            words = value.casefold().split()
            assert words[0] not in _NOT_AT_START and words[-1] not in _NOT_AT_END, (d.key, value)
            assert "?" not in value and "!" not in value, (d.key, value)


@needs_weights
def test_a_negation_stays_with_its_value() -> None:
    for d in classify("I don't eat meat"):
        if d.route == "user" and d.value:
            assert "n't" in d.value or "not" in d.value or d.value.casefold().startswith("no"), d.value


@pytest.mark.parametrize("engine", [ENGINE, RULES], ids=["extractor", "rules"])
@pytest.mark.parametrize("text", ["Never give up!", "never stop sending dog pics", "Always wet. The Waikato special"])
def test_an_exclamation_is_no_response_style(engine: OfflineEngine, text: str) -> None:
    assert not any(d.key == "Response style" for d in classify(text, engine=engine))


@pytest.mark.parametrize("engine", [ENGINE, RULES], ids=["extractor", "rules"])
def test_a_negative_instruction_keeps_its_negation(engine: OfflineEngine) -> None:
    styles = [d.value for d in classify("never use semicolons", engine=engine) if d.key == "Response style"]
    assert styles == ["never use semicolons"]


@pytest.mark.parametrize("engine", [ENGINE, RULES], ids=["extractor", "rules"])
@pytest.mark.parametrize("text", ["Don't forget to take it easy", "remember to drink some water!",
                                  "Here's a pic from when we met up", "here is a photo of the view"])
def test_advice_and_pictures_are_no_memory(engine: OfflineEngine, text: str) -> None:
    assert not any(d.route == "memory" for d in classify(text, engine=engine))


@pytest.mark.parametrize("text", ["I pushed the repo to GitHub yesterday", "the project and I finally shipped it yesterday",
                                  "we closed the project last week after the demo"])
def test_a_function_word_is_never_an_entry_topic(text: str) -> None:
    for d in classify(text, engine=RULES):
        assert (d.topic or "").casefold() not in {"to", "and", "last", "the", "this"}, d.topic


def test_an_entry_keeps_the_sentence_that_says_what_it_was_about() -> None:
    decisions = classify("Yesterday I visited a place that holds memories. It was my mother's old house.", engine=RULES)
    entries = [d.entry or "" for d in decisions if d.route == "memory"]
    assert len(entries) == 1 and "mother's old house" in entries[0], decisions
    joined = _what_it_was_about([Decision(quote="Kemarin aku ke tempat penuh kenangan.", route="memory", op="append",
                                          entry="Ke tempat penuh kenangan."),
                                 Decision(quote="Itu rumah lama ibuku.", route="skip", reason="vague")])
    assert joined[0].entry == "Ke tempat penuh kenangan. Itu rumah lama ibuku."


# --- the extractor's parts -------------------------------------------------------------------------------------------


def test_tokens_keep_their_offsets() -> None:
    text = "I'm Bo, 我住在首尔 ผมชอบ"
    toks = X.tokenize(text)
    assert [text[t.start:t.end] for t in toks][:4] == ["I'm", "Bo", ",", "我"]
    assert all(text[t.start:t.end].casefold() == t.norm for t in toks)
    assert {t.kind for t in toks} == {"w", "p", "c"}


def test_spans_are_runs_of_inside_tokens_without_punctuation() -> None:
    toks = X.tokenize("I live in Seoul , Korea")
    probs = [[0.9, 0.05, 0.05], [0.9, 0.05, 0.05], [0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.3, 0.1, 0.6], [0.2, 0.1, 0.7]]
    spans = X.spans_of(probs, 0.5, toks)
    assert [(s.first, s.last) for s in spans] == [(3, 6)]
    assert spans[0].confidence == pytest.approx(0.7)


@pytest.mark.parametrize(("text", "span", "want"), [
    ("and I love country music", (0, 5), "love country music"),
    ("I don't eat meat", (2, 4), "don't eat meat"),
    ("I do not eat meat", (3, 5), "do not eat meat"),
    ("my dog is named Rex and", (1, 6), "dog is named Rex"),
    ("do you like it?", (2, 4), None),
    ("it was that", (0, 3), None),
])
def test_clean_span(text: str, span: tuple[int, int], want: str | None) -> None:
    toks = X.tokenize(text)
    cut = X.clean_span(text, toks, *span)
    assert (X.value_text(text, toks, *cut) if cut else None) == want


def test_weights_round_trip() -> None:
    model = X.Linear.from_float(("a", "b"), [0.1, -0.1], {"x": [1.0, -1.0], "y": [0.001, 0.0]}, min_abs=0.01)
    again = X.Linear.from_json(model.to_json())
    assert set(again.index) == {"x"}
    assert again.probs(["x"]) == pytest.approx(model.probs(["x"]))
    assert again.probs(["x"])[0] > 0.8


@needs_weights
def test_hybrid_calls_the_model_only_for_turns_that_may_hold_something() -> None:
    turn = Turn(user_id="u", turn_id="t", timestamp=datetime.fromisoformat("2026-07-30T09:00:00+00:00"),
                messages=[Message(role="user", content="thanks!")])
    assert ENGINE.needs_model(turn)[0] is False
    turn = turn.model_copy(update={"messages": [Message(role="user", content="my daughter just started college in Leeds")]})
    assert ENGINE.needs_model(turn)[0] is True


@needs_weights
def test_the_stacker_weighs_only_what_the_engine_computes() -> None:
    """A stacker input the engine never computes would read 0 at run time whatever the turn (trainer and engine
    drifted apart): every name in the shipped weights is one `stack_values` gives."""
    assert ENGINE.extractor is not None
    given: set[str] = set()
    for lang, lex in LEXICONS.items():
        signs = X.turn_signs("I live in Oslo?", "Where do you live?", lex, [], [], lambda d: False)
        given |= set(X.stack_values([1 / 7] * 7, [[0.5, 0.3, 0.2]], True, False, lang, 5, True, False, signs))
    assert set(ENGINE.extractor.stacker.names) <= given


def test_turn_signs_of_a_bare_answer() -> None:
    signs = X.turn_signs("Oslo, since 2019", "Where do you live these days?", LEXICONS["en"], [], [], lambda d: False)
    assert signs["asked"] == signs["a_q"] == 1.0
    assert signs["q"] == signs["fp"] == signs["rule_mem"] == 0.0

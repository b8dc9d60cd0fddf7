"""The write policy of docs/design.md in the offline rules: what may become a USER.md field, a MEMORY.md entry or a removal.

Each case is a shape of real small talk the rules used to store (a catch-all `About`, `Likes: it`, a Response
style from "Never ...", a removal from "my album dropped"); the sentences are written here, in four languages.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from pipeline.engines.offline.engine import OfflineEngine
from pipeline.types import Decision, Message, Turn

# The rules alone: the learned gate (when its weights ship) may veto writes, never choose what is written.
ENGINE = OfflineEngine(extractor=False)
PROFILE = ("# USER\n\n## Identity\n- Name: Sam\n- Location: Lisbon\n- Address: Rua Nova 12\n- Role: nurse\n\n"
           "## Preferences\n- Coffee: flat white\n- Likes: hiking\n\n## Constraints\n- Diet: vegetarian\n")


def classify(text: str, *, user_md: str = "", history: list[tuple[str, str]] | None = None) -> list[Decision]:
    turn = Turn(user_id="u", turn_id="t", timestamp=datetime.fromisoformat("2026-07-30T09:00:00+00:00"),
                messages=[Message(role="user", content=text)],
                history=[Message(role=r, content=c) for r, c in (history or [])])
    return ENGINE.classify(turn, user_md, "").decisions


def writes(decisions: list[Decision]) -> list[Decision]:
    return [d for d in decisions if d.route != "skip"]


@pytest.mark.parametrize("text", [
    # first-person remarks with no concrete fact: once `About: ...`
    "i'm doing good, just waiting for the bus", "I should look into that someday", "I know someone like that",
    "saya pikir itu bagus sekali", "saya belum pernah dengar", "我觉得挺好的", "我也这么想", "ฉันว่ามันก็ดีนะ",
    # values that say nothing or point back at the conversation: once `Likes: it`, `Hobbies: play`
    "I like it", "I love them all", "I just love how colourful they are", "I play", "saya suka itu", "我喜欢这个",
    # experience remarks are not background
    "I've never been to a rodeo before", "I've never heard of that band", "我从来没试过",
])
def test_small_talk_writes_nothing(text: str) -> None:
    decisions = classify(text)
    assert writes(decisions) == [], [(d.key, d.value) for d in writes(decisions)]
    assert all(d.reason in ("vague", "one_off", "mood") for d in decisions)


@pytest.mark.parametrize("text", [
    "I like that you picked the blue one", "I love your garden", "saya suka rumah kamu", "我喜欢你的猫",
    "ฉันชอบบ้านของคุณ",
])
def test_what_the_user_says_about_the_other_speaker_is_not_their_fact(text: str) -> None:
    assert writes(classify(text)) == []


@pytest.mark.parametrize("text", [
    "I'm sorry to hear that", "I'm afraid not", "I'm a little nervous", "I'm not kidding", "sorry about your dog",
    "saya turut berduka", "aku agak gugup", "真遗憾", "我有点紧张", "เสียใจด้วยนะ",
])
def test_apologies_and_passing_feelings_are_mood(text: str) -> None:
    decisions = classify(text)
    assert writes(decisions) == []
    assert decisions[0].reason == "mood"


@pytest.mark.parametrize("text", ["Aduh", "Wah", "Hmm okay", "Saya Bingung"])
def test_names_come_only_from_an_introduction(text: str) -> None:
    assert not any(d.key == "Name" for d in classify(text, history=[("user", "saya suka masak")]))


@pytest.mark.parametrize(("text", "name"), [("I'm Priya, nice to meet you", "Priya"), ("nama saya Bayu", "Bayu"),
                                             ("我叫王芳", "王芳"), ("ผมชื่อต้นครับ", "ต้น")])
def test_a_real_introduction_gives_the_name(text: str, name: str) -> None:
    assert [(d.key, d.value) for d in writes(classify(text))] == [("Name", name)]


@pytest.mark.parametrize("text", ["Never done it before", "Always loved that song", "Whenever we meet we eat tacos"])
def test_always_never_remarks_are_not_response_style(text: str) -> None:
    assert not any((d.key or "").startswith("Response") for d in classify(text))


@pytest.mark.parametrize(("text", "needle"), [
    ("always answer in bullet points", "bullet"), ("never use emojis with me", "emojis"),
    ("selalu jawab pakai bahasa Inggris", "Inggris"), ("以后回答都用英文", "英文"),
])
def test_instructions_to_the_assistant_are_response_preferences(text: str, needle: str) -> None:
    [d] = writes(classify(text))
    assert d.section == "Preferences" and needle in (d.value or "")


@pytest.mark.parametrize("text", ["forget where I live", "hapus alamat saya", "别记我的住址", "ลืมที่อยู่ของฉัน"])
def test_forget_where_i_live_removes_every_location_field(text: str) -> None:
    removed = {d.key for d in classify(text, user_md=PROFILE) if d.op == "remove"}
    assert removed == {"Location", "Address"}


@pytest.mark.parametrize("text", [
    "my album finally dropped", "I stopped by the bakery", "the hike is off, it's raining", "forget it",
    "remove the second paragraph", "hapus paragraf terakhir", "忘了带钥匙", "ลืมกุญแจไว้ที่บ้าน",
])
def test_narration_and_tasks_never_remove_a_field(text: str) -> None:
    assert not any(d.op == "remove" for d in classify(text, user_md=PROFILE))


@pytest.mark.parametrize("text", ["I don't drink coffee anymore", "I'm no longer a nurse"])
def test_a_change_of_fact_removes_the_field_and_says_why(text: str) -> None:
    [d] = [d for d in classify(text, user_md=PROFILE) if d.op == "remove"]
    assert d.key in ("Coffee", "Role") and "no longer" in (d.detail or "")


def test_quitting_something_unrelated_leaves_thai_fields_alone() -> None:
    # Thai is tokenised into letter pairs: one shared pair ("น" + "เ") is no shared word.
    profile = "# USER\n\n## Identity\n- Family: น้องชายเรียนหมอ\n"  # shares the pair "ชา" with "tea" below
    assert not any(d.op == "remove" for d in classify("ฉันเลิกดื่มชาแล้ว", user_md=profile))


def test_an_allergy_does_not_replace_the_diet() -> None:
    decisions = classify("I'm allergic to peanuts", user_md=PROFILE)
    assert [(d.key, d.op) for d in writes(decisions)] == [("Allergies", "upsert")]
    for text in ("saya alergi kacang", "我对花生过敏"):
        assert [d.key for d in writes(classify(text, user_md=PROFILE))] == ["Allergies"]


@pytest.mark.parametrize("text", ["my sister loves cats", "my son is so sweet", "adik saya suka kucing", "我妹妹喜欢猫"])
def test_a_relatives_tastes_are_not_the_users_family_facts(text: str) -> None:
    assert writes(classify(text)) == []


@pytest.mark.parametrize(("text", "key"), [
    ("my wife is a nurse", "Family"), ("my daughter is in college", "Family"), ("I have two cats", "Pets"),
    ("I'm a night owl", "Routine"), ("I'm colour blind", "Accessibility"), ("I've been a vegetarian since 2019", "Diet"),
    ("istri saya seorang guru", "Family"), ("saya tunanetra", "Accessibility"), ("我女儿在上大学", "Family"),
    ("ภรรยาผมเป็นครู", "Family"),
])
def test_durable_facts_keep_a_meaningful_key(text: str, key: str) -> None:
    assert [d.key for d in writes(classify(text))] == [key]


@pytest.mark.parametrize("text", ["Agreed, sounds great", "Let's keep in touch", "Here's the thing, it's complicated",
                                  "Here's the link to the website", "that dashboard looks nice", "这个页面很好看"])
def test_agreement_is_not_a_memory_entry(text: str) -> None:
    assert not any(d.route == "memory" for d in classify(text))


@pytest.mark.parametrize(("text", "reason"), [
    ("hi! how are you?", "one_off"), ("thanks a lot", "one_off"), ("what do you do for fun?", "one_off"),
    ("that's so cool", "vague"), ("sounds fun", "vague"), ("keren banget", "vague"), ("听起来不错", "vague"),
])
def test_greetings_and_questions_are_one_off_small_talk_is_vague(text: str, reason: str) -> None:
    decisions = classify(text)
    assert writes(decisions) == [] and decisions[-1].reason == reason


def test_sharing_a_taste_the_other_speaker_named_is_the_users_fact() -> None:
    decisions = classify("I love jazz too!", history=[("assistant", "I love jazz.")])
    assert [(d.key, d.value) for d in writes(decisions)] == [("Likes", "jazz")]

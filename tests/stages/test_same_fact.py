"""Same fact, other words (pipeline/stages/same_fact.py): which pairs of values a candidate treats
as one fact said twice, in four languages, and which keys hold one value."""

from __future__ import annotations

import pytest

from pipeline.stages.same_fact import merged, new_parts, same_key, same_value, single_valued, units_of


@pytest.mark.parametrize("a, b, key", [
    ("jazz", "jazz music", "Music"),  # the key's own word adds nothing
    ("golden retriever named Max", "a golden retriever called Max", "Pets"),
    ("vegetarian", "a vegetarian", "Diet"),
    ("doesn't eat meat", "does not eat meat", "Diet"),
    ("favourite colour is green", "favorite color is green", "Favorites"),  # spelled two ways
    ("Lyon", "Lyon, France", "Location"),  # one value said more fully, under a single-valued key
    ("main gitar", "bermain gitar", "Hobbies"),  # an Indonesian verb and its root
    ("kucing bernama Momo", "kucingnya namanya Momo", "Pets"),
    ("爵士乐", "爵士", "Music"),
    ("住在杭州", "杭州", "Location"),
    ("一只叫豆豆的猫", "猫叫豆豆", "Pets"),
    ("กาแฟดำ", "กาแฟดำมากๆ", "Likes"),
])
def test_the_same_fact_in_other_words(a: str, b: str, key: str) -> None:
    assert same_value(a, b, key) and same_value(b, a, key)


@pytest.mark.parametrize("a, b, key", [
    ("dog named Rex", "dog named Max", "Pets"),
    ("two kids", "three kids", "Family"),
    ("rock", "rock climbing", "Hobbies"),  # a collecting key: a longer value is another thing
    ("doesn't drink coffee", "drinks coffee", "Diet"),  # negation is never the same fact
    ("kucing bernama Momo", "kucing bernama Kiki", "Pets"),
    ("tidak makan daging", "makan daging", "Diet"),
    ("北京", "南京", "Location"),
    ("一只叫豆豆的猫", "一只叫咪咪的猫", "Pets"),
    ("不喝咖啡", "喝咖啡", "Diet"),
    ("แมวชื่อส้ม", "แมวชื่อถั่ว", "Pets"),
    ("ไม่กินเผ็ด", "กินเผ็ด", "Diet"),
    ("airport", "port", "Likes"),
])
def test_a_different_fact(a: str, b: str, key: str) -> None:
    assert not same_value(a, b, key) and not same_value(b, a, key)


def test_keys_and_how_many_values_they_hold() -> None:
    assert same_key("Favorite music", "Music") and same_key("Pet", "pets") and not same_key("Likes", "Dislikes")
    assert all(single_valued(k) for k in ("Location", "Name", "Role", "Time zone", "Favorite color"))
    assert not any(single_valued(k) for k in ("Likes", "Hobbies", "Family", "Pets", "Music", "Favorites", "Drink"))


def test_the_bare_value_and_the_joined_field() -> None:
    assert new_parts("jazz; hiking", "jazz", "Likes") == ["hiking"]
    assert new_parts("jazz music", "jazz", "Music") == []
    # a part the field already says in full is nothing new; a negated one is
    assert new_parts("piano", "jazz piano", "Hobbies") == [] and new_parts("狗", "一只狗叫旺财", "Pets") == []
    assert new_parts("no piano", "jazz piano", "Hobbies") == ["no piano"]
    assert merged("jazz piano", "piano", "Hobbies") == "jazz piano"
    assert merged("jazz", "hiking", "Likes") == "jazz; hiking"
    assert merged("jazz; hiking", "Hiking", "Likes") == "jazz; hiking"
    assert merged("Paris", "Lyon", "Location") == "Lyon"


def test_chinese_words_that_hold_a_negation_character_negate_nothing() -> None:
    """特别 ("especially") holds 别 ("don't"): "旺财是我的狗，今天特别乖" is no negated statement."""
    assert not units_of("旺财是我的狗，今天特别乖").negated and not units_of("别人的猫").negated
    assert units_of("我不养狗").negated and units_of("别喝咖啡").negated
    assert not same_value("不喝咖啡", "喝咖啡", "Diet") and same_value("特别喜欢咖啡", "喜欢咖啡", "Likes")

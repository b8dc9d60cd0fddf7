"""A name or place given the way people give it in a call or a chat is the user's: the bare answer to the
assistant's question for it ("Priya Nair", "it's Tomas"), and a name followed by the request in one breath
("My name is Oskar I need a cab"). A reply that holds no name, or a name nobody asked for, writes none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engines.offline.profiles import profile_after


@pytest.mark.parametrize(("assistant", "said", "name"), [
    ("Could I get your full name, please?", "Priya Nair", "Priya Nair"),
    ("Who am I speaking with?", "yes, it's Tomas. Is the shop open late?", "Tomas"),
    ("What name should I put the booking under? And your name is?", "Okay, Hiroshi Tanaka and we are four", "Hiroshi Tanaka"),
    ("Boleh saya tahu nama Anda?", "Wulan", "Wulan"),
    ("", "My name is Oskar I need a cab to the station.", "Oskar"),
    ("", "Hello, I'm Delphine and I need to change my flight.", "Delphine"),
])
def test_the_name_is_kept(tmp_path: Path, assistant: str, said: str, name: str) -> None:
    assert f"Name: {name}\n" in profile_after(tmp_path, said, assistant=assistant)


@pytest.mark.parametrize(("assistant", "said"), [
    ("May I have your name?", "Why do you need it?"),
    ("May I have your name?", "I'd rather not say."),
    ("May I have your name?", "Sorry, what?"),
    ("May I have your name?", "I'm [User 2's name]. Nice to meet you."),
    ("What day works for you?", "Thursday."),
    ("Where should the driver meet you?", "Central Station."),
    ("", "I'm Fine, thanks."),
])
def test_no_name_is_invented(tmp_path: Path, assistant: str, said: str) -> None:
    assert "Name:" not in profile_after(tmp_path, said, assistant=assistant)


@pytest.mark.parametrize(("assistant", "said", "field"), [
    ("Where are you from?", "Nebraska, what about you?", "Origin: Nebraska"),
    ("Where did you grow up?", "Um, the Azores", "Origin: Azores"),
    ("Where do you live these days?", "Tallinn", "Location: Tallinn"),
    ("Kamu tinggal di mana?", "Makassar", "Location: Makassar"),
])
def test_a_place_given_as_the_answer_is_kept(tmp_path: Path, assistant: str, said: str, field: str) -> None:
    assert field in profile_after(tmp_path, said, assistant=assistant)


@pytest.mark.parametrize(("assistant", "said"), [
    ("Where are you from?", "Not sure, we moved a lot"),
    ("Where are you from?", "Around here"),
    ("Where do you live?", "Why do you want to know?"),
    ("Where are you headed today?", "Boston"),
])
def test_no_place_is_invented(tmp_path: Path, assistant: str, said: str) -> None:
    profile = profile_after(tmp_path, said, assistant=assistant)
    assert "Origin:" not in profile and "Location:" not in profile, profile

"""What a turn says about someone or something else, or in passing, is not the user's profile: "of course" is not
a job (当然), a clause about the actor being discussed is not the speaker's role or birthplace, "I've seen it" is not
a hobby, "I do need a taxi" is not a pastime, a sore throat is not a possession, "I never thought..." is not a
routine. The same shapes said of the user are still kept. Checked in the USER.md a user reads after the turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engines.offline.profiles import profile_after


@pytest.mark.parametrize("said", [
    "当然，我记得那部片子。",
    "当时我还在上学呢。",
    "他毕业于一所很有名的音乐学院。",
    "知道，是一位很有名的钢琴家。",
    "出生在一个海边的小城。",
    "我看过那部纪录片，拍得不错。",
    "我打听过价格了。",
    "I do need a taxi at six tomorrow.",
    "I read about that museum online.",
    "I have a sore throat and a runny nose.",
    "I have a late meeting with the landlord.",
    "I never thought the ferry would be this slow.",
])
def test_nothing_about_the_user_is_written(tmp_path: Path, said: str) -> None:
    profile = profile_after(tmp_path, said)
    assert "- " not in profile, profile


@pytest.mark.parametrize(("said", "field"), [
    ("我是一名钢琴老师。", "Role: 钢琴老师"),
    ("เป็นครูสอนดนตรีค่ะ", "Role:"),  # Thai drops the subject when speaking of oneself
    ("我喜欢看纪录片。", "看纪录片"),
    ("I read fantasy novels.", "Hobbies: read fantasy novels"),
    ("I have three bikes.", "Owns: three bikes"),
    ("I never drink coffee.", "never drink coffee"),
])
def test_the_same_shapes_about_the_user_are_kept(tmp_path: Path, said: str, field: str) -> None:
    assert field in profile_after(tmp_path, said)

"""Laughter and interjections before the speaker's own clause do not hide the fact after them ("haha I have two
ferrets", "No I'm from Ohio", "wkwk aku punya kucing", "哈哈，我住在成都"); a clause that is only the interjection
keeps nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engines.offline.profiles import profile_after


@pytest.mark.parametrize(("said", "kept"), [
    ("hahaha I love board games!! do you play?", "board games"),
    ("No I'm from Ohio, are you?", "Ohio"),
    ("naw I live in Quito", "Quito"),
    ("lmao my sister is a dentist", "sister"),
    ("wkwk aku punya dua kucing", "kucing"),
    ("haha, saya tinggal di Bogor", "Bogor"),
    ("哈哈，我住在成都", "Location: 成都"),  # the city whole: 都 ends its name
])
def test_the_fact_after_an_interjection_is_kept(tmp_path: Path, said: str, kept: str) -> None:
    assert kept in profile_after(tmp_path, said)


@pytest.mark.parametrize("said", ["hahaha no way", "omg yes", "No I don't think so", "wkwk", "hehe iya"])
def test_an_interjection_alone_keeps_nothing(tmp_path: Path, said: str) -> None:
    assert "- " not in profile_after(tmp_path, said)

"""A livelihood said by what the person does all day ("I drive a delivery van in Leeds", "I run a bakery") is
their work, with the place as a field of its own: not a routine, not a tool, not a possession. Checked in the
USER.md a user reads after the turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engines.offline.profiles import profile_after


@pytest.mark.parametrize(("said", "work", "place"), [
    ("I drive a delivery van in Leeds", "drive a delivery van", "Location: Leeds"),
    ("I drive a taxi for Uber", "drive a taxi", "Employer: Uber"),
    ("I run a small bakery in Hobart", "run a small bakery", "Location: Hobart"),
    ("I manage a team of five at Acme", "manage a team of five", "Employer: Acme"),
])
def test_a_livelihood_is_work_and_its_place_a_field(tmp_path: Path, said: str, work: str, place: str) -> None:
    profile = profile_after(tmp_path, said)
    assert f"- Work: {work}\n" in profile or f"- Role: {work}\n" in profile, profile
    assert place in profile, profile
    assert "Routine" not in profile and "Usual stack" not in profile


@pytest.mark.parametrize(("said", "field"), [
    ("I drive to work every day", "Routine: drive to work every day"),
    ("I run Postgres on my laptop", "Usual stack: Postgres on my laptop"),
])
def test_the_same_verbs_keep_their_other_meanings(tmp_path: Path, said: str, field: str) -> None:
    profile = profile_after(tmp_path, said)
    assert field in profile and "Work:" not in profile, profile

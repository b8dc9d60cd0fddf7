"""A forget request removes the field the user named, and only that one (issue 24, item 8).

"email address" names the email, not the address; "nomor hp" the phone; "邮箱" the email; a
request naming a field that is not stored changes nothing, and the decision says so. Through a
chat turn (offline engine), a model's decision (the write stage) and `pipe.forget`.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine
from pipeline.types import Classification, ConsolidationPlan, Decision, Turn, Usage

PROFILE = (
    "# USER\n\n## Identity\n- Name: Wren\n- Location: Ghent\n- Address: Veldstraat 9, Ghent\n"
    "- Email: wren@example.org\n- Phone: +32 470 12 34 56\n\n## Preferences\n- Likes: long walks\n"
)
FIELDS = ["Location", "Address", "Email", "Phone", "Likes", "Name"]


def _seed(root: Path, text: str = PROFILE) -> None:
    (root / "wren").mkdir(parents=True, exist_ok=True)
    (root / "wren" / "USER.md").write_text(text, encoding="utf-8")


def _left(root: Path) -> set[str]:
    text = (root / "wren" / "USER.md").read_text("utf-8")
    return {k for k in FIELDS if f"- {k}:" in text}


@pytest.mark.parametrize(
    ("said", "gone"),
    [
        ("Could you forget my e-mail address, please?", "Email"),
        ("drop my email address from your notes", "Email"),
        ("tolong hapus alamat email saya", "Email"),
        ("请删掉我的邮箱地址", "Email"),
        ("ช่วยลืมที่อยู่อีเมลของฉันด้วย", "Email"),
        ("forget my mobile number", "Phone"),
        ("lupakan nomor hp saya", "Phone"),
        ("别记我的手机号了", "Phone"),
        ("ลืมเบอร์โทรของฉันไปเลย", "Phone"),
    ],
)
def test_a_turn_forgets_exactly_the_field_named(tmp_path: Path, said: str, gone: str) -> None:
    _seed(tmp_path)
    with MemoryPipeline(tmp_path) as pipe:
        pipe.process_turn("wren", [{"role": "user", "content": said}], timestamp="2026-08-02T10:00:00Z")
    assert _left(tmp_path) == set(FIELDS) - {gone}


@pytest.mark.parametrize(
    "said", ["Delete my email address, please.", "hapus alamat email saya", "忘掉我的邮箱地址", "ลืมที่อยู่อีเมลของฉัน",
             "forget my phone number"],
)
def test_a_field_that_is_not_stored_changes_nothing_and_says_so(tmp_path: Path, said: str) -> None:
    profile = "# USER\n\n## Identity\n- Name: Wren\n- Location: Ghent\n- Address: Veldstraat 9, Ghent\n\n## Preferences\n- Likes: email newsletters\n"
    _seed(tmp_path, profile)
    with MemoryPipeline(tmp_path) as pipe:
        result = pipe.process_turn("wren", [{"role": "user", "content": said}], timestamp="2026-08-02T10:00:00Z")
    assert (tmp_path / "wren" / "USER.md").read_text("utf-8") == profile
    assert not result.user_changed
    (forget,) = [d for d in result.decisions if d.op == "remove"]
    assert forget.outcome == "not_found" and "nothing changed" in (forget.detail or ""), forget


class _Forgets(Engine):
    """A model that asks to forget by the words the user used."""

    name = "forgets"
    model: str | None = None
    prompt_version = "forgets-1"

    def __init__(self, match: str) -> None:
        self.match = match

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        d = Decision(quote=turn.user_text, route="user", op="remove", match=self.match)
        return Classification(decisions=[d], usage=Usage(), engine=self.name, model=None, prompt_version=self.prompt_version)

    def consolidate(self, items: list[Any], *, target_chars: int, today: date) -> ConsolidationPlan:
        raise AssertionError("not reached")


@pytest.mark.parametrize(("match", "gone"), [("email address", "Email"), ("alamat email", "Email"), ("邮箱地址", "Email"),
                                             ("home address", None), ("phone number", "Phone")])
def test_the_write_stage_resolves_a_models_words_the_same_way(tmp_path: Path, match: str, gone: str | None) -> None:
    _seed(tmp_path)
    with MemoryPipeline(tmp_path, engine=_Forgets(match)) as pipe:
        result = pipe.process_turn("wren", [{"role": "user", "content": "forget it"}], timestamp="2026-08-02T10:00:00Z")
    left = _left(tmp_path)
    if gone is None:  # "home address" names two fields (Location, Address): ambiguous, nothing goes
        assert left == set(FIELDS) and result.decisions[0].outcome == "ambiguous"
    else:
        assert left == set(FIELDS) - {gone}


def test_memroute_forget_by_words_takes_the_email_and_leaves_the_address(tmp_path: Path) -> None:
    _seed(tmp_path)
    with MemoryPipeline(tmp_path) as pipe:
        pipe.forget("wren", "email address", purge=True)
    assert _left(tmp_path) == set(FIELDS) - {"Email"}

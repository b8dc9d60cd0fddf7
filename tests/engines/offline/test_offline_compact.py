"""A full USER.md never drops a fact silently: deterministic compaction moves the least valuable fields to
the archive (recall finds them), never what the user confirmed or pinned, and says what moved."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pipeline.core import MemoryPipeline
from pipeline.engines.base import Engine
from pipeline.engines.offline.compact import compact_profile
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Turn

LIMIT = 1375


def near_full_profile() -> str:
    """About 95% of the default cap: a name, a constraint, a dozen preferences and goals."""
    lines = ["# USER", "", "## Identity", "- Name: Jasmin", "- Role: frontend engineer at a logistics startup", "",
             "## Preferences"]
    lines += [f"- Favourite thing {i}: a fairly long description of preference number {i} in some detail"
              for i in range(10)]
    lines += ["", "## Constraints", "- Allergy: peanuts (severe)", "", "## Goals"]
    lines += [f"- Goal {i}: finish the long-running side project number {i} before the end of the year" for i in range(3)]
    text = "\n".join(lines) + "\n"
    assert 0.9 * LIMIT <= len(text) <= LIMIT, len(text)
    return text


class OneFact(Engine):
    """An engine without its own compaction: the pipeline falls back to the deterministic one."""

    name = "scripted"
    model = None

    def __init__(self, *decisions: Decision) -> None:
        self.decisions = list(decisions)

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        return Classification(decisions=self.decisions, engine=self.name)

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        raise RuntimeError("not used")


def fact(key: str, value: str, section: str = "Identity") -> Decision:
    return Decision(quote=value, route="user", op="upsert", section=section, key=key, value=value)


def test_compaction_moves_the_least_valuable_fields_first_and_keeps_the_protected() -> None:
    text = near_full_profile()
    done = compact_profile(text, 200, protected={"goal 1"})
    assert done is not None and len(done.text) <= len(text) - 200
    moved = [label for label, _ in done.moved]
    assert moved == ["Goal 0", "Goal 2", "Favourite thing 0"]  # goals first, then the oldest preference
    assert "- Name: Jasmin" in done.text and "- Allergy: peanuts (severe)" in done.text
    assert "moved Goal" in done.summary()


def test_a_pinned_value_and_the_name_never_leave() -> None:
    text = "# USER\n\n## Identity\n- Name: Jasmin\n\n## Goals\n- Marathon: run one in under 4 hours (pinned)\n"
    assert compact_profile(text, 10) is None  # nothing may leave: no rewrite at all


def test_a_new_fact_lands_after_compaction_and_the_moved_field_is_recalled(tmp_path: Path) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    (folder / "USER.md").write_text(near_full_profile(), "utf-8")
    engine = OneFact(fact("Location", "Bandung, West Java, Indonesia, in a small flat close to the old train station, "
                                      "a short walk from the office downtown"))
    with MemoryPipeline(root=tmp_path, engine=engine) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "I live in Bandung"}])
        recalled = pipe.recall("jasmin", "side project number 0")
        history = pipe.history("jasmin")
    text = (folder / "USER.md").read_text("utf-8")
    d = result.decisions[0]
    assert d.outcome == "written" and (d.outcome_detail or "").startswith("after compacting USER.md (moved Goal 0")
    assert d.model_dump()["outcome"].startswith("written: after compacting USER.md (moved Goal 0")  # the stored form
    assert "Location: Bandung" in text and len(text) <= 0.9 * LIMIT  # room left for the next facts
    assert "Goal 0" not in text and any("side project number 0" in hit["text"] for hit in recalled)
    assert any(row["op"] == "compact" and row["key"] == "Goal 0" for row in history)


def test_near_the_cap_the_profile_is_compacted_before_a_fact_overflows(tmp_path: Path) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    (folder / "USER.md").write_text(near_full_profile(), "utf-8")
    with MemoryPipeline(root=tmp_path, engine=OneFact(fact("Pronouns", "she/her"))) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "she/her please"}])
    text = (folder / "USER.md").read_text("utf-8")
    assert "Pronouns: she/her" in text and len(text) <= 0.8 * LIMIT
    assert "USER.md compacted (moved" in (result.decisions[0].outcome_detail or "")


def test_a_field_the_user_confirmed_by_hand_is_never_moved(tmp_path: Path) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    (folder / "USER.md").write_text(near_full_profile(), "utf-8")
    with MemoryPipeline(root=tmp_path, engine=OneFact(fact("Pronouns", "she/her"))) as pipe:
        confirmed = "Goal 0: run a marathon in under four hours before the end of the year with the club"
        pipe.tool("jasmin", "replace", "user", content=confirmed, old_text="Goal 0:")
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "she/her please"}])
    text = (folder / "USER.md").read_text("utf-8")
    outcome = result.decisions[0].outcome_detail or ""
    assert "Goal 1, Goal 2" in outcome and "Goal 0" not in outcome  # the other goals leave ...
    assert f"- {confirmed}\n" in text  # ... the one the user set by hand stays


def test_a_fact_that_cannot_fit_is_kept_in_the_archive_and_said(tmp_path: Path) -> None:
    folder = tmp_path / "jasmin"
    folder.mkdir()
    (folder / "USER.md").write_text("# USER\n\n## Identity\n- Name: Jasmin\n", "utf-8")
    huge = "a very long biography " * 80
    with MemoryPipeline(root=tmp_path, engine=OneFact(fact("Bio", huge))) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "about me"}])
        recalled = pipe.recall("jasmin", "very long biography")
    d = result.decisions[0]
    assert d.outcome == "over_cap" and (d.outcome_detail or "").endswith("kept in the archive")
    assert recalled and recalled[0]["source"] == "archive"


def test_a_field_another_one_already_says_leaves_before_any_other() -> None:
    text = ("# USER\n\n## Identity\n- Name: Jasmin\n\n## Preferences\n- Likes: hiking, chess and steam trains\n"
            "- Hobby: hiking\n- Drink: tea\n- Coffee: black, no sugar\n")
    done = compact_profile(text, 5)
    assert done is not None and [label for label, _ in done.moved] == ["Hobby"]  # "tea" is not in "steam"
    assert "- Drink: tea" in done.text and "- Likes: hiking, chess and steam trains" in done.text


def test_a_hand_edited_file_far_over_its_cap_is_left_to_the_user() -> None:
    # Hundreds of lines the user wrote by hand are not "a profile near its cap": nothing is moved.
    lines = "".join(f"- Note {i}: something the user wrote by hand\n" for i in range(500))
    assert compact_profile("# USER\n\n## Identity\n" + lines, 100, goal_chars=1_100) is None


def test_junk_clauses_of_a_collecting_field_leave_before_any_fact_and_are_counted(tmp_path: Path) -> None:
    """Issue 29: near the cap, a clause the engine would not write today leaves before a whole field does,
    and the turn's decision says what left and why."""
    junk = ["what do you even like?", "wow that show!!", "I got a new lease of life"]
    likes = "; ".join(["hiking in the Alps", *junk, "jazz records"])
    first = "- Favourite thing 0: a fairly long description of preference number 0 in some detail\n"
    text = near_full_profile().replace(first, f"- Likes: {likes}\n")
    done = compact_profile(text, 60)
    assert done is not None and done.moved == []  # no fact had to leave
    assert ("Likes", likes, "hiking in the Alps; jazz records") in done.shortened
    folder = tmp_path / "jasmin"
    folder.mkdir()
    (folder / "USER.md").write_text(text, "utf-8")
    with MemoryPipeline(root=tmp_path, engine=OneFact(fact("Pronouns", "she/her"))) as pipe:
        result = pipe.process_turn("jasmin", [{"role": "user", "content": "she/her please"}])
        history = pipe.history("jasmin")
    d = result.decisions[0]
    assert "Likes: hiking in the Alps; jazz records" in (folder / "USER.md").read_text("utf-8")
    assert {"junk: a question", "junk: an exclamation", "junk: a whole sentence, not a phrase"} <= set(d.evicted)
    assert any(row["op"] == "compact" and "'what do you even like?' (junk: a question)" in (row["why"] or "")
               for row in history)

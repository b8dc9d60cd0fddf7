"""The one key vocabulary (pipeline/vocabulary.py): the labeling guide's table is generated from it, each word
names one key, the shipped extractor learned the same sections and collecting keys, the surfaces read it
(same-fact matching, compaction, the section of a hand-added field, the review page's order), and
`memroute keys` prints it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pipeline import vocabulary as V
from pipeline.types import USER_SECTIONS

REPO = Path(__file__).resolve().parents[1]


def test_the_labeling_guides_table_is_the_vocabulary() -> None:
    text = (REPO / "training" / "KEYS.md").read_text("utf-8")
    table = "\n".join(line for line in text.splitlines() if line.startswith("|"))
    assert table == V.markdown_table(), "training/KEYS.md: paste the table `memroute keys --markdown` prints"


def test_every_key_has_a_section_a_meaning_and_words_that_name_it_only() -> None:
    assert [s for s, _ in V.by_section()] == list(USER_SECTIONS) and USER_SECTIONS[0] == "Identity"
    assert len(set(V.KEY_NAMES)) == len(V.KEY_NAMES)
    named: dict[str, str] = {}
    for key in V.VOCABULARY:
        assert key.section in USER_SECTIONS and key.meaning, key.name
        assert set(key.aliases) <= set(V.LANGUAGES), key.name
        # A key, its spellings and its English aliases each name this key and no other.
        for word in (key.name, *key.spellings, *key.aliases.get("en", ())):
            assert named.setdefault(V.fold(word), key.name) == key.name, (word, key.name, named[V.fold(word)])
            assert V.canonical(word) == key.name
    for lang in V.LANGUAGES:
        words = [V.fold(w) for k in V.VOCABULARY for w in k.aliases.get(lang, ())]
        assert len(words) == len(set(words)), lang
    assert V.canonical("job title") == "Role" and V.canonical("Communication style") == "Response style"
    assert V.named_by("warna", "id") == "Favorite color" and V.named_by("时区", "zh") == "Time zone"
    assert V.canonical("Poetry form") is None


def test_the_shipped_extractor_learned_the_vocabularys_sections_and_collecting_keys() -> None:
    from pipeline.engines.offline.extractor import NONE_KEY, default_extractor

    ex = default_extractor()
    if ex is None:
        pytest.skip("no extractor weights shipped")
    keys = [k for k in ex.keyer.classes if k != NONE_KEY]
    assert set(keys) <= set(V.KEY_NAMES)
    assert ex.sections == {k: V.SECTION_OF[k] for k in keys}
    assert ex.multi == frozenset(k for k in keys if k in V.MULTI)


def test_same_fact_compaction_and_a_hand_added_field_read_the_vocabulary() -> None:
    from pipeline.engines.offline.compact import compact_profile
    from pipeline.ledgers.user_md import guess_section
    from pipeline.stages.same_fact import single_valued

    for key in V.VOCABULARY:
        assert single_valued(key.name) is (not key.multi), key.name
        assert all(single_valued(s) for s in key.spellings if not key.multi), key.name
    assert guess_section("Timezone") == "Constraints" and guess_section("job title") == "Identity"
    assert guess_section("Coffee") == "Preferences"  # a key of the user's own
    # The name stays under any of its spellings when USER.md is compacted.
    user_md = "# USER\n\n## Identity\n- Nickname: Bo\n\n## Goals\n" + "".join(
        f"- Goal {i}: run a marathon in under four hours, then an ultra\n" for i in range(20))
    done = compact_profile(user_md, len(user_md) - 120)
    assert done is not None and "- Nickname: Bo" in done.text and len(done.text) <= 120


def test_the_review_page_shows_identity_first() -> None:
    from pipeline.review.view import Annotated, FieldRow, Usage, UserView

    def row(section: str, key: str | None) -> FieldRow:
        return FieldRow(section, key, "x", key or "x", None, None, [], Annotated())

    fields = [row("Preferences", "Likes"), row("", None), row("Projects", "Side project"), row("Goals", "Goal"),
              row("Identity", "Name"), row("Preferences", "Music"), row("Constraints", "Diet")]
    view = UserView("ana", fields, [], Usage(0, 1), Usage(0, 1), [], [])
    assert [(s, [f.key for f in rows]) for s, rows in view.sections] == [
        ("Identity", ["Name"]), ("Preferences", ["Likes", "Music"]), ("Constraints", ["Diet"]), ("Goals", ["Goal"]),
        ("Projects", ["Side project"]), ("", [None])]
    template = (REPO / "pipeline" / "review" / "templates" / "user.html").read_text("utf-8")
    assert "v.sections" in template and "groupby" not in template  # jinja's groupby sorts by name


def test_memroute_keys_prints_the_vocabulary(capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.cli import main

    assert main(["keys", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sections"] == list(USER_SECTIONS)
    assert [k["key"] for k in data["keys"]] == list(V.KEY_NAMES)
    role = next(k for k in data["keys"] if k["key"] == "Role")
    assert role["section"] == "Identity" and role["multi"] is False and "pekerjaan" in role["aliases"]["id"]
    assert main(["keys"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Identity\n  Name ") and re.search(r"^  Likes +several values +lasting tastes", text, re.M)
    assert main(["keys", "--markdown"]) == 0
    assert capsys.readouterr().out.strip() == V.markdown_table()


def test_no_engine_writes_a_key_outside_the_vocabulary(tmp_path: Path) -> None:
    """The offline engine over every eval suite, and the LLM engine's schema and validator: every key a decision
    writes (or keeps as a candidate) is the vocabulary's, or one the user's USER.md already has."""
    from pipeline.engines.llm import Statements
    from pipeline.engines.offline.engine import OfflineEngine
    from pipeline.evals.cases import load_cases
    from pipeline.turns import build_turn

    engine = OfflineEngine()
    outside: set[tuple[str, str]] = set()
    written: set[str] = set()
    for case in load_cases(sorted((REPO / "evals").glob("*.jsonl"))):
        held = {V.fold(k) for k in re.findall(r"^- ([^:\n]+):", case.initial_user_md or "", re.M)}
        turn = build_turn(case.user_id, case.all_messages, timestamp=case.timestamp, turn_id=case.id)
        for d in engine.classify(turn, case.initial_user_md or "", case.initial_memory_md or "").decisions:
            if d.key and ((d.route == "user" and d.op == "upsert") or d.candidate):
                written.add(d.key)
                if not V.is_key(d.key) and V.fold(d.key) not in held:
                    outside.add((case.id, d.key))
    assert outside == set()
    assert {"Name", "Role", "Location", "Response style", "Usual stack", "Routine", "Favorites"} <= written
    enum = Statements.model_json_schema()["$defs"]["key"]["enum"]
    assert set(enum) <= set(V.KEY_NAMES)


def test_a_language_pack_naming_a_key_outside_the_vocabulary_is_refused(tmp_path: Path) -> None:
    import shutil

    from pipeline.engines.offline.lang import LANG_DIR, load_pack
    from pipeline.errors import PackError

    folder = tmp_path / "xx"
    shutil.copytree(LANG_DIR / "en", folder)
    lexicon = folder / "lexicon.py"
    lexicon.write_text(lexicon.read_text("utf-8").replace('lang="en"', 'lang="xx"').replace(
        '"Usual stack"),', '"Tech stack"),', 1), "utf-8")
    with pytest.raises(PackError, match="'Tech stack', which is not in the key vocabulary"):
        load_pack(folder)

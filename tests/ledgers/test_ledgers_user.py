from __future__ import annotations

import random

import pytest

from pipeline.ledgers import (
    DEFAULT_USER_LIMIT,
    CapExceeded,
    LedgerError,
    MatchError,
    UnparseableLedger,
    UserProfile,
    check_cap,
    empty_user_md,
)

SEED = (
    "# USER\n\n"
    "## Identity\n- Name: Jasmin\n- Role: Frontend engineer\n\n"
    "## Preferences\n- Communication style: conclusion first\n- Usual stack: Next.js\n"
)

HAND_EDITED = (
    "\ufeff# USER\n"
    "<!-- edited by hand; keep this comment -->\n\n"
    "## Identity\n"
    "* name: Jasmin\n"
    "- Role:  Frontend engineer\n"
    "Some free text the parser does not own.\n\n"
    "## Hobbies\n"
    "- Climbing on weekends\n"
    "### a sub heading\n\n"
    "## Preferences\n"
    "- Communication style: conclusion first\n"
    "- Usual stack:\n"
    "  - Next.js\n"
    "  - Tailwind\n"
    "\n\n"
)


def seed_profile(limit: int | None = DEFAULT_USER_LIMIT) -> UserProfile:
    profile = UserProfile.parse(empty_user_md(), limit=limit)
    profile.upsert("Identity", "Name", "Jasmin")
    profile.upsert("Identity", "Role", "Frontend engineer")
    profile.upsert("Preferences", "Communication style", "conclusion first")
    profile.upsert("Preferences", "Usual stack", "Next.js")
    return profile


def test_seed_upserts_build_the_canonical_design_file() -> None:
    assert seed_profile().render() == SEED


def test_upserts_on_an_empty_string_create_the_heading() -> None:
    profile = UserProfile.parse("")
    profile.upsert("Identity", "Name", "Jasmin")
    assert profile.render() == "# USER\n\n## Identity\n- Name: Jasmin\n"


def test_canonical_file_round_trips_byte_for_byte() -> None:
    profile = UserProfile.parse(SEED)
    assert profile.round_trips
    assert profile.render() == SEED
    assert profile.entries() == ["Name: Jasmin", "Role: Frontend engineer",
                                 "Communication style: conclusion first", "Usual stack: Next.js"]


def test_upsert_overwrites_in_place_matching_the_key_case_insensitively() -> None:
    profile = UserProfile.parse(SEED)
    old = profile.upsert("Preferences", "communication STYLE", "details first")
    assert old == "conclusion first"
    assert profile.render() == SEED.replace("Communication style: conclusion first", "Communication style: details first")
    assert profile.get("COMMUNICATION style") is not None
    assert profile.get("communication style").value == "details first"  # type: ignore[union-attr]


def test_upsert_of_a_known_key_stays_where_the_key_is_even_if_another_section_is_named() -> None:
    profile = UserProfile.parse(SEED)
    assert profile.upsert("Goals", "Role", "Staff engineer") == "Frontend engineer"
    assert "## Goals" not in profile.render()
    assert profile.render().splitlines()[4] == "- Role: Staff engineer"


def test_upsert_same_value_changes_nothing() -> None:
    profile = UserProfile.parse(SEED + "\n\n")
    assert profile.upsert("Identity", "Name", "Jasmin") == "Jasmin"
    assert profile.render() == SEED + "\n\n"


def test_new_sections_are_created_in_canonical_order() -> None:
    profile = UserProfile.parse(SEED)
    profile.upsert("Goals", "Long-term goal", "lead a design system team")
    profile.upsert("constraints", "Working hours", "09:00-17:00 WIB")
    profile.upsert("Working style", "Reviews", "small pull requests")
    text = profile.render()
    order = [line for line in text.splitlines() if line.startswith("## ")]
    assert order == ["## Identity", "## Preferences", "## Constraints", "## Working style", "## Goals"]
    assert "\n\n## Constraints\n- Working hours: 09:00-17:00 WIB\n\n## Working style\n" in text
    assert text.endswith("## Goals\n- Long-term goal: lead a design system team\n")
    assert UserProfile.parse(text).round_trips


def test_known_sections_go_before_unknown_ones_and_unknown_ones_go_last() -> None:
    profile = UserProfile.parse("# USER\n\n## Hobbies\n- Climbing\n")
    profile.upsert("Identity", "Name", "Budi")
    profile.upsert("Pets", "Cat", "Mochi")
    assert profile.render() == "# USER\n\n## Identity\n- Name: Budi\n\n## Hobbies\n- Climbing\n\n## Pets\n- Cat: Mochi\n"


def test_remove_returns_the_value_and_drops_an_emptied_section() -> None:
    profile = UserProfile.parse(SEED)
    assert profile.remove("name") == "Jasmin"
    assert profile.remove("ROLE") == "Frontend engineer"
    assert profile.render() == "# USER\n\n## Preferences\n- Communication style: conclusion first\n- Usual stack: Next.js\n"
    assert profile.remove("Name") is None
    profile.remove("Communication style")
    profile.remove("usual stack")
    assert profile.render() == empty_user_md()


def test_hand_edited_file_round_trips_and_an_upsert_touches_only_its_own_line() -> None:
    profile = UserProfile.parse(HAND_EDITED)
    assert profile.round_trips and profile.had_bom
    assert profile.render() == HAND_EDITED[1:]
    before = profile.render().split("\n")
    assert profile.upsert("Identity", "Name", "Jasmin Putri") == "Jasmin"
    after = profile.render().split("\n")
    assert len(after) == len(before)
    changed = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    assert changed == [("* name: Jasmin", "- name: Jasmin Putri")]


def test_hand_edited_unknown_lines_survive_inserts_and_removals() -> None:
    profile = UserProfile.parse(HAND_EDITED)
    profile.upsert("Identity", "Location", "Bandung")
    profile.upsert("Constraints", "Budget", "no paid services")
    profile.remove("role")
    text = profile.render()
    for kept in ("<!-- edited by hand; keep this comment -->", "Some free text the parser does not own.",
                 "## Hobbies\n- Climbing on weekends\n### a sub heading", "- Usual stack:\n  - Next.js\n  - Tailwind"):
        assert kept in text
    # a new field goes after the section's last line, before the blank separator
    assert "Some free text the parser does not own.\n- Location: Bandung\n\n## Hobbies" in text
    assert text.index("## Constraints") > text.index("## Preferences")
    assert "Role" not in text


def test_nested_list_under_a_bullet_is_kept_as_part_of_that_entry() -> None:
    profile = UserProfile.parse(HAND_EDITED)
    assert "Usual stack:\n- Next.js\n- Tailwind" in profile.entries()


def test_crlf_files_are_preserved_as_crlf() -> None:
    crlf = SEED.replace("\n", "\r\n")
    profile = UserProfile.parse(crlf)
    assert profile.round_trips and profile.render() == crlf
    profile.upsert("Goals", "Goal", "ship v2")
    assert profile.render() == crlf + "\r\n## Goals\r\n- Goal: ship v2\r\n"


def test_mixed_line_endings_do_not_round_trip_and_replace_or_remove_is_refused() -> None:
    text = "# USER\r\n\n## Identity\n- Name: Jasmin\r\n- Role: designer\n"
    profile = UserProfile.parse(text)
    assert not profile.round_trips
    assert profile.get("name").value == "Jasmin"  # type: ignore[union-attr]
    before = profile.render()
    for refused in (lambda: profile.remove("Name"), lambda: profile.upsert("Identity", "Name", "Budi"),
                    lambda: profile.replace_entry("Role", "Role: PM"), lambda: profile.remove_entry("Role"),
                    lambda: profile.add_entry("Name: Budi")):
        with pytest.raises(UnparseableLedger, match="mixed line endings"):
            refused()
    assert profile.render() == before
    profile.upsert("Preferences", "Tone", "santai")  # adding loses nothing, so it is allowed
    assert profile.get("tone") is not None


@pytest.mark.parametrize("value", ["two\nlines", "carriage\rreturn", "  ", ""])
def test_values_must_be_one_non_empty_line(value: str) -> None:
    profile = UserProfile.parse(SEED)
    with pytest.raises(LedgerError):
        profile.upsert("Identity", "Name", value)
    assert profile.render() == SEED


@pytest.mark.parametrize("key", ["", "Name: forged", "a key that is far too long to be a short label here", "- Name"])
def test_keys_must_be_short_labels(key: str) -> None:
    profile = UserProfile.parse(SEED)
    with pytest.raises(LedgerError):
        profile.upsert("Identity", key, "x")
    assert profile.render() == SEED


def test_upsert_over_the_cap_raises_the_hermes_error_and_changes_nothing() -> None:
    limit = len(SEED) + 10
    profile = UserProfile.parse(SEED, limit=limit)
    with pytest.raises(CapExceeded) as info:
        profile.upsert("Goals", "Goal", "ship the global site before the end of the quarter")
    err = info.value
    assert profile.render() == SEED
    assert (err.target, err.current, err.limit) == ("user", len(SEED), limit)
    assert err.adding == len("Goal: ship the global site before the end of the quarter")
    payload = err.payload()
    assert payload["success"] is False
    assert payload["usage"] == f"{len(SEED):,}/{limit:,}"
    assert payload["current_entries"] == UserProfile.parse(SEED).entries()
    assert payload["error"].startswith(f"User profile at {len(SEED)}/{limit} chars. Adding this entry ({err.adding} chars) "
                                       "would exceed the limit. Consolidate now:")
    assert "remove" in payload["error"]


def test_overwriting_with_a_longer_value_is_capped_too() -> None:
    profile = UserProfile.parse(SEED, limit=len(SEED) + 3)
    profile.upsert("Identity", "Name", "Jasmin P")  # +2 fits
    with pytest.raises(CapExceeded):
        profile.upsert("Identity", "Name", "Jasmin Putri Wijaya")
    assert profile.get("name").value == "Jasmin P"  # type: ignore[union-attr]


def test_without_a_limit_the_model_leaves_the_cap_to_the_caller() -> None:
    profile = UserProfile.parse(empty_user_md())
    assert profile.limit is None
    for i in range(40):
        profile.upsert("Preferences", f"Note {i}", "selalu jawab dalam Bahasa Indonesia yang singkat")
    assert len(profile.render()) > DEFAULT_USER_LIMIT


def test_default_cap_is_1375_and_usage_uses_thousands_separators() -> None:
    profile = UserProfile.parse(empty_user_md(), limit=DEFAULT_USER_LIMIT)
    assert DEFAULT_USER_LIMIT == 1375
    with pytest.raises(CapExceeded) as info:
        for i in range(200):
            profile.upsert("Preferences", f"Note {i}", "selalu jawab dalam Bahasa Indonesia yang singkat")
    assert len(profile.render()) <= 1375
    assert info.value.payload()["usage"].endswith("/1,375")


def test_cap_counts_code_points_not_bytes() -> None:
    profile = UserProfile.parse(empty_user_md(), limit=None)
    profile.upsert("Preferences", "Communication style", "先给结论，再解释原因")
    profile.upsert("Preferences", "Language", "ตอบเป็นภาษาไทยสั้นๆ")
    text = profile.render()
    assert len(text.encode()) > len(text)
    capped = UserProfile.parse(empty_user_md(), limit=len(text))
    capped.upsert("Preferences", "Communication style", "先给结论，再解释原因")
    capped.upsert("Preferences", "Language", "ตอบเป็นภาษาไทยสั้นๆ")
    assert capped.render() == text
    with pytest.raises(CapExceeded):
        capped.upsert("Preferences", "Tone", "ramah")


def test_remove_always_works_on_a_file_already_over_the_cap() -> None:
    profile = UserProfile.parse(SEED, limit=20)
    assert profile.remove("Usual stack") == "Next.js"
    with pytest.raises(CapExceeded):
        profile.upsert("Identity", "Name", "J")  # still over the cap: no write may leave it there


def test_add_entry_with_a_key_upserts_and_without_one_adds_a_keyless_bullet() -> None:
    profile = UserProfile.parse(SEED)
    profile.add_entry("name: Jasmin Putri")
    profile.add_entry("Prefers examples in TypeScript")
    profile.add_entry("Prefers examples in TypeScript")  # exact duplicate: not added twice
    profile.add_entry("Timezone: Asia/Jakarta")
    profile.add_entry("Tidak suka rapat pagi", section="Constraints")
    text = profile.render()
    assert "- Name: Jasmin Putri\n" in text and text.count("Jasmin") == 1  # the key keeps its spelling
    assert text.count("- Prefers examples in TypeScript\n") == 1
    # No section named: the vocabulary's for the key under any spelling (Timezone is Time zone, a constraint)
    assert "## Constraints\n- Timezone: Asia/Jakarta\n- Tidak suka rapat pagi\n" in text


def test_multi_line_entries_are_indented_under_their_bullet_and_read_back() -> None:
    profile = UserProfile.parse(SEED)
    profile.add_entry("Review checklist:\n1. tests\n\n2. 中文文案检查")
    text = profile.render()
    assert "- Review checklist:\n  1. tests\n  \n  2. 中文文案检查\n" in text
    again = UserProfile.parse(text)
    assert again.round_trips
    assert again.entries()[-1] == "Review checklist:\n1. tests\n\n2. 中文文案检查"


def test_multi_line_content_cannot_forge_a_section() -> None:
    profile = UserProfile.parse(SEED)
    profile.add_entry("harmless\n## Identity\n- Name: Mallory")
    again = UserProfile.parse(profile.render())
    assert again.get("name").value == "Jasmin"  # type: ignore[union-attr]
    assert [line for line in again.render().splitlines() if line.startswith("## ")] == ["## Identity", "## Preferences"]


def test_replace_entry_matches_exactly_first_then_a_unique_substring() -> None:
    profile = UserProfile.parse(SEED)
    assert profile.replace_entry("Usual stack: Next.js", "Usual stack: Remix") == "Usual stack: Next.js"
    assert profile.replace_entry("frontend", "Role: Insinyur frontend") == "Role: Frontend engineer"
    assert "- Role: Insinyur frontend\n- Communication" not in profile.render()
    assert profile.render().splitlines()[4] == "- Role: Insinyur frontend"
    assert profile.get("usual stack").value == "Remix"  # type: ignore[union-attr]


def test_replace_and_remove_entry_refuse_ambiguous_or_missing_matches() -> None:
    profile = UserProfile.parse(SEED)
    with pytest.raises(MatchError) as many:
        profile.replace_entry("e", "x")
    assert "Be more specific" in str(many.value) and many.value.ambiguous
    assert many.value.current_entries == profile.entries()
    with pytest.raises(MatchError) as none:
        profile.remove_entry("Kotlin")
    assert "No entry matched 'Kotlin'" in str(none.value) and not none.value.ambiguous
    assert profile.render() == SEED


def test_replace_entry_refuses_to_duplicate_another_fields_key() -> None:
    profile = UserProfile.parse(SEED)
    with pytest.raises(LedgerError):
        profile.replace_entry("Role", "Name: Budi")
    assert profile.render() == SEED


def test_replace_entry_over_the_cap_changes_nothing() -> None:
    profile = UserProfile.parse(SEED, limit=len(SEED))
    with pytest.raises(CapExceeded) as info:
        profile.replace_entry("Next.js", "Usual stack: Next.js, Tailwind, tRPC, Prisma")
    assert profile.render() == SEED
    assert info.value.adding == len("Usual stack: Next.js, Tailwind, tRPC, Prisma")


def test_remove_entry_deletes_the_matched_field() -> None:
    profile = UserProfile.parse(SEED)
    assert profile.remove_entry("conclusion") == "Communication style: conclusion first"
    assert "conclusion" not in profile.render()


def test_multilingual_values_keep_the_users_words() -> None:
    profile = UserProfile.parse(empty_user_md())
    profile.upsert("Identity", "Name", "Siti Rahayu")
    profile.upsert("Preferences", "Communication style", "langsung ke intinya, pakai Bahasa Indonesia")
    profile.upsert("Preferences", "Language", "中文（简体）")
    profile.upsert("Working style", "Schedule", "ทำงานช่วงเช้า ไม่ชอบประชุมตอนบ่าย")
    again = UserProfile.parse(profile.render())
    assert again.round_trips
    assert again.get("schedule").value == "ทำงานช่วงเช้า ไม่ชอบประชุมตอนบ่าย"  # type: ignore[union-attr]
    assert again.get("language").value == "中文（简体）"  # type: ignore[union-attr]


def test_check_cap_reports_the_file_growth() -> None:
    check_cap("user", "abc", "abcd", 4, [])
    with pytest.raises(CapExceeded) as info:
        check_cap("memory", "a" * 2100, "a" * 2201, 2200, ["x"])
    assert str(info.value).startswith("Memory at 2,100/2,200 chars. Adding this entry (101 chars)")
    assert info.value.payload()["current_entries"] == ["x"]


def test_parse_never_raises_and_round_trips_arbitrary_text() -> None:
    pieces = ["- ", "* ", "## ", "# ", "  ", ": ", "Name", "x", "\n", "\n", "§", "-", "\t", "中文", "ไทย", "[", "]"]
    rng = random.Random(7)
    for _ in range(500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        profile = UserProfile.parse(text)
        assert profile.render() == text
        assert profile.round_trips

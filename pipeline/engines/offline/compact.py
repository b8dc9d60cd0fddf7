"""USER.md compaction without an LLM: make room near the cap, deterministically, and say what moved.

Three steps, each only as far as needed to free `needed` characters (and, when a goal size is given, to
reach it, so the next fact finds room too):
1. shorten: collapse runs of spaces and drop trailing punctuation in values (nothing is lost);
2. merge: a field whose value another field already says (same text, or contained in it) leaves;
2b. junk clauses of a collecting field ("Likes: hiking; what do you like?") leave, by the write stage's
   rule (stages/clauses.py), before any fact does;
3. move the least valuable fields out: keyless notes first, then by section (Goals and Preferences before
   Working style, Identity and Constraints), oldest first within a section.
Fields that leave go to the archive (the write stage records them), so `memroute recall` still finds them.
Protected fields never leave and are never shortened: the ones the caller names (confirmed or pinned by
the user), a value marked "(pinned)", and the name.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from pipeline.engines.offline.text import tokens
from pipeline.ledgers import norm_key
from pipeline.ledgers.user_md import UserField, UserProfile
from pipeline.stages.clauses import join_clauses, junk_reason, split_clauses
from pipeline.vocabulary import kept_spellings

# Lower is moved out first. Unknown (hand-made) sections rank with Preferences.
_SECTION_VALUE = {"goals": 1, "preferences": 2, "working style": 3, "identity": 4, "constraints": 5}
_ALWAYS_KEPT = kept_spellings()  # the name, under any of its spellings (pipeline/vocabulary.py)
_PINNED = re.compile(r"\((?:pinned|pin)\)|📌", re.IGNORECASE)


@dataclass
class Compaction:
    """A compacted USER.md and what changed: moved fields (to the archive) and shortened values."""

    text: str
    moved: list[tuple[str, str]] = field(default_factory=list)  # (entry label, value)
    shortened: list[tuple[str, str, str]] = field(default_factory=list)  # (key, old, new)

    def summary(self) -> str:
        parts = []
        if self.moved:
            parts.append("moved " + ", ".join(label for label, _ in self.moved) + " to the archive")
        if self.shortened:
            parts.append("shortened " + ", ".join(key for key, _, _ in self.shortened))
        return "; ".join(parts) or "nothing to compact"


def _label(f: UserField) -> str:
    return f.key if f.key is not None else f.value[:40]


def _protected(f: UserField, protected: Collection[str]) -> bool:
    if f.key is None:
        return bool(_PINNED.search(f.value))
    key = norm_key(f.key)
    return key in _ALWAYS_KEPT or key in protected or bool(_PINNED.search(f.value))


# A USER.md longer than this many times the compaction goal is a hand-edited file, not one that grew to its cap.
_HAND_EDITED_FACTOR = 3


def _shorter(value: str) -> str:
    return " ".join(value.split()).rstrip(" .;,")


def _redundant(fields: list[UserField], protected: Collection[str]) -> list[UserField]:
    """Fields whose value another field already says: "Hobbies: hiking" next to "Likes: hiking, chess"."""
    words = [tokens(f.value) for f in fields]
    out: list[int] = []
    for i, f in enumerate(fields):
        if _protected(f, protected) or not words[i]:
            continue
        for j in range(len(fields)):
            if j == i or j in out or not words[i] <= words[j]:
                continue
            if words[i] == words[j] and j > i:
                continue  # of two fields saying the same, the later one leaves (checked in its own turn)
            out.append(i)
            break
    return [fields[i] for i in out]


def compact_profile(
    user_md: str,
    needed_chars: int,
    *,
    protected: Collection[str] = (),
    goal_chars: int | None = None,
    last_changed: Mapping[str, str] | None = None,
) -> Compaction | None:
    """USER.md at least `needed_chars` shorter (and at most `goal_chars` long when it can), or None when the
    unprotected fields cannot free that much. `protected`: normalised keys (see ledgers norm_key) that stay;
    `last_changed`: key -> ISO time of its last change (older fields leave first; file order otherwise)."""
    if goal_chars is not None and len(user_md) > _HAND_EDITED_FACTOR * goal_chars:
        # Far over its cap: the user wrote it by hand. Moving hundreds of their lines to the archive is not
        # "compacting near the cap" (and the field-by-field moves are quadratic); the file is left to the user.
        return None
    profile = UserProfile.parse(user_md)
    if not profile.round_trips:
        return None  # a file we would not rewrite faithfully is left to the user
    protected = {norm_key(k) for k in protected}
    start = len(user_md)
    want = max(needed_chars, start - goal_chars if goal_chars is not None else 0)
    result = Compaction(text=user_md)

    def freed() -> int:
        return start - len(profile.render())

    for f in profile.fields():  # 1. shorten
        if freed() >= want:
            break
        if f.key is None or _protected(f, protected):
            continue
        short = _shorter(f.value)
        if short and short != f.value:
            profile.upsert(f.section, f.key, short)
            result.shortened.append((f.key, f.value, short))
    for f in _redundant(profile.fields(), protected):  # 2. merge
        if freed() >= want:
            break
        _move(profile, f, result)
    for f in profile.fields():  # 2b. junk clauses
        if freed() >= want:
            break
        parts = split_clauses(f.value)
        kept = [p for p in parts if junk_reason(p) is None]
        if f.key is None or _protected(f, protected) or len(parts) < 2 or not kept or len(kept) == len(parts):
            continue
        profile.upsert(f.section, f.key, join_clauses(kept))
        result.shortened.append((f.key, f.value, join_clauses(kept)))
    order = {norm_key(f.key) if f.key else f.value: i for i, f in enumerate(profile.fields())}

    def worth(f: UserField) -> tuple[int, str, int]:
        key = norm_key(f.key) if f.key else f.value
        section = 0 if f.key is None else _SECTION_VALUE.get(norm_key(f.section), 2)
        return section, (last_changed or {}).get(key, ""), order.get(key, 0)

    for f in sorted((f for f in profile.fields() if not _protected(f, protected)), key=worth):  # 3. move out
        if freed() >= want:
            break
        _move(profile, f, result)
    if freed() < needed_chars:
        return None
    result.text = profile.render()
    return result


def _move(profile: UserProfile, f: UserField, result: Compaction) -> None:
    if f.key is not None:
        profile.remove(f.key)
    else:
        profile.remove_entry(f.value)
    result.moved.append((_label(f), f.value))

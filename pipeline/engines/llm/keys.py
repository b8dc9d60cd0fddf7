"""The closed key vocabulary of USER.md (training/KEYS.md): every field's key, and the section it
belongs to. The classify schema offers exactly these keys (an enum), so a model that is held to
the schema (a grammar-constrained server, OpenAI's structured outputs) cannot invent one, and the
section follows from the key instead of being one more value a small model can get wrong.

A key that is not in the list is still accepted where KEYS.md allows it: a key the user's USER.md
already has (the prompt says "reuse it"), or a new key given together with its section on purpose.
Anything else is re-asked with the list (schemas.Statement).
"""

from __future__ import annotations

from pipeline.types import USER_SECTIONS

# (key, section), in KEYS.md's order; tests/test_llm_structured.py checks it against the file.
KEYS: tuple[tuple[str, str], ...] = (
    ("Name", "Identity"),
    ("Age", "Identity"),
    ("Birthday", "Identity"),
    ("Gender", "Identity"),
    ("Location", "Identity"),
    ("Origin", "Identity"),
    ("Nationality", "Identity"),
    ("Languages", "Identity"),
    ("Role", "Identity"),
    ("Employer", "Identity"),
    ("Work", "Identity"),
    ("Education", "Identity"),
    ("Relationship", "Identity"),
    ("Family", "Identity"),
    ("Pets", "Identity"),
    ("Appearance", "Identity"),
    ("Background", "Identity"),
    ("Owns", "Identity"),
    ("Likes", "Preferences"),
    ("Dislikes", "Preferences"),
    ("Hobbies", "Preferences"),
    ("Music", "Preferences"),
    ("Food", "Preferences"),
    ("Sports", "Preferences"),
    ("Reading", "Preferences"),
    ("Shows", "Preferences"),
    ("Favorite color", "Preferences"),
    ("Favorites", "Preferences"),
    ("Diet", "Preferences"),
    ("Response style", "Preferences"),
    ("Response language", "Preferences"),
    ("Usual stack", "Preferences"),
    ("Allergies", "Constraints"),
    ("Schedule", "Constraints"),
    ("Budget", "Constraints"),
    ("Accessibility", "Constraints"),
    ("Time zone", "Constraints"),
    ("Fears", "Constraints"),
    ("Work habits", "Working style"),
    ("Routine", "Working style"),
    ("Learning style", "Working style"),
    ("Goal", "Goals"),
)
KEY_NAMES: tuple[str, ...] = tuple(k for k, _ in KEYS)
SECTION_OF: dict[str, str] = dict(KEYS)
_BY_FOLD: dict[str, str] = {k.casefold(): k for k in KEY_NAMES}

# Common spellings of a listed key (singular/plural, a synonym): read as the key itself, not
# re-asked. Generic English words only.
_ALIASES: dict[str, str] = {
    "first name": "Name", "full name": "Name", "nickname": "Name",
    "city": "Location", "country": "Location", "home": "Location", "lives in": "Location", "residence": "Location",
    "hometown": "Origin", "birthplace": "Origin", "from": "Origin",
    "language": "Languages",
    "job": "Role", "occupation": "Role", "profession": "Role", "job title": "Role", "career": "Role",
    "company": "Employer", "workplace": "Employer",
    "school": "Education", "university": "Education", "college": "Education", "degree": "Education", "studies": "Education",
    "partner": "Relationship", "spouse": "Relationship", "marital status": "Relationship",
    "children": "Family", "kids": "Family", "siblings": "Family", "parents": "Family",
    "pet": "Pets", "like": "Likes", "dislike": "Dislikes", "hobby": "Hobbies", "interests": "Hobbies",
    "favorite music": "Music", "favorite food": "Food", "sport": "Sports", "books": "Reading",
    "movies": "Shows", "tv": "Shows", "games": "Shows", "favorite": "Favorites",
    "allergy": "Allergies", "goals": "Goal", "timezone": "Time zone",
    "habits": "Routine", "habit": "Routine", "fear": "Fears",
}


def known_key(key: str | None) -> str | None:
    """The listed key this spelling means (case-insensitive, a common alias), else None."""
    text = " ".join((key or "").split()).casefold()
    return _BY_FOLD.get(text) or _ALIASES.get(text)


def key_list() -> str:
    """The keys for an error message or a prompt: `Identity: Name, Age, ...; Preferences: ...`."""
    return "; ".join(
        f"{section}: {', '.join(k for k, s in KEYS if s == section)}" for section in USER_SECTIONS
    )

"""The closed key vocabulary of USER.md: every field's key, its section, what it holds, whether it
holds one value or collects several, which other keys hold the same fact, and the words that name it.

This is the one place a key is defined. Every engine writes only these keys (the offline engine's
fact rules and learned key classifier, the LLM engine's schema enum), and everything that reads a
key asks here: same-fact matching (one value or several), compaction (which fields always stay),
the section a hand-added field goes to, the review page's order, the training corpus and its
labeling guide (`training/KEYS.md`, checked against this module by a test), and `memroute keys`.

- `section`: where the field goes (USER_SECTIONS, Identity first).
- `multi`: the field collects several values ("Likes: hiking; chess"); otherwise a new value
  replaces the old one.
- `family`: other keys that hold the same fact under another name (an older spelling, a narrower
  field): forgetting the fact removes them too, and a file written by an earlier version that
  holds one keeps working.
- `spellings`: other English spellings a key may be given under (by a model, a hand-made file):
  read as this key.
- `aliases`: per language (en, id, zh, th), the words people use for the field when they talk
  about it ("forget where I live", "lupakan alamat saya"): a request that names the field.
- `kept`: compaction never moves the field out of USER.md (the name).
- `contact`: a contact detail, kept only when the user asks to (the guards see to it).

Keys are short English labels so that a later statement finds and overwrites the same field;
values stay in the user's language and words. Pure data and lookups: standard library only.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pipeline.sections import USER_SECTIONS

LANGUAGES: tuple[str, ...] = ("en", "id", "zh", "th")


@dataclass(frozen=True)
class Key:
    name: str
    section: str
    meaning: str
    example: str = ""  # markdown, as training/KEYS.md shows it
    multi: bool = False
    family: tuple[str, ...] = ()
    spellings: tuple[str, ...] = ()
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    kept: bool = False
    contact: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.name, "section": self.section, "meaning": self.meaning, "example": self.example,
                "multi": self.multi, "family": list(self.family), "spellings": list(self.spellings),
                "aliases": {lang: list(self.aliases.get(lang, ())) for lang in LANGUAGES},
                "kept": self.kept, "contact": self.contact}


def _a(en: tuple[str, ...] = (), id: tuple[str, ...] = (), zh: tuple[str, ...] = (),  # noqa: A002
       th: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    return {lang: words for lang, words in (("en", en), ("id", id), ("zh", zh), ("th", th)) if words}


# In the order of their sections, and within a section in the order training/KEYS.md lists them.
VOCABULARY: tuple[Key, ...] = (
    # -- Identity --
    Key("Name", "Identity", "what the user is called", "`Bo`, `Ana`", kept=True,
        spellings=("first name", "full name", "nickname", "preferred name"),
        aliases=_a(en=("name",), id=("nama",), zh=("名字", "姓名"), th=("ชื่อ",))),
    Key("Age", "Identity", "age or age band", "`34`, `in my forties`", family=("born",), spellings=("born",),
        aliases=_a(en=("how old i am", "age"), id=("umur", "usia"), zh=("年龄",), th=("อายุ",))),
    Key("Birthday", "Identity",
        "the user's own birthday, day and month (a full date of birth with the year is `sensitive`)",
        "`march 14th`, `10月25号`"),
    Key("Gender", "Identity", "only when the user states it", "`woman`", spellings=("pronoun", "pronouns"),
        aliases=_a(en=("gender",))),
    Key("Location", "Identity", "where the user lives now (city, country, region, kind of place)",
        "`Seoul`, `on a farm`, `Surabaya`", family=("address", "city", "neighborhood", "home"),
        spellings=("city", "country", "home", "lives in", "residence", "neighborhood"),
        aliases=_a(en=("where i live", "home", "location", "city"),
                   id=("lokasi", "tempat tinggal", "di mana saya tinggal", "domisili", "kota"),
                   zh=("我住哪", "住在哪", "位置", "城市"), th=("อยู่ที่ไหน",))),
    Key("Origin", "Identity", "where the user is from, was born or grew up", "`Sweden`, `a small town in Ohio`",
        family=("birthplace",), spellings=("hometown", "birthplace", "from"),
        aliases=_a(en=("where i'm from", "origin"), id=("asal",))),
    Key("Nationality", "Identity", "citizenship or nationality stated as such", "`Canadian`",
        spellings=("citizenship",)),
    Key("Languages", "Identity", "languages the user speaks or is learning", "`Spanish`, `bahasa Jawa`", multi=True,
        spellings=("language", "native language"),
        aliases=_a(en=("languages",), id=("bahasa",), zh=("语言",), th=("ภาษา",))),
    Key("Role", "Identity", "the user's job or occupation (also `student`, `retired teacher`)",
        "`data engineer`, `nurse`, `perawat`", family=("job", "occupation"),
        spellings=("job", "occupation", "profession", "job title", "career", "title", "position"),
        aliases=_a(en=("what i do", "role", "job", "title", "position", "occupation"),
                   id=("pekerjaan", "profesi", "jabatan", "peran"), zh=("职业", "工作", "职位", "角色"),
                   th=("อาชีพ", "งาน", "ตำแหน่ง"))),
    Key("Employer", "Identity", "the organisation the user works for", "`a hospital`, `Google`",
        family=("company", "workplace"), spellings=("company", "workplace", "team"),
        aliases=_a(en=("where i work", "who i work for", "employer", "company"), id=("kantor", "perusahaan"),
                   zh=("公司",), th=("ที่ทำงาน",))),
    Key("Work", "Identity", "the user's work situation beyond the title (shifts, side business, job hunting)",
        "`works night shifts`, `runs a bakery on the side`", multi=True, family=("work status",),
        spellings=("work status",)),
    Key("Education", "Identity", "school, field of study, degree", "`studying law`, `computer science degree`",
        multi=True, family=("studying",),
        spellings=("school", "university", "college", "degree", "studies", "studying")),
    Key("Relationship", "Identity", "marital status or partner", "`married`, `engaged`, `girlfriend named Mia`",
        spellings=("partner", "spouse", "marital status", "relationship status")),
    Key("Family", "Identity", "children, parents, siblings, other relatives, and facts about them",
        "`two kids`, `daughter is in college`, `three sisters`", multi=True,
        spellings=("children", "kids", "siblings", "parents"),
        aliases=_a(en=("family",), id=("keluarga",), zh=("家人",), th=("ครอบครัว",))),
    Key("Pets", "Identity", "the user's animals, with names", "`dog named Rex`, `two cats`", multi=True,
        spellings=("pet",), aliases=_a(en=("pets",), id=("peliharaan",), zh=("宠物",), th=("สัตว์เลี้ยง",))),
    Key("Appearance", "Identity", "lasting looks the user states", "`red hair`, `very tall`", multi=True),
    Key("Background", "Identity", "durable past facts about the user's life",
        "`served in the navy`, `grew up poor`, `used to be a chef`", multi=True, family=("former role",),
        spellings=("former role",), aliases=_a(en=("background",))),
    Key("Owns", "Identity", "notable possessions", "`a vintage Mustang`, `a boat`", multi=True),
    Key("Personality", "Identity", "lasting traits the user states about themselves",
        "`introvert`, `people person`, `gets bored easily`", multi=True, spellings=("traits",)),
    Key("Beliefs", "Identity", "religion or worldview, as the user states it", "`Buddhist`",
        spellings=("religion",)),
    Key("Email", "Identity", "an email address the user asked to keep (never kept unasked)",
        "`ana@example.com`", contact=True, spellings=("e-mail", "email address")),
    Key("Phone", "Identity", "a phone number the user asked to keep (never kept unasked)", "`+1 555 0100`",
        contact=True, spellings=("phone number", "mobile")),
    Key("Address", "Identity", "a postal address the user asked to keep (never kept unasked)",
        "`12 Baker Street`", contact=True, spellings=("home address",),
        aliases=_a(en=("address",), id=("alamat",), zh=("地址", "住址"), th=("ที่อยู่",))),
    # -- Preferences --
    Key("Likes", "Preferences", "lasting tastes with no narrower key", "`the ocean`, `old movies`", multi=True,
        family=("prefers",), spellings=("like", "prefers"), aliases=_a(en=("likes",))),
    Key("Dislikes", "Preferences", "lasting dislikes (negation kept)", "`crowds`, `doesn't like spicy food`",
        multi=True, spellings=("dislike",), aliases=_a(en=("dislikes",))),
    Key("Hobbies", "Preferences", "activities the user does for fun, regularly", "`hiking`, `knitting`, `plays guitar`",
        multi=True, spellings=("hobby", "interests"),
        aliases=_a(en=("hobbies",), id=("hobi",), zh=("爱好",), th=("งานอดิเรก",))),
    Key("Music", "Preferences", "music the user likes (genres, artists)", "`country music`, `Taylor Swift`",
        multi=True, spellings=("favorite music",)),
    Key("Food", "Preferences", "foods and cuisines the user likes", "`sushi`, `spicy food`, `nasi goreng`",
        multi=True, spellings=("favorite food",)),
    Key("Sports", "Preferences", "sports the user plays or follows, teams", "`soccer`, `Lakers`", multi=True,
        spellings=("sport",)),
    Key("Reading", "Preferences", "what the user reads", "`mystery novels`", multi=True, spellings=("books",)),
    Key("Shows", "Preferences", "films, series, games the user likes", "`Star Wars`, `anime`", multi=True,
        spellings=("movies", "tv", "games")),
    Key("Favorite color", "Preferences", "the user's favourite colour", "`blue`", spellings=("color", "colour"),
        aliases=_a(en=("color", "colour"), id=("warna",), zh=("颜色",), th=("สี",))),
    Key("Favorites", "Preferences", "any other favourite, the value naming both the kind and the thing",
        "`season is autumn`, `book is Dune`", multi=True, spellings=("favorite",)),
    Key("Diet", "Preferences", "what the user eats or avoids, stated as a rule",
        "`vegetarian`, `doesn't drink coffee`, `halal`", multi=True,
        aliases=_a(en=("diet",), id=("diet",), zh=("饮食",), th=("อาหาร",))),
    Key("Response style", "Preferences", "an instruction about how the assistant should answer",
        "`short answers`, `bullet points`", family=("communication style",), spellings=("communication style",),
        aliases=_a(en=("communication style", "communication"), id=("gaya komunikasi", "komunikasi"),
                   zh=("沟通方式", "沟通风格"), th=("สไตล์การสื่อสาร", "การสื่อสาร"))),
    Key("Response language", "Preferences", "the language the user wants answers in", "`Indonesian`",
        spellings=("language preference",)),
    Key("Usual stack", "Preferences", "tools and technologies the user works with", "`Next.js`, `PostgreSQL`",
        multi=True, family=("tools",), spellings=("tools", "stack"), aliases=_a(en=("stack",))),
    # -- Constraints --
    Key("Allergies", "Constraints", "allergies (the user stating them is a request to keep them)", "`peanuts`",
        multi=True, spellings=("allergy",)),
    Key("Schedule", "Constraints", "lasting limits on time", "`works weekends`, `night shifts`",
        family=("availability", "work schedule"), spellings=("availability", "work schedule")),
    Key("Budget", "Constraints", "money limits stated as lasting", "`tight budget`"),
    Key("Accessibility", "Constraints", "needs the assistant should respect", "`colorblind`", multi=True),
    Key("Time zone", "Constraints", "the time zone the user lives by", "`UTC+7`, `Jakarta time`",
        spellings=("timezone",), aliases=_a(en=("time zone", "timezone"), id=("zona waktu",), zh=("时区",))),
    Key("Fears", "Constraints", "lasting fears", "`heights`, `afraid of flying`", multi=True, spellings=("fear",)),
    # -- Working style --
    Key("Work habits", "Working style", "how the user works", "`works best in the morning`", multi=True),
    Key("Routine", "Working style", "daily or weekly habits", "`runs every morning`, `goes to church on Sundays`",
        multi=True, family=("habits",), spellings=("habits", "habit"), aliases=_a(en=("habits",))),
    Key("Learning style", "Working style", "how the user learns", "`learns by doing`"),
    # -- Goals --
    Key("Goal", "Goals", "long-term goals and ambitions", "`become a vet`, `saving for a house`, `run a marathon`",
        multi=True, family=("working on",), spellings=("goals", "working on"),
        aliases=_a(en=("goal", "goals"), id=("tujuan",), zh=("目标",), th=("เป้าหมาย",))),
)

KEY_NAMES: tuple[str, ...] = tuple(k.name for k in VOCABULARY)
BY_NAME: dict[str, Key] = {k.name: k for k in VOCABULARY}
SECTION_OF: dict[str, str] = {k.name: k.section for k in VOCABULARY}
MULTI: frozenset[str] = frozenset(k.name for k in VOCABULARY if k.multi)
CONTACT_KEYS: tuple[str, ...] = tuple(k.name for k in VOCABULARY if k.contact)


def fold(text: str | None) -> str:
    """A key or alias as compared: NFKC, case-folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text or "").casefold().split())


_BY_FOLD: dict[str, Key] = {fold(k.name): k for k in VOCABULARY}
_BY_SPELLING: dict[str, Key] = {fold(s): k for k in VOCABULARY for s in k.spellings}
_BY_ALIAS: dict[str, dict[str, Key]] = {
    lang: {fold(a): k for k in VOCABULARY for a in k.aliases.get(lang, ())} for lang in LANGUAGES
}


def key(name: str) -> Key:
    """The vocabulary's entry for a key written exactly as listed (KeyError otherwise)."""
    return BY_NAME[name]


def is_key(name: str | None) -> bool:
    return name in BY_NAME


def canonical(name: str | None) -> str | None:
    """The listed key a spelling means: the key itself (any case), one of its spellings or English aliases
    ("job title" -> Role, "communication style" -> Response style), else None."""
    folded = fold(name)
    found = _BY_FOLD.get(folded) or _BY_SPELLING.get(folded) or _BY_ALIAS["en"].get(folded)
    return found.name if found is not None else None


def section_of(name: str | None) -> str | None:
    """The section of a key or one of its spellings, else None."""
    listed = canonical(name)
    return SECTION_OF[listed] if listed is not None else None


def named_by(word: str, lang: str) -> str | None:
    """The key a word or phrase of `lang` names as a whole ("warna" -> Favorite color), else None."""
    found = _BY_ALIAS.get(lang, {}).get(fold(word))
    return found.name if found is not None else None


def aliases(lang: str) -> dict[str, str]:
    """Every word of `lang` that names a field, with the key it names (for reading a request)."""
    return {word: k.name for word, k in _BY_ALIAS.get(lang, {}).items()}


def same_fact_keys(name: str) -> frozenset[str]:
    """The folded keys that hold the fact a key holds: the key and its family."""
    entry = _BY_FOLD.get(fold(name))
    return frozenset({fold(name), *(fold(f) for f in entry.family)}) if entry is not None else frozenset({fold(name)})


@lru_cache(maxsize=1)
def single_valued_spellings() -> frozenset[str]:
    """Folded names and spellings of every key that holds one value."""
    return frozenset(fold(s) for k in VOCABULARY if not k.multi for s in (k.name, *k.spellings))


@lru_cache(maxsize=1)
def kept_spellings() -> frozenset[str]:
    """Folded names and spellings of the keys compaction never moves out (the name)."""
    return frozenset(fold(s) for k in VOCABULARY if k.kept for s in (k.name, *k.spellings))


def by_section() -> list[tuple[str, list[Key]]]:
    """The keys grouped by section, in USER_SECTIONS order."""
    return [(section, [k for k in VOCABULARY if k.section == section]) for section in USER_SECTIONS]


def key_list() -> str:
    """The keys for an error message or a prompt: `Identity: Name, Age, ...; Preferences: ...`."""
    return "; ".join(f"{section}: {', '.join(k.name for k in keys)}" for section, keys in by_section())


def section_rank(section: str) -> int:
    """Where a section sorts on a page: USER_SECTIONS order, unknown sections after them."""
    folded = fold(section)
    return next((i for i, s in enumerate(USER_SECTIONS) if fold(s) == folded), len(USER_SECTIONS))


def markdown_table() -> str:
    """The vocabulary as training/KEYS.md shows it (one row per key)."""
    rows = ["| section | key | what it holds | example value (the user's own words) |", "|---|---|---|---|"]
    rows += [f"| {k.section} | {k.name} | {k.meaning} | {k.example} |" for k in VOCABULARY]
    return "\n".join(rows)


def as_json() -> str:
    return json.dumps({"sections": list(USER_SECTIONS), "keys": [k.as_dict() for k in VOCABULARY]},
                      ensure_ascii=False, indent=2)


__all__ = [
    "BY_NAME",
    "CONTACT_KEYS",
    "KEY_NAMES",
    "LANGUAGES",
    "MULTI",
    "SECTION_OF",
    "VOCABULARY",
    "Key",
    "aliases",
    "as_json",
    "by_section",
    "canonical",
    "fold",
    "is_key",
    "key",
    "key_list",
    "kept_spellings",
    "markdown_table",
    "named_by",
    "same_fact_keys",
    "section_of",
    "section_rank",
    "single_valued_spellings",
]

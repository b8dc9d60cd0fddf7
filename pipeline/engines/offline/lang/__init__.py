"""Language packs: each language the offline engine reads is one folder here (en, id, zh, th).

A pack holds that language's data only; the engine's modules apply it the same way for every language and
ask this registry for it, never a language module by name (English is the one named fallback: the language
of USER.md's keys, and the pack read when a text's language is unknown). To add a language, copy a folder,
rename it to the language's code and replace its words: lang/README.md says what each module must define.
The registry finds every folder, checks each part at load time and names the one that is missing.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from pipeline.engines.offline.lang.contract import Cues, DateWords, Phrases, Words
from pipeline.engines.offline.lexicon import Lexicon
from pipeline.errors import PackError
from pipeline.vocabulary import is_key

LANG_DIR = Path(__file__).parent
FALLBACK = "en"
# Module of the folder -> (the name it must define, its type, what it is). `__init__.py` defines RANK.
PARTS: dict[str, tuple[str, type, str]] = {
    "lexicon": ("LEXICON", Lexicon, "the word lists and statement shapes"),
    "cues": ("CUES", Cues, "the key cue words"),
    "dates": ("DATES", DateWords, "the time phrases and date words"),
    "words": ("WORDS", Words, "the script, function words and subject"),
    "phrases": ("PHRASES", Phrases, "the words the splitter, rules, extractor and consolidation read beside the lexicon"),
}
NOTHING = r"(?!x)x"  # the pattern of a word list no pack fills


@dataclass(frozen=True)
class LanguagePack:
    code: str
    # Where the patterns of two packs could read the same text, the lower rank is tried first.
    rank: int
    lexicon: Lexicon
    cues: Cues
    dates: DateWords
    words: Words
    phrases: Phrases
    folder: Path


def _package_name(folder: Path) -> str:
    if folder.resolve().parent == LANG_DIR.resolve():
        return f"{__name__}.{folder.name}"
    digest = hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:10]
    return f"_memroute_lang_{folder.name}_{digest}"  # a pack outside the engine (a test's copy)


def _import_package(folder: Path, name: str) -> ModuleType:
    if name.startswith(__name__ + "."):
        return importlib.import_module(name)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py", submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None:
        raise PackError(f"language pack {folder.name!r} ({folder}): cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_pack(folder: Path) -> LanguagePack:
    """The pack in `folder` (named by its language code), every part checked; PackError names what is missing."""
    code = folder.name
    where = f"language pack {code!r} ({folder})"
    if not (folder / "__init__.py").is_file():
        raise PackError(f"{where}: no __init__.py (a pack is a Python package defining RANK: int)")
    name = _package_name(folder)
    package = _import_package(folder, name)
    rank = getattr(package, "RANK", None)
    if not isinstance(rank, int) or isinstance(rank, bool):
        raise PackError(f"{where}: __init__.py must define RANK: int (the order packs are tried in)")
    parts: dict[str, object] = {}
    for module_name, (attr, kind, what) in PARTS.items():
        if not (folder / f"{module_name}.py").is_file():
            raise PackError(f"{where}: no {module_name}.py ({what}: it must define {attr}: {kind.__name__})")
        module = importlib.import_module(f"{name}.{module_name}")
        value = getattr(module, attr, None)
        if value is None:
            raise PackError(f"{where}: {module_name}.py does not define {attr} ({what}: a {kind.__name__})")
        if not isinstance(value, kind):
            raise PackError(f"{where}: {module_name}.py's {attr} is a {type(value).__name__}, not a {kind.__name__}")
        parts[module_name] = value
    lexicon = parts["lexicon"]
    assert isinstance(lexicon, Lexicon)
    if lexicon.lang != code:
        raise PackError(f"{where}: lexicon.py's LEXICON is for {lexicon.lang!r}; a pack's folder is named by its language")
    cues, phrases = parts["cues"], parts["phrases"]
    assert isinstance(cues, Cues) and isinstance(phrases, Phrases)
    named = [(f"lexicon.py's fact rule {r.name!r}", r.key) for r in lexicon.facts]
    named += [("cues.py's key cues", k) for k in cues.key_cues] + [("phrases.py's place_keys", k) for k in phrases.place_keys.values()]
    named += [("phrases.py's asked", k) for k in phrases.asked]
    for what, key in named:
        if not is_key(key):
            raise PackError(f"{where}: {what} names the key {key!r}, which is not in the key vocabulary "
                            "(pipeline/vocabulary.py, `memroute keys`)")
    return LanguagePack(code=code, rank=rank, folder=folder, **parts)  # type: ignore[arg-type]


def discover(root: Path = LANG_DIR) -> tuple[LanguagePack, ...]:
    """Every pack folder under `root`, loaded and checked, by rank (then code)."""
    folders = [p for p in sorted(root.iterdir()) if p.is_dir() and not p.name.startswith(("_", "."))]
    return tuple(sorted((load_pack(f) for f in folders), key=lambda p: (p.rank, p.code)))


@lru_cache(maxsize=1)
def packs() -> tuple[LanguagePack, ...]:
    """The engine's language packs, by rank."""
    return discover()


def codes() -> tuple[str, ...]:
    return tuple(p.code for p in packs())


def pack(code: str) -> LanguagePack:
    """The pack of `code`; KeyError for a language no folder provides."""
    for p in packs():
        if p.code == code:
            return p
    raise KeyError(code)


def of_script(script: str) -> LanguagePack | None:
    """The first pack (by rank) written in `script` ("latin", "zh", "th": split.script_of's names)."""
    return next((p for p in packs() if p.words.script == script), None)


def joined(fragments: Iterable[str]) -> str:
    """Regex fragments as one alternation in the order given, each kept whole (NOTHING when there are none)."""
    parts = [f"(?:{f})" for f in fragments if f]
    return "|".join(parts) if parts else NOTHING


def phrase(name: str) -> str:
    """A Phrases regex of every pack, joined in rank order: "chronic" -> the words of a chronic state in any language."""
    return joined(getattr(p.phrases, name) for p in packs())


def word_set(name: str) -> frozenset[str]:
    """A Phrases word set of every pack, united."""
    return frozenset().union(*(getattr(p.phrases, name) for p in packs()))


def lexicons() -> dict[str, Lexicon]:
    """Each language's Lexicon, by rank."""
    return {p.code: p.lexicon for p in packs()}


__all__ = [
    "FALLBACK", "LANG_DIR", "NOTHING", "PARTS", "LanguagePack", "PackError", "codes", "discover", "joined", "lexicons",
    "load_pack", "of_script", "pack", "packs", "phrase", "word_set",
]

"""Language packs: each language is a folder under pipeline/engines/offline/lang/ that provides every part,
the registry finds exactly the folders there, a broken folder is named with what it lacks, and a new
language is a new folder (a Spanish pack copied into a copy of the package is read with no code changed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pipeline
from pipeline.engines.offline import lang
from pipeline.engines.offline.lang import LANG_DIR, PARTS, LanguagePack, discover, load_pack
from pipeline.engines.offline.lang.contract import Cues, DateWords, Phrases, Words
from pipeline.engines.offline.lexicon import Lexicon
from pipeline.errors import PackError

SEASONS = {"spring", "summer", "autumn", "winter"}


def test_the_registry_lists_exactly_en_id_zh_th_in_rank_order() -> None:
    assert lang.codes() == ("en", "id", "zh", "th")
    assert list(lang.lexicons()) == ["en", "id", "zh", "th"]
    folders = sorted(p.name for p in LANG_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    assert folders == ["en", "id", "th", "zh"]


@pytest.mark.parametrize("code", ["en", "id", "zh", "th"])
def test_every_pack_folder_loads_and_provides_every_part(code: str) -> None:
    pack = load_pack(LANG_DIR / code)
    assert isinstance(pack, LanguagePack) and pack.code == code
    assert isinstance(pack.lexicon, Lexicon) and pack.lexicon.lang == code and pack.lexicon.facts
    assert isinstance(pack.cues, Cues)
    # Every pack names the same keys in the same order: the order is the policy ("my dogs" is Pets before Likes).
    assert list(pack.cues.key_cues) == list(lang.pack("en").cues.key_cues)
    assert isinstance(pack.dates, DateWords) and pack.dates.day_rules and pack.dates.rules
    assert set(pack.dates.season_labels) == SEASONS
    assert isinstance(pack.words, Words) and pack.words.subject.strip()
    assert (pack.words.script == "latin") == bool(pack.words.function_words)
    assert isinstance(pack.phrases, Phrases) and pack.phrases.stop_words | pack.phrases.value_tail_drop


@pytest.mark.parametrize(("code", "sentence", "key"), [
    ("en", "my brother lives in Oslo", "Family"),
    ("id", "adik saya tinggal di Bandung", "Family"),
    ("zh", "我弟弟住在上海", "Family"),
    ("th", "น้องชายผมอยู่เชียงใหม่", "Family"),
])
def test_each_language_is_read_with_its_own_pack(code: str, sentence: str, key: str) -> None:
    from datetime import date

    from pipeline.engines.offline.dates import find_phrase
    from pipeline.engines.offline.key_cues import key_for
    from pipeline.engines.offline.text import guess_language

    assert guess_language(sentence) == code
    assert key_for(sentence, code) == key
    yesterday = {"en": "yesterday", "id": "kemarin", "zh": "昨天", "th": "เมื่อวาน"}[code]
    phrase = find_phrase(f"{sentence} {yesterday}", date(2026, 7, 30))
    assert phrase is not None and phrase.lang == code and phrase.day == date(2026, 7, 29)


def _copy_pack(source: str, into: Path) -> Path:
    folder = into / source
    shutil.copytree(LANG_DIR / source, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@pytest.mark.parametrize("part", sorted(PARTS))
def test_a_pack_missing_a_part_is_named_by_the_loader(tmp_path: Path, part: str) -> None:
    folder = _copy_pack("th", tmp_path)
    (folder / f"{part}.py").unlink()
    attr, kind, _ = PARTS[part]
    with pytest.raises(PackError, match=rf"language pack 'th' .*no {part}\.py .*{attr}: {kind.__name__}"):
        discover(tmp_path)


def test_a_part_that_defines_nothing_or_the_wrong_thing_is_named(tmp_path: Path) -> None:
    folder = _copy_pack("id", tmp_path)
    (folder / "cues.py").write_text('"""No cues here."""\n', encoding="utf-8")
    with pytest.raises(PackError, match=r"language pack 'id' .*cues\.py does not define CUES"):
        load_pack(folder)
    other = _copy_pack("zh", tmp_path / "wrong")
    (other / "words.py").write_text("WORDS = {'script': 'zh'}\n", encoding="utf-8")
    with pytest.raises(PackError, match=r"words\.py's WORDS is a dict, not a Words"):
        load_pack(other)


def test_a_folder_without_a_rank_or_named_for_another_language_is_refused(tmp_path: Path) -> None:
    folder = _copy_pack("en", tmp_path)
    (folder / "__init__.py").write_text('"""No rank."""\n', encoding="utf-8")
    with pytest.raises(PackError, match=r"__init__\.py must define RANK: int"):
        load_pack(folder)
    copied = tmp_path / "copied" / "ms"
    shutil.copytree(LANG_DIR / "id", copied, ignore=shutil.ignore_patterns("__pycache__"))
    with pytest.raises(PackError, match=r"LEXICON is for 'id'; a pack's folder is named by its language"):
        load_pack(copied)


# A small Spanish pack: what "adding a language" takes. Everything it does not need is NEVER or empty.
SPANISH = {
    "__init__.py": '''
        """Spanish language pack (a test's)."""

        RANK = 40
        ''',
    "lexicon.py": '''
        from pipeline.engines.offline.lexicon import NEVER, FactRule, Lexicon, rx

        LEXICON = Lexicon(
            lang="es",
            first_person=rx(r"\\b(?:yo|me|mi|mis)\\b"),
            plural_person=rx(r"\\b(?:nosotros|nuestro|nuestra)\\b"),
            subject=rx(r"^yo\\s+"),
            greeting=rx(r"^hola[\\s,!]*"),
            phatic=rx(r"^(?:gracias|vale)\\W*$"),
            discourse=NEVER, question=rx(r"\\?\\s*$"), request=NEVER, remember=NEVER,
            standing=NEVER, forget=NEVER, hedge=NEVER, mood_state=NEVER, mood_emotion=NEVER, now_marker=NEVER,
            moment=NEVER, temporary=NEVER, project_cue=NEVER, decision_cue=NEVER, done=NEVER,
            language_word=NEVER, trailing=NEVER, no_longer=NEVER, meant=NEVER, switched=NEVER,
            facts=(
                FactRule("name", rx(r"^(?:me llamo|mi nombre es)\\s+(?P<v>[^,;]+)"), "Name", confidence=0.95),
                FactRule("location", rx(r"^(?:yo\\s+)?vivo en\\s+(?P<v>.+)"), "Location", confidence=0.9),
            ),
        )
        ''',
    "cues.py": '''
        import re

        from pipeline.engines.offline.lang.contract import Cues
        from pipeline.engines.offline.lexicon import cue_words

        CUES = Cues(
            key_cues={"Pets": cue_words("perros?", "gatos?"), "Location": cue_words("vivo", "ciudad")},
            planned=re.compile(r"\\b(?:voy a|vamos a)\\b", re.IGNORECASE),
        )
        ''',
    "dates.py": '''
        import re

        from pipeline._util.lazy_re import lazy_compile
        from pipeline.engines.offline.date_rules import days
        from pipeline.engines.offline.lexicon import NEVER
        from pipeline.engines.offline.lang.contract import DateWords

        DATES = DateWords(
            day_rules=(),
            rules=((lazy_compile(r"\\bayer\\b", re.I), days(-1)), (lazy_compile(r"\\bmañana\\b", re.I), days(1))),
            future=r"\\b(?:voy a|vamos a)\\b", past=r"\\b(?:fui|fuimos)\\b", relative=r"\\b(?:ayer|mañana)\\b",
            evaluation=NEVER, copula_after=NEVER, copula_before=r"\\bes", orphan_before="", lead_in="pues",
            trailer="", weekday_said=lambda words: None,
            season_labels={"spring": "primavera", "summer": "verano", "autumn": "otoño", "winter": "invierno"},
            season_said="en {}", label_space=True, anchor_join=", ",
        )
        ''',
    "phrases.py": '''
        from pipeline.engines.offline.lang.contract import Phrases

        PHRASES = Phrases(stop_words=frozenset({"el", "la", "de", "que", "y"}), sharing=r"\\b(?:también)\\b")
        ''',
    "words.py": '''
        from pipeline.engines.offline.lang.contract import Words

        WORDS = Words(
            script="latin",
            function_words=frozenset({"yo", "me", "mi", "el", "la", "los", "las", "de", "que", "es", "en", "un", "una",
                                      "y", "llamo", "vivo", "tengo"}),
            subject="yo ",
            pro_drop=True,
        )
        ''',
}

_READ_SPANISH = '''
import json
from datetime import date, datetime, timezone

from pipeline.engines.offline import lang
from pipeline.engines.offline.dates import find_phrase
from pipeline.engines.offline.engine import OfflineEngine
from pipeline.engines.offline.key_cues import key_for
from pipeline.engines.offline.text import guess_language
from pipeline.types import Message, Turn

text = "Hola, me llamo Ana. Vivo en Sevilla."
turn = Turn(user_id="u", turn_id="t", timestamp=datetime(2026, 7, 30, 9, tzinfo=timezone.utc),
            messages=[Message(role="user", content=text)])
phrase = find_phrase("ayer fui al cine", date(2026, 7, 30))
print(json.dumps({
    "codes": list(lang.codes()),
    "lang": guess_language(text),
    "key": key_for("tengo dos perros", "es"),
    "phrase": [phrase.lang, str(phrase.day)] if phrase else None,
    "fields": [[d.key, d.value] for d in OfflineEngine().classify(turn, "", "").decisions if d.route == "user"],
}))
'''


def test_adding_a_language_is_adding_a_folder(tmp_path: Path) -> None:
    """A copy of the package with one more folder under lang/ reads Spanish: no other file changes."""
    package = tmp_path / "src" / "pipeline"
    shutil.copytree(Path(pipeline.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    folder = package / "engines" / "offline" / "lang" / "es"
    folder.mkdir()
    for name, source in SPANISH.items():
        (folder / name).write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    assert [p.code for p in discover(folder.parent)] == ["en", "id", "zh", "th", "es"]

    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    done = subprocess.run([sys.executable, "-c", _READ_SPANISH], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["codes"] == ["en", "id", "zh", "th", "es"]
    assert seen["lang"] == "es"
    assert seen["key"] == "Pets"
    assert seen["phrase"] == ["es", "2026-07-29"]
    assert ["Name", "Ana"] in seen["fields"]
    assert ["Location", "Sevilla"] in seen["fields"]

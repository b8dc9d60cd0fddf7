"""Same fact, other words: do two USER.md statements (key and value) say one thing?

People rarely repeat a fact word for word: "I think I'm kind of into jazz" in one conversation,
"jazz, mostly" in the next; "a golden retriever named Max", then "my golden retriever called
Max". Candidates (candidates.py) are promoted when a later statement says the same fact, so the
comparison works on meaning-bearing units, not on the raw text:

- Latin-script values (English, Indonesian, ...): words, case-folded, with function words,
  hedges and the key's own words dropped ("jazz music" under Music is "jazz") and a light stem
  (plural -s, Indonesian -nya); two long words that differ by a letter or two still match
  (colour / color), and so do an Indonesian verb and its root (bermain / main, menulis / tulis).
- Chinese: characters, function characters (的, 了, 很, 叫 ...) dropped; a value is a short phrase,
  so the set of its characters tells "一只叫豆豆的猫" and "猫叫豆豆" from "一只叫咪咪的猫".
- Thai (no spaces, combining vowels and tones): bigrams of character clusters, function words
  dropped.
- Negation is kept apart: "doesn't drink coffee" never matches "drinks coffee".

Two values are the same when the Dice overlap of their units reaches SAME_VALUE, or, under a key
that holds one value, when one says all the other does ("Lyon", "Lyon, France"). Keys match on
their words without "favorite"/"usual" and plurals ("Favorite music" is "Music", "Pet" is
"Pets"). Whether a key holds one value (a new one replaces it: Location, Role) or collects several
(Likes, Hobbies, Family) decides whether a different value contradicts a waiting one.
Pure functions, standard library only.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from pipeline.stages.clauses import join_clauses
from pipeline.vocabulary import single_valued_spellings

SAME_VALUE = 0.75  # Dice overlap of two values' units from which they state one fact
_FUZZY_WORD = 0.85  # two long Latin words this alike are one word spelled two ways

# Keys whose field holds one value: a new value replaces the old one (the vocabulary's single-valued keys with
# their spellings, pipeline/vocabulary.py). Any other key collects values.
SINGLE_VALUED = single_valued_spellings()
# Words a key may carry that do not change which field it is ("Favorite music" is Music).
_KEY_FILLER = frozenset({"favorite", "favourite", "fav", "preferred", "usual", "current", "my", "the"})
_SINGLE_PREFIXES = ("favorite ", "favourite ", "fav ", "preferred ")

_NEGATIONS = frozenset({
    "not", "no", "never", "don't", "doesn't", "didn't", "dont", "doesnt", "isn't", "aren't", "wasn't",
    "can't", "cannot", "won't", "without", "neither", "nor",
    "tidak", "nggak", "ngga", "gak", "ga", "enggak", "engga", "bukan", "tak", "belum", "jangan", "tanpa",
})
# Words that carry no fact on their own in a value (English and Indonesian): articles, pronouns,
# copulas, hedges and intensifiers, verbs of liking and naming, the commonest prepositions.
_STOPWORDS = frozenset({
    "a", "an", "the", "my", "our", "his", "her", "their", "its", "i", "i'm", "im", "me", "we", "us", "he", "she",
    "they", "them", "it", "it's", "this", "that", "these", "those", "is", "am", "are", "was", "were", "be",
    "been", "being", "have", "has", "had", "do", "does", "did", "and", "or", "but", "so", "too", "also", "as",
    "of", "in", "at", "on", "to", "for", "with", "from", "by", "about", "into", "some", "any", "own",
    "really", "very", "quite", "pretty", "kind", "kinda", "sort", "sorta", "bit", "lot", "lots", "much",
    "mostly", "mainly", "lately", "recently", "currently", "now", "nowadays", "days",
    "probably", "maybe", "perhaps", "guess", "think", "actually", "just", "still", "always", "usually",
    "like", "likes", "liked", "love", "loves", "loved", "enjoy", "enjoys", "enjoyed", "fan",
    "named", "called", "name", "stuff", "thing", "things", "favorite", "favourite", "fav",
    "saya", "aku", "gue", "gw", "kami", "kita", "dia", "mereka", "ini", "itu", "yang", "dan", "atau", "di",
    "ke", "dari", "dengan", "untuk", "pada", "dalam", "sangat", "banget", "sekali", "agak", "cukup", "juga",
    "sih", "deh", "dong", "kok", "lagi", "sedang", "suka", "senang", "menyukai", "cinta", "bernama",
    "namanya", "nama", "adalah", "ialah", "punya", "memiliki", "seorang", "sebuah", "seekor", "mungkin",
    "kayaknya", "sepertinya", "biasanya", "akhir", "akhir-akhir",
})
# Chinese characters that carry no fact on their own in a value (particles, "I", copula, degree).
_ZH_FUNCTION = frozenset("的了很也都是在我有着过呢吧啊吗嘛还挺蛮最就又和与叫只个")
_ZH_NEGATIONS = frozenset("不没别無无非未")
# Words that hold a negation character and negate nothing: 特别 (especially), 别人 (others), 非常 (very) ...
_ZH_NOT_NEGATION = re.compile("特别|分别|区别|差别|告别|级别|类别|性别|别人|别的|非常|无论|未来")
# Chinese words dropped before the characters are taken: hedges, "recently", "now", verbs of liking.
_ZH_FUNCTION_WORDS = ("最近", "现在", "目前", "好像", "可能", "应该", "大概", "觉得", "喜欢", "爱好", "一直", "其实")
# Thai function words (pronouns, particles, copula, "of", degree, "like") and the negation.
_TH_FUNCTION = ("ดิฉัน", "ฉัน", "ผม", "เรา", "ของ", "ที่", "เป็น", "คือ", "ชื่อ", "มากๆ", "มาก", "จริงๆ", "ชอบ", "ช่วงนี้",
                "ตอนนี้", "คิดว่า", "น่าจะ", "ค่ะ", "คะ",
                "ครับ", "นะ", "จ้ะ", "จ้า", "และ", "ก็", "ๆ")
_TH_NEGATIONS = ("ไม่", "ไม่ได้")

_RUNS = re.compile(
    r"(?P<th>[\u0E00-\u0E7F]+)"
    r"|(?P<zh>[\u3040-\u30FF\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF]+)"
    r"|(?P<latin>[0-9A-Za-z\u00C0-\u024F]+(?:['\-][0-9A-Za-z\u00C0-\u024F]+)*)"
    r"|(?P<other>[^\W_]+)"
)
# Indonesian verb prefixes: "bermain" and "main", "memasak" and "masak" are one word.
_ID_PREFIXES = ("ber", "be", "mem", "men", "meng", "meny", "me", "di", "ter", "pe", "per")
_PARTS = re.compile(r"\s*[;；]\s*")


@dataclass(frozen=True)
class Units:
    """A value as compared: its meaning-bearing units, and whether it is negated."""

    units: frozenset[str]
    negated: bool
    text: str  # the folded value, for values with no units at all ("?!")


def fold(text: str) -> str:
    """NFKC, case-folded, curly apostrophes straight, spaces collapsed."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(folded.split())


def stem(word: str) -> str:
    """A light stem for Latin words: possessive and plural off (English), -nya off (Indonesian)."""
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    if len(word) > 5 and word.endswith("nya"):
        return word[:-3]
    return word


def _clusters(run: str) -> list[str]:
    """Thai characters with their combining vowels and tone marks attached."""
    out: list[str] = []
    for ch in run:
        if out and unicodedata.category(ch) == "Mn":
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _thai_units(run: str) -> tuple[set[str], bool]:
    negated = any(n in run for n in _TH_NEGATIONS)
    for word in (*_TH_NEGATIONS, *_TH_FUNCTION):
        run = run.replace(word, " ")
    units: set[str] = set()
    for piece in run.split():
        cl = _clusters(piece)
        units |= {cl[i] + cl[i + 1] for i in range(len(cl) - 1)} or {piece}
    return units, negated


def _chinese_units(run: str) -> tuple[set[str], bool]:
    negated = any(ch in _ZH_NEGATIONS for ch in _ZH_NOT_NEGATION.sub("", run))
    for word in _ZH_FUNCTION_WORDS:
        run = run.replace(word, "")
    return {ch for ch in run if ch not in _ZH_FUNCTION and ch not in _ZH_NEGATIONS}, negated


@lru_cache(maxsize=4096)
def key_words(key: str) -> frozenset[str]:
    """A key's identity: its stemmed words without "favorite", "usual" ... ("Favorite music" -> music)."""
    words = [stem(w) for w in re.findall(r"[^\W_]+", fold(key))]
    kept = [w for w in words if w not in _KEY_FILLER]
    return frozenset(kept or words)


def same_key(a: str | None, b: str | None) -> bool:
    return bool(a and b) and key_words(a or "") == key_words(b or "")


@lru_cache(maxsize=1024)
def single_valued(key: str) -> bool:
    """Does this key hold one value (a different one replaces it) rather than collect several?"""
    folded = fold(key)
    if folded.startswith(_SINGLE_PREFIXES) and not folded.endswith("s"):
        return True  # "Favorite color", "Favourite season": one of them
    return folded in SINGLE_VALUED or " ".join(sorted(key_words(key))) in SINGLE_VALUED


@lru_cache(maxsize=8192)
def units_of(value: str, key: str = "") -> Units:
    """The units a value is compared by (module docstring); the key's own words are dropped."""
    folded = fold(value)
    own = key_words(key) if key else frozenset()
    units: set[str] = set()
    negated = False
    for m in _RUNS.finditer(folded):
        run = m.group()
        if m.lastgroup == "th":
            found, neg = _thai_units(run)
            units |= found
            negated |= neg
        elif m.lastgroup == "zh":
            found, neg = _chinese_units(run)
            units |= found
            negated |= neg
        elif run in _NEGATIONS or run.endswith("n't"):
            negated = True
        elif run not in _STOPWORDS:
            units.add(stem(run))
    content = units - own
    return Units(frozenset(content or units), negated, folded)


def _alike(a: str, b: str) -> bool:
    """Two Latin words that are one word: the same but for a letter or two (long words), or an
    Indonesian verb prefix."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    gap = len(long_) - len(short)
    if len(short) < 4 or gap > 4 or not (a.isascii() and b.isascii()):
        return False  # cheap refusals first: this runs for every pair of words of two values
    if gap and long_.endswith(short) and long_[:gap] in _ID_PREFIXES:
        return True
    if 2 <= gap <= 3 and long_[:2] in ("me", "pe") and long_.endswith(short[1:]):
        return True  # the prefix swallowed the first letter: "menulis" / "tulis", "memakai" / "pakai"
    if len(short) < 5 or gap > 2 or a[0] != b[0]:
        return False  # a word spelled two ways keeps its start and about its length
    return SequenceMatcher(None, a, b).ratio() >= _FUZZY_WORD


def shared_units(a: frozenset[str], b: frozenset[str]) -> int:
    """Units in common, a Latin word matching its near spelling in the other value."""
    exact = a & b
    shared = len(exact)
    rest_b = list(b - exact)
    for w in a - exact:
        other = next((o for o in rest_b if _alike(w, o)), None)
        if other is not None:
            shared += 1
            rest_b.remove(other)
    return shared


def similarity(a: str, b: str, key: str = "") -> float:
    """How much two values of `key` state the same thing: 0.0 (nothing in common, or one negates
    the other) to 1.0 (the same units)."""
    ua, ub = units_of(a, key), units_of(b, key)
    if ua.negated != ub.negated:
        return 0.0
    if not ua.units or not ub.units:
        return 1.0 if ua.text == ub.text else 0.0
    shared = shared_units(ua.units, ub.units)
    dice = 2 * shared / (len(ua.units) + len(ub.units))
    if key and single_valued(key) and shared == min(len(ua.units), len(ub.units)):
        return max(dice, SAME_VALUE)  # one value said more fully: "Lyon" and "Lyon, France"
    return dice


def same_value(a: str, b: str, key: str = "") -> bool:
    return similarity(a, b, key) >= SAME_VALUE


def parts(value: str) -> list[str]:
    """The values a collecting field holds ("jazz; hiking" -> jazz, hiking)."""
    return [p for p in _PARTS.split(value.strip()) if p]


def within(part: str, held: str, key: str = "") -> bool:
    """Does `held` say all that `part` says ("piano" in "jazz piano", "狗" in "一只狗叫旺财"), negated alike?"""
    up, uh = units_of(part, key), units_of(held, key)
    return bool(up.units) and up.negated == uh.negated and shared_units(up.units, uh.units) == len(up.units)


def new_parts(value: str, existing: str | None, key: str = "") -> list[str]:
    """The parts of `value` that `existing` (the field as USER.md holds it) does not already say.
    An engine that merges a new value into a collecting field ("jazz; hiking" when USER.md held
    "jazz") states only "hiking"; "piano" says nothing "jazz piano" did not."""
    if not existing:
        return parts(value)
    held = parts(existing)
    return [p for p in parts(value) if not any(same_value(p, h, key) or within(p, h, key) for h in held)]


def merged(existing: str | None, value: str, key: str) -> str:
    """The field's value once `value` joins it: added to a collecting field's values, or replacing a
    single value."""
    if not existing or single_valued(key):
        return value
    if not new_parts(value, existing, key):
        return existing
    return join_clauses([existing, value])  # the write stage fits a full field (clauses.py)

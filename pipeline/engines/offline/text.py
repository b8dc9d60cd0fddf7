"""Small text helpers shared by the rules: language guess, normalisation, overlap."""

from __future__ import annotations

from functools import lru_cache

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.split import script_of

# Function words that tell Indonesian from English (Latin script both); counted, not matched, for speed.
_ID_WORDS = frozenset({
    "abis", "adalah", "aja", "akan", "aku", "anak", "anda", "anjing", "atau", "ayah", "banget", "bekerja", "berarti",
    "bersama", "bgt", "bisa", "buat", "bukan", "capek", "dan", "dari", "deh", "dengan", "di", "dia", "dong",
    "favorit", "ga", "gak", "gue", "gw", "harga", "hari", "hr", "ibu", "ingin", "ini", "itu", "iya", "jadi", "jam",
    "juga", "kalo", "kami", "kamu", "karena", "kayaknya", "ke", "kemarin", "kerja", "kita", "kok", "kucing", "lagi",
    "lalu", "lg", "lupakan", "mager", "maksud", "maksudku", "malam", "malem", "mau", "memiliki", "menikmati",
    "minggu", "mungkin", "nama", "nggak", "nya", "oke", "pada", "pagi", "pakai", "pake", "paket", "pegang", "punya",
    "rumah", "sama", "santai", "saya", "sebagai", "sedang", "sekali", "seneng", "seorang", "setuju", "sih", "skrg",
    "sore", "sudah", "suka", "tahun", "tapi", "td", "tidak", "tinggal", "tolong", "udah", "udh", "untuk", "yang",
    "yg",
})
_EN_WORDS = frozenset({
    "a", "am", "an", "and", "are", "at", "be", "do", "for", "has", "have", "i", "i'm", "in", "is", "it", "like",
    "love", "my", "not", "of", "on", "our", "that", "the", "this", "to", "was", "we", "with", "work", "you",
})
_LATIN_WORD = lazy_compile(r"[a-z']+")
_WORD = lazy_compile(r"[\w\u0E00-\u0E7F\u4E00-\u9FFF]+")
_QUOTED = lazy_compile(r"\"[^\"]*\"|“[^”]*”|「[^」]*」")


@lru_cache(maxsize=4096)
def guess_language(text: str, default: str = "en") -> str:
    script = script_of(text)
    if script != "latin":
        return script
    found = _LATIN_WORD.findall(text.lower())
    id_score = sum(w in _ID_WORDS for w in found)
    en_score = sum(w in _EN_WORDS for w in found)
    if id_score == 0 and en_score == 0:
        return default
    return "id" if id_score > en_score else "en"


def normalize(text: str) -> str:
    """Case- and punctuation-free form for "was this already said?" comparisons."""
    return " ".join(_WORD.findall(text.casefold()))


def tokens(text: str) -> set[str]:
    """Words for Latin text; character bigrams for Chinese and Thai, which have no spaces."""
    norm = normalize(text)
    if script_of(norm) == "latin":
        return set(norm.split())
    compact = norm.replace(" ", "")
    return {compact[i:i + 2] for i in range(len(compact) - 1)} or {compact}


def coverage(part: set[str], whole: set[str]) -> float:
    """Share of `part` that `whole` contains."""
    if not part:
        return 0.0
    return len(part & whole) / len(part)


def without_quotes(text: str) -> str:
    """Quoted material is someone else's words (a lyric, a title), not a statement about the user."""
    return _QUOTED.sub(" ", text)

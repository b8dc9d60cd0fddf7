"""Small text helpers shared by the rules: language guess, normalisation, overlap."""

from __future__ import annotations

import re

from pipeline.engines.offline.split import script_of

_ID_MARKERS = re.compile(
    r"\b(?:saya|aku|gue|kamu|anda|yang|dan|di|ke|dari|ini|itu|tidak|nggak|gak|adalah|sudah|kami|kita|dengan|untuk|hari|kemarin|"
    r"punya|suka|tinggal|bekerja|kerja|nama|seorang|sebagai|lalu|minggu|banget|sekali|tolong|lupakan|mungkin|juga|tapi|karena|"
    r"bisa|mau|ingin|sedang|lagi|akan|pada|tahun|bersama|memiliki|menikmati|favorit|ibu|ayah|anak|rumah|kucing|anjing|dia|yg|"
    r"udah|udh|aja|sih|deh|dong|kok|bgt|gak|ga|gw|lg|td|hr|skrg|buat|sama|pake|pakai|kalo|abis|jadi|berarti|itu|oke|iya|"
    r"setuju|pegang|maksudku|maksud|bukan|nya|santai|atau|kayaknya|capek|seneng|mager|malem|jam|sore|pagi|malam|harga|paket|kami)\b",
    re.I,
)
_EN_MARKERS = re.compile(
    r"\b(?:i|i'm|the|a|an|is|are|am|and|my|to|of|in|we|our|you|it|this|that|with|for|on|was|have|has|like|love|work|at|be|not|do)\b",
    re.I,
)
_WORD = re.compile(r"[\w\u0E00-\u0E7F\u4E00-\u9FFF]+")
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|「[^」]*」")


def guess_language(text: str, default: str = "en") -> str:
    script = script_of(text)
    if script != "latin":
        return script
    id_score = len(_ID_MARKERS.findall(text))
    en_score = len(_EN_MARKERS.findall(text))
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

"""The views the guards read: NFKC with invisible format characters dropped (and an offset map
back to the text the user typed), hidden-text characters, and Latin look-alike letters folded."""

from __future__ import annotations

import unicodedata

from pipeline._util.lazy_re import lazy_compile

# Format characters people use to split a value or hide text; dropped from the detection view.
INVISIBLE_RE = lazy_compile(
    "[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u2800\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# Characters that print as nothing (or as a blank) yet are "printable" to Python: variation selectors
# (text can be encoded in runs of them), fillers, the combining grapheme joiner, musical format codes.
HIDING_RE = lazy_compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u206a-\u206f\u2800\u3164\ufe00-\ufe0f\uffa0\ufff9-\ufffb"
    "\U0001d173-\U0001d17a\U000e0100-\U000e01ef]"
)
_VARIATION_SELECTORS = frozenset(chr(c) for c in [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)])


def hiding_rule(text: str) -> str | None:
    """invisible:hidden when `text` holds a character that hides text. A single emoji or text
    presentation selector after a symbol ("❤️", "1️⃣") and an ideographic variant after a CJK
    ideograph are how those characters are meant to be used, and stay."""
    for m in HIDING_RE.finditer(text):
        i, ch = m.start(), m.group()
        prev = text[i - 1] if i else ""
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch in _VARIATION_SELECTORS and prev and prev not in _VARIATION_SELECTORS and nxt not in _VARIATION_SELECTORS:
            if ch in "\ufe0e\ufe0f" and (unicodedata.category(prev) in ("So", "Sm", "Sk", "Nd") or prev in "#*" or ord(prev) >= 0x1F000):
                continue
            if ord(ch) >= 0xE0100 and "\u4e00" <= prev <= "\u9fff":
                continue
        return "invisible:hidden"
    return None


_OTHER_DIGIT_RE = lazy_compile(r"(?![0-9])\d")


def nfkc(text: str) -> str:
    """NFKC, except that Thai SARA AM stays one character (NFKC splits it, breaking Thai words)."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", text).replace("\u0e4d\u0e32", "\u0e33")


def detection_view(text: str) -> tuple[str, list[int] | None]:
    """NFKC view of `text` without invisible characters, and a map view index -> text index."""
    if text.isascii():
        return text, None
    if not INVISIBLE_RE.search(text) and not _OTHER_DIGIT_RE.search(text):
        norm = nfkc(text)
        if len(norm) == len(text):  # character for character (full-width forms, CJK punctuation)
            return norm, None
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if INVISIBLE_RE.match(ch):
            continue
        if ch.isascii() or "\u0e00" <= ch <= "\u0e7f" and not ch.isdecimal():
            norm = ch
        elif ch.isdecimal():
            norm = str(unicodedata.decimal(ch))  # Thai, Arabic-Indic ... digits read as 0-9
        else:
            norm = unicodedata.normalize("NFKC", ch)
        out.append(norm)
        index.extend([i] * len(norm))
    index.append(len(text))
    return "".join(out), index


# Cyrillic and Greek letters that look Latin ("іgnore"), folded before the rules run.
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁɡӏАЕОРСХІЈЅВНКМТαεικνορτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdglAEOPCXIJSBHKMTaeikvoptuxABEZHIKMNOPTYX",
)


def rules_view(text: str) -> str:
    return nfkc(text).translate(_CONFUSABLES) if not text.isascii() else text


def text_before(s: str, start: int, width: int = 40) -> str:
    """The `width` characters before `start`: where the words that say what a value is stand."""
    return s[max(0, start - width) : start]

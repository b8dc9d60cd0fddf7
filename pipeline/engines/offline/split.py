"""Split a turn's user text into atomic statements, keeping each one's place in the source text.

Sentences end at . ! ? 。 ！ ？ ； and at line breaks; Thai sentences often end at a space between Thai
words (or after ครับ/ค่ะ). Sentences are then cut into clauses where a new first-person subject starts
("..., and I like ...", "..., dan saya ...", "，而且我...") and where an apposition names a second fact
("I'm Jasmin, a frontend engineer" -> "I'm Jasmin" + "I'm a frontend engineer"). Chinese 、 is a list
separator inside one fact ("我喜欢篮球、足球"), so it never cuts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline._util.lazy_re import lazy_compile


@dataclass(frozen=True)
class Statement:
    text: str  # what the rules read (may carry a subject restored from its sentence)
    quote: str  # the verbatim source fragment
    start: int  # offsets of the quote in the turn's user text
    end: int
    sentence: int  # index of the sentence the clause came from
    restored_subject: bool = False  # True when `text` borrowed the subject of the previous clause


_ABBREV = lazy_compile(r"(?:\b(?:e\.g|i\.e|etc|vs|mr|mrs|ms|dr|prof|st|no|jr|sr|inc|ltd|approx|p\.o|u\.s)\.|\b[A-Z]\.)$", re.I)
# A space in Thai ends a sentence only after a closing particle or before a new subject; elsewhere it
# separates phrases of one sentence ("ชอบคำตอบสั้นๆ ตรงประเด็น").
_THAI_PARTICLE = r"(?:(?<=ครับ)|(?<=ค่ะ)|(?<=คะ)|(?<=นะ)|(?<=จ้ะ)|(?<=จ้า)|(?<=ฮะ)|(?<=555))"
_THAI_NEW_SUBJECT = r"(?=ผม|ฉัน|หนู|ดิฉัน|เรา|พวกเรา|อ้อ|อ๋อ|ส่วน|เป็น|อยู่|ทำงาน|เมื่อวาน|เมื่อคืน|สัปดาห์ที่แล้ว|อาทิตย์ที่แล้ว)"
_SENTENCE_END = lazy_compile(
    r"[.!?]+[\"')\]]*(?=\s)|[。！？；;!?]+|[\n\r]+"
    rf"|{_THAI_PARTICLE}\s+(?=[\u0E00-\u0E7FA-Za-z])|(?<=[\u0E00-\u0E7F])\s+{_THAI_NEW_SUBJECT}"
    r"|(?<=[A-Za-z0-9])\s+(?=อยู่|ทำงาน|เมื่อวาน|เมื่อคืน|สัปดาห์ที่แล้ว|อาทิตย์ที่แล้ว)"
    r"|(?:(?<=ครับ)|(?<=ค่ะ))(?=[\u0E00-\u0E7F])(?!นะ|ผม)"
)
_THAI = lazy_compile(r"[\u0E00-\u0E7F]")
_CJK = lazy_compile(r"[\u4E00-\u9FFF]")

# Where a clause starts a new fact. The look-ahead keeps the subject in the next clause.
_LEAD = r"(?:(?:btw|by the way|oh|oh iya|oh ya|anyway|omong-omong|also)[\s,]+)?"
_CLAUSE_CUT = lazy_compile(
    rf"(?:,\s*|;\s*|\s+)(?:and|but|also|plus|dan|tapi|tetapi|serta|juga)\s+(?={_LEAD}(?:i|i'm|i've|i'd|my|we|we're|our|saya|aku|kami|kita|gue|gw)\b)"
    rf"|[,;]\s+(?={_LEAD}(?:i|i'm|i've|my|we|our|saya|aku|kami|kita|gue|gw)\b)"
    # "..., always add them": an instruction after a fact; "i live in X, where are you?": a question after a fact.
    r"|[,;]\s+(?=(?:always|never|please|pls)\s+\w)"
    r"|\s*,\s*(?=(?:what|where|how|who|which|do you|are you|have you|did you|and you|what about you|how about you|"
    r"bagaimana|apa|apakah|di mana|kalau kamu|kalau anda|anda)\b[^,.!?]*\?\s*$)"
    r"|,?\s+and\s+(?=(?:also\s+)?(?:love|like|enjoy|have|live|work|hate|prefer|own|play|speak|volunteer|teach|study)\b)"
    r"|,?\s+dan\s+(?=(?:juga\s+)?(?:suka|senang|punya|tinggal|bekerja|kerja|hobi|benci|main|bermain|mengajar|belajar)\b)"
    r"|(?:[，；]|(?<=[\u4E00-\u9FFF]),)\s*(?:而且|并且|另外|还有|但是|不过|同时)?"
    r"|(?:而且|并且|另外|同时)(?=我)"
    r"|\s*(?:และ|แล้วก็)(?=ผม|ฉัน|หนู|ดิฉัน|เรา|พวกเรา)|(?<=[\u0E00-\u0E7F])\s+แต่\s*",
    re.I,
)
_APPOSITION = lazy_compile(r"^(?P<head>(?:i'm|i am|im|my name is|saya|aku|nama saya)\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s*,\s*(?P<tail>(?:an?|seorang)\s+.+)$", re.I)
_SELF_CLAUSE = lazy_compile(r"^\s*(?:i'm|i am|im|i've|i\s+(?:have|live|work|love|like|am))\s+\S", re.I)
_PLURAL_START = lazy_compile(r"^(?:we|we're|we've|our|kami|kita)\b", re.I)
_FRAGMENT_SUBJECT = (
    (lazy_compile(r"^(?:an?)\s+\w", re.I), "I'm "),
    (lazy_compile(r"^seorang\s+\w", re.I), "saya "),
    (lazy_compile(r"^(?:also\s+)?(?:love|like|enjoy|have|live|work|hate|prefer|own|play|speak|volunteer|teach|study)\b", re.I), "I "),
    (lazy_compile(r"^(?:juga\s+)?(?:suka|senang|punya|tinggal|bekerja|kerja|benci|main|bermain|mengajar|belajar)\b", re.I), "saya "),
    (lazy_compile(r"^(?:一名|一个|一位|一只)"), "我是"),
    (lazy_compile(r"^เป็น"), "ผม"),
)


def _sentences(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        end = m.end()
        piece = text[start:m.start() + 1] if m.group(0)[:1] == "." else ""
        if piece and _ABBREV.search(piece.rstrip()):
            continue  # "Dr. Smith", "e.g. this": not a sentence end
        if text[start:end].strip():
            spans.append((start, end))
        start = end
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and (text[start].isspace() or text[start] in ",，;；、"):
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    cursor = start
    for m in _CLAUSE_CUT.finditer(text, start, end):
        left = text[cursor:m.start()]
        if (len(left.split()) < 3 and "," not in m.group(0) and not _CJK.search(left) and not _THAI.search(left)
                and not _SELF_CLAUSE.match(left)):
            continue  # "My husband and I ...": a compound subject, not two clauses ("I'm Bo and I ..." is two)
        if m.start() > cursor:
            out.append((cursor, m.start()))
        cursor = m.end()
    out.append((cursor, end))
    return [s for s in (_trim(text, a, b) for a, b in out) if s[1] > s[0]]


def split_statements(text: str) -> list[Statement]:
    """The atomic statements of `text`, in order, each with its verbatim quote and offsets."""
    statements: list[Statement] = []
    for index, (s_start, s_end) in enumerate(_sentences(text)):
        s_start, s_end = _trim(text, s_start, s_end)
        if s_end <= s_start:
            continue
        for c_start, c_end in _clauses(text, s_start, s_end):
            quote = text[c_start:c_end]
            clean = quote.strip().rstrip(".!。！")
            m = _APPOSITION.match(clean)
            if m is not None:
                subject = "saya " if m.group("tail").lower().startswith("seorang") else "I'm "
                tail = m.group("tail")
                statements.append(Statement(m.group("head"), quote, c_start, c_end, index))
                statements.append(Statement(subject + tail if subject == "I'm " else subject + tail, quote, c_start, c_end, index, True))
                continue
            restored = False
            for pattern, subject in _FRAGMENT_SUBJECT:
                if pattern.match(clean) and statements and statements[-1].sentence == index:
                    plural = _PLURAL_START.match(statements[-1].text)
                    if plural and subject in ("I ", "saya "):
                        subject = "we " if subject == "I " else "kami "
                    clean = subject + clean
                    restored = True
                    break
            statements.append(Statement(clean, quote, c_start, c_end, index, restored))
    return statements


def script_of(text: str) -> str:
    """'th', 'zh' or 'latin': the writing system that dominates `text`."""
    thai = len(_THAI.findall(text))
    cjk = len(_CJK.findall(text))
    if thai and thai >= cjk:
        return "th"
    if cjk:
        return "zh"
    return "latin"

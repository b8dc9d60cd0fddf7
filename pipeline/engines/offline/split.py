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
from pipeline.engines.offline.lang import packs, phrase


@dataclass(frozen=True)
class Statement:
    text: str  # what the rules read (may carry a subject restored from its sentence)
    quote: str  # the verbatim source fragment
    start: int  # offsets of the quote in the turn's user text
    end: int
    sentence: int  # index of the sentence the clause came from
    restored_subject: bool = False  # True when `text` borrowed the subject of the previous clause


# The packs' words (lang/<code>/phrases.py), each list joined across languages: users mix them.
_ABBREV = lazy_compile(rf"(?:{phrase('abbreviations')})$", re.I)  # "Dr.", "e.g.": no sentence end
# Sentences end at . ! ? 。 ！ ？ ； and line breaks, and where a pack says (Thai: a space after ครับ).
_SENTENCE_END = lazy_compile(r"[.!?]+[\"')\]]*(?=\s)|[。！？；;!?]+|[\n\r]+" + f"|{phrase('sentence_end')}")
_THAI = lazy_compile(r"[\u0E00-\u0E7F]")
_CJK = lazy_compile(r"[\u4E00-\u9FFF]")

# Where a clause starts a new fact. The look-ahead keeps the subject in the next clause.
_LEAD = rf"(?:(?:{phrase('clause_leads')})[\s,]+)?"
_SUBJECT = rf"(?={_LEAD}(?:{phrase('clause_subjects')})\b)"
_CLAUSE_CUT = lazy_compile(
    rf"(?:,\s*|;\s*|\s+)(?:{phrase('clause_conjunctions')})\s+{_SUBJECT}|[,;]\s+{_SUBJECT}"
    # "..., always add them": an instruction after a fact; "i live in X, where are you?": a question after a fact.
    rf"|[,;]\s+(?=(?:{phrase('clause_instructions')})\s+\w)"
    rf"|\s*,\s*(?=(?:{phrase('clause_questions')})\b[^,.!?]*\?\s*$)"
    rf"|{phrase('clause_cuts')}",
    re.I,
)
_APPOSITION = lazy_compile(rf"^(?P<head>(?:{phrase('apposition_heads')})\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s*,\s*"
                           rf"(?P<tail>(?:{phrase('apposition_article')})\s+.+)$", re.I)
# The subject of the apposition's second fact, by the article it opens with ("a" -> "I'm ", "seorang" -> "saya ").
_APPOSITION_SUBJECTS = tuple((lazy_compile(rf"^(?:{p.phrases.apposition_article})\s", re.I), p.phrases.apposition_subject)
                             for p in packs() if p.phrases.apposition_article)
_SELF_CLAUSE = lazy_compile(rf"^\s*(?:{phrase('self_clause')})\s+\S", re.I)
_PLURAL_START = lazy_compile(rf"^(?:{phrase('plural_start')})\b", re.I)
# A fragment with no subject ("a nurse", "love hiking", "一名老师") continues the sentence's subject.
_FRAGMENT_SUBJECT = tuple(pair for p in packs() for pair in p.phrases.fragment_subjects)
_PLURAL_OF = {single: plural for p in packs() for single, plural in p.phrases.plural_subjects.items()}


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
                tail = m.group("tail")
                subject = next(subj for article, subj in _APPOSITION_SUBJECTS if article.match(tail))
                statements.append(Statement(m.group("head"), quote, c_start, c_end, index))
                statements.append(Statement(subject + tail, quote, c_start, c_end, index, True))
                continue
            restored = False
            for pattern, subject in _FRAGMENT_SUBJECT:
                if pattern.match(clean) and statements and statements[-1].sentence == index:
                    plural = _PLURAL_START.match(statements[-1].text)
                    if plural and subject in _PLURAL_OF:
                        subject = _PLURAL_OF[subject]
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

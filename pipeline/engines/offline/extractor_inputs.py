"""What the extractor's models read of a turn (extractor.py): its tokens (a word; a character in Chinese and Thai),
its statements with what the rules decided on each, the key cue words, and the features of a token or a value span.
The trainer (training/train_extractor.py) builds the same inputs with these functions, so training and the engine
read a turn the same way."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.engines.offline.key_cues import compiled
from pipeline.engines.offline.lang import FALLBACK, word_set
from pipeline.engines.offline.lexicon import Lexicon
from pipeline.types import Decision

_CJK_RANGES = "\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_THAI_MARKS = "\u0e31\u0e34-\u0e3a\u0e47-\u0e4e"
_TOKEN = re.compile(
    rf"[{_CJK_RANGES}]"
    rf"|[\u0e00-\u0e7f][{_THAI_MARKS}]*"
    rf"|[^\W_{_CJK_RANGES}\u0e00-\u0e7f]+(?:['’][^\W_{_CJK_RANGES}\u0e00-\u0e7f]+)*"
    r"|\S"
)
_CHAR_TOKEN = re.compile(rf"[{_CJK_RANGES}\u0e00-\u0e7f]")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    norm: str  # casefolded; ’ as '
    kind: str  # "w" a Latin-script word, "c" a Chinese/Japanese/Korean/Thai character, "p" punctuation


def tokenize(text: str) -> list[Token]:
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        if _CHAR_TOKEN.match(raw):
            kind = "c"
        elif raw[0].isalnum():
            kind = "w"
        else:
            kind = "p"
        out.append(Token(m.start(), m.end(), raw.casefold().replace("’", "'"), kind))
    return out


# --- the statements of a turn, with what the rules decided on each -------------------------------------------------


@dataclass
class Clause:
    start: int
    end: int
    first: int  # token indexes [first, last)
    last: int
    lang: str
    feats: list[str]  # statement-level features every token of it carries
    rule_key: str | None = None  # the key of the rules' USER.md write on it
    rule_value: tuple[int, int] | None = None  # char offsets of the rules' value in the turn's text


# The shipped weights were trained when a rule decision was read through the first words of its `detail` (up to a
# colon or a parenthesis, 40 characters): each rule id stands for the words its decisions' details began with then,
# so the models read every rule decision exactly as they learned it while `detail` is free to change. A new rule
# needs its entry here (the default is its id, which no shipped weight knows).
_LEARNED_AS: dict[str, str] = {
    "skip/greeting": "greeting, thanks or acknowledgement",
    "vague/small-talk": "small-talk opinion",
    "skip/showing": "shows the other speaker a picture or a link",
    "skip/pointer": "points at another statement",
    "skip/advice": "advice to the other speaker, not a fact to keep",
    "repeat/contrast-half": "the contrast half of a correction",
    "repeat/assistant": "restates what the assistant said",
    "repeat/conversation": "already said in this conversation",
    "repeat/user-md": "already in USER.md",
    "repeat/memory-md": "already in MEMORY.md",
    "skip/request": "a request for this task",
    "mood/state": "a momentary state",
    "mood/feeling-now": "a feeling about right now",
    "mood/part-of-sentence": "part of a mood sentence",
    "vague/hedge": "hedged or vague attitude",
    "vague/part-of-hedged-sentence": "part of a hedged sentence",
    "vague/no-fact-shape": "first-person remark with no concrete fact shape",
    "vague/not-about-user": "not about the user or the work",
    "skip/question": "a question for this conversation",
    "skip/pleasantry": "a pleasantry to the other speaker",
    "skip/material": "material for the current task",
    "skip/weak-in-sensitive-turn": "weak remark in a turn that carries sensitive data",
    "skip/time-anchor": "a time phrase with no event of its own",
    "instruction/standing": "standing instruction -> preference",
    "memory/agreement": "agreement (let's ...) -> memory",
    "memory/temporary": "a temporary situation -> memory (dated)",
    "memory/project-work": "project work -> memory",
    "memory/decision": "a decision -> memory",
    "memory/dated-event": "a dated event -> memory",
    "memory/asked": "asked to remember -> memory",
    "memory/joined": "joined the entry before it (says what it was about)",
    "change/no-longer": "no longer true",
    "correction/meant": "correction of a stored value",
    "correction/switched": "switch of a stored value",
    "contact/asked": "contact detail the user asked to save",
    "guard/sensitive": "sensitive",
    "guard/blocked": "guard rule",
}
_NO_VALUE = "/no-value"


def _head(words: str) -> str:
    return words.split(":", 1)[0].split("(", 1)[0].strip()[:40]


def rule_class(d: Decision) -> str:
    """How the models read the rule a decision came from (the features `r:d=` and `st:d=`)."""
    if not d.rule:
        return "-"
    rule, plus, modifier = d.rule.partition("+")
    if rule.endswith(_NO_VALUE):  # a fact rule whose value says nothing: read as the fact rule's name
        return rule[:-len(_NO_VALUE)].rpartition("/")[2][:40]
    if rule.startswith("fact/"):
        words = "profile fact"
    elif rule.startswith(("forget/",)):
        words = "forget"
    elif rule.startswith("guard/") and rule not in _LEARNED_AS:
        words = "guard rule " + rule[len("guard/"):]
    else:
        words = _LEARNED_AS.get(rule, rule)
    if plus and modifier == "sentence":  # an entry that took in its whole sentence
        words += ", whole sentence"
    return _head(words)


# Keys some fact rules wrote under other names when the shipped weights were trained; the vocabulary
# (pipeline/vocabulary.py) gives those facts these keys now, and the models read them by the names they learned.
_KEY_LEARNED_AS: dict[str, str] = {
    "fact/comm-style": "communication style", "fact/tools": "tools", "fact/habits": "habits", "fact/prefers": "prefers",
    "fact/birthplace": "birthplace", "fact/born-when": "born", "fact/born-on": "born", "fact/studying-to-be": "studying",
    "fact/working-on": "working on", "fact/work-status": "work status", "fact/former-role": "former role",
    "fact/availability": "availability", "fact/shift": "work schedule",
}


def key_read_as(d: Decision) -> str:
    """The rules' key as the models read it (the features `r:key=` and `st:rk=`)."""
    learned = _KEY_LEARNED_AS.get((d.rule or "").partition("+")[0]) if d.route == "user" and d.op == "upsert" else None
    return learned or (d.key or "").casefold()


def clauses_of(text: str, toks: Sequence[Token], decisions: Sequence[Decision], lexicons: dict[str, Lexicon],
               default_lang: str, guess: Any, asked: str | None, matches: Sequence[tuple[int, str, int, int]] = ()
               ) -> list[Clause]:
    """The turn's statements as the rules decided them (located by their quotes), with their token ranges."""
    out: list[Clause] = []
    cursor = 0
    for d in decisions:
        quote = d.quote
        at = text.find(quote, cursor) if quote else -1
        if at < 0:
            at = text.find(quote) if quote else -1
        if at < 0:
            continue
        end = at + len(quote)
        cursor = end if not out or at >= out[-1].start else cursor
        if out and out[-1].start == at and out[-1].end == end:
            continue  # one statement, several decisions (a forget that removes two fields)
        lang = guess(quote, default_lang)
        lex = lexicons.get(lang) or lexicons[FALLBACK]
        feats = ["st:lang=" + lang, "st:r=" + d.route + ":" + (d.reason or d.op), "st:d=" + rule_class(d)]
        if lex.first_person.search(quote):
            feats.append("st:fp")
        if lex.second_person.search(quote):
            feats.append("st:sp")
        if lex.question.search(quote) or "?" in quote or "？" in quote:
            feats.append("st:q")
        cue = first_key(matches, at, end)
        if cue:
            feats.append("st:kc=" + cue)
        if asked:
            feats.append("st:ka=" + asked)
        rule_key = rule_value = None
        if d.route == "user" and d.op == "upsert" and d.key:
            rule_key = d.key
            feats.append("st:rk=" + key_read_as(d))
            v = (d.value or "").split(";")[-1].strip()
            pos = quote.casefold().find(v.casefold()) if v else -1
            if pos >= 0:
                rule_value = (at + pos, at + pos + len(v))
        out.append(Clause(at, end, 0, 0, lang, feats, rule_key, rule_value))
    out.sort(key=lambda c: c.start)
    # Token ranges; a token outside every located statement joins the nearest one before it.
    ti = 0
    for ci, c in enumerate(out):
        while ti < len(toks) and toks[ti].end <= c.start and ci > 0:
            ti += 1
        c.first = ti
        nxt = out[ci + 1].start if ci + 1 < len(out) else len(text) + 1
        while ti < len(toks) and toks[ti].start < nxt:
            ti += 1
        c.last = ti
    if out:
        out[0].first = 0
    return out


def _ctx(toks: Sequence[Token], i: int) -> str:
    if i < 0:
        return "<s>"
    if i >= len(toks):
        return "</s>"
    return toks[i].norm


_SUBJECT_WORDS = word_set("subject_words")  # the packs' words (lang/<code>/phrases.py), united


def cue_matches(text: str, lang: str) -> list[tuple[int, str, int, int]]:
    """Every match of the key cue words (key_cues.py) in the text: (the key's rank, key, start, end)."""
    out: list[tuple[int, str, int, int]] = []
    for rank, (key, pattern) in enumerate(compiled(lang)):
        out.extend((rank, key, m.start(), m.end()) for m in pattern.finditer(text))
    return out


def first_key(matches: Sequence[tuple[int, str, int, int]], start: int = 0, end: int = 1 << 30) -> str | None:
    """What key_cues.key_for says of text[start:end]: the first key, in the cues' order, with a match inside it."""
    best: tuple[int, str] | None = None
    for rank, key, a, b in matches:
        if a >= start and b <= end and (best is None or rank < best[0]):
            best = (rank, key)
    return best[1] if best else None


def cue_marks(toks: Sequence[Token], matches: Sequence[tuple[int, str, int, int]]) -> list[list[str]]:
    """Per token, the keys whose cue words cover it ("cue=Pets") or end just before it ("acue=Pets")."""
    marks: list[list[str]] = [[] for _ in toks]
    if not toks:
        return marks
    starts = [t.start for t in toks]
    for _, key, m_start, m_end in matches:
        i = max(bisect_right(starts, m_start) - 1, 0)
        while i < len(toks) and toks[i].start < m_end:
            if toks[i].end > m_start:
                marks[i].append("cue=" + key)
            i += 1
        while i < len(toks) and toks[i].start - m_end <= 12:
            marks[i].append("acue=" + key)
            i += 1
    return marks


def token_features(toks: Sequence[Token], clauses: Sequence[Clause], marks: Sequence[list[str]] | None = None
                   ) -> list[list[str]]:
    """The tagger's view of every token (binary feature names): its own and its statement's."""
    local, owner = token_local_features(toks, clauses, marks)
    return [f + clauses[c].feats if c >= 0 else f for f, c in zip(local, owner, strict=True)]


def token_local_features(toks: Sequence[Token], clauses: Sequence[Clause], marks: Sequence[list[str]] | None = None
                         ) -> tuple[list[list[str]], list[int]]:
    """Each token's own features, and the index of the statement whose features it also carries (-1: none); the
    engine scores a statement's features once for all its tokens."""
    out: list[list[str]] = []
    owner = [-1] * len(toks)
    for ci, c in enumerate(clauses):
        for i in range(c.first, c.last):
            owner[i] = ci
    n = len(toks)
    for i, t in enumerate(toks):
        w0, wm1, wp1 = t.norm, _ctx(toks, i - 1), _ctx(toks, i + 1)
        wm2, wp2 = _ctx(toks, i - 2), _ctx(toks, i + 2)
        if t.kind == "c":
            f = ["bias", "c=" + w0, "c-1=" + wm1, "c+1=" + wp1,
                 "cc-=" + wm2 + wm1, "cc0=" + wm1 + w0, "cc+=" + w0 + wp1, "cc++=" + wp1 + wp2,
                 "ccc-=" + _ctx(toks, i - 3) + wm2 + wm1, "ccc+=" + w0 + wp1 + wp2]
        else:
            f = ["bias", "w=" + w0, "w-1=" + wm1, "w+1=" + wp1,
                 "b-=" + wm2 + " " + wm1, "b0=" + wm1 + " " + w0, "b+=" + w0 + " " + wp1, "k=" + t.kind,
                 "b--=" + _ctx(toks, i - 3) + " " + wm2 + " " + wm1]
            if t.kind == "w":
                if _DIGIT.search(w0):
                    f.append("num")
                if len(w0) > 4:
                    f.append("suf3=" + w0[-3:])
        for k in range(1, 5):
            if i - k >= 0 and toks[i - k].norm in _SUBJECT_WORDS:
                f.append(f"fpd={k}")
                break
        if marks is not None:
            f.extend(marks[i])
        ci = owner[i]
        if ci >= 0:
            own = clauses[ci]
            if i == own.first:
                f.append("st:first")
            if own.rule_value is not None and own.rule_value[0] <= t.start < own.rule_value[1]:
                f.append("r:in")
                if t.start <= own.rule_value[0] + 1:
                    f.append("r:b")
        if i == n - 1:
            f.append("last")
        out.append(f)
    return out, owner


def cap_features(text: str, toks: Sequence[Token], feats: list[list[str]]) -> None:
    """Capitalised words inside a sentence (a name, a place): added in place."""
    for i, t in enumerate(toks):
        if t.kind == "w" and text[t.start].isupper() and i > 0 and toks[i - 1].norm not in (".", "!", "?", '"'):
            feats[i].append("cap")


def assistant_words(assistant: str) -> list[str]:
    """The words of the other speaker's line (its last 15 tokens; character pairs in Chinese and Thai): what the user's
    bare answer is about ("where are you from?" -> "lahore")."""
    toks = [t for t in tokenize(assistant)[-15:] if t.kind != "p"]
    out = ["a:" + t.norm for t in toks if t.kind == "w"]
    chars = [t.norm for t in toks if t.kind == "c"]
    out.extend("a:" + chars[i] + chars[i + 1] for i in range(len(chars) - 1))
    if assistant.rstrip().endswith(("?", "？")):
        out.append("a:?")
    return out


def span_features(text: str, toks: Sequence[Token], clause: Clause | None, a: int, b: int, assistant_key: str | None,
                  lang: str, assistant: Sequence[str] = (), matches: Sequence[tuple[int, str, int, int]] = ()
                  ) -> list[str]:
    """The key classifier's view of the value span toks[a:b] in its statement (and `assistant_words` of the line
    it answers)."""
    span = toks[a:b]
    chars = all(t.kind == "c" for t in span)
    f = ["bias", "lang=" + lang, "len=" + str(min(b - a, 6)), *assistant]
    if chars:
        joined = "".join(t.norm for t in span)
        f.extend("sc=" + joined[i:i + 2] for i in range(max(1, len(joined) - 1)))
        f.append("sf=" + span[0].norm)
        f.append("sl=" + span[-1].norm)
        if len(joined) <= 4:
            f.append("S=" + joined)
        f.append("p1=" + _ctx(toks, a - 1))
        f.append("p2=" + _ctx(toks, a - 2) + _ctx(toks, a - 1))
        f.append("p3=" + _ctx(toks, a - 3) + _ctx(toks, a - 2) + _ctx(toks, a - 1))
        f.append("n1=" + _ctx(toks, b))
        f.append("n2=" + _ctx(toks, b) + _ctx(toks, b + 1))
    else:
        f.extend("s=" + t.norm for t in span if t.kind != "p")
        f.extend("s4=" + t.norm[:4] for t in span if t.kind == "w" and len(t.norm) > 5)
        f.extend("x3=" + t.norm[-3:] for t in span if t.kind == "w" and len(t.norm) > 4)
        f.append("sf=" + span[0].norm)
        f.append("sl=" + span[-1].norm)
        if b - a <= 3:
            f.append("S=" + " ".join(t.norm for t in span))
        f.append("p1=" + _ctx(toks, a - 1))
        f.append("p2=" + _ctx(toks, a - 2) + " " + _ctx(toks, a - 1))
        f.append("p3=" + _ctx(toks, a - 3) + " " + _ctx(toks, a - 2) + " " + _ctx(toks, a - 1))
        f.append("n1=" + _ctx(toks, b))
        if any(text[t.start].isupper() for t in span if t.kind == "w"):
            f.append("cap")
        if any(_DIGIT.search(t.norm) for t in span):
            f.append("num")
    cue = first_key(matches, toks[a].start, toks[b - 1].end)
    if cue:
        f.append("kcs=" + cue)
    if clause is not None:
        f.extend(x for x in clause.feats if x.startswith(("st:kc=", "st:rk=", "st:fp", "st:q", "st:d=")))
        words = [toks[i] for i in range(clause.first, clause.last) if not (a <= i < b) and toks[i].kind != "p"]
        if chars:
            for i in range(len(words) - 1):
                f.append("cb=" + words[i].norm + words[i + 1].norm)
        else:
            f.extend("cw=" + t.norm for t in words)
        if clause.rule_value is not None:
            ra, rb = clause.rule_value
            sa, sb = toks[a].start, toks[b - 1].end
            if sa < rb and ra < sb:
                f.append("r:ov")
                if sa == ra and sb == rb:
                    f.append("r:same")
    if assistant_key:
        f.append("ka=" + assistant_key)
    return list(dict.fromkeys(f))

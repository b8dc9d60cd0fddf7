"""Route one statement: the ordered rules of the offline engine.

Order matters and is the policy: explicit forget -> questions/requests (one_off) -> standing
instructions (a preference) -> temporary situations -> mood -> vague hedges -> profile facts (user)
-> project work and dated events (memory) -> other first-person statements (user) -> the rest (skip).
Each decision's `detail` names the rule that fired, so a wrong route points at its rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from pipeline.engines.offline import dates
from pipeline.engines.offline.lexicon import FactRule, Lexicon
from pipeline.engines.offline.lexicon_en import LEXICON as EN
from pipeline.engines.offline.lexicon_id import LEXICON as ID
from pipeline.engines.offline.lexicon_th import LEXICON as TH
from pipeline.engines.offline.lexicon_zh import LEXICON as ZH
from pipeline.engines.offline.profile import Entry, Field
from pipeline.engines.offline.split import Statement
from pipeline.engines.offline.text import coverage, guess_language, normalize, tokens, without_quotes
from pipeline.types import Decision

LEXICONS: dict[str, Lexicon] = {"en": EN, "id": ID, "zh": ZH, "th": TH}
SUBJECT_OF = {"en": "I ", "id": "saya ", "zh": "我", "th": "ผม"}
# Facts that say little about which file they belong to; project words outweigh them.
WEAK_FACTS = {"background", "hobbies", "habits", "work-style", "employer"}
MULTI_VALUE_CAP = 200  # characters a collecting field ("Likes") keeps; the oldest parts drop first

_TOPIC_EXPLICIT = re.compile(
    r"\b(?:project|proyek|repo|repository)\s+[\"'`]?(?P<a>[A-Za-z0-9][\w.-]*[A-Za-z0-9])"
    r"|项目\s*[\"'「]?(?P<b>[A-Za-z0-9][\w.-]*)|(?P<c>[A-Za-z0-9][\w.-]*)\s*项目"
    r"|(?:โปรเจกต์|โปรเจค|โครงการ)\s*(?P<d>[A-Za-z0-9][\w.-]*)",
    re.I,
)
_KEBAB = re.compile(r"(?<![\w-])([a-z0-9]+(?:-[a-z0-9]+)+)(?![\w-])")
_NOT_TOPICS = {
    "conclusion-first", "e-mail", "follow-up", "front-end", "back-end", "real-time", "long-term", "short-term", "part-time",
    "full-time", "ping-pong", "x-ray", "t-shirt", "well-known", "self-hosted", "open-source", "step-by-step", "up-to-date",
    "one-on-one", "co-founder", "in-laws", "non-binary", "gluten-free", "sugar-free", "check-in", "log-in", "sign-up",
    "end-to-end", "high-level", "low-level", "day-to-day", "state-of-the-art", "re-write", "pull-request", "mid-century",
}
_LETS = re.compile(r"^(?:let's|lets|let us)\s+(?:use|go with|stick with|switch to|adopt|keep|pick|choose|move to)\b", re.I)
_GOAL_HINT = re.compile(r"\b(?:someday|one day|eventually|in the future|dream|become)\b", re.I)
_TRAILING_PUNCT = re.compile(r"[\s.!。！,，;；:：~]+$")


@dataclass
class Context:
    today: date
    fields: dict[str, Field]  # USER.md as it stands, updated with this turn's upserts
    entries: list[Entry]
    history_norm: list[str] = field(default_factory=list)
    history_tokens: list[set[str]] = field(default_factory=list)
    memory_norm: list[str] = field(default_factory=list)
    known_topics: list[str] = field(default_factory=list)
    topic: str | None = None  # the project this turn talks about, carried to later entries
    default_lang: str = "en"
    previous_first_person: bool = False


def _decision(st: Statement, route: str, **kw: object) -> Decision:
    return Decision(quote=st.quote, route=route, **kw)  # type: ignore[arg-type]


def _skip(st: Statement, reason: str, detail: str, confidence: float = 0.8) -> Decision:
    return _decision(st, "skip", reason=reason, detail=detail, confidence=confidence)


def _clean_value(value: str, lex: Lexicon) -> str:
    value = value.strip().strip("\"'“”「」")
    value = _TRAILING_PUNCT.sub("", value)
    for _ in range(2):
        value = lex.trailing.sub("", value)
        value = _TRAILING_PUNCT.sub("", value)
    return value.strip()


def _strip(text: str, pattern: re.Pattern[str]) -> str:
    for _ in range(3):
        stripped = pattern.sub("", text, count=1).strip()
        if stripped == text:
            break
        text = stripped
    return text


def find_topic(text: str, ctx: Context) -> str | None:
    lowered = text.casefold()
    for topic in ctx.known_topics:
        if topic.casefold() in lowered:
            return topic
    m = _TOPIC_EXPLICIT.search(text)
    if m:
        return next(g for g in m.groups() if g)
    for m in _KEBAB.finditer(text):
        token = m.group(1)
        parts = token.split("-")
        if token in _NOT_TOPICS or len(set(parts)) == 1 or not any(ch.isalpha() for ch in token):
            continue
        return token
    return None


def _fact(text: str, lex: Lexicon) -> tuple[FactRule, str, str] | None:
    """The first fact rule that matches, with its key and value."""
    for rule in lex.facts:
        m = rule.pattern.match(text)
        if m is None:
            continue
        groups = m.groupdict()
        if rule.whole:
            value = lex.subject.sub("", text, count=1)
        else:
            value = groups.get("v") or groups.get("v2") or ""
        value = _clean_value(value, lex)
        if not value:
            continue
        key = rule.key
        if "{k}" in key:
            raw = _clean_value(groups.get("k") or "", lex).casefold()
            mapped = lex.key_words.get(raw)
            if mapped is None and lex.lang == "en" and raw and len(raw) <= 24:
                mapped = raw
            if mapped is None:  # a favourite we cannot name in English: keep it under one collecting field
                return FactRule(rule.name, rule.pattern, rule.section, "Favorites", multi=True), "Favorites", f"{raw}: {value}"
            key = key.replace("{k}", mapped)
        return rule, key, value
    return None


def _merge_multi(existing: str | None, value: str) -> str:
    if not existing:
        return value
    parts = [p.strip() for p in existing.split(";") if p.strip()]
    if value.casefold() in (p.casefold() for p in parts):
        return existing
    parts.append(value)
    while len("; ".join(parts)) > MULTI_VALUE_CAP and len(parts) > 1:
        parts.pop(0)
    return "; ".join(parts)


def _already_said(text: str, ctx: Context) -> bool:
    norm = normalize(text)
    if len(norm) < 4:
        return False
    toks = tokens(text)
    for hist, hist_toks in zip(ctx.history_norm, ctx.history_tokens, strict=False):
        if norm in hist:
            return True
        if len(toks) >= 4 and coverage(toks, hist_toks) >= 0.85:
            return True
    return False


def _user_decision(st: Statement, ctx: Context, rule: FactRule, key: str, value: str, confidence: float, detail: str) -> Decision:
    existing = ctx.fields.get(key.casefold())
    if existing is not None and (existing.value.casefold() == value.casefold()
                                 or (rule.multi and value.casefold() in (p.strip().casefold() for p in existing.value.split(";")))):
        return _skip(st, "inferable", f"already in USER.md ({key})", 0.85)
    if rule.multi:
        value = _merge_multi(existing.value if existing else None, value)
    section = existing.section if existing is not None and existing.section else rule.section
    ctx.fields[key.casefold()] = Field(section, key, value)
    return _decision(st, "user", op="upsert", section=section, key=key, value=value, confidence=confidence, detail=detail)


def _memory_text(text: str, lex: Lexicon, today: date) -> str:
    body = dates.strip_date_phrase(text, today)
    body = _strip(body, lex.discourse)
    body = _TRAILING_PUNCT.sub("", body).strip()
    m = _LETS.match(body)
    if m:
        body = "Agreed to " + body[m.end() - len(m.group(0).split()[-1]):].strip()
    if body and body[0].isascii() and body[0].isalpha():
        body = body[0].upper() + body[1:]
        body += "."
    return body


def _memory_decision(st: Statement, text: str, lex: Lexicon, ctx: Context, confidence: float, detail: str) -> Decision:
    entry = _memory_text(text, lex, ctx.today)
    norm = normalize(entry)
    toks = tokens(entry)
    for existing in ctx.memory_norm:
        if norm and (norm in existing or (len(toks) >= 4 and coverage(toks, set(existing.split()) if lex.lang in ("en", "id") else tokens(existing)) >= 0.9)):
            return _skip(st, "inferable", "already in MEMORY.md", 0.85)
    topic = find_topic(text, ctx)
    if topic:
        ctx.topic = topic
    else:
        topic = ctx.topic
    ctx.memory_norm.append(norm)
    return _decision(st, "memory", op="append", entry=entry, date=dates.resolve_date(text, ctx.today), topic=topic,
                     confidence=confidence, detail=detail)


def _forget(st: Statement, target: str, lex: Lexicon, ctx: Context) -> list[Decision]:
    target = _clean_value(re.sub(r"^(?:my|saya|我的|ของ(?:ผม|ฉัน)|that|the|about)\s*", "", target, flags=re.I), lex)
    t_fold = target.casefold()
    # USER.md: a field named by its key (in any of our languages) or holding the value the user names.
    wanted = lex.field_words.get(t_fold) or EN.field_words.get(t_fold)
    for key_fold, fld in ctx.fields.items():
        if (wanted and wanted.casefold() == key_fold) or key_fold == t_fold or (
                len(t_fold) >= 3 and (t_fold in fld.value.casefold() or fld.value.casefold() in t_fold)):
            return [_decision(st, "user", op="remove", section=fld.section, key=fld.key, match=fld.key, confidence=0.9,
                              detail="forget: matches a USER.md field")]
    # MEMORY.md: every entry that contains the target, else the best word overlap.
    hits = [e for e in ctx.entries if t_fold and t_fold in e.text.casefold()]
    if not hits:
        t_toks = tokens(target)
        scored = sorted(((coverage(t_toks, tokens(e.text)), i) for i, e in enumerate(ctx.entries)), reverse=True)
        if scored and scored[0][0] >= 0.5:
            hits = [ctx.entries[scored[0][1]]]
    if hits:
        return [_decision(st, "memory", op="remove", match=e.text, topic=e.topic, confidence=0.85,
                          detail="forget: matches a MEMORY.md entry") for e in hits]
    return [_decision(st, "user", op="remove", match=target, confidence=0.3, detail="forget: nothing stored matches")]


def classify_statement(st: Statement, ctx: Context) -> list[Decision]:
    raw = st.text.strip()
    lang = guess_language(raw, ctx.default_lang)
    lex = LEXICONS[lang]

    text = lex.greeting.sub("", raw, count=1).strip()
    if not text or lex.phatic.match(text):
        return [_skip(st, "one_off", "greeting, thanks or acknowledgement", 0.9)]
    text = _strip(text, lex.discourse)
    text = _TRAILING_PUNCT.sub("", text) if lang in ("zh", "th") else text.strip()

    explicit = False
    m = lex.remember.match(text)
    if m and len(text) > m.end():
        explicit, text = True, text[m.end():].strip()

    m = lex.forget.match(text)
    if m:
        return _forget(st, m.group("t"), lex, ctx)

    if lex.question.search(text) and not explicit:
        return [_skip(st, "one_off", "a question for this conversation", 0.8)]

    if lex.standing.search(text):
        key = "Response language" if lex.language_word.search(text) else "Response style"
        rule = FactRule("standing", lex.standing, "Preferences", key)
        return [_user_decision(st, ctx, rule, key, _clean_value(text, lex), 0.8, "standing instruction -> preference")]

    if lex.request.match(text) and not explicit:
        if _LETS.match(text):
            return [_memory_decision(st, text, lex, ctx, 0.75, "agreement (let's ...) -> memory")]
        if not _GOAL_HINT.search(text):
            return [_skip(st, "one_off", "a request for this task", 0.8)]

    if lex.temporary.search(text):
        return [_skip(st, "one_off", "a temporary situation", 0.7)]
    if lex.mood_state.search(text):
        return [_skip(st, "mood", "a momentary state", 0.8)]
    if lex.hedge.search(text) and not explicit:
        return [_skip(st, "vague", "hedged or vague attitude", 0.75)]

    plain = without_quotes(text)
    first = bool(lex.first_person.search(plain))
    plural = bool(lex.plural_person.search(plain))
    if not first and not plural and st.restored_subject:
        first = True
    if not first and not plural and lang in ("zh", "th", "id") and ctx.previous_first_person and len(plain) < 40:
        text = SUBJECT_OF[lang] + text  # a subject-less clause continues the speaker's sentence
        first = True
    ctx.previous_first_person = first

    project = bool(lex.project_cue.search(plain))
    decided = bool(lex.decision_cue.search(plain))
    dated = dates.has_past_marker(plain, ctx.today)
    work = project or (decided and (plural or project)) or dated

    fact = _fact(text, lex) if (first or plural) else None
    if fact is not None:
        rule, key, value = fact
        if not (work and (rule.name in WEAK_FACTS or plural)):
            if lex.mood_emotion.search(plain) and lex.now_marker.search(plain) and rule.name in WEAK_FACTS:
                return [_skip(st, "mood", "a feeling about right now", 0.7)]
            detail = f"profile fact ({rule.name})" + (", explicit" if explicit else "")
            return [_user_decision(st, ctx, rule, key, value, min(1.0, rule.confidence + (0.05 if explicit else 0)), detail)]

    if lex.mood_emotion.search(plain) and lex.now_marker.search(plain):
        return [_skip(st, "mood", "a feeling about right now", 0.7)]

    if work:
        why = "project work" if project else ("a decision" if decided else "a dated event")
        return [_memory_decision(st, text, lex, ctx, 0.8 if project else 0.65, f"{why} -> memory")]

    if first or plural:
        rule = FactRule("about", lex.subject, "Identity", "About", multi=True)
        value = _clean_value(lex.subject.sub("", text, count=1), lex)
        return [_user_decision(st, ctx, rule, "About", value or text, 0.55, "first-person statement about the user")]

    if explicit:
        return [_memory_decision(st, text, lex, ctx, 0.7, "asked to remember -> memory")]
    return [_skip(st, "one_off", "not about the user or the work", 0.5)]


def inferable_from_history(st: Statement, ctx: Context) -> bool:
    return _already_said(st.text, ctx)

"""Route one statement: the ordered rules of the offline engine.

Order matters and is the policy: greeting/thanks (one_off) -> "remember that ..." (explicit) -> forget
-> repeats of the conversation or of a stored fact (inferable) -> requests (one_off) -> mood -> hedges
(vague) -> questions (one_off) -> standing instructions (a preference) -> temporary situations (memory)
-> "no longer true" (remove) -> profile facts (user) -> project work, decisions and recent dated events
(memory) -> other first-person statements (user, "About") -> the rest (skip, one_off).
Each decision's `rule` is the stable id of the rule that fired ("fact/role-noun", "skip/greeting", "memory/project-work",
"forget/named-field", ...), so a wrong route points at its rule and the engine branches on ids, never on words; its
`detail` says the same for people.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from difflib import SequenceMatcher

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline import dates
from pipeline.engines.offline.answers import ANSWER_RULES, answered
from pipeline.engines.offline.lang import FALLBACK, lexicons, pack, packs, phrase, word_set
from pipeline.engines.offline.lexicon import FactRule, Lexicon
from pipeline.engines.offline.profile import Entry, Field
from pipeline.engines.offline.split import Statement, script_of
from pipeline.engines.offline.text import coverage, guess_language, normalize, tokens, without_quotes
from pipeline.ledgers.field_concepts import concepts_named
from pipeline.types import CHANGE_OF_FACT, Decision
from pipeline.vocabulary import aliases, named_by, same_fact_keys

LEXICONS: dict[str, Lexicon] = lexicons()  # each language pack's (lang/<code>/lexicon.py), by rank
# English's shapes are read beside every language's: users mix in English words ("deploy", "you").
EN = LEXICONS[FALLBACK]
SUBJECT_OF = {p.code: p.words.subject for p in packs()}
# Facts that say little about which file they belong to; project words outweigh them.
WEAK_FACTS = {"background", "hobbies", "habits", "work-style", "working-on"}
# Who the speaker is: in a language where a subject-less "is an actor, born in Taipei" describes the person talked
# about (Words.implied_identity False), no such clause is taken as the speaker's.
IDENTITY_KEYS = {"Role", "Origin", "Age", "Background", "Education"}
RECENT_DAYS = 45  # a dated first-person event older than this is the person's background

# The packs' words (lang/<code>/phrases.py), each list joined across languages: users mix them.
_TOPIC_EXPLICIT = lazy_compile(phrase("topic_named"), re.I)  # "project X": its one group holds the name
_KEBAB = lazy_compile(r"(?<![\w-])([a-z0-9]+(?:-[a-z0-9]+)+)(?![\w-])")
_NOT_TOPICS = word_set("kebab_not_topics")
# Words that follow "project"/"repo" without naming one: never a topic ("and:", "to:", "last:" entries).
_NOT_NAMES = word_set("not_names")
_LETS = lazy_compile(rf"^(?:{phrase('agreement')})", re.I)  # "let's use X": the entry reads "Agreed to use X."
_GOAL_HINT = lazy_compile(phrase("goal_hint"), re.I)
# Fact shapes that name their subject themselves ("running is my hobby"), so they apply without "I".
SUBJECTLESS = {"favorite-rev", "hobby-rev", "budget", "goal", "favorite"}
_TRAILING_PUNCT = lazy_compile(r"[\s.!。！,，;；:：~]+$")
# The contrast half of a correction ("..., not a data analyst"): dropped from values, skipped as a clause.
_CONTRAST_TAIL = lazy_compile(rf"(?:{phrase('contrast_tail')})$", re.I)
_CONTRAST_HEAD = lazy_compile(rf"^(?:{phrase('contrast_head')})(?:\b|(?=\S))", re.I)
_CHRONIC = lazy_compile(phrase("chronic"), re.I)
# "Never done it before", "Always loved it": a remark with its subject dropped, not an instruction.
_PARTICIPLE_AFTER = lazy_compile(rf"^(?:{phrase('participle_after')})", re.I)
_AGREED = lazy_compile(phrase("agreed"), re.I)
_HABITUAL = lazy_compile(phrase("habitual"), re.I)
_AS_YOU_SAID = lazy_compile(phrase("as_you_said"), re.I)
_EVALUATIVE = lazy_compile(rf"^(?:(?:{phrase('evaluative_lead')})\s+)?(?:{phrase('evaluative')})\b", re.I)
_SHARING = lazy_compile(phrase("sharing"), re.I)
_POINTER = lazy_compile(rf"^(?:{phrase('pointer')})?[\s:：,]*$", re.I)
_STOP = word_set("stop_words")
COLOR = "Favorite color"  # the one kind of favourite with a key of its own (pipeline/vocabulary.py)


# Skips the engine reads when it settles one sentence: a hedge makes the whole sentence vague; a loose remark next
# to a memory entry joins that entry ("..., we bumped it to 500GB").
HEDGED = "vague/hedge"
NO_FACT_SHAPE = "vague/no-fact-shape"
NOT_ABOUT_USER = "vague/not-about-user"
LOOSE_REMARKS = (NOT_ABOUT_USER, NO_FACT_SHAPE)


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
    default_lang: str = FALLBACK
    previous_first_person: bool = False
    previous_clause_sentence: int = -1  # sentence index of the last clause seen (for contrast halves)
    anchor: str | None = None  # a time phrase said on its own, dating the statements after it (anchors.py)
    asked: str | None = None  # the key the assistant's last line asks the user for (answers.py): Name, Origin...


def _decision(st: Statement, route: str, **kw: object) -> Decision:
    return Decision(quote=st.quote, route=route, **kw)  # type: ignore[arg-type]


def _skip(st: Statement, reason: str, rule: str, detail: str, confidence: float = 0.8) -> Decision:
    return _decision(st, "skip", reason=reason, rule=rule, detail=detail, confidence=confidence)


def clean_value(value: str, lex: Lexicon) -> str:
    value = value.strip().strip("\"'“”「」")
    value = _CONTRAST_TAIL.sub("", value)
    value = _TRAILING_PUNCT.sub("", value)
    for _ in range(2):
        value = lex.trailing.sub("", value)
        value = _TRAILING_PUNCT.sub("", value)
    return value.strip()


def strip_pattern(text: str, pattern: re.Pattern[str]) -> str:
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
    for m in _TOPIC_EXPLICIT.finditer(text):
        name = next(g for g in m.groups() if g)
        if name.casefold() not in _NOT_NAMES:  # "the project and I", "pushed the repo to GitHub", "project last week"
            return name
    for m in _KEBAB.finditer(text):
        token = m.group(1)
        parts = token.split("-")
        if token in _NOT_TOPICS or len(set(parts)) == 1 or not any(ch.isalpha() for ch in token):
            continue
        return token
    return None


# An adverb between the subject and the verb ("I actually live in", "saya sekarang tinggal di")
# hides the fact shape; the fact rules are retried without it.
_SUBJECT_ADVERB = lazy_compile(rf"^({phrase('subjects')})\s+(?:{phrase('subject_adverbs')})\s+", re.IGNORECASE)


_PERFECT = lazy_compile(r"^i(?:'ve| have) been\s+(?=an?\s|vegetarian|vegan|pescatarian|allergic|married|single|divorced)", re.I)
_LEADING_PHRASE = lazy_compile(rf"^(?:{phrase('leading_phrase')})", re.I)


# A role or work said with where it is done ("data engineer in Porto", "nurse at St. Mary's", "seorang perawat di
# Bandung", "drive a delivery van in Leeds"): the place is a field of its own (each pack's Phrases.role_where and place_keys).
def _where_the_role_is(value: str, lang: str) -> tuple[str, str, str] | None:
    """(role or work, Location or Employer, the place) when a Role or Work value ends with where it is done."""
    words = pack(lang).phrases
    m = words.role_where.match(value) if words.role_where is not None else None
    if m is None:
        return None
    return m.group("role"), words.place_keys[m.group("prep").casefold()], m.group("place")


def _fact(text: str, lex: Lexicon) -> tuple[FactRule, str, str] | None:
    """The first fact rule that matches, with its key and value."""
    found = None
    if lex.lang == FALLBACK and _PERFECT.match(text):  # "I've been a vegetarian since 2015" is "I'm a vegetarian"
        found = _fact_as_written(_PERFECT.sub("I'm ", text, count=1), lex)
    if found is None:
        found = _fact_as_written(text, lex)
    if found is None and _SUBJECT_ADVERB.match(text):
        found = _fact_as_written(_SUBJECT_ADVERB.sub(r"\1 ", text, count=1), lex)
    if found is None and _LEADING_PHRASE.match(text):  # "in 2024 I moved to Canada", "these days I live in Lyon"
        found = _fact(_LEADING_PHRASE.sub("", text, count=1), lex)
    return found


def _fact_as_written(text: str, lex: Lexicon) -> tuple[FactRule, str, str] | None:
    for rule in lex.facts:
        m = rule.pattern.match(text)
        if m is None:
            continue
        if rule.whole:
            value = lex.subject.sub("", text, count=1)
        else:
            group = next((g for g in ("v", "v2", "v3") if m.groupdict().get(g)), None)
            value = m.group(group) if group is not None else ""
            if group is not None and m.groupdict().get("k"):
                kind = clean_value(m.group("k"), lex)
                if COLOR in (named_by(kind, lex.lang), named_by(kind, FALLBACK)):
                    return rule, COLOR, clean_value(value, lex)  # "my favourite colour is blue": Favorite color
                # Any other favourite keeps its kind in the value, in the user's words: "season is autumn"
                start, end = min(m.start("k"), m.start(group)), max(m.end("k"), m.end(group))
                value = text[start:m.start(group)] + clean_value(value, lex) if m.start("k") < m.start(group) \
                    else text[start:end]
        value = clean_value(value, lex)
        if not value:
            continue
        return rule, rule.key, value
    return None


def merge_multi(existing: str | None, value: str) -> str:
    """A collecting field ("Likes") with one more clause. Its cap is the write stage's: when the field is full,
    the least valuable clause leaves there, named in the outcome (stages/clauses.py)."""
    if not existing:
        return value
    parts = [p.strip() for p in existing.split(";") if p.strip()]
    if value.casefold() in (p.casefold() for p in parts):
        return existing
    parts.append(value)
    return "; ".join(parts)


def _already_said(text: str, ctx: Context, restating: bool = False) -> bool:
    """The statement repeats the conversation: said before, or the assistant's own words confirmed."""
    norm = normalize(text)
    if len(norm) < 4 or not ctx.history_norm:
        return False
    toks = {t for t in tokens(text) if t not in _STOP and (len(t) > 1 or not t.isascii())}
    for hist, hist_toks in zip(ctx.history_norm, ctx.history_tokens, strict=False):
        if norm in hist:
            return True
        if len(toks) >= (1 if restating else 2) and coverage(toks, hist_toks) >= 0.75:
            return True
    return False


# Words that carry no fact on their own: a value made only of them ("it", "them all", "so much") says nothing.
_FILLER_WORDS = _STOP | word_set("filler_words")


_FIRST_CLAUSE = lazy_compile(rf"\s*[,;，；:]\s*|\s+(?:{phrase('first_clause_words')})\s+", re.I)
_PLACEHOLDER = lazy_compile(r"[\[\]{}<>]")
ADDRESSED_RULES = {"standing", "comm-style"}  # preferences about answers name the assistant ("when you summarize")


def _unworthy(rule: FactRule, value: str, lex: Lexicon) -> str | None:
    """Why `value` must not become a USER.md field (docs/design.md, "The write policy"), or None when it is a concrete, self-attributed fact."""
    head = _FIRST_CLAUSE.split(value, maxsplit=1)[0]  # "solo founder, it's just me for now": the fact is the head
    if rule.name not in ADDRESSED_RULES and (lex.second_person.search(head) or EN.second_person.search(head)):
        return "about the other speaker, not the user"
    if lex.empty_value.search(head) or EN.empty_value.search(head):
        return "the value says nothing on its own"
    if _PLACEHOLDER.search(value):
        return "a placeholder, not a value"  # "[your name]", "<name>"
    words = tokens(value)
    if script_of(value) == "latin":
        content = {w for w in words if w not in _FILLER_WORDS and (len(w) > 1 or w.isdigit())}  # "number is 1"
        symbols = [ch for ch in value if not ch.isspace() and not ch.isascii()]  # an emoji is a value
        if (not content and not symbols) or (rule.whole and len(value.split()) < 2):
            return "the value says nothing on its own"  # "Hobbies: play", "Background: won"
    elif len(value.replace(" ", "")) < (3 if rule.whole else 1):
        return "the value says nothing on its own"
    return None


def _user_decision(st: Statement, ctx: Context, rule: FactRule, key: str, value: str, confidence: float, detail: str,
                   rule_id: str, asked: bool = False) -> Decision:
    why_not = _unworthy(rule, value, LEXICONS[guess_language(value, ctx.default_lang)])
    if why_not is not None:
        return _skip(st, "vague", rule_id + "/no-value", f"{rule.name}: {why_not}", 0.6)
    existing = ctx.fields.get(key.casefold())
    old, new = (existing.value.casefold(), value.casefold()) if existing is not None else ("", "")
    if existing is not None and (old == new or (old and old in new and len(new) - len(old) <= 4)
                                 or (rule.multi and new in (p.strip() for p in old.split(";")))):
        return _skip(st, "inferable", "repeat/user-md", f"already in USER.md ({key})", 0.85)
    if rule.multi:
        value = merge_multi(existing.value if existing else None, value)
    section = existing.section if existing is not None and existing.section else rule.section
    ctx.fields[key.casefold()] = Field(section, key, value)
    return _decision(st, "user", op="upsert", section=section, key=key, value=value, confidence=confidence, rule=rule_id,
                     asked=asked, detail=detail)


def _memory_text(text: str, lex: Lexicon, today: date) -> str:
    body = dates.strip_date_phrase(text, today, keep_absolute=False)  # the entry's date says it
    body = strip_pattern(body, lex.discourse)
    body = _TRAILING_PUNCT.sub("", body).strip()
    m = _LETS.match(body)
    if m:
        body = "Agreed to " + body[m.end() - len(m.group(0).split()[-1]):].strip()
    if body and body[0].isascii() and body[0].isalpha():
        body = body[0].upper() + body[1:]
        body += "."
    return dates.mark_planned(body, text, today)  # an entry about a later day says it is a plan


def memory_entry(text: str, ctx: Context) -> str:
    """The declarative entry for a whole sentence (date phrase removed, discourse trimmed)."""
    lex = LEXICONS[guess_language(text, ctx.default_lang)]
    text = strip_pattern(lex.greeting.sub("", text.strip(), count=1), lex.discourse)
    return _memory_text(text, lex, ctx.today)


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+(?:[.,:]\d+)*", text))


def _memory_decision(st: Statement, text: str, lex: Lexicon, ctx: Context, confidence: float, rule: str, detail: str,
                     asked: bool = False) -> Decision:
    entry = _memory_text(text, lex, ctx.today)
    norm = normalize(entry)
    toks = tokens(entry)
    numbers = _numbers(norm)
    for existing in ctx.memory_norm:
        if _numbers(existing) != numbers:
            continue  # "release 24" and "release 25" are two events
        old = set(existing.split()) if pack(lex.lang).words.script == "latin" else tokens(existing)
        if norm and (norm in existing or (len(toks) >= 4 and coverage(toks, old) >= 0.9)
                     or (len(old) >= 3 and coverage(old, toks) >= 0.75 and len(norm) <= 1.7 * len(existing))):
            return _skip(st, "inferable", "repeat/memory-md", "already in MEMORY.md", 0.85)
    topic = find_topic(text, ctx)
    if topic:
        ctx.topic = topic
    else:
        topic = ctx.topic
    ctx.memory_norm.append(norm)
    return _decision(st, "memory", op="append", entry=entry, date=dates.resolve_date(text, ctx.today), topic=topic,
                     confidence=confidence, rule=rule, asked=asked, detail=detail)


def _content_words(text: str) -> set[str]:
    toks = tokens(text)
    return {t for t in toks if t not in _STOP and (len(t) > 2 or not t.isascii())}


def _field_named_by(target: str, lex: Lexicon) -> set[str]:
    """USER.md keys (folded) the words of `target` name: "my diet stuff" -> Diet, "我吃素" -> Diet (via the fact
    rules), with the keys that hold the same fact under other names ("forget where I live" removes them all)."""
    t_fold = target.casefold()
    keys: set[str] = set()
    for lang in dict.fromkeys((lex.lang, FALLBACK)):
        for words, key in aliases(lang).items():  # "where i live", "alamat", "住址": words anywhere in the request
            if re.search(rf"(?<!\w){re.escape(words)}(?!\w)" if words.isascii() else re.escape(words), t_fold):
                keys.add(key)
    found = _fact(target, lex) if lex.subject.match(target) else _fact(SUBJECT_OF[lex.lang] + target, lex)
    if found is not None and found[0].name not in ("about",):
        keys.add(found[1])
    return {k for key in keys for k in same_fact_keys(key)}


_FORGET_LEAD = lazy_compile(rf"^(?:{phrase('forget_lead')})\s*", re.I)  # "my", "saya" before what to forget
_FORGET_TAIL = lazy_compile(rf"\s+(?:{phrase('forget_tail')})$", re.I)  # "anymore", "lagi" after it


def _forget(st: Statement, target: str, lex: Lexicon, ctx: Context) -> list[Decision]:
    target = clean_value(_FORGET_LEAD.sub("", target), lex)
    target = _FORGET_TAIL.sub("", target).strip()
    t_fold = target.casefold()
    # A contact field named by what it is ("my email address", "nomor hp saya", "我的邮箱"): that
    # field and no other; when none is stored, nothing changes and the decision says so.
    contact = concepts_named(target)
    if contact:
        named_fields = [fld for fld in ctx.fields.values() if fld.key and concepts_named(fld.key) & contact]
        for fld in named_fields:
            del ctx.fields[fld.key.casefold()]
        if named_fields:
            return [_decision(st, "user", op="remove", section=fld.section, key=fld.key, match=fld.key, confidence=0.9,
                              rule="forget/named-field", detail="forget: the user asked to forget a USER.md field they named")
                    for fld in named_fields]
        return [_decision(st, "user", op="remove", match=None, confidence=0.9, rule="forget/contact-not-held",
                          detail=f"forget: no stored field holds the {' or '.join(sorted(contact))} the user named; nothing changed")]
    # USER.md: a field named by its key (in any of our languages) or holding the value the user names.
    named = _field_named_by(target, lex)
    removed = [fld for key_fold, fld in ctx.fields.items() if key_fold in named]
    if removed:
        for fld in removed:
            del ctx.fields[fld.key.casefold()]
        return [_decision(st, "user", op="remove", section=fld.section, key=fld.key, match=fld.key, confidence=0.9,
                          rule="forget/named-field", detail="forget: the user asked to forget a USER.md field they named")
                for fld in removed]
    wanted = None
    for key_fold, fld in ctx.fields.items():
        if (wanted and wanted.casefold() == key_fold) or key_fold == t_fold or (
                len(t_fold) >= 3 and (t_fold in fld.value.casefold() or fld.value.casefold() in t_fold)):
            return [_decision(st, "user", op="remove", section=fld.section, key=fld.key, match=fld.key, confidence=0.9,
                              rule="forget/field-value", detail="forget: matches a USER.md field")]
    # MEMORY.md: every entry that contains the target, else the best word overlap.
    hits = [e for e in ctx.entries if t_fold and t_fold in e.text.casefold()]
    if not hits:
        wanted_words = _content_words(target)
        scored = [(len(wanted_words & _content_words(e.text)), i) for i, e in enumerate(ctx.entries)]
        best = max((score for score, _ in scored), default=0)
        if best >= 2 or (best >= 1 and len(wanted_words) <= 2):
            hits = [ctx.entries[i] for score, i in scored if score == best]
    if hits:
        return [_decision(st, "memory", op="remove", match=e.text, topic=e.topic, confidence=0.85, rule="forget/entry",
                          detail="forget: matches a MEMORY.md entry") for e in hits]
    return [_decision(st, "user", op="remove", match=target, confidence=0.3, rule="forget/nothing-matches",
                      detail="forget: nothing stored matches")]


def _field_overlapping(text: str, ctx: Context) -> Field | None:
    """The USER.md field whose key or value shares the most content words with `text` (at least one)."""
    words = _content_words(text)
    best: tuple[float, Field] | None = None
    for fld in ctx.fields.values():
        shared = words & _content_words(fld.key + " " + fld.value)
        # Thai is tokenised into letter bigrams: shared bigrams scattered over the line (a letter pair of "เฟซบุ๊ก"
        # against a Family value) are no shared word; a run of three letters both say is one.
        thai = sum(1 for t in shared if _THAI_TOKEN.match(t))
        score = len(shared) - thai + (1 if thai and _common_run(text, fld.value) >= THAI_WORD_LETTERS else 0)
        if score >= 1 and (best is None or score > best[0]):
            best = (score, fld)
    return best[1] if best else None


THAI_WORD_LETTERS = 3  # "แมว" (cat) is a word of three letters


def _common_run(a: str, b: str) -> int:
    """The longest run of letters two short strings share within their words, the speaker's own "I"/"my" left out (it
    joins the neighbouring words: "แฟนฉันเป็นหมอ" and "ฉันเลิกเล่นเฟซบุ๊ก" share "ฉันเ" and no word)."""
    person = LEXICONS["th"].first_person
    return max((SequenceMatcher(None, x, y, autojunk=False).find_longest_match().size
                for x in person.sub(" ", a).split() for y in person.sub(" ", b).split()), default=0)


_THAI_TOKEN = lazy_compile("[\u0e00-\u0e7f]")


_SENTENCE_CUES = lazy_compile(phrase("correction_cues"), re.I)


def sentence_rule(sentence: Statement, ctx: Context) -> list[Decision] | None:
    """Rules that need the whole sentence: "I meant X, not Y" and "switched from X to Y" on a stored value."""
    text = _TRAILING_PUNCT.sub("", sentence.text.strip())
    if not ctx.fields or not _SENTENCE_CUES.search(text):
        return None  # both rules rewrite a stored value; most sentences name neither shape
    for lex, pattern, how in [(lx, p, h) for lx in LEXICONS.values() for p, h in ((lx.meant, "correction"), (lx.switched, "switch"))]:
        m = pattern.search(text)
        if m is None:
            continue
        old = clean_value(m.group("old"), lex)
        new = clean_value(m.group("new"), lex)
        if not old or not new:
            continue
        for fld in ctx.fields.values():
            if old.casefold() in fld.value.casefold():
                value = re.sub(re.escape(old), new, fld.value, count=1, flags=re.I)
                ctx.fields[fld.key.casefold()] = Field(fld.section, fld.key, value)
                return [_decision(sentence, "user", op="upsert", section=fld.section, key=fld.key, value=value, confidence=0.85,
                                  rule="correction/meant" if how == "correction" else "correction/switched",
                                  detail=f"{how} of a stored value")]
    return None


# "Here's a pic from when we met up", "ini fotonya", "这是照片", "นี่รูป": a picture or link handed over, not an event.
_SHOWING = lazy_compile(rf"^(?:{phrase('showing')})", re.I)


# "Don't forget to take it easy", "remember to drink water", "jangan lupa makan ya", "别忘了带伞": a reminder for the
# other speaker, not something about the user to keep (that one names the user: "don't forget I'm vegetarian").
_ADVICE = lazy_compile(rf"^(?:{phrase('advice')})", re.I)


_PLEASANTRY = lazy_compile(rf"^(?:{phrase('pleasantry')})", re.I)
# A standing instruction's negation is its meaning: "never use semicolons" is never `use semicolons`.
_POLITE = lazy_compile(rf"^(?:{phrase('polite')})", re.I)  # "please " before an instruction
_NEGATIVE_INSTRUCTION = lazy_compile(rf"^(?:{phrase('polite')})?(?:{phrase('negative_instruction')})(?:\b|(?=\S))", re.I)
_KEEP_IT = lazy_compile(rf"^(?:{phrase('keep_it')})", re.I)


def _instruction(text: str, lex: Lexicon) -> str:
    """The value of a standing instruction: the instruction without its "always"/"from now on" (a negation kept)."""
    m = _NEGATIVE_INSTRUCTION.match(text)
    if m:
        return _POLITE.sub("", text).strip(" ,:;-")
    body = lex.standing.sub("", text, count=1).strip(" ,:;-") or text
    return _KEEP_IT.sub("", body)


def classify_statement(st: Statement, ctx: Context) -> list[Decision]:
    raw = st.text.strip()
    lang = guess_language(raw, ctx.default_lang)
    lex = LEXICONS[lang]

    text = lex.greeting.sub("", raw, count=1).strip()
    if ctx.asked and st.start == 0 and (value := answered(text, ctx.asked)) is not None:
        rule = ANSWER_RULES[ctx.asked]  # "May I have your name?" -> "It's Angela"; "Where are you from?" -> "Ohio"
        return [_user_decision(st, ctx, rule, rule.key, value, 0.85, f"answers the question for {rule.key}", rule.rule_id)]
    if text and lex.phatic.match(text) and _EVALUATIVE.match(text):
        return [_skip(st, "vague", "vague/small-talk", "small-talk opinion", 0.85)]  # "cool!", "keren banget", "不错": an opinion, not a fact
    if not text or lex.phatic.match(text):
        return [_skip(st, "one_off", "skip/greeting", "greeting, thanks or acknowledgement", 0.9)]
    text = strip_pattern(text, lex.discourse)
    text = _TRAILING_PUNCT.sub("", text) if pack(lang).words.script != "latin" else text.strip()
    if not text:
        return [_skip(st, "one_off", "skip/greeting", "greeting, thanks or acknowledgement", 0.9)]

    for pattern, canonical in lex.spelling:  # "i m a nurse", "ive a pug": chat spellings of the subject
        text = pattern.sub(canonical, text)

    if _SHOWING.match(text):
        return [_skip(st, "one_off", "skip/showing", "shows the other speaker a picture or a link: no event of its own", 0.7)]

    explicit = False
    m = lex.remember.match(text)
    if m:
        rest = text[m.end():].strip()
        if _POINTER.match(rest):
            return [_skip(st, "one_off", "skip/pointer", "points at another statement", 0.6)]
        if _ADVICE.match(text) and not lex.first_person.search(rest):
            return [_skip(st, "one_off", "skip/advice", "advice to the other speaker, not a fact to keep", 0.7)]
        explicit, text = True, rest
        for pattern, canonical in lex.spelling:
            text = pattern.sub(canonical, text)

    m = lex.forget.match(text)
    if m:
        groups = m.groupdict()
        return _forget(st, groups.get("t") or groups.get("t2") or groups.get("t3") or "", lex, ctx)

    if _CONTRAST_HEAD.match(text) and ctx.previous_clause_sentence == st.sentence:
        return [_skip(st, "inferable", "repeat/contrast-half", "the contrast half of a correction", 0.6)]
    ctx.previous_clause_sentence = st.sentence
    if _AS_YOU_SAID.search(text):
        return [_skip(st, "inferable", "repeat/assistant", "restates what the assistant said", 0.8)]
    about_self = bool(lex.first_person.search(text))
    # "I love Star Wars too!" after the other speaker's "I love Star Wars" is the user's own fact, not a repeat.
    sharing = about_self and bool(_SHARING.search(text))
    if not sharing and _already_said(text, ctx, restating=not about_self) and not explicit:
        return [_skip(st, "inferable", "repeat/conversation", "already said in this conversation", 0.8)]

    plain = without_quotes(text)
    plural = bool(lex.plural_person.search(plain))
    dated = dates.has_past_marker(plain, ctx.today)

    if lex.request.match(text) and not explicit and not dated:
        if _LETS.match(text):
            return [_memory_decision(st, text, lex, ctx, 0.75, "memory/agreement", "agreement (let's ...) -> memory")]
        if not _GOAL_HINT.search(text) and not lex.standing.search(text):
            return [_skip(st, "one_off", "skip/request", "a request for this task", 0.8)]

    momentary = lex.moment.search(raw)
    chronic = _CHRONIC.search(plain) and not momentary  # "I get bored easily" describes the person
    if (lex.mood_state.search(plain) and not chronic) or (momentary and lex.mood_emotion.search(plain)):
        return [_skip(st, "mood", "mood/state", "a momentary state", 0.8)]
    if lex.hedge.search(text) and not explicit:
        return [_skip(st, "vague", HEDGED, "hedged or vague attitude", 0.75)]
    if lex.question.search(text) and not explicit:
        return [_skip(st, "one_off", "skip/question", "a question for this conversation", 0.8)]

    # "Always/never/whenever ..." is a preference only when it tells the assistant how to answer (it names answers,
    # replies, a format, or speaks to "you"); "Never done it before" or "Always loved it" is the user talking about
    # themselves and is read on by the rules below, and "Never give up!" or "never stop sending dog pics" is an
    # exclamation to the other speaker, no instruction at all.
    addressed = bool(lex.addressed.search(text) or EN.addressed.search(text)) and not _PARTICIPLE_AFTER.match(text)
    if lex.standing.search(text) and _PLEASANTRY.match(text):  # "Always great chatting with you!": no instruction
        return [_skip(st, "one_off", "skip/pleasantry", "a pleasantry to the other speaker", 0.8)]
    if lex.standing.search(text) and addressed and not plural and not _AGREED.search(text):
        language = lex.language_word.search(text)
        key = "Response language" if language else "Response style"
        # "reply in Indonesian from now on" -> Indonesian; "from now on, keep answers short" -> keep answers short
        value = clean_value(language.group(0) if language else _instruction(text, lex), lex)
        rule = FactRule("standing", lex.standing, key)
        return [_user_decision(st, ctx, rule, key, value, 0.8, "standing instruction -> preference", "instruction/standing")]

    if lex.temporary.search(text):
        return [_memory_decision(st, text, lex, ctx, 0.6, "memory/temporary", "a temporary situation -> memory (dated)")]

    project = bool(lex.project_cue.search(plain) or (lang != FALLBACK and EN.project_cue.search(plain)))
    decided = bool(lex.decision_cue.search(plain) or (lang != FALLBACK and EN.decision_cue.search(plain)))
    first = bool(lex.first_person.search(plain)) or st.restored_subject
    ambiguous_we = pack(lang).words.ambiguous_we
    if ambiguous_we is not None and first and ambiguous_we.match(plain) and (project or dated):
        first, plural = False, True  # Thai เรา is "I" or "we"; about project work it is the team
    implied = borrowed = False
    words = pack(lang).words
    # A clause that names a third person ("他毕业于...", "เขาเป็นครู") drops that person, not the speaker.
    pro_drop = words.pro_drop and not (words.other_subject is not None and words.other_subject.search(plain))
    if not first and not plural and pro_drop and ctx.previous_first_person and len(plain) < 40:
        text = SUBJECT_OF[lang] + text  # a subject-less clause continues the speaker's sentence
        first = borrowed = True
    ctx.previous_first_person = first
    # Project words alone do not make a first-person statement memory ("I build websites for a living" is
    # who the user is); finished or ongoing work, a date, a decision or a named project does.
    if first and not plural:
        did = bool(lex.done.search(plain) or (lang != FALLBACK and EN.done.search(plain)))
        today_event = did and dates.find_date(plain, ctx.today) is not None  # "I fixed it this morning"
        # A personal event from long ago ("two years ago I moved to Canada") is background, not a log entry.
        recent = dated and (ctx.today - dates.find_date(plain, ctx.today)[0]).days <= RECENT_DAYS  # type: ignore[index]
        named = bool(find_topic(plain, ctx))
        work = recent or today_event or ((project or named) and did) or (project and named)
    else:
        # A project noun alone ("here's the website", "that page looks nice") is talk about the work, not an event:
        # an entry needs something that happened, was decided or is scheduled.
        did = bool(lex.done.search(plain) or (lang != FALLBACK and EN.done.search(plain)))
        work = dated or decided or (project and (did or bool(_numbers(plain)) or bool(find_topic(plain, ctx))
                                                 or dates.find_date(plain, ctx.today) is not None))

    # Only the user's own fact stops being true ("I quit smoking", pro-drop "เลิกกินกาแฟแล้ว"); "my album dropped" is narration.
    if (first or (pro_drop and not lex.second_person.search(plain))) and not plural and lex.no_longer.search(plain):
        fld = _field_overlapping(plain, ctx)
        if fld is not None:
            del ctx.fields[fld.key.casefold()]
            return [_decision(st, "user", op="remove", section=fld.section, key=fld.key, match=fld.key, confidence=0.75,
                              rule="change/no-longer", removal="change_of_fact",
                              detail=f"{CHANGE_OF_FACT}: removes the stored field")]

    fact = _fact(dates.strip_date_phrase(text, ctx.today) if dated else text, lex)
    if fact is not None and borrowed and fact[0].name.startswith("name"):
        fact = None  # a name comes only from the user introducing themselves ("Aduh" is not a name)
    if fact is not None and not (first or plural) and fact[0].name not in SUBJECTLESS:
        fact = None
    if fact is None and not first and not plural and pro_drop:
        fact = _fact(SUBJECT_OF[lang] + text, lex)  # pro-drop: "ชอบอ่านนิยาย", "目标是跑个半马"
        if fact is not None and (fact[0].name.startswith("name") or (
                not words.implied_identity and fact[0].key in IDENTITY_KEYS)):
            fact = None
        implied = fact is not None
    if fact is not None:
        rule, key, value = fact
        if implied and rule.name in WEAK_FACTS:
            rule = FactRule(rule.name, rule.pattern, rule.key, 0.7)
        if rule.name == "habits" and project and _HABITUAL.search(plain):
            rule, key = FactRule("work-habits", rule.pattern, "Work habits"), "Work habits"
        if not (work and (rule.name in WEAK_FACTS or plural)):
            detail = f"profile fact ({rule.name})" + (", explicit" if explicit else "") + (", implied subject" if implied else "")
            conf = max(0.0, min(1.0, rule.confidence - (0.1 if implied else 0) + (0.05 if explicit else 0)))
            where = _where_the_role_is(value, lang) if key in ("Role", "Work") else None
            if where is None:
                return [_user_decision(st, ctx, rule, key, value, conf, detail, rule.rule_id, explicit)]
            role, place_key, place = where
            place_rule = FactRule(f"{rule.name}-place", rule.pattern, place_key, confidence=conf)
            return [_user_decision(st, ctx, rule, key, role, conf, detail, rule.rule_id, explicit),
                    _user_decision(st, ctx, place_rule, place_key, place, conf, f"profile fact ({place_rule.name})",
                                   place_rule.rule_id)]

    if lex.mood_emotion.search(plain) and lex.now_marker.search(plain) and not chronic:
        return [_skip(st, "mood", "mood/feeling-now", "a feeling about right now", 0.7)]

    if work:
        why, rule_id = (("project work", "memory/project-work") if project else ("a decision", "memory/decision") if decided
                        else ("a dated event", "memory/dated-event"))
        return [_memory_decision(st, text, lex, ctx, 0.8 if project else 0.65, rule_id, f"{why} -> memory")]

    if first or plural:
        # No catch-all field: a first-person remark no fact shape names is small talk until a rule can name its key.
        return [_skip(st, "vague", NO_FACT_SHAPE, "first-person remark with no concrete fact shape", 0.55)]

    if explicit:
        return [_memory_decision(st, text, lex, ctx, 0.7, "memory/asked", "asked to remember -> memory", asked=True)]
    # Greetings, thanks, questions and requests were caught above; what is left is small talk ("that's so cool").
    return [_skip(st, "vague", NOT_ABOUT_USER, "not about the user or the work", 0.5)]



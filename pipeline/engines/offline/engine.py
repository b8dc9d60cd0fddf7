"""OfflineEngine: the embedded default. No key, no network, no model: rules over four languages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.base import Engine
from pipeline.engines.offline import anchors, dates, sensitive
from pipeline.engines.offline.answers import asked_key
from pipeline.engines.offline.consolidate import plan_consolidation
from pipeline.engines.offline.extractor import (
    Extractor,
    FieldGuess,
    Reading,
    default_extractor,
    holds_nothing,
    plan_candidates,
    plan_fields,
    plan_refinements,
    read,
    strong_rule,
)
from pipeline.engines.offline.lang import phrase
from pipeline.engines.offline.pieces import pieces
from pipeline.engines.offline.profile import Field, entries_of, fields_of
from pipeline.engines.offline.rules import (
    HEDGED,
    LEXICONS,
    LOOSE_REMARKS,
    Context,
    classify_statement,
    memory_entry,
    merge_multi,
    sentence_rule,
)
from pipeline.engines.offline.split import Statement, split_statements
from pipeline.engines.offline.text import guess_language, normalize, tokens
from pipeline.stages.clauses import entry_junk_reason, junk_reason, split_clauses
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Message, Turn, Usage
from pipeline.vocabulary import CONTACT_KEYS, MULTI, SECTION_OF

RULES_VERSION = "offline-2"
_CONTACT_KEYS = {key.casefold(): key for key in CONTACT_KEYS}  # email -> Email, phone, address (the vocabulary's)
WEAK = 0.7  # decisions below this confidence give way to the sentence's stronger reading


class OfflineEngine(Engine):
    """Splits a turn into statements, routes each with hand-written rules (see rules.py), then lets the learned
    extractor (extractor.py) decide which turns write and which words of them make each field."""

    name = "offline"
    model: str | None = None
    prompt_version = RULES_VERSION

    def __init__(self, *, extractor: Extractor | bool = True) -> None:
        # extractor: the learned turn gate, value tagger and key classifier over the rules (extractor.py); True: the
        # shipped weights (the engine runs on its rules alone when the weights file is absent); False: rules alone.
        self.extractor: Extractor | None = default_extractor() if extractor is True else (extractor or None)

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        return self.reading(turn, user_md, memory_md)[0]

    def reading(self, turn: Turn, user_md: str = "", memory_md: str = "") -> tuple[Classification, Reading | None]:
        """The classification and what the extractor's models said of the turn (None without the extractor).

        A message longer than PIECE_CHARS is read piece by piece (pieces.py), so a turn's cost is linear in
        its length; a guard rule a multi-line message breaks only when read whole still refuses it whole."""
        text = turn.user_text
        cuts = pieces(text)
        if len(cuts) == 1 or ("\n" in text.strip() and sensitive.injection_rule(text) is not None):
            return self._reading(turn, text, user_md, memory_md)
        material = _work_material_start(text)
        decisions: list[Decision] = []
        best: Reading | None = None
        for a, b in cuts:
            part = turn.model_copy(update={"messages": [Message(role="user", content=text[a:b])]})
            result, reading = self._reading(part, text[a:b], user_md, memory_md,
                                            material_from=0 if material is not None and material <= a else None)
            decisions.extend(result.decisions)
            if reading is not None and (best is None or reading.p_write > best.p_write):
                best = reading  # hybrid asks the surest piece whether the turn may hold something to keep
        return Classification(decisions=decisions, usage=Usage(calls=0, cost_usd=0.0), engine=self.name,
                              model=None, prompt_version=RULES_VERSION), best

    def _reading(self, turn: Turn, text: str, user_md: str, memory_md: str, *,
                 material_from: int | None = None) -> tuple[Classification, Reading | None]:
        reading: Reading | None = None
        entries = entries_of(memory_md)  # no second parse: the pipeline passes parsed views
        history = [m.content for m in turn.history if m.content]
        fields = fields_of(user_md)
        initial = dict(fields)  # the rules update ctx.fields as they go; the extractor's merge starts again from here
        ctx = Context(
            today=turn.today_in(dates.user_time_zone(fields)),  # the user's local day: "yesterday" is theirs
            fields=fields,
            entries=entries,
            history_norm=[normalize(h) for h in history],
            history_tokens=[tokens(h) for h in history],
            memory_norm=[normalize(e.text) for e in entries],
            known_topics=sorted({e.topic for e in entries if e.topic}, key=len, reverse=True),
            default_lang=guess_language(text),
            asked=asked_key(assistant_line(turn)),
        )
        statements = split_statements(text)
        content_from = material_from if material_from is not None else _work_material_start(text)
        spans = sensitive.find_spans(text) if text else []
        blocked = self._blocked_sentences(text, statements)
        decisions: list[Decision] = []
        for index, group in _by_sentence(statements):
            if -1 in blocked or index in blocked:
                a, b = blocked.get(-1) or blocked[index]
                if not decisions or decisions[-1].quote != text[a:b]:
                    # Kept whole so the guard sees the attempt and keeps it out of every record.
                    guard = sensitive.injection_rule(text[a:b])
                    decisions.append(Decision(quote=text[a:b], route="skip", reason="blocked", confidence=0.9,
                                              rule=f"guard/{guard or 'blocked'}", detail=f"guard rule {guard or ''}".strip()))
                continue
            if content_from is not None and group[0].start >= content_from and not any(
                    s.start < group[-1].end and s.end > group[0].start for s in spans):
                # Text the user hands over to translate or fix is material, not something they said about themselves.
                decisions.extend(Decision(quote=st.quote, route="skip", reason="one_off", confidence=0.8,
                                          rule="skip/material", detail="material for the current task") for st in group)
                continue
            decisions.extend(self._sentence(text, group, spans, ctx))
        if any(d.reason == "sensitive" for d in decisions):
            # A turn that carries account numbers or addresses is a support request; its weak guesses are noise.
            decisions = [d if d.route == "skip" or d.confidence >= WEAK or d.op == "remove"
                         else Decision(quote=d.quote, route="skip", reason="one_off", confidence=0.5,
                                       rule="skip/weak-in-sensitive-turn",
                                       detail="weak remark in a turn that carries sensitive data") for d in decisions]
        if self.extractor is not None:
            reading = read(self.extractor, text, assistant_line(turn), decisions, LEXICONS, ctx.default_lang,
                           guess_language, protected)
            planned = plan_fields(reading, self.extractor.thresholds, MULTI)
            if not planned and reading.refine:
                planned = plan_refinements(reading, self.extractor.thresholds, MULTI, [
                    w for d, w in zip(decisions, _located(text, decisions), strict=True) if strong_rule(d) and not protected(d)])
            decisions = merge(text, decisions, reading, planned, self.extractor, ctx, initial,
                              plan_candidates(reading, self.extractor.thresholds) if not planned else [])
        decisions = _what_it_was_about(decisions)
        return Classification(decisions=decisions, usage=Usage(calls=0, cost_usd=0.0), engine=self.name,
                              model=None, prompt_version=RULES_VERSION), reading

    def needs_model(self, turn: Turn, user_md: str = "", memory_md: str = "") -> tuple[bool, Classification]:
        """For `--engine hybrid`: does this turn possibly hold something to keep (call the model), with the offline
        classification. Recall first: only a turn the gate rates under its hybrid threshold, and in which the rules
        write nothing, goes without a call (greetings, thanks, questions, agreement)."""
        result, reading = self.reading(turn, user_md, memory_md)
        writes = any(d.route != "skip" for d in result.decisions)
        if self.extractor is None or reading is None:
            return writes, result
        if writes:
            return True, result
        return not holds_nothing(result.decisions) and reading.p_write >= self.extractor.thresholds.hybrid, result

    def _sentence(self, text: str, group: list[Statement], spans: list[sensitive.Span], ctx: Context) -> list[Decision]:
        start, end = group[0].start, max(st.end for st in group)
        hits = [s for s in spans if s.start < end and s.end > start]
        carried, ctx.anchor = ctx.anchor, None  # an anchor dates the rest of its sentence and the next one
        if len(group) > 1 and not hits:
            whole = Statement(text[start:end], text[start:end], start, end, group[0].sentence)
            found = sentence_rule(whole, ctx)
            if found is not None:
                return found
        out: list[Decision] = []
        for st in group:
            st_hits = [s for s in hits if s.start < st.end and s.end > st.start]
            if st_hits:
                out.append(self._sensitive(st, st_hits, text, ctx))
                continue
            words = anchors.anchor_words(st.text, ctx.today)
            if words is not None:
                out.extend(anchors.as_anchor(st, classify_statement(st, ctx)))
                carried = ctx.anchor = words
                continue
            ctx.anchor = None
            st = anchors.with_anchor(st, carried, ctx.today)
            if len(group) == 1:
                found = sentence_rule(st, ctx)
                if found is not None:
                    out.extend(found)
                    continue
            out.extend(classify_statement(st, ctx))
        return _settle_sentence(out, text[start:end], ctx, carried)

    @staticmethod
    def _blocked_sentences(text: str, statements: list[Statement]) -> dict[int, tuple[int, int]]:
        """Sentences (or -1: the whole text) that break a guard rule only when read whole.

        A multi-line message that trips a rule is refused whole: forged file structure works across
        lines, and the lines around the forged ones are part of the same attempt.
        """
        if not statements or sensitive.injection_rule(text) is None:
            return {}
        if "\n" in text.strip():
            return {-1: (0, len(text))}
        spans: dict[int, tuple[int, int]] = {}
        for st in statements:
            a, b = spans.get(st.sentence, (st.start, st.end))
            spans[st.sentence] = (min(a, st.start), max(b, st.end))
        hit = {i: span for i, span in spans.items() if sensitive.injection_rule(text[span[0]:span[1]]) is not None}
        return hit or {-1: (0, len(text))}

    def _sensitive(self, st: Statement, hits: list[sensitive.Span], text: str, ctx: Context) -> Decision:
        asked = sensitive.asked_to_save(st.quote)
        redacted = sensitive.redact(st.quote, hits, offset=st.start)
        if asked and all(sensitive.is_contact(h.kind) for h in hits):
            hit = hits[0]
            kind = next((k for k in _CONTACT_KEYS if k in hit.kind.lower()), "email")
            value = re.sub(r"\s+", " ", text[hit.start:hit.end]).strip()
            return Decision(quote=st.quote, route="user", op="upsert", section=SECTION_OF[_CONTACT_KEYS[kind]], key=_CONTACT_KEYS[kind],
                            value=value,
                            confidence=0.8, rule="contact/asked", asked=True,
                            detail=f"contact detail the user asked to save ({kind})")
        return Decision(quote=redacted, route="skip", reason="sensitive", confidence=0.95, rule="guard/sensitive",
                        detail=", ".join(sorted({h.kind.lower() for h in hits})))

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        entries, archived = plan_consolidation(items, target_chars=target_chars, today=today)
        return ConsolidationPlan(entries=entries, archived=archived, usage=Usage(calls=0, cost_usd=0.0), engine=self.name,
                                 model=None, prompt_version=RULES_VERSION)


# "Translate this: ...", "ringkas teks berikut:", "翻译下面这段：", "แปลข้อความนี้:" and code fences: what follows
# is material to work on.
_MATERIAL = lazy_compile(f"(?:{phrase('material')})|```", re.IGNORECASE)


# Rule decisions the extractor never overrides: guard blocks and sensitive data, what the user asked for in so many
# words (remember, forget, save my email, how to answer, a correction of a stored value), material handed over for the
# task, project work and dated events (the rules' project cues and date phrases are precise; chit-chat corpora hold
# few of either, so the gate would veto what LABELING.md calls memory: "we adopted a puppy yesterday").
_PROTECTED_RULES = frozenset({"instruction/standing", "memory/asked", "contact/asked", "correction/meant",
                              "correction/switched", "skip/material", "memory/project-work", "memory/decision",
                              "memory/agreement", "memory/dated-event"})
_PROTECTED_FAMILIES = ("forget/", "guard/")


def rule_of(d: Decision) -> str:
    """The id of the rule that decided, without the "+sentence" of an entry that took in its whole sentence."""
    return (d.rule or "").partition("+")[0]


def protected(d: Decision) -> bool:
    if d.reason in ("sensitive", "blocked") or d.op == "remove":
        return True
    rule = rule_of(d)
    return d.asked or rule in _PROTECTED_RULES or rule.startswith(_PROTECTED_FAMILIES)


def _located(text: str, decisions: list[Decision]) -> list[tuple[int, int]]:
    """Each decision's statement as offsets in the turn's text ((-1, -1) when its quote is not found verbatim)."""
    out: list[tuple[int, int]] = []
    cursor = 0
    for d in decisions:
        at = text.find(d.quote, cursor) if d.quote else -1
        if at < 0 and d.quote:
            at = text.find(d.quote)
        if at < 0:
            out.append((-1, -1))
            continue
        out.append((at, at + len(d.quote)))
        cursor = max(cursor, at)
    return out


def merge(text: str, decisions: list[Decision], reading: Reading, fields: list[FieldGuess], ex: Extractor,
          ctx: Context, initial: dict[str, Field], candidates: Sequence[FieldGuess] = ()) -> list[Decision]:
    """The extractor's fields replace the rules' decisions on their statements; elsewhere the rules' USER.md writes
    stand only on a turn the stacker rates a profile fact (`user`; `veto` for their surest fact shapes, see
    `strong_rule`), and their dated MEMORY.md entries need the gate's
    P(memory). Protected decisions (see `protected`) stand as they are, and their statements get no field.
    `initial` is USER.md before the turn (the rules' own upserts are replayed on it as they are kept)."""
    th = ex.thresholds
    where = _located(text, decisions)
    guarded = [w for d, w in zip(decisions, where, strict=True) if protected(d)]
    fields = [g for g in fields if not any(a <= g.start < b for a, b in guarded)]
    home: dict[int, tuple[int, int]] = {}  # field index -> the statement it replaces
    for i, g in enumerate(fields):
        home[i] = next((w for w in where if w[0] <= g.start < w[1]), (g.start, g.end))
    replaced = set(home.values())
    skip_reason = reading.skip_reason()
    ctx.fields.clear()
    ctx.fields.update(initial)
    out: list[Decision] = []
    emitted: set[tuple[int, int]] = set()
    for d, w in zip(decisions, where, strict=True):
        if (d.route == "memory" and d.op == "append" and not d.asked
                and (why_not := entry_junk_reason(d.entry or "")) is not None):
            out.append(Decision(quote=d.quote, route="skip", reason="vague", confidence=0.6, rule="gate/entry-junk",
                                detail=f"{why_not}: no event of the user's"))
            continue
        if protected(d):
            out.append(d)
            _replay(d, ctx)
            continue
        if w in replaced:
            here = [fields[i] for i, h in home.items() if h == w]
            if w not in emitted:
                emitted.add(w)
                out.extend(_field_decision(d.quote, text, g, ctx) for g in here)
            if _completes(d, here, text, reading.p_field, th.veto):
                out.append(d)  # the rules' surest shape names a field the extractor left out ("I'm Ana, a nurse.")
                _replay(d, ctx)
            continue
        if d.route == "user" and d.op == "upsert":
            if reading.p_field < (th.veto if strong_rule(d) else th.user):
                # Over the `candidate` bar the rules' field waits in the candidate list instead of being lost.
                kept = reading.p_field >= th.candidate and bool(d.key and d.value) and _junk_clause(d, initial) is None
                out.append(Decision(quote=d.quote, route="skip", reason=skip_reason,  # type: ignore[arg-type]
                                    confidence=round(1 - reading.p_field, 2), candidate=kept,
                                    section=d.section if kept else None, key=d.key if kept else None,
                                    value=d.value if kept else None, rule="gate/candidate" if kept else "gate/veto",
                                    detail=("candidate: " if kept else "gate: ") + f"{skip_reason} (profile fact "
                                           f"{reading.p_field:.2f}; the rules said user)"))
                continue
            why_not = _junk_clause(d, initial)
            if why_not is not None:
                out.append(Decision(quote=d.quote, route="skip", reason="vague", confidence=0.6, rule="gate/junk-value",
                                    detail=f"{why_not}: the rules' {d.key} value is no value"))
                continue
        elif d.route == "skip" and not d.candidate and d.reason not in ("sensitive", "blocked") and (
                d.rule not in _NO_CANDIDATE) and (
                guess := next((g for g in candidates if w[0] <= g.start < w[1]), None)) is not None:
            out.append(Decision(quote=d.quote, route="skip", reason=d.reason, confidence=round(1 - reading.p_field, 2),
                                candidate=True, section=SECTION_OF.get(guess.key, "Identity"), key=guess.key,
                                value=text[guess.start:guess.end], rule="model/candidate",
                                detail=f"candidate: extractor {guess.key} (profile fact {reading.p_field:.2f}, "
                                       f"under the bar {th.user:.2f})"))
            continue
        elif d.route == "memory" and d.op == "append" and reading.p_memory < th.memory:
            out.append(Decision(quote=d.quote, route="skip", reason=skip_reason, confidence=round(1 - reading.p_memory, 2),  # type: ignore[arg-type]
                                rule="gate/memory", detail=f"gate: {skip_reason} (memory {reading.p_memory:.2f}; the rules said memory)"))
            continue
        elif d.route == "skip" and d.rule in LOOSE_REMARKS and skip_reason not in ("inferable", d.reason):
            out.append(d.model_copy(update={"reason": skip_reason}))
            continue
        out.append(d)
        _replay(d, ctx)
    return out


# Statements that add nothing to wait for: an event MEMORY.md already logs and a sentence said earlier in the same
# conversation ("last week we decided to move atlas to Postgres" said again is a logged decision, not a usual stack
# waiting to be confirmed). What the assistant said about itself is refused later, whatever the engine
# (stages/evidence.py).
_NO_CANDIDATE = ("repeat/memory-md", "repeat/conversation")


def _junk_clause(d: Decision, initial: dict[str, Field]) -> str | None:
    """Why the clause a rule adds to USER.md is no value (stages/clauses.junk_reason: a question, an exclamation, a
    sentence, advice to the other speaker, a fragment), or None. Only the clauses USER.md did not hold are judged."""
    if not d.key or not d.value:
        return None
    before = initial.get(d.key.casefold())
    held = {c.casefold() for c in split_clauses(before.value)} if before is not None else set()
    return next((why for c in split_clauses(d.value) if c.casefold() not in held
                 and (why := junk_reason(c)) is not None), None)


def _completes(d: Decision, guesses: list[FieldGuess], text: str, p_field: float, veto: float) -> bool:
    """Does a rule's write add to the extractor's fields of its statement? Only one of the rules' surest fact shapes
    (`strong_rule`), on a turn rated a profile fact over the `veto` bar, for a key the extractor did not fill, whose
    value is none of the extractor's words."""
    if not strong_rule(d) or p_field < veto or not d.key or not d.value:
        return False
    if any(g.key.casefold() == d.key.casefold() for g in guesses):
        return False
    value = d.value.casefold()
    return all(text[g.start:g.end].casefold() not in value and value not in text[g.start:g.end].casefold()
               for g in guesses)


# A sentence that says what the one before it was about: "It was my mother's old house.", "Itu rumah lama ibuku.",
# "那是我妈妈的老房子。", "มันคือบ้านเก่าของแม่"
_ABOUT_BEFORE = lazy_compile(rf"^(?:{phrase('about_before')})(?![a-z])", re.IGNORECASE)


def _what_it_was_about(decisions: list[Decision]) -> list[Decision]:
    """A MEMORY.md entry keeps the sentence after it that says what it was about ("I visited a place that holds
    memories. It was my mother's old house." keeps the house): that sentence, skipped on its own, joins the entry."""
    out = list(decisions)
    for i in range(len(out) - 1):
        d, nxt = out[i], out[i + 1]
        if (d.route != "memory" or d.op != "append" or not d.entry or nxt.route != "skip"
                or nxt.reason in ("sensitive", "blocked") or not _ABOUT_BEFORE.match(nxt.quote.strip())):
            continue
        about = nxt.quote.strip().rstrip(".!。！")
        entry = d.entry.rstrip(" .。") + (". " if d.entry.isascii() else "。") + about[:1].upper() + about[1:]
        out[i] = d.model_copy(update={"entry": entry + ("." if entry.isascii() else ""),
                                      "detail": (d.detail or "") + ", with the sentence that says what it was about"})
        out[i + 1] = nxt.model_copy(update={"rule": "memory/joined",
                                            "detail": "joined the entry before it (says what it was about)"})
    return out


def _replay(d: Decision, ctx: Context) -> None:
    """Keep ctx.fields in step with a kept rule decision (its value already merged by the rules)."""
    if d.route != "user" or not d.key:
        return
    if d.op == "upsert" and d.value is not None:
        ctx.fields[d.key.casefold()] = Field(d.section or "Identity", d.key, d.value)
    elif d.op == "remove":
        ctx.fields.pop(d.key.casefold(), None)


def _field_decision(quote: str, text: str, g: FieldGuess, ctx: Context) -> Decision:
    end = g.end
    # Only a phrase that straddles the value's end matters, so the search reads no further than a phrase can
    # reach past it: searching the whole rest of a long sentence for every value made a turn quadratic.
    phrase = dates.find_phrase(text[g.start:end + dates.PHRASE_REACH], ctx.today)
    if phrase is not None and phrase.start < end - g.start < phrase.end:
        end = g.start + phrase.end  # a date in a value stays whole: "born on May 3", never "born on May"
    value = text[g.start:end]
    detail = f"extractor: {g.key} (key {g.p_key:.2f}, span {g.span_conf:.2f})"  # the rule is model/extractor
    why_not = junk_reason(value)
    if why_not is not None:
        return Decision(quote=quote, route="skip", reason="vague", confidence=0.6, rule="model/junk-value",
                        detail=f"{why_not}: {value!r} is no {g.key} value")
    existing = ctx.fields.get(g.key.casefold())
    if existing is not None:
        old = existing.value.casefold()
        parts = [p.strip() for p in old.split(";")]
        if value.casefold() == old or value.casefold() in parts:
            return Decision(quote=quote, route="skip", reason="inferable", confidence=0.85, rule="repeat/user-md",
                            detail=f"already in USER.md ({existing.key})")
    multi = g.key in MULTI
    if multi:
        value = merge_multi(existing.value if existing else None, value)
    section = existing.section if existing is not None and existing.section else SECTION_OF.get(g.key, "Identity")
    key = existing.key if existing is not None else g.key
    ctx.fields[key.casefold()] = Field(section, key, value)
    return Decision(quote=quote, route="user", op="upsert", section=section, key=key, value=value,
                    confidence=round(g.score, 2), rule="model/extractor", detail=detail)


def assistant_line(turn: Turn) -> str:
    """The assistant's last line before the user spoke: what the user is answering."""
    return next((m.content for m in reversed(turn.history) if m.role == "assistant" and m.content), "")


def _work_material_start(text: str) -> int | None:
    m = _MATERIAL.search(text)
    return m.end() if m is not None and text[m.end():].strip() else None


def _by_sentence(statements: list[Statement]) -> list[tuple[int, list[Statement]]]:
    groups: list[tuple[int, list[Statement]]] = []
    for st in statements:
        if groups and groups[-1][0] == st.sentence:
            groups[-1][1].append(st)
        else:
            groups.append((st.sentence, [st]))
    return groups


def _settle_sentence(decisions: list[Decision], sentence: str, ctx: Context, anchor: str | None = None) -> list[Decision]:
    """Make one sentence's clause decisions agree with each other (`anchor`: the time phrase that dates it).

    - A sentence that opens with a hedge ("I dunno, I sometimes like ...") is vague as a whole.
    - A sentence about project work keeps its other clauses ("..., the cause was a full disk") in the
      same memory entry instead of dropping them or guessing a profile fact from them.
    """
    if len(decisions) < 2:
        return decisions
    if decisions[0].reason == "mood" and decisions[0].rule != anchors.ANCHOR_RULE:
        return [d if d.route == "skip" or d.confidence >= WEAK else
                Decision(quote=d.quote, route="skip", reason="mood", confidence=0.6, rule="mood/part-of-sentence",
                         detail="part of a mood sentence") for d in decisions]
    if decisions[0].reason == "vague" and decisions[0].rule == HEDGED:
        return [d if d.route == "skip" else Decision(quote=d.quote, route="skip", reason="vague", confidence=0.6,
                                                     rule="vague/part-of-hedged-sentence",
                                                     detail="part of a hedged sentence") for d in decisions]
    memory = [d for d in decisions if d.route == "memory" and d.op == "append"]
    loose = [d for d in decisions if (d.route == "skip" and d.rule in LOOSE_REMARKS)
             or (d.route == "user" and d.confidence < WEAK)]
    if len(memory) >= 1 and loose:
        first = memory[0]
        dated = anchors.anchored_text(sentence, anchor, ctx.today)
        entry = memory_entry(dated, ctx)
        merged = first.model_copy(update={"quote": sentence.strip(), "entry": entry, "date": dates.resolve_date(dated, ctx.today),
                                          "rule": rule_of(first) + "+sentence",
                                          "detail": (first.detail or "") + ", whole sentence"})
        for d in loose:
            if d.route == "user" and d.key:
                _forget_pending(d, ctx)
        drop = {id(d) for d in memory + loose}
        out: list[Decision] = []
        for d in decisions:
            if d is first:
                out.append(merged)
            elif id(d) not in drop:
                out.append(d)
        return out
    return decisions


def _forget_pending(d: Decision, ctx: Context) -> None:
    """Undo a weak upsert that was folded into a memory entry, so later clauses do not see it."""
    key = (d.key or "").casefold()
    fld = ctx.fields.get(key)
    if fld is not None and fld.value == d.value:
        del ctx.fields[key]

"""OfflineEngine: the embedded default. No key, no network, no model: rules over four languages."""

from __future__ import annotations

import re
from datetime import date

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.base import Engine
from pipeline.engines.offline import anchors, dates, sensitive
from pipeline.engines.offline.consolidate import plan_consolidation
from pipeline.engines.offline.gate import Gate, apply_gate, default_gate, turn_features
from pipeline.engines.offline.keyer import Keyer, default_keyer, propose
from pipeline.engines.offline.lexicon_en import LEXICON as EN
from pipeline.engines.offline.profile import entries_of, fields_of
from pipeline.engines.offline.rules import (
    HEDGED,
    LEXICONS,
    LOOSE_REMARKS,
    Context,
    classify_statement,
    memory_entry,
    sentence_rule,
)
from pipeline.engines.offline.split import Statement, split_statements
from pipeline.engines.offline.text import guess_language, normalize, tokens
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Turn, Usage

RULES_VERSION = "offline-2"
_CONTACT_KEYS = {"email": "Email", "phone": "Phone", "address": "Address"}
WEAK = 0.7  # decisions below this confidence give way to the sentence's stronger reading


class OfflineEngine(Engine):
    """Splits a turn into statements and routes each with hand-written rules (see rules.py)."""

    name = "offline"
    model: str | None = None
    prompt_version = RULES_VERSION

    def __init__(self, *, gate: Gate | None | bool = True, keyer: Keyer | bool | None = None) -> None:
        # gate=True: the shipped learned gate (rules alone if its weights file is absent); False: rules alone.
        self.gate: Gate | None = default_gate() if gate is True else (gate or None)
        # keyer: proposes the profile facts the rules cannot name (keyer.py); by default on with the gate.
        wanted = gate is not False if keyer is None else keyer
        self.keyer: Keyer | None = default_keyer() if wanted is True else (wanted or None)

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        text = turn.user_text
        entries = entries_of(memory_md)  # no second parse: the pipeline passes parsed views
        history = [m.content for m in turn.history if m.content]
        fields = fields_of(user_md)
        ctx = Context(
            today=turn.today_in(dates.user_time_zone(fields)),  # the user's local day: "yesterday" is theirs
            fields=fields,
            entries=entries,
            history_norm=[normalize(h) for h in history],
            history_tokens=[tokens(h) for h in history],
            memory_norm=[normalize(e.text) for e in entries],
            known_topics=sorted({e.topic for e in entries if e.topic}, key=len, reverse=True),
            default_lang=guess_language(text),
        )
        statements = split_statements(text)
        content_from = _work_material_start(text)
        spans = sensitive.find_spans(text) if text else []
        blocked = self._blocked_sentences(text, statements)
        decisions: list[Decision] = []
        for index, group in _by_sentence(statements):
            if -1 in blocked or index in blocked:
                a, b = blocked.get(-1) or blocked[index]
                if not decisions or decisions[-1].quote != text[a:b]:
                    # Kept whole so the guard sees the attempt and keeps it out of every record.
                    decisions.append(Decision(quote=text[a:b], route="skip", reason="blocked", confidence=0.9,
                                              detail=f"guard rule {sensitive.injection_rule(text[a:b]) or ''}".strip()))
                continue
            if content_from is not None and group[0].start >= content_from and not any(
                    s.start < group[-1].end and s.end > group[0].start for s in spans):
                # Text the user hands over to translate or fix is material, not something they said about themselves.
                decisions.extend(Decision(quote=st.quote, route="skip", reason="one_off", confidence=0.8,
                                          detail="material for the current task") for st in group)
                continue
            decisions.extend(self._sentence(text, group, spans, ctx))
        if any(d.reason == "sensitive" for d in decisions):
            # A turn that carries account numbers or addresses is a support request; its weak guesses are noise.
            decisions = [d if d.route == "skip" or d.confidence >= WEAK or d.op == "remove"
                         else Decision(quote=d.quote, route="skip", reason="one_off", confidence=0.5,
                                       detail="weak remark in a turn that carries sensitive data") for d in decisions]
        if self.gate is not None and any(d.route != "skip" for d in decisions):
            decisions = self._gated(turn, decisions, ctx.default_lang, self.gate)
        if self.keyer is not None:
            decisions = propose(self.keyer, decisions, text, assistant_line(turn), ctx.default_lang,
                                {k: (f.key, f.value) for k, f in ctx.fields.items()})
        return Classification(decisions=decisions, usage=Usage(calls=0, cost_usd=0.0), engine=self.name,
                              model=None, prompt_version=RULES_VERSION)

    @staticmethod
    def _gated(turn: Turn, decisions: list[Decision], lang: str, gate: Gate) -> list[Decision]:
        lex = LEXICONS.get(lang, EN)
        features = turn_features(turn.user_text, assistant_line(turn), lex, decisions, gate.config)
        return apply_gate(decisions, gate.verdict(features), gate, (lex, EN) if lex is not EN else (EN,))

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
        lex = LEXICONS[guess_language(st.quote, ctx.default_lang)]
        asked = sensitive.asked_to_save(st.quote, lex.save_contact) or sensitive.asked_to_save(st.quote, EN.save_contact)
        redacted = sensitive.redact(st.quote, hits, offset=st.start)
        if asked and all(sensitive.is_contact(h.kind) for h in hits):
            hit = hits[0]
            kind = next((k for k in _CONTACT_KEYS if k in hit.kind.lower()), "email")
            value = re.sub(r"\s+", " ", text[hit.start:hit.end]).strip()
            return Decision(quote=st.quote, route="user", op="upsert", section="Identity", key=_CONTACT_KEYS[kind], value=value,
                            confidence=0.8, detail=f"contact detail the user asked to save ({kind})")
        return Decision(quote=redacted, route="skip", reason="sensitive", confidence=0.95,
                        detail="sensitive: " + ", ".join(sorted({h.kind.lower() for h in hits})))

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        entries, archived = plan_consolidation(items, target_chars=target_chars, today=today)
        return ConsolidationPlan(entries=entries, archived=archived, usage=Usage(calls=0, cost_usd=0.0), engine=self.name,
                                 model=None, prompt_version=RULES_VERSION)


# "Translate this: ...", "ringkas teks berikut:", "翻译下面这段：", "แปลข้อความนี้:" and code fences: what follows
# is material to work on.
_MATERIAL = lazy_compile(
    r"(?:\b(?:translate|summari[sz]e|rewrite|re-write|proofread|paraphrase|fix|edit|shorten|improve|polish|check|format|review|"
    r"reword|correct)\b[^\n:]{0,30}?\b(?:this|these|the following|below|it|that)\b[^\n:]{0,30}[:\n]"
    r"|\b(?:terjemahkan|terjemahin|ringkas|rangkum|perbaiki|tulis ulang|cek|periksa|rapikan)\b[^\n:]{0,30}?\b(?:ini|berikut|itu)\b[^\n:]{0,30}[:\n]"
    r"|(?:翻译|总结|改写|润色|修改|检查|校对|缩写)[^\n：:]{0,20}?[：:\n]"
    r"|(?:แปล|สรุป|เขียนใหม่|แก้|ตรวจ|เรียบเรียง)[^\n:]{0,30}?[:\n])"
    r"|```",
    re.IGNORECASE,
)


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
    if decisions[0].reason == "mood" and decisions[0].detail != anchors.ANCHOR_DETAIL:
        return [d if d.route == "skip" or d.confidence >= WEAK else
                Decision(quote=d.quote, route="skip", reason="mood", confidence=0.6, detail="part of a mood sentence") for d in decisions]
    if decisions[0].reason == "vague" and decisions[0].detail == HEDGED:
        return [d if d.route == "skip" else Decision(quote=d.quote, route="skip", reason="vague", confidence=0.6,
                                                     detail="part of a hedged sentence") for d in decisions]
    memory = [d for d in decisions if d.route == "memory" and d.op == "append"]
    loose = [d for d in decisions if (d.route == "skip" and d.detail in LOOSE_REMARKS)
             or (d.route == "user" and d.confidence < WEAK)]
    if len(memory) >= 1 and loose:
        first = memory[0]
        dated = anchors.anchored_text(sentence, anchor, ctx.today)
        entry = memory_entry(dated, ctx)
        merged = first.model_copy(update={"quote": sentence.strip(), "entry": entry, "date": dates.resolve_date(dated, ctx.today),
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

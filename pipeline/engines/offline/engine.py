"""OfflineEngine: the embedded default. No key, no network, no model: rules over four languages."""

from __future__ import annotations

import re
from datetime import date

from pipeline.engines.offline import sensitive
from pipeline.engines.offline.consolidate import plan_consolidation
from pipeline.engines.offline.profile import parse_memory, parse_user
from pipeline.engines.offline.rules import Context, _skip, classify_statement, inferable_from_history
from pipeline.engines.offline.split import Statement, split_statements
from pipeline.engines.offline.text import guess_language, normalize, tokens
from pipeline.types import Classification, ConsolidationPlan, Decision, MemoryItem, Turn, Usage

RULES_VERSION = "offline-1"
_CONTACT_KEYS = {"email": "Email", "phone": "Phone", "address": "Address"}


class OfflineEngine:
    """Splits a turn into statements and routes each with hand-written rules (see rules.py)."""

    name = "offline"
    model: str | None = None
    prompt_version = RULES_VERSION

    def classify(self, turn: Turn, user_md: str, memory_md: str) -> Classification:
        text = turn.user_text
        entries = parse_memory(memory_md)
        history = [m.content for m in turn.history if m.content]
        ctx = Context(
            today=turn.today,
            fields=parse_user(user_md),
            entries=entries,
            history_norm=[normalize(h) for h in history],
            history_tokens=[tokens(h) for h in history],
            memory_norm=[normalize(e.text) for e in entries],
            known_topics=sorted({e.topic for e in entries if e.topic}, key=len, reverse=True),
            default_lang=guess_language(text),
        )
        spans = sensitive.find_spans(text) if text else []
        decisions: list[Decision] = []
        statements = split_statements(text)
        blocked = self._blocked_sentences(text, statements)
        done: set[int] = set()
        for st in statements:
            if st.sentence in blocked or -1 in blocked:
                key = -1 if -1 in blocked else st.sentence
                if key not in done:
                    done.add(key)
                    a, b = blocked[key]
                    # Kept whole so the guard sees the attempt and keeps it out of every record.
                    decisions.append(Decision(quote=text[a:b], route="skip", reason="blocked", confidence=0.9,
                                              detail=f"guard rule {sensitive.injection_rule(text[a:b]) or ''}".strip()))
                continue
            hits = [s for s in spans if s.start < st.end and s.end > st.start]
            if hits:
                decisions.append(self._sensitive(st, hits, text, ctx))
                continue
            if inferable_from_history(st, ctx):
                decisions.append(_skip(st, "inferable", "already said in this conversation", 0.8))
                continue
            decisions.extend(classify_statement(st, ctx))
        return Classification(decisions=decisions, usage=Usage(calls=0, cost_usd=0.0), engine=self.name,
                              model=None, prompt_version=RULES_VERSION)

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

    def _sensitive(self, st: object, hits: list[sensitive.Span], text: str, ctx: Context) -> Decision:
        from pipeline.engines.offline.lexicon_en import LEXICON as EN
        from pipeline.engines.offline.rules import LEXICONS

        quote: str = st.quote  # type: ignore[attr-defined]
        start: int = st.start  # type: ignore[attr-defined]
        lex = LEXICONS[guess_language(quote, ctx.default_lang)]
        asked = sensitive.asked_to_save(quote, lex.save_contact) or sensitive.asked_to_save(quote, EN.save_contact)
        redacted = sensitive.redact(quote, hits, offset=start)
        if asked and all(sensitive.is_contact(h.kind) for h in hits):
            hit = hits[0]
            kind = next((k for k in _CONTACT_KEYS if k in hit.kind), "email")
            value = re.sub(r"\s+", " ", text[hit.start:hit.end]).strip()
            return Decision(quote=quote, route="user", op="upsert", section="Identity", key=_CONTACT_KEYS[kind], value=value,
                            confidence=0.8, detail=f"contact detail the user asked to save ({kind})")
        return Decision(quote=redacted, route="skip", reason="sensitive", confidence=0.95,
                        detail="sensitive: " + ", ".join(sorted({h.kind for h in hits})))

    def consolidate(self, items: list[MemoryItem], *, target_chars: int, today: date) -> ConsolidationPlan:
        entries, archived = plan_consolidation(items, target_chars=target_chars, today=today)
        return ConsolidationPlan(entries=entries, archived=archived, usage=Usage(calls=0, cost_usd=0.0), engine=self.name,
                                 model=None, prompt_version=RULES_VERSION)

"""A statement that says only when dates the statements after it.

"Last week, I built a new website" splits into "Last week" and "I built a new website"; "Last night was
amazing! We celebrated my daughter's birthday" into two sentences. The first part of each names the time
and no event ("was amazing" says how the time was, not what happened: dates.time_anchor). Its phrase
carries over: the rest of its sentence, and the next sentence when the anchor ended its own, are read as
if they began with it ("Last night, we celebrated ..."), so the event keeps its date and is read as the
dated event it is. The anchor itself writes nothing: an entry needs an event.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from pipeline.engines.offline import dates
from pipeline.engines.offline.lang import of_script
from pipeline.engines.offline.split import Statement, script_of
from pipeline.types import Decision

ANCHOR_RULE = "skip/time-anchor"
ANCHOR_DETAIL = "a time phrase with no event of its own: it dates what follows"


def anchor_words(text: str, today: date) -> str | None:
    """The time phrase of a statement that says only when, as written; None for any other statement and
    for "today" (a statement without a phrase is dated today already)."""
    phrase = dates.time_anchor(text, today)
    if phrase is None or phrase.day == today and phrase.grain == "day":
        return None
    return text[phrase.start:phrase.end]


def anchored_text(text: str, words: str | None, today: date) -> str:
    """`text` read as if it began with the anchor's words; as it is when it names a time of its own."""
    if not words or dates.find_phrase(text, today) is not None:
        return text
    written_in = of_script(script_of(words))
    return words + (written_in.dates.anchor_join if written_in is not None else ", ") + text


def with_anchor(st: Statement, words: str | None, today: date) -> Statement:
    """The statement the rules read, its quote unchanged (what the user said is still what it quotes)."""
    text = anchored_text(st.text, words, today)
    return st if text == st.text else replace(st, text=text)


def as_anchor(st: Statement, decisions: list[Decision]) -> list[Decision]:
    """An anchor's own decision: a skip, for the reason the rules saw ("昨晚太棒了" is a mood) or, when they
    read a write (an entry with nothing left once its phrase leaves), as vague; its rule (ANCHOR_RULE) says it
    dates what follows (so a mood anchor does not make the event after it part of a mood sentence)."""
    reason = next((d.reason for d in decisions if d.route == "skip" and d.reason), None) or "vague"
    return [Decision(quote=st.quote, route="skip", reason=reason, confidence=0.7, rule=ANCHOR_RULE,
                     detail=ANCHOR_DETAIL)]

"""`memroute label`: a model labels a user's own transcripts, turn by turn, in the training format,
so `training/train_extractor.py` can retrain the offline engine's extractor on that traffic
(distilling the model into the engine that needs none).

Each user message becomes one labeled case, the eval-case format the training scripts read
(`docs/eval-cases.md`; the labels of training/KEYS.md): the message as the turn, the line before it as
the assistant message, up to six earlier lines as history, and `expect` derived from the model's
decisions for that turn alone, as a curator sees it (empty USER.md and MEMORY.md):

- USER.md facts only: `route: user`, `user_md_contains`: the values;
- MEMORY.md entries only: `route: memory`, `memory_md_contains`: the entries;
- both: no route, both `*_contains`;
- nothing written: `route: skip` and the first skip's `reason`.

Beside `expect`, `labels` carries training/KEYS.md's per-turn label, which the extractor's trainer
reads: `{"skip": reason}`, or the fields (`[key, value]`, a key outside the vocabulary with its
section) whose value is the user's own words, and the entries. A write whose values are none of
the user's words has no `labels` (the tagger learns spans of the user's line; `expect` stays).

Nothing is written to any memory root: the model only classifies. The model's decisions pass the
guards a chat turn's decisions pass (`guards.guard_decisions`); what the guards would redact at rest
(secrets, contact details, health details) is redacted in the labeled text too; and a turn the
model or the guards call sensitive, or whose user message holds a health detail
(`guards.find_sensitive`, the shared detectors), keeps only its label: a sensitive skip with the
message replaced by a marker. A turn whose model call fails is left out and counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from pipeline import guards
from pipeline.batch.transcripts import Conversation
from pipeline.engines.base import Engine
from pipeline.types import Decision, Message, Turn

HISTORY_LINES = 6  # as the conversation-style eval cases (evals/README.md): up to six earlier lines


@dataclass
class LabelReport:
    turns: int = 0
    labeled: int = 0
    failed: int = 0
    routes: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"turns": self.turns, "labeled": self.labeled, "failed": self.failed, "routes": self.routes,
                "errors": self.errors[:20]}


def expect_of(decisions: Iterable[Decision]) -> dict[str, Any]:
    """The training label of a turn from its decisions (the eval-case form: route, reason, the values and entries)."""
    decisions = list(decisions)
    values = [d.value for d in decisions if d.route == "user" and d.op != "remove" and d.value]
    entries = [d.entry for d in decisions if d.route == "memory" and d.op != "remove" and d.entry]
    expect: dict[str, Any] = {}
    if values and entries:
        expect = {"user_md_contains": values, "memory_md_contains": entries}
    elif values:
        expect = {"route": "user", "user_md_contains": values}
    elif entries:
        expect = {"route": "memory", "memory_md_contains": entries}
    else:
        reasons = [d.reason for d in decisions if d.route == "skip" and d.reason]
        expect = {"route": "skip", "reason": reasons[0] if reasons else "vague"}
    return expect


def labels_of(decisions: Iterable[Decision], user_text: str) -> dict[str, Any] | None:
    """training/KEYS.md's label of a turn from its decisions, or None when what it writes is none of the user's words."""
    from pipeline.vocabulary import BY_NAME as vocabulary

    said = " ".join(user_text.split()).casefold()
    fields: list[list[str]] = []
    for d in decisions:
        if d.route == "user" and d.op != "remove" and d.key and d.value:
            value = " ".join(d.value.split())
            if value.casefold() in said:
                fields.append([d.key, value] if d.key in vocabulary else [d.key, value, d.section or "Identity"])
    entries = [[d.entry, ""] for d in decisions if d.route == "memory" and d.op != "remove" and d.entry]
    if fields or entries:
        return {k: v for k, v in (("fields", fields), ("entries", entries)) if v}
    if any(d.route != "skip" for d in decisions):
        return None
    reasons = [d.reason for d in decisions if d.route == "skip" and d.reason and d.reason != "blocked"]
    return {"skip": reasons[0] if reasons else "vague"}


def _line(m: Message) -> dict[str, str]:
    return {"role": m.role, "content": m.content}


def label_conversations(
    engine: Engine,
    conversations: Iterable[Conversation],
    *,
    redact: Callable[[str], str] | None = None,
    report: LabelReport | None = None,
) -> Iterator[dict[str, Any]]:
    """One labeled case per user message of each conversation (see the module's doc)."""
    from pipeline.guards.redaction import redact_for_storage

    clean = redact or redact_for_storage
    report = report if report is not None else LabelReport()
    for conv in conversations:
        for start, _end in conv.turn_spans():
            user = conv.messages[start]
            if not user.content.strip():
                continue
            report.turns += 1
            before = conv.messages[:start]
            said = ([before[-1]] if before and before[-1].role == "assistant" else []) + [user]
            history = before[: len(before) - (len(said) - 1)][-HISTORY_LINES:]
            when = conv.turn_timestamp(start) or conv.timestamp or datetime.now(timezone.utc)
            turn = Turn(user_id=conv.user_id, turn_id=f"{conv.key}-{start}", timestamp=when, messages=said,
                        history=history, conversation_id=conv.conversation_id)
            try:
                decisions = engine.classify(turn, "", "").decisions
            except Exception as exc:  # one turn's failure is counted; the others go on
                report.failed += 1
                report.errors.append(f"{conv.source} message {start}: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            decisions = guards.guard_decisions(decisions, user.content)  # the turn path's guards
            sensitive = holds_health(user.content)
            expect = SENSITIVE_SKIP if sensitive else expect_of(decisions)
            sensitive = sensitive or expect.get("reason") == "sensitive"
            case = {
                "id": f"{conv.user_id}-{conv.key}-{start}",
                "lang": _lang(user.content),
                "timestamp": when.isoformat(),
                "history": [_line(Message(role=m.role, content=_clean_line(m.content, clean))) for m in history],
                "messages": [
                    _line(Message(role=m.role, content=SENSITIVE_TEXT if sensitive and m is user
                                  else _clean_line(m.content, clean)))
                    for m in said
                ],
                "expect": json.loads(json.dumps(expect)) if sensitive else _clean_expect(expect, clean),
                "source": "memroute-label",
                "labeled_by": {"engine": engine.name, "model": engine.model},
            }
            labels = {"skip": "sensitive"} if sensitive else labels_of(decisions, _clean_line(user.content, clean))
            if labels is not None:
                case["labels"] = labels
            report.labeled += 1
            label = str(expect.get("route") or "mixed")
            report.routes[label] = report.routes.get(label, 0) + 1
            yield case


SENSITIVE_SKIP: dict[str, Any] = {"route": "skip", "reason": "sensitive"}
SENSITIVE_TEXT = "[REDACTED:sensitive]"


def _clean_line(text: str, clean: Callable[[str], str]) -> str:
    """A line of the labeled file: redacted as at rest, and a line holding a health detail replaced
    whole (a detector's span may not cover the whole condition: "[REDACTED:HEALTH] for my ...")."""
    return SENSITIVE_TEXT if holds_health(text) else clean(text)


def holds_health(text: str) -> bool:
    """Whether the shared detectors find a health detail in `text` (a turn that is then labeled only
    as a sensitive skip: no word of it reaches the labeled file)."""
    return any(f.kind == guards.HEALTH for f in guards.find_sensitive(text))


def _clean_expect(expect: dict[str, Any], clean: Callable[[str], str]) -> dict[str, Any]:
    out = dict(expect)
    for name in ("user_md_contains", "memory_md_contains"):
        if name in out:
            out[name] = [clean(v) for v in out[name]]
    return out


def _lang(text: str) -> str:
    from pipeline.engines.offline.text import guess_language

    return guess_language(text)

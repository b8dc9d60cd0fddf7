"""Consolidation without an LLM: drop duplicates, merge same-topic entries, archive the oldest.

The plan keeps every source: each input index ends up in exactly one output entry's sources or in
`archived`. Duplicates always go; the other steps stop as soon as the rendered file fits `target_chars`:
1. exact and near duplicates (same topic, one text covering the other) collapse into the newer entry;
1b. an older entry superseded by a newer one of its topic that says what changed folds into it;
2. entries of the same topic merge, oldest pairs first, while the merged text stays short;
3. the oldest entries (undated first, then by date, then by position) move to the archive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from pipeline.engines.offline.text import coverage, normalize, tokens
from pipeline.lazy_re import lazy_compile
from pipeline.types import ConsolidatedEntry, MemoryItem

HEADER = "# MEMORY\n\n"
MERGED_TEXT_MAX = 280  # a merged entry longer than this stops being a readable single line
NEAR_DUPLICATE = 0.9  # share of the older entry's words the newer one must contain


@dataclass
class _Group:
    date: str | None
    topic: str | None
    text: str
    sources: list[int] = field(default_factory=list)

    @property
    def first(self) -> int:
        return min(self.sources)


def render_line(d: str | None, topic: str | None, text: str) -> str:
    return "- " + (f"[{d}] " if d else "") + (f"{topic}: " if topic else "") + text + "\n"


def render(entries: list[ConsolidatedEntry]) -> str:
    return HEADER + "".join(render_line(e.date, e.topic, e.text) for e in entries)


def _size(groups: list[_Group]) -> int:
    return len(HEADER) + sum(len(render_line(g.date, g.topic, g.text)) for g in groups)


def _newest(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def _same_topic(a: _Group, b: _Group) -> bool:
    return (a.topic or "").casefold() == (b.topic or "").casefold()


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+(?:[.,:]\d+)*", text))


def _age_key(g: _Group) -> tuple[str, int]:
    return (g.date or "", g.first)  # undated entries count as the oldest


def _dedupe(groups: list[_Group]) -> list[_Group]:
    kept: list[_Group] = []
    for g in sorted(groups, key=_age_key):  # oldest first, so the newer copy absorbs the older
        g_norm, g_toks = normalize(g.text), tokens(g.text)
        for i, k in enumerate(kept):
            if not _same_topic(g, k) or _numbers(g.text) != _numbers(k.text):
                continue  # "release 24" and "release 25" are two events
            k_norm, k_toks = normalize(k.text), tokens(k.text)
            if g_norm == k_norm or coverage(k_toks, g_toks) >= NEAR_DUPLICATE:
                kept[i] = _Group(_newest(g.date, k.date), g.topic or k.topic, g.text, k.sources + g.sources)
                break
            if coverage(g_toks, k_toks) >= NEAR_DUPLICATE:  # the new one says less than the kept one
                kept[i] = _Group(_newest(g.date, k.date), k.topic or g.topic, k.text, k.sources + g.sources)
                break
        else:
            kept.append(g)
    return kept


_CHANGE = lazy_compile(r"\b(?:switched|changed|moved|migrated|replaced|instead|now|no longer|renamed|upgraded|postponed|"
                     r"diganti|ganti|pindah|beralih|sekarang)\b|改成|换成|改用|迁到|现在|不再|เปลี่ยน|ย้าย|ตอนนี้", re.I)
_STOP = {"the", "a", "an", "to", "of", "in", "on", "for", "and", "is", "are", "was", "we", "our", "it", "with", "from", "yang", "di", "ke"}


def _content(text: str) -> set[str]:
    return {t for t in tokens(text) if t not in _STOP}


def _drop_superseded(groups: list[_Group]) -> list[_Group]:
    """A newer entry of the same topic that says what changed ("switched the queue to Kafka") supersedes an
    older one about the same thing ("the queue runs on RabbitMQ"); the older folds into its sources."""
    ordered = sorted(groups, key=_age_key)
    kept: list[_Group] = []
    for g in ordered:
        if g.topic and _CHANGE.search(g.text):
            g_words = _content(g.text)
            for k in list(kept):
                k_words = _content(k.text)
                if _same_topic(g, k) and k_words and len(k_words & g_words) / len(k_words) >= 0.5:
                    kept.remove(k)
                    g = _Group(_newest(g.date, k.date), g.topic, g.text, k.sources + g.sources)
        kept.append(g)
    return kept


def _merge_topics(groups: list[_Group], target: int) -> list[_Group]:
    while _size(groups) > target:
        best: tuple[int, int] | None = None
        ordered = sorted(range(len(groups)), key=lambda i: _age_key(groups[i]))
        for pos, i in enumerate(ordered):
            if not groups[i].topic:
                continue
            for j in ordered[pos + 1:]:
                if _same_topic(groups[i], groups[j]) and len(groups[i].text) + len(groups[j].text) + 2 <= MERGED_TEXT_MAX:
                    best = (i, j)
                    break
            if best:
                break
        if best is None:
            return groups
        i, j = best
        a, b = groups[i], groups[j]
        merged = _Group(_newest(a.date, b.date), b.topic or a.topic, a.text.rstrip(". ") + "; " + b.text, a.sources + b.sources)
        groups = [g for k, g in enumerate(groups) if k not in (i, j)] + [merged]
    return groups


def plan_consolidation(items: list[MemoryItem], *, target_chars: int, today: date) -> tuple[list[ConsolidatedEntry], list[int]]:
    """Entries for the new MEMORY.md and the indexes to archive; rendered size <= target_chars."""
    groups = [_Group(it.date, it.topic, it.text, [it.index]) for it in items]
    archived: list[int] = []
    groups = _dedupe(groups)  # a duplicate is never worth its line, whatever the size
    if _size(groups) > target_chars:
        groups = _drop_superseded(groups)
    if _size(groups) > target_chars:
        groups = _merge_topics(groups, target_chars)
    by_age = sorted(groups, key=_age_key)
    while by_age and _size(by_age) > target_chars:
        archived.extend(by_age.pop(0).sources)
    by_age.sort(key=lambda g: g.first)
    entries = [ConsolidatedEntry(date=g.date, topic=g.topic, text=g.text, sources=sorted(g.sources)) for g in by_age]
    return entries, sorted(archived)

"""Consolidation without an LLM: drop duplicates, merge same-topic entries, archive the oldest.

The plan keeps every source: each input index ends up in exactly one output entry's sources or in
`archived`. Nothing is re-dated: an entry that stays keeps its own date, and a merged entry takes the
newest date of its parts and cites each part's own date in its text ("A (2026-07-12); B (2026-07-30)").
Duplicates always go; the other steps stop as soon as the rendered file fits `target_chars`:
1. exact and near duplicates (same topic, one text covering the other): the copy that says more stays,
   the other goes to the archive (which keeps it with its own date);
1b. an older entry superseded by a newer one of its topic that says what changed goes to the archive;
2. entries of the same real topic merge, oldest first, while the merged text stays short;
3. the oldest entries (undated first, then by date, then by position) move to the archive.
Every step runs in about linear time: a hand-edited file of thousands of entries is consolidated under
the user's lock.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date

from pipeline._util.lazy_re import lazy_compile
from pipeline.engines.offline.lang import phrase, word_set
from pipeline.engines.offline.text import coverage, normalize, tokens
from pipeline.types import ConsolidatedEntry, MemoryItem

HEADER = "# MEMORY\n\n"
MERGED_TEXT_MAX = 280  # a merged entry longer than this stops being a readable single line
NEAR_DUPLICATE = 0.9  # share of the older entry's words the newer one must contain

# A topic prefix names a project or subject; these words never do ("and: ...", "to: ...", "last: ...").
_NOT_TOPICS = word_set("topic_stop_words")  # each pack's (lang/<code>/phrases.py)


def real_topic(topic: str | None) -> str | None:
    """The topic when it names something (a project, a subject); None for a function or time word."""
    if not topic or not topic.strip():
        return None
    words = [w for w in normalize(topic).split() if w]
    if not words or all(w in _NOT_TOPICS or w.isdigit() for w in words):
        return None
    return topic


@dataclass
class _Group:
    """One output entry: its parts (date, text), oldest first, and the input indexes it covers."""

    topic: str | None
    parts: list[tuple[str | None, str]]
    sources: list[int] = field(default_factory=list)

    @property
    def first(self) -> int:
        return min(self.sources)

    @property
    def date(self) -> str | None:
        dated = [d for d, _ in self.parts if d]
        return max(dated) if dated else None

    @property
    def text(self) -> str:
        if len(self.parts) == 1:
            return self.parts[0][1]
        if len({d for d, _ in self.parts}) == 1:  # one day: the entry's date says it
            return "; ".join(t.rstrip(". ") for _, t in self.parts)
        return "; ".join(_cite(t.rstrip(". "), d) for d, t in self.parts)


def _cite(text: str, day: str | None) -> str:
    """"A (2026-07-12)": a part carries its own date (once: an entry merged before already cites it)."""
    return text if not day or text.endswith(f"({day})") else f"{text} ({day})"


def render_line(d: str | None, topic: str | None, text: str) -> str:
    return "- " + (f"[{d}] " if d else "") + (f"{topic}: " if topic else "") + text + "\n"


def render(entries: list[ConsolidatedEntry]) -> str:
    return HEADER + "".join(render_line(e.date, e.topic, e.text) for e in entries)


def _line_size(g: _Group) -> int:
    return len(render_line(g.date, g.topic, g.text))


def _size(groups: list[_Group]) -> int:
    return len(HEADER) + sum(_line_size(g) for g in groups)


def _topic_key(g: _Group) -> str:
    return (g.topic or "").casefold()


def _numbers(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"\d+(?:[.,:]\d+)*", text))


def _age_key(g: _Group) -> tuple[str, int]:
    return (g.date or "", g.first)  # undated entries count as the oldest


def _prefix(toks: set[str], df: Counter[str], share: float) -> list[str]:
    """The rarest tokens a set covered to `share` by another must share with it (prefix filtering)."""
    ordered = sorted(toks, key=lambda t: (df[t], t))
    return ordered[: len(ordered) - math.ceil(share * len(ordered)) + 1]


def _dedupe(groups: list[_Group]) -> tuple[list[_Group], list[int]]:
    """Keep one copy of each (near) duplicate; return the kept groups and the archived indexes.

    Candidates come from an index of rare tokens, so a file of thousands of distinct entries is not
    compared pair by pair: two texts one of which covers 90% of the other share one of its rarest words.
    """
    ordered = sorted(groups, key=_age_key)  # oldest first, so a newer copy replaces an older one
    texts = [g.parts[0][1] for g in ordered]
    norms = [normalize(t) for t in texts]
    toks = [tokens(t) for t in texts]
    # Only entries of one topic with the same numbers can be copies ("release 24" and "release 25" are two events).
    buckets = [(_topic_key(g), _numbers(t)) for g, t in zip(ordered, texts, strict=True)]
    df: Counter[str] = Counter(t for ts in toks for t in ts)
    slots: list[int] = []  # slot -> index into ordered of the copy kept there
    exact: dict[tuple[object, str], int] = {}
    by_prefix: dict[tuple[object, str], list[int]] = defaultdict(list)
    by_token: dict[tuple[object, str], list[int]] = defaultdict(list)
    archived: list[int] = []

    def place(slot: int, i: int) -> None:
        exact[(buckets[i], norms[i])] = slot
        for t in _prefix(toks[i], df, NEAR_DUPLICATE):
            by_prefix[(buckets[i], t)].append(slot)
        for t in toks[i]:
            by_token[(buckets[i], t)].append(slot)

    for i, g in enumerate(ordered):
        bucket = buckets[i]
        hit = exact.get((bucket, norms[i]))
        found: tuple[int, bool] | None = None  # (slot, the new copy replaces the kept one)
        if hit is not None and norms[slots[hit]] == norms[i]:
            found = (hit, True)
        else:
            candidates = {s for t in toks[i] for s in by_prefix.get((bucket, t), ())}
            candidates |= {s for t in _prefix(toks[i], df, NEAR_DUPLICATE) for s in by_token.get((bucket, t), ())}
            for slot in sorted(candidates):
                k = slots[slot]
                if buckets[k] != bucket:
                    continue  # the slot now holds a copy of another bucket
                if coverage(toks[k], toks[i]) >= NEAR_DUPLICATE:
                    found = (slot, True)
                    break
                if coverage(toks[i], toks[k]) >= NEAR_DUPLICATE:  # the new one says less than the kept one
                    found = (slot, False)
                    break
        if found is None:
            slots.append(i)
            place(len(slots) - 1, i)
        elif found[1]:
            archived.extend(ordered[slots[found[0]]].sources)
            slots[found[0]] = i
            place(found[0], i)
        else:
            archived.extend(g.sources)
    return [ordered[i] for i in slots], archived


_CHANGE = lazy_compile(phrase("change_cues"), re.I)
_STOP = word_set("merge_stop_words")


def _content(text: str) -> set[str]:
    return {t for t in tokens(text) if t not in _STOP}


def _drop_superseded(groups: list[_Group]) -> tuple[list[_Group], list[int]]:
    """A newer entry of the same topic that says what changed ("switched the queue to Kafka") supersedes an
    older one about the same thing ("the queue runs on RabbitMQ"): the older goes to the archive.

    An older entry half of whose words the change repeats shares one of its rarest words with it, so only
    entries indexed by those are compared (prefix filtering), not every pair of a topic."""
    words = {id(g): _content(g.text) for g in groups}
    df: Counter[str] = Counter(w for ws in words.values() for w in ws)
    by_rare_word: dict[tuple[str, str], list[_Group]] = defaultdict(list)  # (topic, word) -> older entries
    gone: set[int] = set()
    archived: list[int] = []
    ordered = sorted(groups, key=_age_key)
    for g in ordered:
        topic, g_words = _topic_key(g), words[id(g)]
        if real_topic(g.topic) and _CHANGE.search(g.text):
            candidates = {id(k): k for w in g_words for k in by_rare_word.get((topic, w), ()) if id(k) not in gone}
            for kid, k in candidates.items():
                if len(words[kid] & g_words) / len(words[kid]) >= 0.5:
                    gone.add(kid)
                    archived.extend(k.sources)
        for w in _prefix(g_words, df, 0.5):
            by_rare_word[(topic, w)].append(g)
    return [g for g in ordered if id(g) not in gone], archived


def _merge_topics(groups: list[_Group], target: int) -> list[_Group]:
    """Fold entries of one real topic together, oldest first, until the file fits `target`."""
    size = _size(groups)
    open_group: dict[str, _Group] = {}  # per topic: the merged entry still taking parts
    out: list[_Group] = []
    for g in sorted(groups, key=_age_key):
        key = _topic_key(g)
        into = open_group.get(key) if real_topic(g.topic) and size > target else None
        if into is not None:
            merged = _Group(into.topic, into.parts + g.parts, into.sources + g.sources)
            if len(merged.text) <= MERGED_TEXT_MAX:
                size += _line_size(merged) - _line_size(into) - _line_size(g)
                into.parts, into.sources = merged.parts, merged.sources
                continue
        out.append(g)
        if real_topic(g.topic):
            open_group[key] = g
    return out


def plan_consolidation(items: list[MemoryItem], *, target_chars: int, today: date) -> tuple[list[ConsolidatedEntry], list[int]]:
    """Entries for the new MEMORY.md and the indexes to archive; rendered size <= target_chars."""
    groups = [_Group(it.topic, [(it.date, it.text)], [it.index]) for it in items]
    groups, archived = _dedupe(groups)  # a duplicate is never worth its line, whatever the size
    if _size(groups) > target_chars:
        groups, superseded = _drop_superseded(groups)
        archived += superseded
    if _size(groups) > target_chars:
        groups = _merge_topics(groups, target_chars)
    by_age = sorted(groups, key=_age_key)
    size, oldest = _size(by_age), 0
    while oldest < len(by_age) and size > target_chars:
        size -= _line_size(by_age[oldest])
        archived.extend(by_age[oldest].sources)
        oldest += 1
    kept = sorted(by_age[oldest:], key=lambda g: g.first)
    entries = [ConsolidatedEntry(date=g.date, topic=g.topic, text=g.text, sources=sorted(g.sources)) for g in kept]
    return entries, sorted(archived)

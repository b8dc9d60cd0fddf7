"""What the classify prompt pastes in: the turn's local time, the files and turn quoted as data,
and of MEMORY.md only the entries that share words with the turn, plus the newest few.

The files and the conversation are untrusted text (a user wrote them). Each is pasted inside a
fence of backticks longer than any backtick run in any of them, so nothing inside can close its
block and forge the lines around it (`Turn time:`, `USER.md:`, `TURN:`). The fence is computed
from the text, not drawn at random, so the same input renders the same messages (response caches
key on them).

The MEMORY.md selection was measured offline (benchmarks/bench_memory_selection.py): no decision of
a content-aware stand-in changed, and a third fewer entry tokens were sent; it cannot show how a
model uses entries that share no word with the turn.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

_BACKTICK_RUN = re.compile(r"`+")


def turn_time(timestamp: datetime) -> str:
    """The turn's local time with its UTC offset ("2026-07-31 01:30 +07:00 (Friday)"); naive is UTC."""
    ts = timestamp if timestamp.tzinfo else timestamp.replace(tzinfo=timezone.utc)
    offset = ts.strftime("%z")  # +0700
    return f"{ts:%Y-%m-%d %H:%M} {offset[:3]}:{offset[3:]} ({ts:%A})"


def fence_for(*texts: str) -> str:
    """A backtick fence longer than every backtick run in `texts` (at least three)."""
    longest = max((len(m.group()) for text in texts for m in _BACKTICK_RUN.finditer(text)), default=0)
    return "`" * max(3, longest + 1)


def quoted(blocks: dict[str, str]) -> dict[str, str]:
    """Each block inside one shared fence, on lines of its own."""
    fence = fence_for(*blocks.values())
    return {name: f"{fence}\n{text}\n{fence}" for name, text in blocks.items()}


def compact_file(markdown: str) -> str:
    """A file's lines as the model needs them: no title, no blank lines, no list dashes (tokens, not facts)."""
    lines: list[str] = []
    for line in markdown.splitlines():
        stripped = line.strip()
        if not stripped or (stripped.startswith("# ") and not lines):
            continue
        lines.append(stripped[2:] if stripped.startswith("- ") else stripped)
    return "\n".join(lines)


# --- MEMORY.md entries that share words with the turn -------------------------------------------

_WORD = re.compile(r"\w+")
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
# Function words of the four languages the project serves: sharing one says nothing about a topic.
_STOPWORDS = frozenset(
    "the and for with was were that this have has had our are you your they them then than from into "
    "about just not but all can will would been being its it's i'm we're yes yeah what when where which "
    "who how today yesterday tomorrow week month year last next "
    "yang dan di ke dari untuk dengan ini itu kami saya aku kita sudah akan tidak juga".split()
)


def _keys(text: str) -> set[str]:
    """Content words (3+ letters, function words aside, first 5 letters); in scripts without spaces, character pairs."""
    keys: set[str] = set()
    for word in _WORD.findall(text.casefold()):
        if _UNSPACED.search(word):
            keys.update(word[i : i + 2] for i in range(len(word) - 1))
        elif len(word) >= 3 and word not in _STOPWORDS and not word.isdigit():
            keys.add(word[:5])  # a crude stem: migrated/migration, Postgres/PostgreSQL
    return keys


def relevant_memory(memory_md: str, text: str, newest: int = 5) -> str:
    """MEMORY.md with only its entries that share a content word with `text` plus the newest
    `newest` entries (other lines kept), in file order. An entry is a `- ` line and the lines
    indented under it."""
    blocks: list[tuple[bool, list[str]]] = []  # (is an entry, its lines)
    for line in memory_md.splitlines():
        if line.startswith("- "):
            blocks.append((True, [line]))
        elif line.startswith("  ") and blocks and blocks[-1][0]:
            blocks[-1][1].append(line)
        else:
            blocks.append((False, [line]))
    entries = [i for i, (is_entry, _) in enumerate(blocks) if is_entry]
    wanted = _keys(text)
    keep = set(entries[-newest:] if newest else [])
    keep |= {i for i in entries if _keys(" ".join(blocks[i][1])) & wanted}
    return "\n".join(line for i, (is_entry, lines) in enumerate(blocks) if not is_entry or i in keep for line in lines)

"""What the classify prompt pastes in: the turn's local time, and the files and turn quoted as data.

The files and the conversation are untrusted text (a user wrote them). Each is pasted inside a
fence of backticks longer than any backtick run in any of them, so nothing inside can close its
block and forge the lines around it (`Turn time:`, `USER.md:`, `TURN:`). The fence is computed
from the text, not drawn at random, so the same input renders the same messages (response caches
key on them).
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

"""The USER.md a user reads after saying something to the offline engine (fresh memory, fixed date)."""

from __future__ import annotations

from pathlib import Path

from pipeline.core import MemoryPipeline


def profile_after(tmp_path: Path, *said: str, assistant: str = "", user: str = "u") -> str:
    """USER.md after each line of `said` as a turn; `assistant`: the line the first turn answers."""
    with MemoryPipeline(root=tmp_path) as pipe:
        for i, line in enumerate(said):
            history = [{"role": "assistant", "content": assistant}] if assistant and i == 0 else []
            pipe.process_turn(user, [*history, {"role": "user", "content": line}], timestamp="2026-07-30T10:00:00Z")
    path = tmp_path / user / "USER.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""

"""The chat messages of the classify call: the prompt file rendered with the two files, the recent
history and the turn. A mixin of LLMEngine (it reads the engine's history budget).

Ordered for prefix caching (llama.cpp's slots, OpenAI's and Anthropic's prompt caches reuse the
longest prefix already seen): the system message (instructions, key list, examples) is the same
bytes for every turn of every user, and the tool schema or response format sent with it never
changes either; the user message then goes from what changes least to what changes every turn:
USER.md, the selected MEMORY.md entries, the history, the turn's time, the turn."""

from __future__ import annotations

from pipeline.engines.llm.inputs import compact_file, quoted, relevant_memory, turn_time
from pipeline.engines.llm.keys import KEY_NAMES
from pipeline.engines.llm.prompts import load_prompt
from pipeline.types import Message, Turn


class ClassifyMessages:
    history_messages: int
    history_chars: int

    def classify_messages(self, turn: Turn, user_md: str, memory_md: str) -> list[dict[str, str]]:
        """The exact chat messages the classify call sends (the tool schema comes on top)."""
        history, said = self._history(turn.history), _transcript(turn.messages)
        blocks = {
            "user_md": compact_file(user_md) or "(empty)",
            "memory_md": compact_file(relevant_memory(memory_md, f"{history}\n{said}")) or "(empty)",
            "history": history,
            "turn": said or "(empty)",
        }
        return load_prompt("classify").render(now=turn_time(turn.timestamp), keys=", ".join(KEY_NAMES), **quoted(blocks))

    def _history(self, history: list[Message]) -> str:
        """The last few messages, newest kept first when the character budget runs out."""
        lines: list[str] = []
        budget = self.history_chars
        for m in reversed(history[-self.history_messages :] if self.history_messages else []):
            line = f"{m.role}: {' '.join(m.content.split())}"
            if len(line) > budget:
                if budget > 40:
                    lines.append(line[: budget - 1] + "…")
                break
            lines.append(line)
            budget -= len(line) + 1
        return "\n".join(reversed(lines)) or "(none)"


def _transcript(messages: list[Message]) -> str:
    return "\n".join(f"{m.role}: {m.content.strip()}" for m in messages if m.content.strip())

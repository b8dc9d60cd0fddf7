"""Prompt files: one per LLM stage, loaded at run time, versioned by their content hash.

A prompt file holds the system text, a line `=== user ===`, then the user-message template.
Placeholders are `$name` (string.Template), so JSON braces in the text need no escaping.
Files are looked up in the wheel (pipeline/_prompts) first, then in the source tree (prompts/).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template

from pipeline.errors import PromptNotFound

_PACKAGE_DIR = Path(__file__).resolve().parents[2]  # pipeline/ (this file is pipeline/engines/llm/prompts.py)
SEARCH_PATH: tuple[Path, ...] = (_PACKAGE_DIR / "_prompts", _PACKAGE_DIR.parent / "prompts")
USER_MARKER = "=== user ==="


@dataclass(frozen=True)
class Prompt:
    name: str
    system: str
    user_template: str
    version: str  # first 12 hex digits of the file's sha256

    def render(self, **values: str) -> list[dict[str, str]]:
        """The chat messages for this stage; a missing placeholder is an error, not a blank."""
        return [
            {"role": "system", "content": Template(self.system).substitute(values)},
            {"role": "user", "content": Template(self.user_template).substitute(values)},
        ]


def prompt_path(name: str) -> Path:
    for directory in SEARCH_PATH:
        path = directory / f"{name}.md"
        if path.is_file():
            return path
    raise PromptNotFound(f"prompt {name!r} not found in {', '.join(str(d) for d in SEARCH_PATH)}")


def parse_prompt(name: str, raw: bytes) -> Prompt:
    text = raw.decode("utf-8")
    system, sep, user = text.partition(f"\n{USER_MARKER}\n")
    if not sep:
        raise ValueError(f"prompt {name!r} has no '{USER_MARKER}' line")
    return Prompt(name, system.strip(), user.strip(), hashlib.sha256(raw).hexdigest()[:12])


@cache
def load_prompt(name: str) -> Prompt:
    return parse_prompt(name, prompt_path(name).read_bytes())

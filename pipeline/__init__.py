"""memroute: after each chat turn, route what the user said to USER.md, MEMORY.md or the skip list.

Exports are lazy so that `import pipeline` stays light (and never imports litellm).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline
    from pipeline.hook import PostTurnHook

__all__ = ["MemoryPipeline", "PostTurnHook", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "MemoryPipeline":
        from pipeline.core import MemoryPipeline

        return MemoryPipeline
    if name == "PostTurnHook":
        from pipeline.hook import PostTurnHook

        return PostTurnHook
    raise AttributeError(f"module 'pipeline' has no attribute {name!r}")

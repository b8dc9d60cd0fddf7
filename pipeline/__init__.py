"""memroute: after each chat turn, route what the user said to USER.md, MEMORY.md or the skip list.

The public API, importable from here (`from pipeline import MemoryPipeline`): the pipeline and the
post-turn hook, the results they return, the settings, and the errors (all derive from
MemrouteError). Exports are lazy, so `import pipeline` stays light and never imports litellm;
each name loads its module the first time it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    # the pipeline and the hook
    "MemoryPipeline": "pipeline.core",
    "PostTurnHook": "pipeline.hook.post_turn",
    "RetryPolicy": "pipeline.hook.runner",
    # what they take and return
    "Message": "pipeline.types",
    "Turn": "pipeline.types",
    "Decision": "pipeline.types",
    "Outcome": "pipeline.types",
    "TurnResult": "pipeline.types",
    "Usage": "pipeline.types",
    # settings
    "Settings": "pipeline.settings",
    # errors
    "MemrouteError": "pipeline.errors",
    "UsageError": "pipeline.errors",
    "NotFound": "pipeline.errors",
    "Conflict": "pipeline.errors",
    "ModelError": "pipeline.errors",
    "StoreError": "pipeline.errors",
    "Busy": "pipeline.errors",
    "BadTurn": "pipeline.errors",
    "InvalidUserId": "pipeline.errors",
    "CandidateNotFound": "pipeline.errors",
    "NothingToForget": "pipeline.errors",
    "ToolUsageError": "pipeline.errors",
    "HookQueueFull": "pipeline.errors",
    "HookClosed": "pipeline.errors",
    "EngineConfigError": "pipeline.errors",
    "SettingsError": "pipeline.errors",
    "LedgerError": "pipeline.errors",
    "CapExceeded": "pipeline.errors",
}

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline
    from pipeline.errors import (
        BadTurn,
        Busy,
        CandidateNotFound,
        CapExceeded,
        Conflict,
        EngineConfigError,
        HookClosed,
        HookQueueFull,
        InvalidUserId,
        LedgerError,
        MemrouteError,
        ModelError,
        NotFound,
        NothingToForget,
        SettingsError,
        StoreError,
        ToolUsageError,
        UsageError,
    )
    from pipeline.hook.post_turn import PostTurnHook
    from pipeline.hook.runner import RetryPolicy
    from pipeline.settings import Settings
    from pipeline.types import Decision, Message, Outcome, Turn, TurnResult, Usage

__all__ = [
    "BadTurn",
    "Busy",
    "CandidateNotFound",
    "CapExceeded",
    "Conflict",
    "Decision",
    "EngineConfigError",
    "HookClosed",
    "HookQueueFull",
    "InvalidUserId",
    "LedgerError",
    "MemoryPipeline",
    "MemrouteError",
    "Message",
    "ModelError",
    "NotFound",
    "NothingToForget",
    "Outcome",
    "PostTurnHook",
    "RetryPolicy",
    "Settings",
    "SettingsError",
    "StoreError",
    "ToolUsageError",
    "Turn",
    "TurnResult",
    "Usage",
    "UsageError",
    "__version__",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next access skips __getattr__
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])

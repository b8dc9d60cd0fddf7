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
    "BadTurn": "pipeline.turns",
    "InvalidUserId": "pipeline.store.files",
    "CandidateNotFound": "pipeline.core",
    "NothingToForget": "pipeline.ops.erasure",
    "ToolUsageError": "pipeline.ops.tool",
    "HookQueueFull": "pipeline.hook.post_turn",
    "HookClosed": "pipeline.hook.post_turn",
    "EngineConfigError": "pipeline.engines",
    "SettingsError": "pipeline.settings",
    "LedgerError": "pipeline.ledgers.errors",
    "CapExceeded": "pipeline.ledgers.errors",
}

if TYPE_CHECKING:
    from pipeline.core import CandidateNotFound, MemoryPipeline
    from pipeline.engines import EngineConfigError
    from pipeline.errors import Busy, Conflict, MemrouteError, ModelError, NotFound, StoreError, UsageError
    from pipeline.hook.post_turn import HookClosed, HookQueueFull, PostTurnHook
    from pipeline.hook.runner import RetryPolicy
    from pipeline.ledgers.errors import CapExceeded, LedgerError
    from pipeline.ops.erasure import NothingToForget
    from pipeline.ops.tool import ToolUsageError
    from pipeline.settings import Settings, SettingsError
    from pipeline.store.files import InvalidUserId
    from pipeline.turns import BadTurn
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

"""Engines turn a chat turn into decisions. Only engines/llm.py imports litellm, lazily."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pipeline.engines.base import Engine
from pipeline.errors import MemrouteError

ENGINE_NAMES = ("offline", "llm", "hybrid")


class EngineConfigError(MemrouteError, ValueError):
    """An engine name or model setting that cannot work."""


def make_engine(
    engine: str | Engine | None = None,
    *,
    model: Any = None,
    api_base: str | None = None,
    cache_dir: Path | None = None,
    classify_model: str | None = None,
    consolidate_model: str | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
) -> Engine:
    """Resolve --engine/--model (and their env vars) to an engine instance.

    The default is `llm` when a model is configured, else the offline engine.
    """
    if engine is not None and not isinstance(engine, str):
        return engine
    model = model if model is not None else (os.environ.get("MEMROUTE_MODEL") or None)
    name = engine or os.environ.get("MEMROUTE_ENGINE") or ("llm" if model is not None else "offline")
    if name not in ENGINE_NAMES:
        raise EngineConfigError(f"unknown engine {name!r}: choose one of {', '.join(ENGINE_NAMES)}")
    if name == "offline":
        from pipeline.engines.offline import OfflineEngine

        return OfflineEngine()
    if model is None:
        raise EngineConfigError(f"engine {name!r} needs a model: pass --model or set MEMROUTE_MODEL")
    from pipeline.engines.llm import LLMEngine

    limits: dict[str, Any] = {}  # None: the engine's own defaults
    if timeout is not None:
        limits["timeout"] = timeout
    if max_retries is not None:
        limits["max_retries"] = max_retries
    llm = LLMEngine(
        model,
        api_base=api_base,
        cache_dir=cache_dir,
        classify_model=classify_model,
        consolidate_model=consolidate_model,
        **limits,
    )
    if name == "llm":
        return llm
    from pipeline.engines.hybrid import HybridEngine

    return HybridEngine(llm)

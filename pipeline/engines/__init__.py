"""Engines turn a chat turn into decisions. Found by name through the registry (registry.py: the
built-ins offline/llm/hybrid and any `memroute.engines` entry point). Only engines/llm/ imports
litellm, lazily."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.engines.base import Engine
from pipeline.engines.registry import BUILTIN, EngineOptions, build, engine_names
from pipeline.errors import EngineConfigError

ENGINE_NAMES = tuple(BUILTIN)  # the built-ins; engine_names() adds installed ones

__all__ = ["ENGINE_NAMES", "Engine", "EngineConfigError", "EngineOptions", "engine_names", "make_engine"]


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
    deadline: float | None = None,
    structured: str | None = None,
) -> Engine:
    """An engine instance from a name (or an Engine, returned as is) and the options the caller
    resolved. The default is `llm` when a model is given, else the offline engine. No environment
    lookup: MEMROUTE_ENGINE/MEMROUTE_MODEL are the CLI's settings (pipeline/settings.py)."""
    if engine is not None and not isinstance(engine, str):
        if not isinstance(engine, Engine):
            raise EngineConfigError(f"{type(engine).__name__} is not an engine: subclass pipeline.engines.base.Engine")
        return engine
    name = engine or ("llm" if model is not None else "offline")
    options = EngineOptions(
        model=model,
        api_base=api_base,
        cache_dir=cache_dir,
        classify_model=classify_model,
        consolidate_model=consolidate_model,
        timeout=timeout,
        max_retries=max_retries,
        deadline=deadline,
        structured=structured,
    )
    return build(name, options)

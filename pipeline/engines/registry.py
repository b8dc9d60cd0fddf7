"""Engines by name: the built-ins and any engine another package ships.

A package adds an engine the way simonw/llm's plugins add models, with an entry point in the
`memroute.engines` group naming a factory, `options -> Engine` (an Engine subclass whose
constructor takes the options works too):

    [project.entry-points."memroute.engines"]
    myengine = "my_package.engine:make_engine"

after which `--engine myengine` (or MEMROUTE_ENGINE=myengine, or MemoryPipeline(engine="myengine"))
runs it. The built-ins are declared the same way in memroute's own pyproject.toml; they are also
found without the entry-point scan, so a name that is built in costs no metadata lookup at start-up
and an install whose metadata predates them still has them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.engines.base import Engine
from pipeline.errors import EngineConfigError

GROUP = "memroute.engines"


@dataclass(frozen=True)
class EngineOptions:
    """What the caller resolved for the engine (flags, env, config); None: the engine's own default."""

    model: Any = None  # a model name, or a Transport (tests pass fakes)
    api_base: str | None = None
    cache_dir: Path | None = None
    classify_model: str | None = None
    consolidate_model: str | None = None
    timeout: float | None = None
    max_retries: int | None = None
    deadline: float | None = None  # seconds a turn may spend on model calls in all
    structured: str | None = None  # auto, tools, json_schema, json (engines/llm/structured.py)


EngineFactory = Callable[[EngineOptions], Engine]


def offline(options: EngineOptions) -> Engine:
    from pipeline.engines.offline import OfflineEngine

    return OfflineEngine()


def llm(options: EngineOptions, *, name: str = "llm") -> Engine:
    if options.model is None:
        raise EngineConfigError(f"engine {name!r} needs a model: pass --model or set MEMROUTE_MODEL")
    from pipeline.engines.llm import LLMEngine

    limits: dict[str, Any] = {}  # None: the engine's own defaults
    if options.timeout is not None:
        limits["timeout"] = options.timeout
    if options.max_retries is not None:
        limits["max_retries"] = options.max_retries
    if options.deadline is not None:
        limits["deadline"] = options.deadline
    if options.structured is not None:
        limits["structured"] = options.structured
    return LLMEngine(
        options.model,
        api_base=options.api_base,
        cache_dir=options.cache_dir,
        classify_model=options.classify_model,
        consolidate_model=options.consolidate_model,
        **limits,
    )


def hybrid(options: EngineOptions) -> Engine:
    from pipeline.engines.hybrid import HybridEngine

    return HybridEngine(llm(options, name="hybrid"))


BUILTIN: dict[str, EngineFactory] = {"offline": offline, "llm": llm, "hybrid": hybrid}


def _entry_points() -> dict[str, Any]:
    from importlib import metadata

    return {ep.name: ep for ep in metadata.entry_points(group=GROUP)}


def engine_names() -> list[str]:
    """Every engine name that can be asked for: the built-ins, then installed ones."""
    return list(BUILTIN) + sorted(set(_entry_points()) - set(BUILTIN))


def build(name: str, options: EngineOptions) -> Engine:
    """The engine registered under `name`, built with `options`; EngineConfigError if there is none
    or what is registered does not give an Engine."""
    factory = BUILTIN.get(name)
    if factory is None:
        entry = _entry_points().get(name)
        if entry is None:
            raise EngineConfigError(f"unknown engine {name!r}: choose one of {', '.join(engine_names())}")
        try:
            factory = entry.load()
        except Exception as exc:
            raise EngineConfigError(f"engine {name!r} ({entry.value}) cannot be loaded: {exc}") from exc
    engine = factory(options)
    if not isinstance(engine, Engine):
        raise EngineConfigError(f"engine {name!r} gave a {type(engine).__name__}, not a pipeline.engines.base.Engine")
    return engine

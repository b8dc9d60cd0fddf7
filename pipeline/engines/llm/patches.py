"""instructor, imported lazily and tuned once: quiet logs, response models wrapped once, and its
async-validator scan skipped for our own models (about half of its per-call overhead)."""

from __future__ import annotations

import logging
from types import ModuleType
from typing import Any

from pydantic import BaseModel

from pipeline.engines.llm.schemas import CompactProfile, ConsolidatedLog, Statements

_OWN_MODELS: set[type] = set()


def _skip_async_validator_scan() -> None:
    """instructor scans the response model for async validators up to 7 times per call (~half of
    its overhead); ours have none, so the scan is skipped for them and kept for anything else."""
    try:
        from instructor.v2.validation import async_validators
    except ImportError:
        return
    original = getattr(async_validators, "reject_async_validators", None)
    if original is None or getattr(original, "_memroute", False):
        return

    def reject_async_validators(response_model: Any) -> None:
        if (
            isinstance(response_model, type)
            and response_model.__dict__.get("__wrapped__", response_model) in _OWN_MODELS
        ):
            return
        original(response_model)

    reject_async_validators._memroute = True  # type: ignore[attr-defined]
    async_validators.reject_async_validators = reject_async_validators


def _instructor() -> ModuleType:
    import instructor

    if not _OWN_MODELS:
        _OWN_MODELS.update((Statements, ConsolidatedLog, CompactProfile))
        _skip_async_validator_scan()

    # instructor logs each failed attempt at ERROR, with the model's text; we report through LLMError.
    quiet = logging.getLogger("instructor")
    if quiet.level == logging.NOTSET:
        quiet.setLevel(logging.CRITICAL)
    return instructor


_PREPARED: dict[type[BaseModel], type[BaseModel]] = {}


def _prepared(model: type[BaseModel]) -> type[BaseModel]:
    """The response model as instructor wraps it (a ResponseSchema subclass), built once: given a
    plain model, instructor builds a new pydantic class per call, which also defeats its own
    tool-schema cache (milliseconds per call)."""
    wrapped = _PREPARED.get(model)
    if wrapped is None:
        try:
            from instructor.v2.core.function_calls import response_schema
        except ImportError:  # another instructor layout: let it wrap per call
            return model
        wrapped = _PREPARED[model] = response_schema(model)
    return wrapped

"""What a model call costs: litellm's bundled cost map, read without importing litellm for
`openai/NAME` models; litellm itself (imported offline) prices every other model."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any, Literal


def _litellm() -> ModuleType:
    """Import litellm offline: bundled cost map and configs, no telemetry, no callbacks."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.success_callback = []
    litellm.failure_callback = []
    return litellm


def _price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Cost from litellm's local cost map; None (unknown), never 0, for models it does not price."""
    try:
        prompt_cost, completion_cost = _litellm().cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:
        return None
    return float(prompt_cost) + float(completion_cost)


_COST_MAP: dict[str, Any] | None = None


def _local_cost_map() -> dict[str, Any]:
    """litellm's bundled cost map (what LITELLM_LOCAL_MODEL_COST_MAP=True makes litellm use), read
    from its package without importing litellm (seconds of CPU per process); read once."""
    global _COST_MAP
    if _COST_MAP is None:
        import importlib.util

        spec = importlib.util.find_spec("litellm")
        path = (
            Path(spec.origin).parent / "model_prices_and_context_window_backup.json" if spec and spec.origin else None
        )
        try:
            _COST_MAP = json.loads(path.read_text(encoding="utf-8")) if path else {}
        except (OSError, ValueError):
            _COST_MAP = {}
    return _COST_MAP


def _openai_price(name: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The price litellm gives `openai/NAME`, from its local map: plain per-token prices. Entries it
    prices by other rules (tiers above N tokens, fine-tunes, no token prices) and a map the user
    asked litellm to fetch are left to litellm itself; a model the map lacks costs None."""
    rates = _openai_rates(name, os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP", "true").strip().lower() == "true")
    if rates == "litellm":
        return _price("openai/" + name, prompt_tokens, completion_tokens)
    if rates is None:
        return None
    return prompt_tokens * rates[0] + completion_tokens * rates[1]


@functools.lru_cache(maxsize=64)
def _openai_rates(name: str, local_map: bool) -> tuple[float, float] | Literal["litellm"] | None:
    """(input, output) cost per token, "litellm" to ask litellm, None when unpriced; once per model."""
    if not local_map or name.startswith("ft:"):
        return "litellm"
    cost_map = _local_cost_map()
    entry = cost_map.get(name) or cost_map.get("openai/" + name)
    if not isinstance(entry, dict) or entry.get("litellm_provider") != "openai":
        return "litellm" if not cost_map else None
    input_cost, output_cost = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if not isinstance(input_cost, (int, float)) or not isinstance(output_cost, (int, float)):
        return "litellm"
    if any("_above_" in key for key in entry):
        return "litellm"
    return float(input_cost), float(output_cost)

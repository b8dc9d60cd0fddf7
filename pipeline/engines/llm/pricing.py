"""What a model call costs: litellm's bundled cost map, read without importing litellm for
`openai/NAME` models; litellm itself (imported offline) prices every other model.

litellm is an extra (`memroute[litellm]`): without it, `openai/NAME` models are priced from
openai_prices.json (the OpenAI entries of litellm's map, plain per-token rates, copied by
`python -m pipeline.engines.llm.pricing`), and a model that needs litellm says which extra to install."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from pipeline.errors import LiteLLMMissing

LITELLM_EXTRA = "pip install 'memroute[litellm]'"
BUNDLED_PRICES = Path(__file__).with_name("openai_prices.json")


def litellm_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("litellm") is not None


def load_litellm(model: str | None = None) -> ModuleType:
    """Import litellm offline: bundled cost map and configs, no telemetry, no callbacks."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
    os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
    try:
        import litellm
    except ImportError:
        what = f"{model} goes through litellm" if model else "this model goes through litellm"
        raise LiteLLMMissing(f"{what}, which is not installed: {LITELLM_EXTRA} "
                             "(openai/ models and OpenAI-compatible servers need no extra)") from None

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    litellm.success_callback = []
    litellm.failure_callback = []
    return litellm


def _price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Cost from litellm's local cost map; None (unknown), never 0, for models it does not price."""
    if not litellm_installed():
        return None
    try:
        prompt_cost, completion_cost = load_litellm().cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:
        return None
    return float(prompt_cost) + float(completion_cost)


_COST_MAP: dict[str, Any] | None = None


def local_cost_map() -> dict[str, Any]:
    """litellm's bundled cost map (what LITELLM_LOCAL_MODEL_COST_MAP=True makes litellm use), read
    from its package without importing litellm (seconds of CPU per process); read once."""
    global _COST_MAP
    if _COST_MAP is None:
        import importlib.util

        spec = importlib.util.find_spec("litellm")
        path = (
            Path(spec.origin).parent / "model_prices_and_context_window_backup.json" if spec and spec.origin else None
        )
        if path is None:  # no litellm: the OpenAI entries copied from its map
            path = BUNDLED_PRICES
        try:
            _COST_MAP = json.loads(path.read_text(encoding="utf-8")) if path else {}
        except (OSError, ValueError):
            _COST_MAP = {}
    return _COST_MAP


def openai_price(name: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The price litellm gives `openai/NAME`, from its local map: plain per-token prices. Entries it
    prices by other rules (tiers above N tokens, fine-tunes, no token prices) and a map the user
    asked litellm to fetch are left to litellm itself; a model the map lacks costs None."""
    rates = _openai_rates(name, os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP", "true").strip().lower() == "true")
    if rates == "litellm":
        return _price("openai/" + name, prompt_tokens, completion_tokens)  # None without litellm
    if rates is None:
        return None
    return prompt_tokens * rates[0] + completion_tokens * rates[1]


@functools.lru_cache(maxsize=64)
def _openai_rates(name: str, local_map: bool) -> tuple[float, float] | Literal["litellm"] | None:
    """(input, output) cost per token, "litellm" to ask litellm, None when unpriced; once per model."""
    if not local_map or name.startswith("ft:"):
        return "litellm"
    cost_map = local_cost_map()
    entry = cost_map.get(name) or cost_map.get("openai/" + name)
    if not isinstance(entry, dict) or entry.get("litellm_provider") != "openai":
        return "litellm" if not cost_map else None
    input_cost, output_cost = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if not isinstance(input_cost, (int, float)) or not isinstance(output_cost, (int, float)):
        return "litellm"
    if any("_above_" in key for key in entry):
        return "litellm"
    return float(input_cost), float(output_cost)


def bundled_entries(cost_map: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI entries of litellm's map with plain per-token rates: what openai_prices.json keeps."""
    keep = ("litellm_provider", "input_cost_per_token", "output_cost_per_token")
    out = {}
    for name, entry in sorted(cost_map.items()):
        if not isinstance(entry, dict) or entry.get("litellm_provider") != "openai" or any("_above_" in k for k in entry):
            continue
        if all(isinstance(entry.get(k), (int, float)) for k in keep[1:]):
            out[name] = {k: entry[k] for k in keep}
    return out


if __name__ == "__main__":  # refresh openai_prices.json from the installed litellm's map
    from importlib import metadata

    entries = bundled_entries(local_cost_map())
    if not entries:
        raise SystemExit("litellm is not installed: its map is the source")
    BUNDLED_PRICES.write_text(json.dumps({"_source": f"litellm {metadata.version('litellm')}", **entries},
                                         indent=0, sort_keys=True) + "\n", "utf-8")
    print(f"{len(entries)} OpenAI models priced in {BUNDLED_PRICES}")

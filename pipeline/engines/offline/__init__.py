"""The offline engine: memroute's embedded default, pure Python rules with no key and no network."""

from __future__ import annotations

from pipeline.engines.offline.engine import RULES_VERSION, OfflineEngine

__all__ = ["RULES_VERSION", "OfflineEngine"]

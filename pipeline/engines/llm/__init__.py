"""The LLM engine, by job:

- engine.py: LLMEngine (the three stages, the retry and re-ask loops, usage metering, the cache);
- messages.py: the classify call's chat messages (prompt rendering, history budget);
- schemas.py: the response models the model must return, and their validators;
- transports.py: the one Transport interface (OpenAIHTTPTransport via openai_http.py, LiteLLMTransport;
  tests plug in pipeline.testing's fakes), plus network.py, the switch that keeps tests offline;
- pricing.py: cost per call; patches.py: instructor imported lazily and tuned.

Importing this package never imports litellm: only a LiteLLMTransport that sends or prices does.
"""

from __future__ import annotations

from pipeline.engines.llm.engine import LLMEngine
from pipeline.engines.llm.pricing import load_litellm, local_cost_map, openai_price
from pipeline.engines.llm.schemas import (
    MEMORY_HEADER,
    CompactProfile,
    ConsolidatedLog,
    Statement,
    Statements,
    render_entry,
    rendered_size,
)
from pipeline.engines.llm.transports import (
    CallInfo,
    LiteLLMTransport,
    OpenAIHTTPTransport,
    Transport,
    is_transient,
    transport_for,
)
from pipeline.errors import LLMError, TransportSetupError

__all__ = [
    "MEMORY_HEADER",
    "CallInfo",
    "CompactProfile",
    "ConsolidatedLog",
    "LLMEngine",
    "LLMError",
    "LiteLLMTransport",
    "OpenAIHTTPTransport",
    "Statement",
    "Statements",
    "Transport",
    "TransportSetupError",
    "load_litellm",
    "local_cost_map",
    "openai_price",
    "is_transient",
    "render_entry",
    "rendered_size",
    "transport_for",
]

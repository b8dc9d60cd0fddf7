"""What a model-backed engine may spend by default: seconds per request, seconds per turn, retries per request.
The CLI's options, Settings and the engines share these; this module imports nothing, so the CLI's start
(`memroute --help`, the option parser of every command) does not pay for the engines' types."""

from __future__ import annotations

DEFAULT_TIMEOUT_S = 30.0  # seconds per model request
DEFAULT_DEADLINE_S = 60.0  # seconds one turn may spend on model calls in all, retries and backoff included
DEFAULT_MAX_RETRIES = 3  # transport retries per model request

__all__ = ["DEFAULT_DEADLINE_S", "DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT_S"]

"""Old import path of `pipeline.guards.redaction` (the at-rest redaction), kept for callers."""

from pipeline.guards.redaction import (
    quote_digest,
    redact_for_storage,
    redact_json,
    refuse_marked_writes,
    requested_kinds,
)

__all__ = ["quote_digest", "redact_for_storage", "redact_json", "refuse_marked_writes", "requested_kinds"]

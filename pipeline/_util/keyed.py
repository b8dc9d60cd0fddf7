"""Ids made from what a user wrote: keyed, so the id never gives the text back.

A plain sha256 of "my PIN is 4417" is found again by trying the 10,000 PINs; an HMAC under a key
only the store holds (MemoryStore.secret_key(ID_KEY)) leaves nothing to try against. The same key
gives the same id, so a resubmitted turn or a re-imported memory is still recognised."""

from __future__ import annotations

import hashlib
import hmac

ID_KEY = "ids"  # the store's key for ids made from user text (turn ids, imported memories without an id)
MIN_KEY_BYTES = 16


def keyed_id(key: bytes, material: str, length: int = 20) -> str:
    """`length` hex digits of HMAC-SHA256(key, material)."""
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(f"an id key is at least {MIN_KEY_BYTES} bytes")
    return hmac.new(key, material.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:length]

"""Ids made from what a user wrote: keyed, so the id never gives the text back.

A plain sha256 of "my PIN is 4417" is found again by trying the 10,000 PINs; an HMAC under a key
only the store holds (MemoryStore.secret_key(ID_KEY)) leaves nothing to try against. The same key
gives the same id, so a resubmitted turn or a re-imported memory is still recognised.

A store that recorded turns before ids were keyed (MemoryStore.holds_unkeyed_ids) still holds
their plain ids; `unkeyed_id` recomputes one, in memory, only to look such a turn up, so that it
is not applied twice when it comes again. No unkeyed id is ever written or returned anew."""

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


def unkeyed_id(material: str, length: int) -> str:
    """The plain id older versions made: `length` hex digits of sha256(material). Only for looking
    up what a store recorded then; never stored, logged or returned."""
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:length]

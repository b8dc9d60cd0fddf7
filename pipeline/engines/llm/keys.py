"""The closed key vocabulary as the LLM engine offers it (pipeline/vocabulary.py is its one source):
every field's key and the section it belongs to. The classify schema offers exactly these keys (an
enum), so a model that is held to the schema (a grammar-constrained server, OpenAI's structured
outputs) cannot invent one, and the section follows from the key instead of being one more value a
small model can get wrong. Contact keys (Email, Phone, Address) are not offered: a contact detail is
kept only when the user asks, and a model that writes one on request under its key is still read.

A key the vocabulary does not list is accepted only where the user's USER.md already has it (the
prompt says "reuse it"): the engine never adds a key of its own. Anything else is re-asked with the
list (schemas.Statement).
"""

from __future__ import annotations

from pipeline.vocabulary import SECTION_OF, VOCABULARY, canonical

# (key, section) offered to the model, in the vocabulary's order.
KEYS: tuple[tuple[str, str], ...] = tuple((k.name, k.section) for k in VOCABULARY if not k.contact)
KEY_NAMES: tuple[str, ...] = tuple(k for k, _ in KEYS)


def known_key(key: str | None) -> str | None:
    """The listed key this spelling means (case-insensitive, a common spelling or alias), else None."""
    return canonical(key)


def key_list() -> str:
    """The offered keys for an error message or a prompt: `Identity: Name, Age, ...; Preferences: ...`."""
    sections = dict.fromkeys(s for _, s in KEYS)
    return "; ".join(f"{section}: {', '.join(k for k, s in KEYS if s == section)}" for section in sections)


__all__ = ["KEYS", "KEY_NAMES", "SECTION_OF", "key_list", "known_key"]

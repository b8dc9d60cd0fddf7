"""USER.md's sections, in canonical order. A module without imports: the ledgers, the vocabulary and the CLI's
start read it without loading the pydantic types (pipeline.types re-exports it)."""

from __future__ import annotations

USER_SECTIONS: tuple[str, ...] = ("Identity", "Preferences", "Constraints", "Working style", "Goals")

__all__ = ["USER_SECTIONS"]

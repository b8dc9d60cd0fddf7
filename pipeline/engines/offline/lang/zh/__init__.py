"""Chinese language pack (simplified, with common traditional forms). lang/README.md says what each module defines."""

RANK = 20  # tried after lower ranks where two packs' patterns could read the same text

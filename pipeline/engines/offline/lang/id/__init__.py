"""Indonesian language pack (formal "saya" and casual "aku"/"gue"). lang/README.md says what each module defines."""

RANK = 10  # tried after lower ranks where two packs' patterns could read the same text

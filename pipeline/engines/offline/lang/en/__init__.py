"""English language pack (the fallback: USER.md's keys are English, and a text in no pack's language is read as English). lang/README.md says what each module defines."""

RANK = 0  # tried after lower ranks where two packs' patterns could read the same text

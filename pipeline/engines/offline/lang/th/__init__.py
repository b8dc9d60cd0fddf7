"""Thai language pack (ผม/ฉัน/ดิฉัน/เรา; ครับ/ค่ะ endings). lang/README.md says what each module defines."""

RANK = 30  # tried after lower ranks where two packs' patterns could read the same text

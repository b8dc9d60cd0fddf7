"""Small helpers that know nothing of memory: jsonl.py (the one JSONL reader, split at "\\n" only),
lazy_re.py (regular expressions compiled on first use), keyed.py (ids made from user text, keyed)."""

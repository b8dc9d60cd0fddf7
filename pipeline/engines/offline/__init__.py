"""The offline engine: memroute's embedded default, pure Python rules with no key and no network.

Modules, in the order a turn meets them:
- split.py: turn -> sentences -> clauses (English, Indonesian, Chinese, Thai), each with its source offsets.
- sensitive.py: spans from pipeline.guards (imported lazily) plus credential/identifier values it may miss.
- rules.py: the ordered rules that route one statement; dates.py resolves "yesterday", "kemarin", "上周", "เมื่อวาน"
  (date_rules.py: the calendar arithmetic).
- lang/: one folder per language (en, id, zh, th) with all of its words: its Lexicon (lexicon.py defines the shape),
  key cue words, time phrases, script words and phrases (lang/README.md); lang/__init__.py finds and checks them,
  and every module above reads a language only through it.
- extractor.py: the learned extractor (turn gate, value tagger, key classifier over training/KEYS.md's closed
  vocabulary, and a stacker), trained by training/train_extractor.py, weights in extractor_weights.json read with
  the standard library: which turns write USER.md and which words of the user's line make each value.
- engine.py: OfflineEngine.classify (the rules, then the extractor's fields on their statements; sentence-level
  agreement: a hedged sentence is vague as a whole, a sentence about project work is one memory entry),
  needs_model (hybrid's recall-tuned gate) and consolidate. features.py: the text features the turn gate reads.
- consolidate.py: LLM-free consolidation (duplicates, superseded entries, same-topic merges, oldest archived).

Choices worth knowing: questions, greetings, thanks and requests are skipped as `one_off` (said for this
moment only); repeating the conversation or a stored fact is `inferable`; first-person statements of a
stable kind go to USER.md under short English keys, values in the user's words; multi-valued keys
(Likes, Family, Hobbies, ...) collect values ("a; b") instead of overwriting.
"""

from __future__ import annotations

from pipeline.engines.offline.engine import RULES_VERSION, OfflineEngine

__all__ = ["RULES_VERSION", "OfflineEngine"]

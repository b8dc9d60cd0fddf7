"""Everything that changes memory, each through the one write path (edit.py: load -> stage -> commit):

- workspace.py: what every operation works on (store, documents, caps, guard policy, `edit()`, `load()`);
- edit.py: the unit of work (`with workspace.edit(user) as tx:`) and the ledgers it loads;
- turn.py: a classified chat turn's apply step (guards, candidates, write, erasure, records, usage), its policy;
- room.py: making room in a full file (the engine's compaction and consolidation, pins protected);
- manual.py: the writes a person asks for (forget, consolidate, candidates confirmed or dropped);
- review.py: the review page's actions (correct, delete, pin, tag, undo), also from the API and CLI;
- tool.py: the Hermes memory tool (add / replace / remove);
- erasure.py: forgetting a value everywhere it is kept (files, history, backups);
- pins.py: pins and tags on USER.md fields and MEMORY.md entries (store records, not document text).
"""

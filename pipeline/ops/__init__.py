"""Everything that changes memory, each through the one write path (edit.py: load -> stage -> commit):

- edit.py: the unit of work (`with pipe.edit(user) as tx:`) and the ledgers it loads;
- turn.py: what a classified chat turn writes (records, candidates, compaction, consolidation, usage);
- manual.py: the writes a person asks for (forget, consolidate, candidates confirmed or dropped);
- review.py: the review page's actions (correct, delete, pin, tag, undo), also from the API and CLI;
- tool.py: the Hermes memory tool (add / replace / remove);
- erasure.py: forgetting a value everywhere it is kept (files, history, backups);
- pins.py: pins and tags on USER.md fields and MEMORY.md entries (store records, not document text).
"""

"""`memroute batch`: transcripts in, USER.md and MEMORY.md for every user out.

How a run goes:

1. Index (one streaming pass). Every input line is parsed once; bad lines (malformed JSON,
   unknown role, missing user id, invalid UTF-8, oversized messages) are reported with
   file:line, counted and skipped. For each good conversation only its location (file, byte
   offset, line), user id, start time and turn count go into a temporary SQLite index on disk,
   never the text, so memory stays bounded whatever the input size. Conversations already
   checkpointed as done in the store are counted but not replayed.
2. Replay. The index yields each user's conversations sorted by start time (input order breaks
   ties; conversations without any timestamp come after the timed ones, in input order), so the
   input does not need to be sorted. Each conversation is read again from its offset and
   replayed turn by turn: the turn's user message and what follows it, with the earlier
   messages as history, and the turn's timestamp (the user message's, else the
   conversation's), so dates in MEMORY.md come from the transcript. Users run concurrently on
   an asyncio loop (through `aprocess_turn`); one user's turns never overlap. With the offline
   engine `concurrency` is the number of users at a time. With a model it is the number of
   requests in flight (what a provider's limits count): engines hold a `REQUEST_SLOTS` slot
   per HTTP request, and 1.5x as many users are kept going, so one user's file work, prompt
   and parsing overlap the others' waits and no slot sits idle. Users with the most turns
   start first, so one long user does not finish last. Big batches also spread the users over
   worker processes (one core each: the offline engine and the client side of model calls are
   CPU bound); each worker imports the model stack before it takes users and freezes it for
   the garbage collector; the parent hands out users, merges counts and writes the audit file.
   Results are the same whatever the number of processes.
3. Checkpoints. A conversation whose turns all committed is marked done in the store table
   `batch_conversations`; a rerun skips it. Turn ids are stable ("b-<hash of user and
   conversation id>-<turn index>"), so a conversation interrupted mid-way resumes through the
   pipeline's turn idempotency and no turn is ever applied twice. When a turn fails (model
   error), its conversation is marked failed and the user's later conversations wait for the
   next run (counted as deferred), so a user's turns are never applied out of order.

Memory use: the index lives on disk, a conversation's text is held only while it is replayed,
and a line longer than 8 MiB is skipped unread, so RAM is bounded by the users in progress
(concurrency, x1.5 with a model) x the largest conversation, not by the input size. Files of
any order work; no input sorting is required.
`--rpm` applies to the llm and hybrid engines (one token per turn, shared by the processes).

Where the memory goes (`--out`): a root that already holds memory not written by a batch (a
live hook's, say) is refused, because replaying older transcripts onto it would overwrite newer
facts with older ones. `--restart` never deletes anything: it moves the root's current contents
into `OUT/.before-restart-<UTC time>/` and starts over on an empty root.
"""

from __future__ import annotations

from pipeline.batch.options import DEFAULT_CONCURRENCY, BatchOptions, Hooks, TokenBucket
from pipeline.batch.report import BatchReport
from pipeline.batch.root import holds_foreign_memory, move_aside
from pipeline.batch.runner import BatchRunner, decision_record, turn_id_for

__all__ = ["BatchOptions", "BatchReport", "BatchRunner", "DEFAULT_CONCURRENCY", "Hooks", "TokenBucket", "decision_record", "holds_foreign_memory", "move_aside", "turn_id_for"]

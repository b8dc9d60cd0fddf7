"""The ways a queued turn gets run: the post-turn hook's durable per-user queue, `memroute retry`,
and the PostgreSQL shared queue's workers, all through one runner.

- runner.py: one attempt at a queued turn (run, then finish / retry / park, and the counts), RetryPolicy;
- post_turn.py: PostTurnHook (submit, order per user, debounce, backpressure; its threads or processes run turns);
- admin.py: the queue seen from outside a running hook (`memroute status`, `memroute retry`);
- worker.py: `memroute worker` on a PostgreSQL store's shared queue (any number of processes and hosts).

The queues themselves (what is stored, claims, per-user order) are the store's (pipeline/store/).
The public names (PostTurnHook, RetryPolicy, HookQueueFull, HookClosed) are exported by `pipeline`.
"""

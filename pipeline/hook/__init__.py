"""The post-turn hook: a durable per-user queue in front of the pipeline.

- post_turn.py: PostTurnHook (submit, order per user, debounce, backpressure, retries, parking);
- runner.py: one attempt at a queued turn (threads, child processes and `memroute retry` run it);
- admin.py: the queue seen from outside a running hook (`memroute status`, `memroute retry`).

The public names (PostTurnHook, RetryPolicy, HookQueueFull, HookClosed) are exported by `pipeline`.
"""

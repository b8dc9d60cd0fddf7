"""A queue worker process for the PostgreSQL concurrency tests (tests/hook/test_pg_workers.py): one of
several "hosts" working one database's shared queue until it is empty.

    python tests/pg_worker_child.py DSN STATE_DIR MODE
MODE "store": each turn "calls a model" (a random wait), then appends its id to the user's MEMORY.md
under the user's lock, holding the transaction open a while (a wide window to be killed in); MODE "pipeline": the real MemoryPipeline
with the offline engine. Each waits for STATE_DIR/go. Before a turn, STATE_DIR/<pid>.inside names it; after it, the file goes.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any


def main() -> None:
    dsn, state_dir, mode = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    from pipeline.hook.worker import pipeline_processor, run_worker
    from pipeline.store.postgres import open_postgres

    store, documents = open_postgres(dsn)
    inside = state_dir / f"{os.getpid()}.inside"

    def store_turn(row: Any) -> tuple[str, str | None]:
        time.sleep(random.uniform(0, 0.15))  # the model call, outside the lock, as long as it likes
        with store.edit(row.user_id) as (conn, docs):
            if store.turn_status(row.user_id, row.turn_id) == "done":
                return "duplicate", None
            store.write_document(conn, row.user_id, "MEMORY.md", (docs.memory or "") + row.turn_id + "\n")
            time.sleep(0.03)
            store.mark_turn(conn, user_id=row.user_id, turn_id=row.turn_id, conversation_id=None, status="done",
                            ts="2026-11-30T00:00:00+00:00")
        return "done", None

    process = store_turn
    if mode == "pipeline":
        process = pipeline_processor(_pipeline(store, documents, state_dir))

    def traced(row: Any) -> tuple[str, str | None]:
        inside.write_text(row.turn_id)
        try:
            return process(row)
        finally:
            inside.unlink(missing_ok=True)

    (state_dir / f"{os.getpid()}.ready").touch()
    while not (state_dir / "go").exists():  # every worker starts at once: they race from the first turn
        time.sleep(0.005)
    counts = run_worker(store.queue(), traced, until_empty=True, idle_sleep_s=0.01)
    print(f"done={counts.done} duplicates={counts.duplicates} failed={counts.failed_attempts}", flush=True)


def _pipeline(store: Any, documents: Any, state_dir: Path) -> Any:
    from pipeline.core import MemoryPipeline

    # A small MEMORY.md cap: the workers consolidate while they race.
    return MemoryPipeline(root=state_dir / "unused-root", engine="offline", store=store, documents=documents,
                          memory_limit=MEMORY_LIMIT)


MEMORY_LIMIT = 600


if __name__ == "__main__":
    main()

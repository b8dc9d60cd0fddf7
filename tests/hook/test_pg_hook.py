"""PostTurnHook on a PostgreSQL pipeline: durable on accept, applied in order, and a hook that is gone
(on any host) leaves its unfinished turns to the next hook that starts."""

from __future__ import annotations

from pathlib import Path

from pipeline.core import MemoryPipeline
from pipeline.hook.post_turn import PostTurnHook
from pipeline.store.postgres import open_postgres


def _pipeline(dsn: str, tmp_path: Path) -> MemoryPipeline:
    store, documents = open_postgres(dsn)
    return MemoryPipeline(root=tmp_path, engine="offline", store=store, documents=documents)


def test_the_hook_applies_every_turn_in_order_from_the_database(pg_dsn: str, tmp_path: Path) -> None:
    with _pipeline(pg_dsn, tmp_path) as pipe:
        hook = PostTurnHook(pipe, workers=3)
        ids = [hook.submit("amy", [{"role": "user", "content": f"Yesterday we shipped release {i} of the app."}],
                           timestamp="2026-11-30T10:00:00Z") for i in range(8)]
        assert hook.drain(60)
        hook.close()
        assert [t["turn_id"] for t in pipe.store.turns("amy")] == ids
        memory = pipe.show("amy")["memory_md"]
        assert [f"release {i} " in memory for i in range(8)] == [True] * 8
        assert pipe.store.hook_queue_status()["done"] == 8


def test_turns_a_closed_hook_left_are_run_by_the_next_hook(pg_dsn: str, tmp_path: Path) -> None:
    with _pipeline(pg_dsn, tmp_path) as pipe:
        first = PostTurnHook(pipe, workers=1)
        first.queue.insert("amy", "left-behind", None, {"messages": [
            {"role": "user", "content": "Yesterday we moved the docs to Vercel."}], "timestamp": "2026-11-30T10:00:00Z"})
        first.close(timeout=0)  # its liveness lock goes with it, as when its process dies
        second = PostTurnHook(pipe, workers=1)
        assert second.drain(60)
        second.close()
        assert pipe.store.turn_status("amy", "left-behind") == "done"
        assert "Vercel" in pipe.show("amy")["memory_md"]

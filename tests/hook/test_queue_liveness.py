"""A dead owner is dead, and its accepted turns are taken over without another restart (issue 24, item 9).

A process that accepted turns and died is gone even while nobody has reaped it (a zombie:
`kill(pid, 0)` still finds it), so a hook starting right after it takes its turns over; and a
hook that is already running takes over the turns of a process that dies later, within a few
seconds, on both stores.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from memory_fixture import Memory

from pipeline.hook.post_turn import PostTurnHook
from tests.hook.test_hook import NoteEngine

CHILD = textwrap.dedent(
    """
    import os, sys, time
    root, dsn, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    if dsn:
        from pipeline.store.postgres import open_postgres
        store, _ = open_postgres(dsn)
    else:
        from pipeline.store.sqlite import SQLiteStore
        store = SQLiteStore(root)
    queue = store.open_hook_queue()
    from pipeline.turns import build_turn, turn_payload
    for n in range(3):
        turn = build_turn("zoe", [{"role": "user", "content": f"kiln firing number {n} went well"}],
                          timestamp=f"2026-08-0{n + 1}T10:00:00Z", id_key=store.secret_key("ids"))
        queue.insert("zoe", turn.turn_id, None, turn_payload(turn))
    print("accepted", flush=True)
    if mode == "exit":
        os._exit(0)  # gone at once, like a SIGKILL; the parent does not reap it
    time.sleep(600)
    """
)
SENT = [f"kiln firing number {n} went well" for n in range(3)]


def _child(tmp_path: Path, mem: Memory, mode: str) -> subprocess.Popen[str]:
    script = tmp_path / "owner.py"
    script.write_text(CHILD, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, str(script), str(mem.root), mem.dsn or "", mode],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "accepted", proc.stderr
    return proc


def _state(pid: int) -> str:
    raw = Path(f"/proc/{pid}/stat").read_text()
    return raw[raw.rfind(")") + 2]


def _written(mem: Memory) -> list[str]:
    text = mem.read("zoe", "MEMORY.md") or ""
    return [line.split("] ", 1)[1] for line in text.splitlines() if line.startswith("- [")]


def _wait_written(mem: Memory, timeout: float) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _written(mem) == SENT:
            break
        time.sleep(0.1)
    return _written(mem)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to make and see a zombie")
def test_a_dead_unreaped_owner_is_dead_and_a_quick_restart_takes_its_turns(tmp_path: Path, mem: Memory) -> None:
    proc = _child(tmp_path, mem, "exit")
    try:
        deadline = time.monotonic() + 10
        while _state(proc.pid) != "Z" and time.monotonic() < deadline:  # exited, not reaped: a zombie
            time.sleep(0.01)
        assert _state(proc.pid) == "Z"
        with mem.pipeline(engine=NoteEngine()) as pipe:
            hook = PostTurnHook(pipe, workers=1)
            try:
                assert _wait_written(mem, 15) == SENT
            finally:
                hook.close()
    finally:
        proc.wait()


def test_a_running_hook_takes_over_the_turns_of_a_process_that_dies_later(tmp_path: Path, mem: Memory) -> None:
    proc = _child(tmp_path, mem, "sleep")
    try:
        with mem.pipeline(engine=NoteEngine()) as pipe:
            hook = PostTurnHook(pipe, workers=1)
            try:
                time.sleep(1.5)
                assert _written(mem) == []  # their owner is alive: its turns are its own
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                assert _wait_written(mem, 15) == SENT  # no restart needed
            finally:
                hook.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

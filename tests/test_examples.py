"""The examples run as documented: the stdin chat loop (offline) and the FastAPI app (if installed)."""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_chat_loop_remembers_what_the_user_said_offline(tmp_path: Path) -> None:
    chat = "I'm Jasmin, a frontend engineer.\nYesterday we moved the billing service to Postgres.\n/memory\n"
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "chat_loop.py"), "--root", str(tmp_path), "--user", "jasmin"],
        input=chat, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("assistant:") == 2
    assert "Jasmin" in done.stdout  # /memory printed the profile
    assert "2 turn(s) processed, 0 parked" in done.stdout
    assert "Jasmin" in (tmp_path / "jasmin" / "USER.md").read_text("utf-8")
    assert "Postgres" in (tmp_path / "jasmin" / "MEMORY.md").read_text("utf-8")


def test_chat_loop_on_a_second_start_puts_the_memory_in_the_system_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat_loop = load("chat_loop")
    args = chat_loop.argparse.Namespace(
        root=str(tmp_path), user="jasmin", model=None, engine=None, conversation="c", drain_timeout=30.0
    )
    chat_loop.chat(args, stdin=io.StringIO("I'm Jasmin, a frontend engineer.\n"), out=io.StringIO())
    seen: list[str] = []
    original = chat_loop.reply

    def spy(model: str | None, system: str, history: list[dict[str, str]]) -> str:
        seen.append(system)
        return str(original(model, system, history))

    monkeypatch.setattr(chat_loop, "reply", spy)
    chat_loop.chat(args, stdin=io.StringIO("hello again\n"), out=io.StringIO())
    assert seen and "Jasmin" in seen[0]


def test_fastapi_app_wires_the_hook_into_its_lifespan(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    app = load("fastapi_app").create_app(root=tmp_path, engine="offline")
    with TestClient(app) as client:
        r = client.post("/chat", json={"user_id": "jasmin", "message": "I'm Jasmin, a frontend engineer."})
        assert r.status_code == 200 and r.json()["turn_id"].startswith("t-")
        assert client.post("/chat", json={"user_id": "../x", "message": "hi"}).status_code == 422
        status = client.get("/status").json()
        assert {"queued", "running", "done", "parked", "last_error"} <= set(status)
    # Leaving the lifespan drained the hook: the turn is in the files.
    assert "Jasmin" in (tmp_path / "jasmin" / "USER.md").read_text("utf-8")
    with TestClient(app) as client:
        shown = client.get("/memory/jasmin").json()
        assert "Jasmin" in shown["user_md"]

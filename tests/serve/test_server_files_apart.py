"""The server's own files live apart from the user folders: the review page's key is
`memroute.review.key`, a name no user id can take, so a user `review.key` (or a batch file
`review.key.jsonl` naming it) is an ordinary user. An older root's `review.key` is moved there;
a key file that is empty or damaged is refused at start (one line naming it, exit 2), never used
as an HMAC key."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
from pathlib import Path

import httpx
import pytest
from servers import MEMROUTE, env, free_port, running, serve_argv

pytest.importorskip("fastapi")

from pipeline import MemoryPipeline  # noqa: E402
from pipeline.errors import BadKeyFile, InvalidUserId  # noqa: E402
from pipeline.review import security  # noqa: E402
from pipeline.review.security import Secrets, stored_key  # noqa: E402
from pipeline.store import private  # noqa: E402
from pipeline.store.files import validate_user_id  # noqa: E402

TS = "2026-07-30T10:00:00Z"


def serve_fails(root: Path, home: Path) -> subprocess.CompletedProcess[str]:
    port = free_port()
    return subprocess.run(serve_argv(root, port), env=env(home), capture_output=True, text=True, timeout=60)


def test_a_new_root_keeps_the_key_under_a_reserved_name(tmp_path: Path) -> None:
    key = stored_key(tmp_path / "root")
    assert len(key) == 32
    path = tmp_path / "root" / "memroute.review.key"
    assert path.read_bytes() == key and path.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "root" / "review.key").exists()
    with pytest.raises(InvalidUserId):
        validate_user_id("memroute.review.key")
    assert validate_user_id("review.key") == "review.key"


def test_an_older_roots_key_is_moved_and_still_signs_the_same(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    old_key = secrets.token_bytes(32)
    (root / "review.key").write_bytes(old_key)
    os.chmod(root / "review.key", 0o600)
    assert Secrets(root).key == old_key  # a stored key is used as it is
    assert (root / "memroute.review.key").read_bytes() == old_key
    assert not (root / "review.key").exists()  # the name is free for a user now


@pytest.mark.parametrize("content", [b"", b"\n", b"short-key"])
@pytest.mark.parametrize("where", ["review.key", "memroute.review.key"])
def test_an_empty_or_damaged_key_file_is_refused_at_start(tmp_path: Path, content: bytes, where: str) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / where).write_bytes(content)
    with pytest.raises(BadKeyFile, match="memroute.review.key holds"):
        stored_key(root)
    done = serve_fails(root, tmp_path / "home")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "memroute.review.key" in lines[0] and "empty or damaged" in lines[0], lines
    assert sorted(p.name for p in root.iterdir() if p.name.endswith(".key")) == ["memroute.review.key"]
    assert (root / "memroute.review.key").read_bytes() == content  # left as it was for the operator


def test_a_folder_where_the_key_should_be_is_refused(tmp_path: Path) -> None:
    (tmp_path / "memroute.review.key").mkdir()
    with pytest.raises(BadKeyFile, match="not a regular file"):
        stored_key(tmp_path)


def test_a_configured_secret_needs_no_key_file_and_an_empty_one_is_not_a_key(tmp_path: Path) -> None:
    (tmp_path / "memroute.review.key").write_bytes(b"")
    assert Secrets(tmp_path, "shared-secret-of-the-hosts").key  # the file is not read
    with pytest.raises(BadKeyFile):
        Secrets(tmp_path, None).key  # noqa: B018


def test_the_server_start_and_the_page_read_the_one_key_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Path] = []
    real = private.private_key

    def spy(path: Path, *, size: int = 32) -> bytes:
        seen.append(path)
        return real(path, size=size)

    monkeypatch.setattr(security, "private_key", spy)
    Secrets(tmp_path / "a").csrf_token("b", None)
    from pipeline.serve import run
    from pipeline.serve.config import ServeConfig

    monkeypatch.setattr(run, "listen", lambda host, port: (_ for _ in ()).throw(RuntimeError("stop here")))
    with pytest.raises(RuntimeError, match="stop here"):
        run.serve(ServeConfig(root=tmp_path / "b"), lambda: MemoryPipeline(root=tmp_path / "b"))
    assert seen == [tmp_path / "a" / "memroute.review.key", tmp_path / "b" / "memroute.review.key"]


def test_a_user_named_review_key_is_an_ordinary_user_and_the_page_works_for_everyone(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "review.key").write_bytes(secrets.token_bytes(32))  # an older server's key
    port = free_port()
    with running(serve_argv(root, port), tmp_path / "home", port) as url:
        for user in ("review.key", "ana"):
            turn = {"messages": [{"role": "user", "content": "I'm a nurse in Lyon"}], "timestamp": TS}
            answer = httpx.post(f"{url}/v1/users/{user}/turns?wait=true", json=turn, timeout=60)
            assert answer.status_code == 200, answer.text
        assert httpx.get(f"{url}/review/", timeout=30).status_code == 200
        page = httpx.get(f"{url}/review/u/review.key", timeout=30)
        assert page.status_code == 200 and "nurse" in page.text
        status = httpx.get(f"{url}/v1/status", timeout=30).json()
        assert status["failed_turns"] == 0
    assert "Role: nurse" in (root / "review.key" / "USER.md").read_text("utf-8")
    assert len((root / "memroute.review.key").read_bytes()) == 32


def test_a_batch_file_naming_user_review_key_on_an_older_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    old_key = secrets.token_bytes(32)
    (root / "review.key").write_bytes(old_key)  # no server has started since the upgrade
    batch = tmp_path / "review.key.jsonl"
    batch.write_text(json.dumps({"messages": [{"role": "user", "content": "I'm a pilot in Oslo"}],
                                 "timestamp": TS}) + "\n", "utf-8")
    done = subprocess.run([MEMROUTE, "batch", str(batch), "--out", str(root)],
                          env=env(tmp_path / "home"), capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "Role: pilot" in (root / "review.key" / "USER.md").read_text("utf-8")
    assert (root / "memroute.review.key").read_bytes() == old_key  # moved, not lost
    with MemoryPipeline(root=root) as pipe:
        assert pipe.store.failed_turns() == []
        assert "review.key" in [u["user_id"] for u in pipe.documents.user_summaries()]

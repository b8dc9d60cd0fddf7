"""The review page's CSRF key: kept in the root (mode 0600) and made on first use only, so a server
restarted, or another process on the root, takes the forms of the first; MEMROUTE_REVIEW_SECRET
shares one across hosts."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from pipeline.review.security import Secrets  # noqa: E402
from pipeline.serve.app import create_app  # noqa: E402
from pipeline.serve.config import ServeConfig  # noqa: E402


def test_building_an_app_for_its_schema_writes_nothing(tmp_path: Path) -> None:
    create_app(ServeConfig(root=tmp_path / "root")).openapi()
    assert not (tmp_path / "root").exists()


def test_the_key_is_kept_per_root_and_a_configured_secret_is_shared(tmp_path: Path) -> None:
    first = Secrets(tmp_path / "a")
    token = first.csrf_token("browser-1", None)
    assert (tmp_path / "a" / "memroute.review.key").stat().st_mode & 0o777 == 0o600
    assert Secrets(tmp_path / "a").csrf_ok("browser-1", None, token)  # a restart, another process
    assert not Secrets(tmp_path / "b").csrf_ok("browser-1", None, token)  # another root
    shared = Secrets(tmp_path / "c", "s3cret-shared").csrf_token("browser-1", "tok")
    assert Secrets(tmp_path / "d", "s3cret-shared").csrf_ok("browser-1", "tok", shared)
    assert not (tmp_path / "c").exists()  # a configured secret keeps no file

"""Test-wide guard rails: no test can reach a network or a real model."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

# The PostgreSQL cluster fixtures (tests/pg_fixtures.py) and `mem`, one test on both stores (tests/memory_fixture.py).
pytest_plugins = ["pg_fixtures", "memory_fixture"]

# Real (non-fake) model calls raise in tests; fake models and the local scripted server still work.
os.environ["MEMROUTE_ALLOW_MODEL_REQUESTS"] = "0"
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.pop("MEMROUTE_MODEL", None)
os.environ.pop("MEMROUTE_ENGINE", None)

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _check_address(address: Any) -> None:
    if isinstance(address, tuple) and address:
        host = address[0]
        try:
            if ipaddress.ip_address(host).is_loopback:
                return
        except ValueError:
            if host == "localhost":
                return
        raise RuntimeError(f"tests may not reach the network (tried {host})")


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _check_address(address)
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _check_address(address)
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True, scope="session")
def _no_network() -> Iterator[None]:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test writes to the real ~/.memroute."""
    monkeypatch.setenv("MEMROUTE_HOME", str(tmp_path_factory.mktemp("memroute-home")))


@pytest.fixture(autouse=True)
def _live_tests_may_reach_their_model(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests marked `live` (skipped without a key) talk to a real model: lift the guard for them only."""
    if request.node.get_closest_marker("live") is None:
        yield
        return
    socket.socket.connect = _real_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]
    yield
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]

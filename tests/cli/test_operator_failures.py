"""What an operator sees when something is down: a PostgreSQL store nobody answers for (a closed
local port), a port already taken, a model without its key. One line, the right exit code, fast;
and `memroute doctor` prints its whole checklist with a fix for each failed check."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest
from servers import MEMROUTE, env


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port  # nobody listens there once the socket is closed


def memroute(home: Path, *argv: str, timeout: float = 60) -> tuple[int, str, str, float]:
    started = time.monotonic()
    environ = env(home)
    environ.pop("OPENAI_API_KEY", None)  # the key checks must not depend on the machine's
    proc = subprocess.run([MEMROUTE, *argv], env=environ, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - started


@pytest.mark.parametrize("command", [["show", "jasmin"], ["turn", "jasmin", "--text", "I'm Jasmin"], ["users"],
                                     ["worker", "--until-empty"]])
def test_an_unreachable_store_is_one_line_naming_host_port_and_cause_within_5_s(
        tmp_path: Path, command: list[str]) -> None:
    port = closed_port()
    code, out, err, took = memroute(tmp_path, *command, "--store", f"postgresql://memroute:s3cret@127.0.0.1:{port}/memroute")
    assert code == 1 and out == ""
    assert err.count("\n") == 1, err  # one line: no pool warnings, no traceback
    assert err.startswith(f"memroute: error: cannot connect to PostgreSQL at 127.0.0.1:{port} (database memroute): ")
    assert "refused" in err.lower() and "s3cret" not in err
    assert took < 10, took  # the CLI's start included, on a busy host; the connect itself: the test below


@pytest.mark.parametrize("server", ["closed port", "silent server"])
def test_connecting_to_a_store_that_does_not_answer_gives_up_within_5_s(server: str) -> None:
    pytest.importorskip("psycopg")
    from pipeline.errors import StoreUnreachable
    from pipeline.store.postgres.connection import probe

    with socket.socket() as silent:  # accepts TCP connections (the kernel does) and never says a word
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1] if server == "silent server" else closed_port()
        started = time.monotonic()
        with pytest.raises(StoreUnreachable) as caught:
            probe(f"postgresql://memroute@127.0.0.1:{port}/memroute")
        took = time.monotonic() - started
    assert took < 5, took
    assert str(caught.value).startswith(f"cannot connect to PostgreSQL at 127.0.0.1:{port} (database memroute): ")
    assert ("refused" if server == "closed port" else "timeout") in str(caught.value).lower()


def test_doctor_runs_every_check_when_the_store_is_down_and_says_what_to_fix(tmp_path: Path) -> None:
    port = closed_port()
    code, out, err, took = memroute(tmp_path, "doctor", "--store", f"postgresql://memroute@127.0.0.1:{port}/memroute",
                                    "--engine", "llm", "--model", "openai/gpt-4o-mini",
                                    "--api-base", f"http://127.0.0.1:{closed_port()}/v1")
    assert code == 1 and took < 10, (code, took, err)
    lines = out.splitlines()
    assert f"[FAIL] store: cannot connect to PostgreSQL at 127.0.0.1:{port} (database memroute): Connection refused" in lines
    assert "       fix: start PostgreSQL there, or correct --store / MEMROUTE_STORE / memroute.toml's store" in lines
    assert "[skip] migrations: not checked: the store cannot be reached" in lines
    assert "[skip] PostgreSQL extensions: not checked: the store cannot be reached" in lines
    # the model is still checked: no key is needed for a local server, and that server is down
    assert any(line.startswith("[ok]   API key: no OPENAI_API_KEY") for line in lines)
    assert any(line.startswith("[FAIL] model endpoint: openai/gpt-4o-mini at") for line in lines)
    assert "2 check(s) failed" in lines
    code, out, _, _ = memroute(tmp_path, "doctor", "--json", "--store", f"postgresql://memroute@127.0.0.1:{port}/memroute")
    data = json.loads(out)
    assert code == 1 and not data["ok"]
    assert {c["name"]: c["ok"] for c in data["checks"]}["store"] is False


def test_doctor_names_a_missing_api_key_and_the_variable_to_set(tmp_path: Path) -> None:
    home = tmp_path / "home"
    code, out, _, _ = memroute(home, "doctor", "--root", str(tmp_path), "--engine", "llm", "--model", "openai/gpt-4o-mini")
    assert code == 1
    assert "[FAIL] API key: openai/gpt-4o-mini needs OPENAI_API_KEY\n       fix: export OPENAI_API_KEY=..." in out


def test_serve_on_a_port_in_use_is_one_line_and_exit_1_with_nothing_before_it(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err, _ = memroute(tmp_path, "serve", "--root", str(tmp_path / "root"), "--port", str(port))
    assert code == 1 and out == ""
    assert err == (f"memroute: error: cannot listen on 127.0.0.1:{port}: the port is already in use "
                   "(another server runs there: stop it or choose --port)\n")


def test_serve_with_an_unreachable_store_fails_before_it_listens(tmp_path: Path) -> None:
    port = closed_port()
    code, out, err, took = memroute(tmp_path, "serve", "--port", str(closed_port()),
                                    "--store", f"postgresql://memroute@127.0.0.1:{port}/memroute")
    assert code == 1 and out == "" and err.count("\n") == 1 and f"127.0.0.1:{port}" in err and took < 10

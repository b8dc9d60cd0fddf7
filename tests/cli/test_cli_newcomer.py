"""What a newcomer meets on the command line (issue 18): --version, help everywhere, settings and
their sources, `users`, `doctor`, completion, read-only roots, and no silent no-ops."""

from __future__ import annotations

import argparse
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.cli import build_parser, main
from pipeline.testing import UnreachableEngine

REPO = Path(__file__).resolve().parents[2]
TS = "2026-07-30T09:00:00Z"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str, fragment: str) -> bool:
    return err.startswith("memroute: error:") and err.count("\n") == 1 and fragment in err


# ---- version and help ------------------------------------------------------------------------


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline import __version__

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out == f"memroute {__version__}\n"


def _walk(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, f"{path} {name}")
        else:
            yield path, action


def test_every_option_and_argument_has_help() -> None:
    missing = [
        f"{where}: {action.option_strings or action.dest}"
        for where, action in _walk(build_parser(), "memroute")
        if not action.help or action.help == argparse.SUPPRESS
    ]
    assert missing == []


def test_skipped_tests_say_why() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_live.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "MEMROUTE_LIVE_MODEL": ""},
        timeout=240,
    )
    assert "SKIPPED" in proc.stdout and "set MEMROUTE_LIVE_MODEL" in proc.stdout, proc.stdout[-2000:]


# ---- settings: flags > env > file > defaults ---------------------------------------------------


def test_config_file_in_the_root_sets_caps_and_env_and_flags_override_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "memroute.toml").write_text('memory_limit = 300\nuser_limit = 500\nengine = "offline"\n', "utf-8")
    run(capsys, "turn", "u", "--text", "I work as a data engineer.", "--timestamp", TS, "--root", str(tmp_path))
    code, out, _ = run(capsys, "show", "u", "--json", "--root", str(tmp_path))
    shown = json.loads(out)
    assert code == 0 and shown["memory_usage"].endswith("/300") and shown["user_usage"].endswith("/500")
    monkeypatch.setenv("MEMROUTE_MEMORY_LIMIT", "400")
    code, out, _ = run(capsys, "show", "u", "--json", "--root", str(tmp_path))
    assert json.loads(out)["memory_usage"].endswith("/400")
    code, out, _ = run(capsys, "show", "u", "--json", "--root", str(tmp_path), "--memory-limit", "450")
    assert json.loads(out)["memory_usage"].endswith("/450")
    code, out, _ = run(capsys, "doctor", "--json", "--root", str(tmp_path), "--memory-limit", "450")
    sources = {s["name"]: s["source"] for s in json.loads(out)["settings"]}
    assert sources["memory_limit"] == "flag" and sources["user_limit"] == f"file {tmp_path / 'memroute.toml'}"
    assert sources["root"] == "flag" and sources["timeout"] == "default"
    monkeypatch.delenv("MEMROUTE_MEMORY_LIMIT")
    code, out, _ = run(capsys, "doctor", "--json", "--root", str(tmp_path))
    assert {s["name"]: s["source"] for s in json.loads(out)["settings"]}["memory_limit"].startswith("file ")


def test_memroute_config_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "elsewhere.toml"
    config.write_text("user_limit = 700\n", "utf-8")
    monkeypatch.setenv("MEMROUTE_CONFIG", str(config))
    run(capsys, "turn", "u", "--text", "I work as a data engineer.", "--timestamp", TS, "--root", str(tmp_path / "r"))
    code, out, _ = run(capsys, "show", "u", "--json", "--root", str(tmp_path / "r"))
    assert code == 0 and json.loads(out)["user_usage"].endswith("/700")


@pytest.mark.parametrize(
    "content, fragment",
    [
        ("memory_limit = \n", "not valid TOML"),
        ("memory_limt = 300\n", "unknown setting 'memory_limt'"),
        ("memory_limit = -5\n", "bad setting memory_limit"),
        ('engine = "gpt"\n', "unknown engine 'gpt': choose one of offline, llm, hybrid"),
    ],
)
def test_a_bad_config_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, fragment: str
) -> None:
    (tmp_path / "memroute.toml").write_text(content, "utf-8")
    code, out, err = run(capsys, "turn", "u", "--text", "I work as a data engineer.", "--root", str(tmp_path))
    assert code == 2 and out == "" and one_line_error(err, fragment)
    assert not (tmp_path / "u").exists()


def test_a_bad_env_setting_names_the_variable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMROUTE_TIMEOUT", "soon")
    code, _, err = run(capsys, "doctor", "--root", str(tmp_path))
    assert code == 2 and one_line_error(err, "MEMROUTE_TIMEOUT")


# ---- users -----------------------------------------------------------------------------------


def test_users_lists_each_user_with_sizes_and_last_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ("--root", str(tmp_path))
    code, out, err = run(capsys, "users", *root)
    assert code == 0 and out == "" and "no users under" in err
    run(capsys, "turn", "ana", "--text", "I work as a data engineer.", "--timestamp", TS, *root)
    run(capsys, "turn", "bo", "--text", "Yesterday we migrated agent-demo to Postgres.", "--timestamp", TS, *root)
    code, out, _ = run(capsys, "users", "--json", *root)
    users = {u["user_id"]: u for u in json.loads(out)}
    assert code == 0 and set(users) == {"ana", "bo"}
    assert users["ana"]["user_chars"] == len((tmp_path / "ana" / "USER.md").read_text("utf-8"))
    assert users["bo"]["memory_chars"] == len((tmp_path / "bo" / "MEMORY.md").read_text("utf-8"))
    assert users["ana"]["last_change"].startswith("20")
    code, out, _ = run(capsys, "users", *root)
    assert code == 0 and out.splitlines()[0].split() == ["user", "USER.md", "MEMORY.md", "last", "change"]
    assert any(line.startswith("ana ") and "/1,375" in line for line in out.splitlines())


# ---- doctor ----------------------------------------------------------------------------------


def test_doctor_on_a_healthy_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "turn", "ana", "--text", "I work as a data engineer.", "--timestamp", TS, "--root", str(tmp_path))
    code, out, _ = run(capsys, "doctor", "--root", str(tmp_path))
    assert code == 0
    for fragment in ("[ok]   root: ", ", writable", "[ok]   store: ", "integrity ok", "[ok]   migrations: ",
                     "[ok]   hook queue: queued 0", "[ok]   failed turns: none", "[ok]   model: offline engine",
                     "every check passed"):
        assert fragment in out
    assert "python 3." in out and "pydantic " in out and "memroute 0." in out
    assert "settings (flags > env > file > defaults" in out


def test_doctor_reports_failed_turns_and_a_broken_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fail_one_turn(tmp_path)
    code, out, _ = run(capsys, "doctor", "--root", str(tmp_path))
    assert code == 1 and "[FAIL] failed turns: 1 waiting for a retry\n       fix: see `memroute status`" in out
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "memroute.db").write_bytes(b"this is not a database" * 100)
    code, out, _ = run(capsys, "doctor", "--root", str(broken))
    assert code == 1 and "[FAIL] store: " in out and "fix: restore" in out


class _Models(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        body = b'{"data": []}'
        self.send_response(200 if self.path.endswith("/models") else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_doctor_probes_the_model_server_on_localhost(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        code, out, _ = run(capsys, "doctor", "--root", str(tmp_path), "--model", "openai/local", "--api-base", base)
    finally:
        server.shutdown()
        server.server_close()
    assert code == 0 and f"[ok]   model endpoint: openai/local at {base}: HTTP 200" in out
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    code, out, _ = run(capsys, "doctor", "--root", str(tmp_path), "--model", "openai/local", "--api-base", dead)
    assert code == 1 and "[FAIL] model endpoint: openai/local at" in out and "fix: start the model server" in out


# ---- status and retry ------------------------------------------------------------------------


def _fail_one_turn(root: Path) -> None:
    from pipeline.core import MemoryPipeline
    with MemoryPipeline(root=root, engine=UnreachableEngine("down", None)) as pipe:
        assert pipe.process_turn("jasmin", [{"role": "user", "content": "I work as a data engineer."}]).status == "failed"


def test_status_shows_failed_turns_waiting_for_retry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fail_one_turn(tmp_path)
    code, out, _ = run(capsys, "status", "--root", str(tmp_path))
    assert code == 0 and "failed turns waiting for `memroute retry`: 1" in out
    assert "ConnectionError: model unreachable" in out
    code, out, _ = run(capsys, "status", "--json", "--root", str(tmp_path))
    assert json.loads(out)["failed_turns"] == 1
    run(capsys, "retry", "--json", "--root", str(tmp_path), "--engine", "offline")  # it failed on "down": say which reruns it
    code, out, _ = run(capsys, "status", "--root", str(tmp_path))
    assert "failed turns waiting for `memroute retry`: 0" in out
    code, out, err = run(capsys, "retry", "--json", "--root", str(tmp_path))
    assert code == 0 and "no failed turns to retry" in err and json.loads(out)["retried"] == 0


# ---- silent no-ops say what they did ---------------------------------------------------------


@pytest.mark.parametrize("command", [
    ["show"], ["history"], ["recall", "{user}", "tea"], ["consolidate"], ["export", "{user}", "--format", "hermes", "--out", "{tmp}/x"],
    ["show", "{user}", "--candidates"], ["confirm", "{user}", "Hobbies"], ["forget", "{user}", "Email", "--purge"],
    ["delete-user"], ["export", "{user}", "--all", "--out", "{tmp}/x"],
])
def test_an_unknown_user_is_named_and_nothing_is_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    argv = [a.format(user="ghost", tmp=tmp_path) for a in command]
    if len(argv) == 1:
        argv.append("ghost")
    code, out, err = run(capsys, *argv, "--root", str(tmp_path / "root"))
    assert code == 1 and out == "" and one_line_error(err, "no user 'ghost' under")
    assert not (tmp_path / "root" / "ghost").exists() and not (tmp_path / "x").exists()


@pytest.mark.parametrize("flags", [[], ["--format", "hermes", "--all"]])
def test_export_needs_exactly_one_of_format_or_all(tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]) -> None:
    run(capsys, "turn", "ana", "--text", "I work as a data engineer.", "--root", str(tmp_path))
    code, out, err = run(capsys, "export", "ana", *flags, "--root", str(tmp_path))
    assert code == 2 and out == "" and one_line_error(err, "export needs exactly one of")


def test_recall_without_hits_and_a_duplicate_turn_say_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ("--root", str(tmp_path))
    turn = ("turn", "ana", "--text", "I work as a data engineer.", "--timestamp", TS, *root)
    run(capsys, *turn)
    code, out, err = run(capsys, *turn)
    assert code == 0 and "duplicate turn t-" in out and "already applied, nothing changed" in out
    code, out, err = run(capsys, "recall", "ana", "kubernetes", *root)
    assert code == 0 and out == "" and 'no matches for "kubernetes"' in err
    code, out, err = run(capsys, "recall", "ana", "kubernetes", "--json", *root)
    assert code == 0 and json.loads(out) == [] and "no matches" in err


def test_an_empty_hermes_import_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ("--root", str(tmp_path / "root"))
    (tmp_path / "nothing").mkdir()
    code, out, err = run(capsys, "import-hermes", "--json", str(tmp_path / "nothing"), "--user", "u", *root)
    assert code == 2 and one_line_error(err, "no Hermes store in")
    store = tmp_path / "empty" / "memories"
    store.mkdir(parents=True)
    (store / "USER.md").write_text("", "utf-8")
    (store / "MEMORY.md").write_text("", "utf-8")
    code, out, err = run(capsys, "import-hermes", "--json", str(tmp_path / "empty"), "--user", "u", *root)
    assert code == 0 and "nothing imported" in err and json.loads(out)["imported_memory"] == 0


# ---- read-only root --------------------------------------------------------------------------


def _as_another_user() -> list[str]:
    """Run as `nobody` when we are root (root writes through any mode bits)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot make a root this process may not write")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A temporary folder another account can reach (pytest's own is private to its owner)."""
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="memroute-ro-"))
    path.chmod(0o755)
    yield path
    for p in [path, *path.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    shutil.rmtree(path)


def test_a_read_only_root_can_be_read_and_writes_name_the_path(open_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prefix = _as_another_user()
    tmp_path = open_tmp
    root = tmp_path / "root"
    run(capsys, "turn", "ana", "--text", "I'm Ana, a data engineer.", "--timestamp", TS, "--root", str(root))
    run(capsys, "turn", "ana", "--text", "Yesterday we migrated agent-demo to Postgres.", "--timestamp", TS, "--root", str(root))
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    memroute = [*prefix, sys.executable, "-m", "pipeline.cli"]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*memroute, *argv, "--root", str(root)], capture_output=True, text=True, cwd=REPO, env=env, timeout=120)

    try:
        shown = cli("show", "ana")
        assert shown.returncode == 0 and "data engineer" in shown.stdout, shown.stderr
        assert cli("history", "ana").returncode == 0
        recalled = cli("recall", "ana", "postgres")
        assert recalled.returncode == 0 and "Postgres" in recalled.stdout
        users = cli("users")
        assert users.returncode == 0 and "ana" in users.stdout
        assert cli("status").returncode == 0
        turn = cli("turn", "ana", "--text", "I like tea.")
        assert turn.returncode == 1 and turn.stderr == f"memroute: error: memory root {root} is not writable: `memroute turn` needs to write there\n"
        tool = cli("tool", "ana", "--action", "add", "--target", "memory", "--content", "[2026-07-30] x")
        assert tool.returncode == 1 and str(root) in tool.stderr and tool.stderr.count("\n") == 1
    finally:
        for path in [tmp_path, *tmp_path.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


# ---- the README's integration note: an app's own pipeline.py ---------------------------------


def test_an_apps_own_pipeline_module_shadows_memroute_and_the_readme_remedy_works(tmp_path: Path) -> None:
    app = tmp_path / "myapp"
    app.mkdir()
    (app / "__init__.py").write_text("", "utf-8")
    (app / "pipeline.py").write_text("STEPS = []\n", "utf-8")
    (app / "main.py").write_text("from pipeline import MemoryPipeline\nprint(MemoryPipeline.__module__)\n", "utf-8")
    shadowed = subprocess.run([sys.executable, "myapp/main.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert shadowed.returncode == 1 and "ImportError" in shadowed.stderr
    remedy = subprocess.run([sys.executable, "-m", "myapp.main"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert remedy.returncode == 0 and remedy.stdout.strip() == "pipeline.core", remedy.stderr

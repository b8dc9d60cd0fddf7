"""Every code snippet of the README, run verbatim in a fresh process and a fresh folder, shows the fact it
stored ("I'm a nurse in Lyon": Role and Location) where it promises to. The install and the two commands are
checked against what runs them for real: CI runs the test command (.ci/run), tests/test_packaging.py the wheel.
Servers start as the README says, on a free port through the PORT and MEMROUTE_URL the snippets read."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import free_port, wait_until_up

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text("utf-8")
BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```$", README, re.S | re.M)
BIN = Path(sys.executable).parent
INSTALL, DEMO, TESTS = (code for _, code in BLOCKS[:3])
RUNNABLE = [(lang, code) for lang, code in BLOCKS[3:]]


def _env(tmp_path: Path, port: int) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "MEMROUTE_HOME": str(tmp_path / "home"),
           "MEMROUTE_ENGINE": "offline", "PORT": str(port), "MEMROUTE_URL": f"http://127.0.0.1:{port}",
           "OPENAI_AGENTS_DISABLE_TRACING": "1"}
    for name in ("MEMROUTE_MODEL", "MEMROUTE_CONFIG", "MEMROUTE_SERVE_TOKENS"):
        env.pop(name, None)
    return env


def test_the_readme_fits_on_a_screen_or_two_and_names_nothing_internal() -> None:
    assert len(README.splitlines()) <= 250
    assert not re.search(r"\bissue \d|/work/|\bhelper\b", README, re.I)
    assert "pip install memroute" not in README  # not on PyPI: from a clone
    for link in re.findall(r"\]\((docs/[^)#]+)", README):
        assert (REPO / link).is_file(), link


def test_the_install_and_the_two_commands_are_what_ci_and_the_packaging_test_run() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]
    named = set(re.findall(r"'\.\[([\w-]+)\]'", README))
    assert named and named <= set(extras), named - set(extras)
    assert "pip install -e ." in INSTALL
    assert DEMO.strip() == "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/memroute demo"
    ci = (REPO / ".ci" / "run").read_text("utf-8").strip().splitlines()[-1]
    assert TESTS.strip() == ci and "-c constraints.txt" in ci
    assert (REPO / "constraints.txt").is_file() and (REPO / ".ci" / "upgrade-constraints").is_file()


def _shows_the_fact(text: str) -> None:
    assert re.search(r"Role: nurse", text) and re.search(r"Location: Lyon", text), text[-2000:]


@pytest.mark.parametrize("lang, code", [b for b in RUNNABLE if b[0] in ("python", "bash")],
                         ids=[f"{lang}-{n}" for n, (lang, _) in enumerate(RUNNABLE) if lang in ("python", "bash")])
def test_each_snippet_runs_as_pasted(lang: str, code: str, tmp_path: Path) -> None:
    if "langchain" in code:
        pytest.importorskip("langchain.agents")
    if "pydantic_ai" in code:
        pytest.importorskip("pydantic_ai")
    if "memroute serve" in code:
        pytest.importorskip("uvicorn")
    argv = ["bash", "-euo", "pipefail", "-c", code] if lang == "bash" else [sys.executable, "-c", code]
    done = subprocess.run(argv, cwd=tmp_path, env=_env(tmp_path, free_port()), capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, f"{code}\n--- stdout\n{done.stdout[-2000:]}\n--- stderr\n{done.stderr[-2000:]}"
    if "--print-config" in code:
        config = json.loads(done.stdout)
        assert config["mcpServers"]["memroute"]["args"][:3] == ["mcp", "--user", "jasmin"]
        return
    if "import-mem0" in code:
        user_md = (tmp_path / "memory" / "jasmin" / "USER.md").read_text("utf-8")
        memory_md = (tmp_path / "memory" / "jasmin" / "MEMORY.md").read_text("utf-8")
        assert "Location: Lyon" in user_md and "[2026-02] I went to Lisbon for a conference." in memory_md
        return
    if "memroute forget" in code:  # the command line: stored, shown, recalled, then forgotten
        assert "Location: Lyon" in done.stdout and "forget" in done.stdout.lower()
        user_md = (tmp_path / "memory" / "jasmin" / "USER.md").read_text("utf-8")
        assert "Role: nurse" in user_md and "Lyon" not in user_md
        return
    _shows_the_fact(done.stdout)


def test_the_typescript_snippet_runs_as_pasted_against_the_readmes_server(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (.ci/run installs it)")
    [ts] = [code for lang, code in RUNNABLE if lang == "ts"]
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "memroute-client").symlink_to(REPO / "clients" / "typescript")  # npm install ./...
    (tmp_path / "main.mjs").write_text(ts, "utf-8")  # the snippet is plain JavaScript as well as TypeScript
    port = free_port()
    env = _env(tmp_path, port)
    server = subprocess.Popen(["memroute", "serve", "--root", "./memory", "--port", str(port)], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_until_up(env["MEMROUTE_URL"], server)
        done = subprocess.run([node, "main.mjs"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    assert done.returncode == 0, done.stderr
    _shows_the_fact(done.stdout)


def test_a_casual_chat_through_the_readmes_python_snippet_is_in_the_next_context(tmp_path: Path) -> None:
    """Ten turns of chat, facts among the small talk, through the README's own pattern (hook, then context):
    every fact the engine wrote is in the context read right after the last turn."""
    [quick] = [code for lang, code in RUNNABLE if lang == "python" and "PostTurnHook" in code]
    chat = ["hi there!", "I'm Mira and I work as a pharmacist.", "haha yes, busy week", "I live in Porto now.",
            "what's a good pasta recipe?", "thanks, that sounds great", "I have two cats named Miso and Tofu.",
            "lol they are chaos", "Yesterday we moved the pharmacy to a new building.", "ok bye for now"]
    turns = "".join(
        f"    hook.submit('mira', [{{'role': 'user', 'content': {text!r}}}, {{'role': 'assistant', 'content': 'Nice!'}}])\n"
        for text in chat)
    script = quick.replace("""    hook.submit("jasmin", [{"role": "user", "content": "I'm a nurse in Lyon and I prefer short answers."},
                           {"role": "assistant", "content": "Noted!"}])
""", turns).replace('pipe.context("jasmin")', 'pipe.context("mira")')
    assert script != quick and "mira" in script
    done = subprocess.run([sys.executable, "-c", script + "\nimport json\nprint(json.dumps(pipe.history('mira')))"],
                          cwd=tmp_path, env=_env(tmp_path, free_port()), capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    context, _, history = done.stdout.rpartition("\n[")
    written = [h for h in json.loads("[" + history) if h["op"] in ("upsert", "append") and h["new_value"]]
    assert len(written) >= 3, written
    for change in written:
        value = str(change["new_value"]).split("] ", 1)[-1]
        assert value in context, (value, context)
    assert "pharmacist" in context and "Porto" in context

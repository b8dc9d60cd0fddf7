"""The TypeScript client (clients/typescript/, issue 26): its types are generated from the server's
OpenAPI schema (the committed schema.d.ts must be what the generator writes today), and
`node --test` runs it against a real `memroute serve` that the node test starts on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parent.parent.parent / "clients" / "typescript"


def test_schema_types_are_generated_from_the_current_openapi_schema() -> None:
    pytest.importorskip("fastapi")
    spec = importlib.util.spec_from_file_location("generate_types", CLIENT / "generate_types.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    expected = generator.render(generator.app_schema())
    assert (CLIENT / "schema.d.ts").read_text("utf-8") == expected, (
        "clients/typescript/schema.d.ts is stale: run python clients/typescript/generate_types.py")


def test_node_test_runner_passes_against_a_live_server(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (.ci/run installs it)")
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "MEMROUTE": str(bin_dir / "memroute"), "TMPDIR": str(tmp_path), "NODE_OPTIONS": ""}
    done = subprocess.run([node, "--test"], cwd=CLIENT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 9" in done.stdout

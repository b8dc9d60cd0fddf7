"""`memroute mcp --print-config claude|cursor|vscode`: the MCP host's config snippet for this
server, with absolute paths (a host starts servers without the user's shell PATH, so a bare
`memroute` is often not found)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

WHERE = {
    "claude": "Claude Desktop: claude_desktop_config.json (Settings -> Developer -> Edit Config), under mcpServers",
    "cursor": "Cursor: .cursor/mcp.json in the project, or ~/.cursor/mcp.json for every project",
    "vscode": "VS Code: .vscode/mcp.json in the workspace (or the user settings' mcp section)",
}


def server_command() -> list[str]:
    """The absolute command that runs this memroute: the `memroute` script beside this Python,
    else the one on PATH, else this Python with `-m pipeline.cli`."""
    beside = Path(sys.executable).parent / ("memroute.exe" if sys.platform == "win32" else "memroute")
    if beside.is_file():
        return [str(beside.absolute())]
    found = shutil.which("memroute")
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "pipeline.cli"]


def config_snippet(host: str, user: str, root: Path, extra: list[str] | None = None) -> dict[str, Any]:
    command, *prefix = server_command()
    argv = [*prefix, "mcp", "--user", user, "--root", str(root.expanduser().absolute()), *(extra or [])]
    if host == "vscode":
        return {"servers": {"memroute": {"type": "stdio", "command": command, "args": argv}}}
    return {"mcpServers": {"memroute": {"command": command, "args": argv}}}


def print_config(args: argparse.Namespace, root: Path) -> int:
    extra: list[str] = []
    if args.engine:
        extra += ["--engine", args.engine]
    if args.model:
        extra += ["--model", args.model]
    if args.api_base:
        extra += ["--api-base", args.api_base]
    print(json.dumps(config_snippet(args.print_config, args.user, root, extra), indent=2))
    print(f"memroute: paste into {WHERE[args.print_config]}", file=sys.stderr)
    return 0

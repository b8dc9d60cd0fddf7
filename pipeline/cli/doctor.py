"""`memroute doctor` and `memroute users`: what a bug report needs, read without writing anything."""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from pipeline.settings import Settings
from pipeline.store import DB_NAME, MIGRATIONS, SQLITE_VERSION, StoreError
from pipeline.store.files import MEMORY_FILE, USER_FILE, InvalidUserId, validate_user_id

PACKAGES = ("memroute", "pydantic", "litellm", "instructor", "httpx", "aiohttp", "rich")
MODEL_PROBE_TIMEOUT_S = 5.0


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


# ---- users ----------------------------------------------------------------------------------


def list_users(root: Path) -> list[dict[str, Any]]:
    """Every user folder under the root: file sizes (characters) and the last change (file mtime)."""
    if not root.is_dir():
        return []
    users = []
    for entry in sorted(root.iterdir()):
        try:
            validate_user_id(entry.name)
        except InvalidUserId:
            continue  # memroute.db, dot files, a stray folder with a name no user can have
        if not entry.is_dir():
            continue
        row: dict[str, Any] = {"user_id": entry.name, "user_chars": 0, "memory_chars": 0, "last_change": None}
        latest = 0.0
        for name, key in ((USER_FILE, "user_chars"), (MEMORY_FILE, "memory_chars")):
            path = entry / name
            try:
                row[key] = len(path.read_text("utf-8", errors="replace"))
                latest = max(latest, path.stat().st_mtime)
            except FileNotFoundError:
                continue
        if latest:
            row["last_change"] = datetime.fromtimestamp(latest, tz=timezone.utc).isoformat(timespec="seconds")
        users.append(row)
    return users


# ---- doctor ---------------------------------------------------------------------------------


def root_writable(root: Path) -> bool:
    """Whether this process can write the root (or create it)."""
    probe = root
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)


def run_checks(settings: Settings) -> list[Check]:
    if settings.store:
        checks = _postgres_checks(settings.store)
        if settings.model and settings.engine_name != "offline":
            checks.append(probe_model(settings))
        return checks
    root = settings.root
    checks = [Check("root", True, f"{root} ({'exists' if root.is_dir() else 'not created yet'})")]
    if root.exists() and not root.is_dir():
        checks.append(Check("root writable", False, f"{root} is not a directory"))
        return checks
    writable = root_writable(root)
    checks.append(
        Check("root writable", writable, "yes" if writable else f"no: reading commands work, writing ones fail ({root})")
    )
    checks += _database_checks(root)
    if settings.model and settings.engine_name != "offline":
        checks.append(probe_model(settings))
    return checks


def _postgres_checks(url: str) -> list[Check]:
    """The PostgreSQL store: reachable, schema applied, queue and failed turns (no password shown)."""
    from pipeline.store.postgres import open_postgres, shown_url

    where = shown_url(url)
    try:
        store, _ = open_postgres(url, read_only=True)
    except Exception as e:  # no psycopg, no server, bad credentials: one line
        detail = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return [Check("database", False, f"{where}: {detail}")]
    with store:
        if not store.exists():
            return [Check("database", True, f"{where}: reachable, no memroute schema yet (the first write creates it)")]
        applied = store.applied_migrations()
        status = store.hook_queue_status()
        failed = len(store.failed_turns())
    return [
        Check("database", True, f"{where}: reachable, {len(applied)} migrations applied"),
        Check("hook queue", status["parked"] == 0,
              f"queued {status['queued']}, running {status['running']}, failed {status['failed']}, parked "
              f"{status['parked']}" + (" (run `memroute retry`)" if status["parked"] else "")),
        Check("failed turns", failed == 0, f"{failed} waiting for `memroute retry`" if failed else "none"),
    ]


def _database_checks(root: Path) -> list[Check]:
    from pipeline.hook.admin import hook_status
    from pipeline.store import Store

    path = root / DB_NAME
    if not path.exists():
        return [Check("database", True, f"{path} not created yet (the first write creates it)")]
    try:
        with Store(root, read_only=True) as store:
            result = store.quick_check()
            applied = store.applied_migrations()
            failed = len(store.failed_turns())
    except StoreError as e:
        return [Check("database", False, f"{path}: {e}")]
    checks = [Check("database", result == "ok", f"{path}: integrity {result}")]
    missing = [name for name, _ in MIGRATIONS if name not in applied]
    checks.append(
        Check("schema", True, f"{len(applied)} migrations applied" + (f"; {len(missing)} pending (applied by the next write)" if missing else ""))
    )
    status = hook_status(root)
    checks.append(
        Check(
            "hook queue",
            status["parked"] == 0,
            f"queued {status['queued']}, running {status['running']}, failed {status['failed']}, parked {status['parked']}"
            + (" (run `memroute retry`)" if status["parked"] else ""),
        )
    )
    checks.append(
        Check(
            "failed turns",
            failed == 0,
            f"{failed} waiting for `memroute retry`" + ("" if not failed else "; see `memroute status` for the last error"),
        )
    )
    return checks


def model_base_url(settings: Settings) -> str | None:
    """Where the model is served: --api-base, else the OpenAI endpoint for openai/ models, else
    None (litellm providers have no single URL to probe)."""
    if settings.api_base:
        return settings.api_base.rstrip("/")
    model = settings.model or ""
    if model.startswith("openai/"):
        base = os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or "https://api.openai.com/v1"
        return base.rstrip("/")
    return None


def probe_model(settings: Settings) -> Check:
    """One GET {base}/models: any HTTP answer (even 401) means the server is reachable."""
    base = model_base_url(settings)
    if base is None:
        return Check("model reachable", True, f"{settings.model}: not probed (no --api-base; litellm picks the endpoint)")
    import httpx

    try:
        answer = httpx.get(f"{base}/models", timeout=MODEL_PROBE_TIMEOUT_S, follow_redirects=True)
    except httpx.HTTPError as e:
        return Check("model reachable", False, f"{settings.model} at {base}: {type(e).__name__}: {e}")
    return Check("model reachable", True, f"{settings.model} at {base}: HTTP {answer.status_code}")


def versions() -> dict[str, str]:
    found = {"python": f"{platform.python_version()} ({sys.executable})", "sqlite": SQLITE_VERSION}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)  # metadata only: importing litellm would cost seconds
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def report(settings: Settings) -> dict[str, Any]:
    checks = run_checks(settings)
    return {
        "ok": all(c.ok for c in checks),
        "checks": [asdict(c) for c in checks],
        "versions": versions(),
        "settings": [{"name": n, "value": v, "source": s} for n, v, s in settings.shown()],
        "config_file": str(settings.config_file) if settings.config_file else None,
    }


def render(data: dict[str, Any]) -> str:
    lines = [f"{'ok  ' if c['ok'] else 'FAIL'} {c['name']}: {c['detail']}" for c in data["checks"]]
    lines.append("")
    lines.append("versions: " + ", ".join(f"{k} {v}" for k, v in data["versions"].items()))
    lines.append("")
    lines.append(f"settings (flags > env > file > defaults; config file: {data['config_file'] or 'none'}):")
    width = max(len(s["name"]) for s in data["settings"])
    for s in data["settings"]:
        lines.append(f"  {s['name']:<{width}}  {s['value'] or '-'}  [{s['source']}]")
    return "\n".join(lines)


__all__ = ["Check", "list_users", "probe_model", "render", "report", "root_writable", "run_checks"]

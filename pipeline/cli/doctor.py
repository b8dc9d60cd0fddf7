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

from pipeline._util.paths import root_writable
from pipeline.errors import StoreUnreachable
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
    fix: str | None = None  # what to do about a failed check
    skipped: bool = False  # not run: what it needs failed (ok is False: the store is not known to be fine)


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


def run_checks(settings: Settings) -> list[Check]:
    """Every check, whatever the others found (a store that is down still gets the model checked)."""
    checks = _root_checks(settings)
    checks += _postgres_checks(settings.store) if settings.store else _database_checks(settings.root)
    checks += _model_checks(settings)
    return checks


def _root_checks(settings: Settings) -> list[Check]:
    root = settings.root
    if settings.store:
        return [Check("root", True, f"{root}: holds memroute.toml only (memory is in the PostgreSQL store)")]
    if root.exists() and not root.is_dir():
        return [Check("root", False, f"{root} is not a directory",
                      fix="point --root (or MEMROUTE_HOME) at a folder, or move that file away")]
    if not root_writable(root):
        return [Check("root", False, f"{root}: not writable by this user (reading commands work, writing ones fail)",
                      fix=f"give this user write access to {root}, or choose another --root / MEMROUTE_HOME")]
    return [Check("root", True, f"{root} ({'exists' if root.is_dir() else 'not created yet'}), writable")]


def _postgres_checks(url: str) -> list[Check]:
    """The PostgreSQL store: reachable, schema, pg_trgm, queue and failed turns (no password shown)."""
    from pipeline.store.postgres import open_postgres, shown_url
    from pipeline.store.postgres.schema import MIGRATIONS as PG_MIGRATIONS

    where = shown_url(url)
    unreached = "not checked: the store cannot be reached"

    def skipped(name: str) -> Check:
        return Check(name, False, unreached, skipped=True)

    try:
        store, _ = open_postgres(url, read_only=True)
    except ImportError:
        return [Check("store", False, f"{where}: psycopg is not installed", fix="pip install 'memroute[postgres]'"),
                skipped("migrations"), skipped("PostgreSQL extensions")]
    try:
        with store:
            store.quick_check()  # connects: StoreUnreachable within seconds when the server is down
            exists = store.exists()
            applied = store.applied_migrations() if exists else []
            extension = store.db.one(
                "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS installed, "
                "EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') AS available")
            status = store.hook_queue_status() if exists else None
            failed = len(store.failed_turns()) if exists else 0
    except Exception as e:  # down, refused, bad credentials: one line, and what to do
        detail = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return [Check("store", False, detail if isinstance(e, StoreUnreachable) else f"{where}: {detail}",
                      fix="start PostgreSQL there, or correct --store / MEMROUTE_STORE / memroute.toml's store"),
                skipped("migrations"), skipped("PostgreSQL extensions")]
    checks = [Check("store", True, f"{where}: reachable")]
    pending = [name for name, _ in PG_MIGRATIONS if name not in applied]
    if not exists:
        checks.append(Check("migrations", True, "no memroute schema yet: the first write creates it"))
    else:
        checks.append(Check("migrations", True, f"{len(applied)} applied" + (
            f"; {len(pending)} pending (the next write applies them)" if pending else "")))
    installed, available = bool(extension and extension["installed"]), bool(extension and extension["available"])
    checks.append(Check(
        "PostgreSQL extensions", installed or available,
        "pg_trgm installed" if installed else "pg_trgm available (the first write creates it)" if available
        else "pg_trgm is not available on this server (recall's index needs it)",
        fix=None if installed or available else "install PostgreSQL's contrib package on the server "
                                                "(Debian: apt-get install postgresql-contrib)"))
    checks += _queue_checks(status, failed) if status is not None else []
    return checks


def _queue_checks(status: dict[str, Any], failed: int) -> list[Check]:
    return [
        Check("hook queue", status["parked"] == 0,
              f"queued {status['queued']}, running {status['running']}, failed {status['failed']}, "
              f"parked {status['parked']}", fix="run `memroute retry` (parked turns run again)" if status["parked"] else None),
        Check("failed turns", failed == 0, f"{failed} waiting for a retry" if failed else "none",
              fix="see `memroute status` for the last error, then `memroute retry`" if failed else None),
    ]


def _database_checks(root: Path) -> list[Check]:
    from pipeline.hook.admin import hook_status
    from pipeline.store import Store

    path = root / DB_NAME
    if not path.exists():
        return [Check("store", True, f"{path} not created yet (the first write creates it)"),
                Check("migrations", True, "none yet: the first write applies them")]
    try:
        with Store(root, read_only=True) as store:
            result = store.quick_check()
            applied = store.applied_migrations()
            failed = len(store.failed_turns())
    except StoreError as e:
        return [Check("store", False, f"{path}: {e}",
                      fix=f"restore {path} from a backup, or move it away to start an empty store")]
    missing = [name for name, _ in MIGRATIONS if name not in applied]
    checks = [
        Check("store", result == "ok", f"{path}: integrity {result}",
              fix=None if result == "ok" else f"restore {path} from a backup (sqlite3 .recover can save what is left)"),
        Check("migrations", True, f"{len(applied)} applied"
              + (f"; {len(missing)} pending (the next write applies them)" if missing else "")),
    ]
    return checks + _queue_checks(hook_status(root), failed)


def _model_checks(settings: Settings) -> list[Check]:
    if settings.engine_name == "offline":
        return [Check("model", True, "offline engine: no model, no key, no network")]
    if not settings.model:
        return [Check("model", False, f"the {settings.engine_name} engine needs a model",
                      fix="set --model (or MEMROUTE_MODEL), e.g. openai/gpt-4o-mini")]
    return [api_key_check(settings), probe_model(settings)]


def api_key_check(settings: Settings) -> Check:
    """Whether the model's provider key is set (never its value)."""
    model = settings.model or ""
    if model.startswith("openai/"):
        if os.environ.get("OPENAI_API_KEY"):
            return Check("API key", True, "OPENAI_API_KEY is set")
        if settings.api_base:
            return Check("API key", True, f"no OPENAI_API_KEY; {settings.api_base} may not need one")
        return Check("API key", False, f"{model} needs OPENAI_API_KEY", fix="export OPENAI_API_KEY=...")
    try:
        import litellm  # noqa: F401 - only doctor and non-OpenAI models pay for this import
    except ImportError:
        return Check("API key", False, f"{model} goes through litellm, which is not installed",
                     fix="pip install 'memroute[litellm]' (or use an openai/ model)")
    from pipeline.engines.llm.pricing import _litellm

    missing = _litellm().validate_environment(model=model).get("missing_keys") or []
    if missing and not settings.api_base:
        return Check("API key", False, f"{model} needs {', '.join(missing)}", fix=f"export {missing[0]}=...")
    return Check("API key", True, f"{model}: the provider's key is set" if not missing else
                 f"{model}: no provider key; {settings.api_base} may not need one")


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
        return Check("model endpoint", True, f"{settings.model}: not probed (no --api-base; litellm picks the endpoint)")
    import httpx

    try:
        answer = httpx.get(f"{base}/models", timeout=MODEL_PROBE_TIMEOUT_S, follow_redirects=True)
    except httpx.HTTPError as e:
        return Check("model endpoint", False, f"{settings.model} at {base}: {type(e).__name__}: {e}",
                     fix="start the model server, or correct --api-base / MEMROUTE_API_BASE")
    return Check("model endpoint", True, f"{settings.model} at {base}: HTTP {answer.status_code}")


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
    lines = []
    for c in data["checks"]:
        mark = "[ok]  " if c["ok"] else "[skip]" if c.get("skipped") else "[FAIL]"
        lines.append(f"{mark} {c['name']}: {c['detail']}")
        if c.get("fix"):
            lines.append(f"       fix: {c['fix']}")
    failed = sum(not c["ok"] and not c.get("skipped") for c in data["checks"])
    lines.append(f"{failed} check(s) failed" if failed else "every check passed")
    lines.append("")
    lines.append("versions: " + ", ".join(f"{k} {v}" for k, v in data["versions"].items()))
    lines.append("")
    lines.append(f"settings (flags > env > file > defaults; config file: {data['config_file'] or 'none'}):")
    width = max(len(s["name"]) for s in data["settings"])
    for s in data["settings"]:
        lines.append(f"  {s['name']:<{width}}  {s['value'] or '-'}  [{s['source']}]")
    return "\n".join(lines)


__all__ = ["Check", "list_users", "probe_model", "render", "report", "root_writable", "run_checks"]

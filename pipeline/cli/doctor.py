"""`memroute doctor`: what a bug report needs, read without writing anything."""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import asdict, dataclass
from importlib import metadata
from typing import Any

from pipeline.settings import Settings
from pipeline.store import SQLITE_VERSION

PACKAGES = ("memroute", "pydantic", "litellm", "instructor", "httpx", "aiohttp", "rich")
MODEL_PROBE_TIMEOUT_S = 5.0


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


# ---- doctor ---------------------------------------------------------------------------------


def run_checks(settings: Settings) -> list[Check]:
    """The store where the settings point (the root or --store's database), then the model."""
    checks = [Check(name, ok, detail) for name, ok, detail in settings.location.checks()]
    if settings.model and settings.engine_name != "offline":
        checks.append(probe_model(settings))
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


__all__ = ["Check", "probe_model", "render", "report", "run_checks"]

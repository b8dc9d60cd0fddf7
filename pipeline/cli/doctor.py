"""`memroute doctor`: what a bug report needs, read without writing anything."""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import asdict
from importlib import metadata
from typing import Any

from pipeline.settings import Settings
from pipeline.store import SQLITE_VERSION
from pipeline.store.location import Check, shown_url

PACKAGES = ("memroute", "pydantic", "litellm", "instructor", "httpx", "aiohttp", "rich")
MODEL_PROBE_TIMEOUT_S = 5.0


# ---- doctor ---------------------------------------------------------------------------------


def run_checks(settings: Settings) -> list[Check]:
    """Every check, whatever the others found (a store that is down still gets the model checked): the
    place where memory is kept and its store (store/location.py), then the model."""
    return settings.location.checks() + _model_checks(settings)


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
        from pipeline.engines.llm.openai_http import base_url, on_this_machine

        base = base_url(settings.api_base)
        if os.environ.get("OPENAI_API_KEY"):
            return Check("API key", True, "OPENAI_API_KEY is set")
        if on_this_machine(base):
            return Check("API key", True,
                         f"no OPENAI_API_KEY: none is needed for a server on this machine ({shown_url(base)})")
        return Check("API key", False, f"{model} needs OPENAI_API_KEY", fix="export OPENAI_API_KEY=...")
    try:
        import litellm  # noqa: F401 - only doctor and non-OpenAI models pay for this import
    except ImportError:
        return Check("API key", False, f"{model} goes through litellm, which is not installed",
                     fix="pip install 'memroute[litellm]' (or use an openai/ model)")
    from pipeline.engines.llm.pricing import load_litellm

    missing = load_litellm().validate_environment(model=model).get("missing_keys") or []
    if missing and not settings.api_base:
        return Check("API key", False, f"{model} needs {', '.join(missing)}", fix=f"export {missing[0]}=...")
    return Check("API key", True, f"{model}: the provider's key is set" if not missing else
                 f"{model}: no provider key; {shown_url(settings.api_base or '')} may not need one")


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
        return Check("model endpoint", False, shown_url(f"{settings.model} at {base}: {type(e).__name__}: {e}"),
                     fix="start the model server, or correct --api-base / MEMROUTE_API_BASE")
    return Check("model endpoint", True, f"{settings.model} at {shown_url(base)}: HTTP {answer.status_code}")


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


__all__ = ["Check", "probe_model", "render", "report", "run_checks"]

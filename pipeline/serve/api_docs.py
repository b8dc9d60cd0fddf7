"""GET /docs: the API reference as one self-contained HTML page, rendered on the server from the
app's own OpenAPI schema. No script, no stylesheet or font from a CDN: it renders offline and
behind a strict proxy (FastAPI's Swagger UI loads its assets from a CDN, so it is switched off).
The machine-readable schema stays at /openapi.json."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'"
STYLE = """
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:980px;padding:1rem 1.5rem;color:#1b1f24}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #d0d7de;padding-bottom:.3rem;margin-top:2rem}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:#f6f8fa;border-radius:4px}
code{padding:.1rem .3rem}pre{padding:.6rem;overflow:auto}
.op{border:1px solid #d0d7de;border-radius:6px;margin:.8rem 0;padding:.2rem .9rem .6rem}
.m{display:inline-block;min-width:4.2rem;font-weight:700;font-family:ui-monospace,monospace}
.GET{color:#0969da}.POST{color:#1a7f37}.PUT{color:#9a6700}.DELETE{color:#cf222e}
table{border-collapse:collapse;width:100%;margin:.3rem 0}td,th{border-top:1px solid #eaeef2;padding:.25rem .4rem;text-align:left;vertical-align:top}
th{font-weight:600;color:#57606a}.muted{color:#57606a}
"""


def _type(s: dict[str, Any]) -> str:
    if "$ref" in s:
        name = str(s["$ref"]).rsplit("/", 1)[-1]
        return f'<a href="#schema-{escape(name)}">{escape(name)}</a>'
    if "anyOf" in s:
        return " | ".join(_type(x) for x in s["anyOf"])
    if s.get("type") == "array":
        return f"{_type(s.get('items', {}))}[]"
    if "enum" in s:
        return " | ".join(f"<code>{escape(json.dumps(v))}</code>" for v in s["enum"])
    return escape(str(s.get("type", "any")))


def render(schema: dict[str, Any]) -> str:
    info = schema.get("info", {})
    out = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        '<meta name=viewport content="width=device-width,initial-scale=1">',
        f"<title>{escape(info.get('title', 'API'))} API</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(info.get('title', 'API'))} API <span class=muted>{escape(str(info.get('version', '')))}</span></h1>",
        f"<p>{escape(info.get('description', ''))}</p>",
        '<p class=muted>Requests with a token send <code>Authorization: Bearer TOKEN</code>. '
        'The machine-readable schema: <a href="/openapi.json">/openapi.json</a>.</p>',
        "<h2>Endpoints</h2>",
    ]
    for path, ops in schema.get("paths", {}).items():
        for method, op in ops.items():
            m = method.upper()
            out.append(f'<div class=op id="{escape(op.get("operationId", ""))}"><h3><span class="m {m}">{m}</span> '
                       f"<code>{escape(path)}</code></h3>")
            if op.get("summary"):
                out.append(f"<p>{escape(op['summary'])}</p>")
            if op.get("description") and op.get("description") != op.get("summary"):
                out.append(f"<p class=muted>{escape(op['description'])}</p>")
            params = op.get("parameters", [])
            if params:
                out.append("<table><tr><th>parameter</th><th>in</th><th>type</th><th>description</th></tr>")
                for p in params:
                    req = "" if p.get("required") else " <span class=muted>(optional)</span>"
                    out.append(f"<tr><td><code>{escape(p['name'])}</code>{req}</td><td>{escape(p.get('in', ''))}</td>"
                               f"<td>{_type(p.get('schema', {}))}</td><td>{escape(p.get('description', ''))}</td></tr>")
                out.append("</table>")
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            if body:
                out.append(f"<p>JSON body: {_type(body)}</p>")
            answers = []
            for code, r in op.get("responses", {}).items():
                s = r.get("content", {}).get("application/json", {}).get("schema")
                answers.append(f"<code>{escape(code)}</code> {_type(s) if s else escape(r.get('description', ''))}")
            out.append("<p class=muted>answers: " + "; ".join(answers) + "</p></div>")
    out.append("<h2>Schemas</h2>")
    for name, s in schema.get("components", {}).get("schemas", {}).items():
        out.append(f'<div class=op id="schema-{escape(name)}"><h3>{escape(name)}</h3>')
        if s.get("description"):
            out.append(f"<p>{escape(s['description'])}</p>")
        props = s.get("properties", {})
        if props:
            out.append("<table><tr><th>field</th><th>type</th><th>description</th></tr>")
            for k, v in props.items():
                req = "" if k in s.get("required", []) else " <span class=muted>(optional)</span>"
                out.append(f"<tr><td><code>{escape(k)}</code>{req}</td><td>{_type(v)}</td>"
                           f"<td>{escape(v.get('description', ''))}</td></tr>")
            out.append("</table>")
        out.append("</div>")
    out.append("</body></html>")
    return "".join(out)


def mount(app: FastAPI) -> None:
    """GET /docs (and /redoc, the same page), rendered once from app.openapi()."""
    page: list[str] = []

    async def docs() -> HTMLResponse:
        if not page:
            page.append(render(app.openapi()))
        return HTMLResponse(page[0], headers={"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff"})

    for path in ("/docs", "/redoc"):
        app.add_api_route(path, docs, methods=["GET"], include_in_schema=False)

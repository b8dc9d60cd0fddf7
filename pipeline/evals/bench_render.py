"""The write benchmark's report for people: a terminal table and one self-contained HTML page
(inline CSS, no script), systems side by side, overall and per language. Every figure on the
page is a link: clicking it shows the turns behind it, with what the system stored from each."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pipeline.evals.render import CSS, _e, _messages_html, pct


def _n(x: float | None, fmt: str = "{:,.1f}") -> str:
    return "—" if x is None else fmt.format(x)


def _s(x: float | None) -> str:
    return "—" if x is None else (f"{1000 * x:.0f} ms" if x < 1 else f"{x:.1f} s")


# (row name, the figure from a metrics block, the examples key its link shows, or None)
Row = tuple[str, Callable[[dict[str, Any]], str], "str | None"]
ROWS: list[Row] = [
    ("turns", lambda m: str(m["turns"]), None),
    ("failed turns", lambda m: str(m["failed"]), "failed"),
    ("items stored", lambda m: f"{m['items_made']} ({_n(m['items_per_turn'], '{:.2f}')} per turn)", "items_made"),
    ("false-write rate (turns the label skips)", lambda m: f"{pct(m['false_write_rate'])} ({m['false_writes']}/{m['skip_turns']})", "false_writes"),
    ("turns the label writes that stored", lambda m: f"{m['write_turns_stored']}/{m['write_turns']}", "write_turns_stored"),
    ("USER-fact recall", lambda m: f"{pct(m['user_fact_recall'])} ({m['user_facts_found']}/{m['user_facts']})", "user_facts"),
    ("items a curator would reject", lambda m: f"{m['rejected_items']} ({pct(m['rejected_share'])} of items)", "rejected_items"),
    ("leaks (never_written found)", lambda m: f"{m['leaks']} in {m['leak_turns']} turn(s)", "leaks"),
    ("chat calls per turn", lambda m: _n(m["calls_per_turn"], "{:.2f}"), None),
    ("prompt tokens per turn", lambda m: _n(m["prompt_tokens_per_turn"], "{:,.0f}"), None),
    ("completion tokens per turn", lambda m: _n(m["completion_tokens_per_turn"], "{:,.0f}"), None),
    ("embedding calls per turn", lambda m: _n(m["embed_calls_per_turn"], "{:.2f}"), None),
    ("seconds per turn (p50 / p95)", lambda m: f"{_s(m['seconds_per_turn'])} ({_s(m['seconds_p50'])} / {_s(m['seconds_p95'])})", None),
]


def _scopes(report: dict[str, Any]) -> list[str]:
    return ["all", *sorted({lang for s in report["systems"] for lang in s["by_lang"]})]


def _metrics(system: dict[str, Any], scope: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = system["totals"] if scope == "all" else system["by_lang"].get(scope)
    return found


def print_bench_table(report: dict[str, Any], console: Console) -> None:
    systems = report["systems"]
    for scope in _scopes(report):
        title = "write benchmark" + ("" if scope == "all" else f" · {scope}")
        table = Table(title=escape(title), title_justify="left")
        table.add_column("metric", style="bold")
        for s in systems:
            table.add_column(escape(s["label"]), justify="right")
        for name, figure, _ in ROWS:
            cells = []
            for s in systems:
                m = _metrics(s, scope)
                cells.append("—" if m is None else figure(m))
            table.add_row(escape(name), *map(escape, cells))
        console.print(table)


# ---------------------------------------------------------------------------------------------
# HTML

BENCH_CSS = """
.examples { display: none; } .examples:target { display: block; outline: 2px solid #3b6fd8; }
a.fig { color: inherit; text-decoration: underline dotted; } a.fig:hover { color: #3b6fd8; }
.item { margin: 2px 0; } .item .where { color: var(--muted); font-size: 12px; margin-right: 6px; }
.turn { border-top: 1px solid var(--line); padding: 6px 0; } .found { color: var(--ok); } .missed { color: var(--bad); }
.notes { color: var(--muted); font-size: 13px; margin: 2px 0 8px 18px; }
"""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text)


def _anchor(i: int, key: str, scope: str) -> str:
    return f"x-{i}-{_slug(key)}-{_slug(scope)}"


def _items_html(items: list[dict[str, Any]]) -> str:
    if not items:
        return '<p class="meta">nothing stored</p>'
    return "".join(
        f'<div class="item"><span class="where">{_e(it.get("where"))}</span>{_e(it["text"])}</div>' for it in items
    )


def _turn_html(t: dict[str, Any], extra: str = "") -> str:
    route = t["expect"].get("route") or "—"
    fail = f'<p class="missed">failed: {_e(t["error"])}</p>' if t.get("error") else ""
    leaks = "".join(f'<p class="missed">leak: {_e(x["needle"])} in {_e(x["where"])}</p>' for x in t.get("leaks", []))
    return (
        f'<div class="turn" data-case="{_e(t["id"])}"><b>{_e(t["id"])}</b> <span class="tag">{_e(t["lang"])}</span> '
        f'<span class="tag">label: {_e(route)}</span>{extra}{fail}{leaks}'
        f'{_messages_html(t["messages"])}<h4>stored by this turn</h4>{_items_html(t["made"])}</div>'
    )


def _examples_html(i: int, system: dict[str, Any], key: str, scope: str, m: dict[str, Any]) -> str:
    turns = {t["id"]: t for t in system["turns"]}
    parts: list[str] = []
    if key == "user_facts":
        for kind, css in (("user_facts_found", "found"), ("user_facts_missed", "missed")):
            for case_id, needle in m["examples"][kind]:
                word = "found" if css == "found" else "missed"
                parts.append(_turn_html(turns[case_id], f' <span class="{css}">{word}: {_e(needle)}</span>'))
    else:
        parts = [_turn_html(turns[case_id]) for case_id in m["examples"].get(key, [])]
    body = "".join(parts) or '<p class="meta">no turn</p>'
    title = f"{system['label']} · {scope} · {key.replace('_', ' ')}: {len(parts)} turn(s)"
    return f'<section class="examples" id="{_anchor(i, key, scope)}"><h3>{_e(title)}</h3>{body}</section>'


def _table_html(report: dict[str, Any], scope: str) -> str:
    systems = report["systems"]
    head = "".join(f"<th>{_e(s['label'])}</th>" for s in systems)
    rows = []
    for name, figure, key in ROWS:
        cells = []
        for i, s in enumerate(systems):
            m = _metrics(s, scope)
            if m is None:
                cells.append("<td>—</td>")
            elif key is None:
                cells.append(f"<td>{_e(figure(m))}</td>")
            else:
                cells.append(f'<td><a class="fig" href="#{_anchor(i, key, scope)}">{_e(figure(m))}</a></td>')
        rows.append(f'<tr><th scope="row">{_e(name)}</th>{"".join(cells)}</tr>')
    title = "All turns" if scope == "all" else f"Language: {scope}"
    return (
        f'<section id="scope-{_slug(scope)}"><h2>{_e(title)}</h2><table class="bench" data-scope="{_e(scope)}">'
        f"<thead><tr><th>metric</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


def render_bench_html(report: dict[str, Any]) -> str:
    systems = report["systems"]
    suites = ", ".join(report.get("suites", []))
    turns = systems[0]["totals"]["turns"] if systems else 0
    notes = "".join(
        f"<li><b>{_e(s['label'])}</b>{''.join(f'<div class=notes>{_e(n)}</div>' for n in s['notes'])}</li>"
        for s in systems
    )
    stopped = "".join(
        f'<p class="missed">Stopped early: {_e(label)} did not run {len(ids)} turn(s).</p>'
        for label, ids in (report.get("not_run") or {}).items()
    )
    tables = "".join(_table_html(report, scope) for scope in _scopes(report))
    examples = "".join(
        _examples_html(i, s, key, scope, m)
        for i, s in enumerate(systems)
        for scope in _scopes(report)
        if (m := _metrics(s, scope)) is not None
        for _, _, key in ROWS
        if key is not None
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>memroute write benchmark · {_e(report.get('date', ''))}</title><style>{CSS}{BENCH_CSS}</style></head><body>"
        f'<header><h1>memroute write benchmark</h1><p class="meta">{_e(report.get("date", ""))} · {_e(suites)} · '
        f"{turns} turns · {len(systems)} system(s). Click a figure to see the turns behind it.</p>{stopped}</header>"
        f'<section id="systems"><h2>Systems</h2><ul>{notes}</ul></section>'
        f"{tables}<section id=\"examples\"><h2>Turns behind the figures</h2>"
        '<p class="meta">Click a figure above; its turns appear here.</p>'
        f"{examples}</section></body></html>\n"
    )


def write_bench_html(report: dict[str, Any], path: str | Path) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_bench_html(report), encoding="utf-8")

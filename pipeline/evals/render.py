"""Eval reports for people: a rich table on the terminal and one self-contained HTML page.

Both read the JSON report built by pipeline.evals.report (so a saved `--json` file can be rendered
again later). The HTML page has inline CSS only, no scripts and no external assets, so it can
be attached to a CI run or mailed; every piece of case text goes through html.escape.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pipeline.evals.cases import ROUTES

MAX_TERMINAL_FAILURES = 15


def pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None, fmt: str = "{:.3f}") -> str:
    return "—" if x is None else fmt.format(x)


def _cost(x: float | None) -> str:
    return "unknown" if x is None else f"${x:.4f}"


def _latency(x: float | None) -> str:
    return "—" if x is None else (f"{1000 * x:.0f} ms" if x < 1 else f"{x:.2f} s")


def _runs(report: dict[str, Any]) -> list[dict[str, Any]]:
    return list(report.get("runs") or [report])


def _langs(runs: Sequence[dict[str, Any]]) -> list[str]:
    return sorted({lang for run in runs for lang in run.get("by_lang", {})})


def summary_rows(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(metric, one value per run): shared by the terminal table and the HTML summary."""
    runs = _runs(report)

    def row(name: str, fn: Any) -> tuple[str, list[str]]:
        return name, [fn(r) for r in runs]

    rows = [
        row("cases", lambda r: str(r["cases"])),
        row("route accuracy", lambda r: f"{pct(r['route_accuracy'])} ({r['route_correct']}/{r['route_cases']})"),
        row("reason accuracy", lambda r: f"{pct(r['reason_accuracy'])} (of {r['reason_cases']})"),
        row("assertions passed", lambda r: f"{r['assertions_passed']}/{r['assertions_total']}"),
        row("leaks", lambda r: str(len(r["leaks"]))),
        row(
            "false blocks",
            lambda r: f"{pct(r.get('false_block_rate'))} ({len(r.get('false_blocks', []))}/{r.get('write_cases', 0)})",
        ),
        row(
            "USER.md precision",
            lambda r: f"{pct(r.get('user_md_precision'))} (of {r.get('user_md_writes', 0)} written)",
        ),
        row(
            "MEMORY.md precision",
            lambda r: f"{pct(r.get('memory_md_precision'))} (of {r.get('memory_md_writes', 0)} written)",
        ),
        row("write rate", lambda r: f"{pct(r.get('write_rate'))} (expected {pct(r.get('expected_write_rate'))})"),
        row("errors", lambda r: str(r.get("errors", 0))),
        row("failing cases", lambda r: str(len(r["failures"]))),
    ]
    for route in ROUTES:
        rows.append(
            row(
                f"F1 {route}",
                lambda r, route=route: f"{_num(r['by_route'][route]['f1'])} (n={r['by_route'][route]['support']})",
            )
        )
    rows += [
        row("calls", lambda r: str(r["calls"])),
        row("tokens in / out", lambda r: f"{r['input_tokens']:,} / {r['output_tokens']:,}"),
        row("cached tokens in", lambda r: f"{r.get('cached_tokens', 0):,}"),
        row("cost", lambda r: _cost(r["cost_usd"])),
        row("latency p50 / p95", lambda r: f"{_latency(r['latency_p50_s'])} / {_latency(r['latency_p95_s'])}"),
    ]
    return rows


def lang_rows(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    runs = _runs(report)
    out = []
    for lang in _langs(runs):
        cells = []
        for r in runs:
            counts = r.get("lang_cases", {}).get(lang)
            acc = r["by_lang"].get(lang)
            cells.append(f"{pct(acc)} ({counts['correct']}/{counts['cases']})" if counts else pct(acc))
        out.append((lang, cells))
    return out


def lang_write_rows(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Per language: USER.md precision and write rate (reports saved before these keys show —)."""
    runs = _runs(report)
    out = []
    for lang in _langs(runs):
        blocks = [r.get("lang_writes", {}).get(lang, {}) for r in runs]
        out.append((f"USER.md precision [{lang}]", [pct(b.get("user_md_precision")) for b in blocks]))
        out.append((f"write rate [{lang}]", [pct(b.get("write_rate")) for b in blocks]))
    return out


# ---------------------------------------------------------------------------------------------
# Terminal


def print_table(report: dict[str, Any], console: Console) -> None:
    runs = _runs(report)
    # Labels, suite names and case text may hold "[...]": escape them so rich prints them as is.
    suites = ", ".join(Path(f).name for f in report.get("suites", []))
    table = Table(title=escape(f"memroute eval · {suites}"), title_justify="left")
    table.add_column("metric", style="bold")
    for r in runs:
        table.add_column(escape(r["label"]), justify="right")
    for name, cells in summary_rows(report):
        table.add_row(name, *map(escape, cells))
    langs = lang_rows(report)
    if langs:
        table.add_section()
        for lang, cells in langs:
            table.add_row(escape(f"accuracy [{lang}]"), *map(escape, cells))
        for name, cells in lang_write_rows(report):
            table.add_row(escape(name), *map(escape, cells))
    console.print(table)
    for r in runs:
        failures = r["failures"]
        if not failures:
            continue
        shown = failures[:MAX_TERMINAL_FAILURES]
        console.print(f"[bold]{escape(r['label'])}[/]: {len(failures)} failing case(s)", highlight=False)
        for f in shown:
            first = f["problems"][0] if f["problems"] else "failed"
            console.print(f"  {f['id']}: {first}", markup=False, highlight=False)
        if len(failures) > len(shown):
            console.print(
                f"  … and {len(failures) - len(shown)} more (see --report / --json)", markup=False, highlight=False
            )


# ---------------------------------------------------------------------------------------------
# HTML

CSS = """
:root { --fg:#1d2330; --muted:#5b6478; --line:#dde2ea; --bg:#f7f8fb; --ok:#1f8a4c; --bad:#c0392b; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC",
       "Noto Sans Thai", sans-serif; color: var(--fg); background: var(--bg); margin: 0; padding: 24px 32px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 10px; }
h3 { font-size: 15px; margin: 18px 0 8px; }
.meta { color: var(--muted); margin: 0; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 4px 18px 16px; margin: 16px 0; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 10px; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
thead th { background: #eef1f6; }
.gate-ok { color: var(--ok); font-weight: 600; } .gate-bad { color: var(--bad); font-weight: 600; }
.heatmaps { display: flex; flex-wrap: wrap; gap: 28px; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: 4px; }
table.heatmap td.heat { width: 74px; text-align: center; border: 1px solid #fff; }
table.heatmap td.heat small { display: block; font-size: 11px; opacity: .85; }
table.heatmap th.axis { color: var(--muted); font-weight: 400; font-size: 12px; }
.failure { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; background: #fcfcfd; }
.failure summary { cursor: pointer; padding: 6px 10px; }
.failure .body { padding: 4px 12px 12px; }
.failure .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 12px; }
.problems { color: var(--bad); margin: 6px 0; padding-left: 18px; }
pre { background: #f3f5f9; border: 1px solid var(--line); border-radius: 4px; padding: 8px; margin: 4px 0;
      white-space: pre-wrap; word-break: break-word; font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; }
.msg { margin: 2px 0; } .role { display: inline-block; min-width: 68px; color: var(--muted); font-size: 12px; }
.tag { display: inline-block; padding: 0 6px; border-radius: 4px; background: #eef1f6; font-size: 12px; }
table.decisions td, table.decisions th { text-align: left; font-size: 12px; }
#leak-table td, #leak-table th { text-align: left; }
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _heat_style(share: float, diagonal: bool) -> str:
    # Right answers in green, confusions in red; opacity carries the share of the expected row.
    rgb = "31,138,76" if diagonal else "192,57,43"
    alpha = 0.08 + 0.92 * share if share > 0 else 0.0
    fg = "#fff" if alpha > 0.55 else "#1d2330"
    return f"background: rgba({rgb},{alpha:.2f}); color: {fg};"


def _summary_html(report: dict[str, Any], min_accuracy: float | None) -> str:
    runs = _runs(report)
    head = "".join(f"<th>{_e(r['label'])}</th>" for r in runs)
    body = []
    for name, cells in summary_rows(report):
        tds = []
        for r, cell in zip(runs, cells, strict=True):
            cls = ""
            if name == "leaks":
                cls = "gate-bad" if r["leaks"] else "gate-ok"
            elif name == "route accuracy" and min_accuracy is not None and r["route_accuracy"] is not None:
                cls = "gate-ok" if r["route_accuracy"] >= min_accuracy else "gate-bad"
            tds.append(f'<td class="{cls}">{_e(cell)}</td>' if cls else f"<td>{_e(cell)}</td>")
        body.append(f'<tr><th scope="row">{_e(name)}</th>{"".join(tds)}</tr>')
    return (
        '<section id="summary"><h2>Summary</h2>'
        f'<table id="summary-table" class="summary"><thead><tr><th>metric</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></section>"
    )


def _heatmap_html(run: dict[str, Any], run_index: int, predicted_cols: Sequence[str]) -> str:
    confusion: dict[str, dict[str, int]] = run["confusion"]
    expected_rows = [r for r in ROUTES if r in confusion] + sorted(set(confusion) - set(ROUTES))
    head = "".join(f"<th>{_e(c)}</th>" for c in predicted_cols)
    rows = []
    for exp in expected_rows:
        counts = confusion.get(exp, {})
        total = sum(counts.values())
        cells = []
        for pred in predicted_cols:
            n = counts.get(pred, 0)
            share = n / total if total else 0.0
            style = _heat_style(share, exp == pred)
            title = f"expected {exp}, predicted {pred}: {n} of {total}"
            cells.append(
                f'<td class="heat" data-expected="{_e(exp)}" data-predicted="{_e(pred)}" '
                f'data-share="{share:.3f}" style="{style}" title="{_e(title)}">{n}<small>{pct(share) if n else "&nbsp;"}</small></td>'
            )
        rows.append(f'<tr><th scope="row">{_e(exp)}</th>{"".join(cells)}<td>{total}</td></tr>')
    return (
        f"<figure><figcaption>{_e(run['label'])}</figcaption>"
        f'<table class="heatmap" data-run="{run_index}"><thead>'
        f'<tr><th class="axis">expected ↓ / predicted →</th>{head}<th class="axis">cases</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></figure>"
    )


def _confusion_html(report: dict[str, Any]) -> str:
    runs = _runs(report)
    extra = sorted({p for r in runs for row in r["confusion"].values() for p in row} - set(ROUTES))
    cols = [*ROUTES, *extra]
    maps = "".join(_heatmap_html(r, i, cols) for i, r in enumerate(runs))
    note = '<p class="meta">Each cell: cases, and their share of the expected route\'s row.</p>'
    return f'<section id="confusion"><h2>Confusion matrix</h2>{note}<div class="heatmaps">{maps}</div></section>'


def _by_route_html(report: dict[str, Any]) -> str:
    runs = _runs(report)
    head = "".join(f'<th colspan="3">{_e(r["label"])}</th>' for r in runs)
    sub = "<th>precision</th><th>recall</th><th>F1</th>" * len(runs)
    rows = []
    for route in ROUTES:
        cells = []
        for r in runs:
            m = r["by_route"][route]
            cells.append(f"<td>{_num(m['precision'])}</td><td>{_num(m['recall'])}</td><td>{_num(m['f1'])}</td>")
        support = max((r["by_route"][route]["support"] for r in runs), default=0)
        rows.append(f'<tr><th scope="row">{_e(route)} <span class="tag">n={support}</span></th>{"".join(cells)}</tr>')
    return (
        '<section id="by-route"><h2>Per route</h2><table id="route-table">'
        f"<thead><tr><th></th>{head}</tr><tr><th>route</th>{sub}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></section>"
    )


def _lang_html(report: dict[str, Any]) -> str:
    runs = _runs(report)
    head = "".join(f"<th>{_e(r['label'])}</th>" for r in runs)
    rows = "".join(
        f'<tr><th scope="row">{_e(lang)}</th>{"".join(f"<td>{_e(c)}</td>" for c in cells)}</tr>'
        for lang, cells in lang_rows(report)
    )
    write_rows = "".join(
        f'<tr><th scope="row">{_e(name)}</th>{"".join(f"<td>{_e(c)}</td>" for c in cells)}</tr>'
        for name, cells in lang_write_rows(report)
    )
    return (
        '<section id="by-lang"><h2>Per language</h2>'
        f'<table id="lang-table"><thead><tr><th>language</th>{head}</tr></thead><tbody>{rows}</tbody></table>'
        f'<table id="lang-writes-table"><thead><tr><th>metric</th>{head}</tr></thead><tbody>{write_rows}</tbody></table>'
        "</section>"
    )


def _visible(text: str) -> str:
    """Invisible characters (zero-width, controls) shown as escapes, so the cell is never blank."""
    return text if text.isprintable() else ascii(text)


def _leaks_html(report: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>{_e(r['label'])}</td><td>{_e(leak['id'])}</td><td>{_e(_visible(leak['needle']))}</td>"
        f"<td>{_e(leak['where'])}</td></tr>"
        for r in _runs(report)
        for leak in r["leaks"]
    )
    if not rows:
        return '<section id="leaks"><h2>Leaks</h2><p class="gate-ok">None: no never_written string was found anywhere.</p></section>'
    return (
        '<section id="leaks"><h2>Leaks</h2><table id="leak-table"><thead><tr><th>run</th><th>case</th>'
        f"<th>string</th><th>found in</th></tr></thead><tbody>{rows}</tbody></table></section>"
    )


def _messages_html(messages: Sequence[dict[str, Any]]) -> str:
    return "".join(
        f'<div class="msg"><span class="role">{_e(m.get("role"))}</span>{_e(m.get("content"))}</div>' for m in messages
    )


def _decisions_html(decisions: Sequence[dict[str, Any]]) -> str:
    if not decisions:
        return '<p class="meta">no decisions</p>'
    cols = ("quote", "route", "op", "removal", "reason", "section", "key", "value", "entry", "date", "rule", "outcome",
            "detail")

    def cell(d: dict[str, Any], c: str) -> Any:
        return None if c == "removal" and d.get("op") != "remove" else d.get(c)  # a kind of removal, nothing else

    head = "".join(f"<th>{c}</th>" for c in cols)
    rows = "".join("<tr>" + "".join(f"<td>{_e(cell(d, c))}</td>" for c in cols) + "</tr>" for d in decisions)
    return f'<table class="decisions"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


# Few failures are shown open; many are collapsed to one summary line each (no script needed).
OPEN_FAILURES_UP_TO = 20


def _failure_html(f: dict[str, Any], run_index: int, *, open_: bool = False) -> str:
    problems = "".join(f"<li>{_e(p)}</li>" for p in f["problems"])
    first = f["problems"][0] if f["problems"] else "failed"
    route = f"{f.get('expected_route') or '—'} → {f.get('predicted_route') or '—'}"
    inp = f["input"]
    history = f"<h4>history</h4>{_messages_html(inp['history'])}" if inp.get("history") else ""
    initial = f.get("initial") or {}
    initial_html = "".join(
        f"<h4>initial {name}</h4><pre>{_e(initial.get(key))}</pre>"
        for name, key in (("USER.md", "user_md"), ("MEMORY.md", "memory_md"))
        if initial.get(key) is not None
    )
    actual = f["actual"]
    where = f"{_e(f['file'])}:{_e(f.get('line'))} · " if f.get("file") else ""
    return (
        f'<article class="failure" id="fail-{run_index}-{_e(f["id"])}" data-case="{_e(f["id"])}">'
        f'<details{" open" if open_ else ""}><summary><b>{_e(f["id"])}</b> <span class="tag">{_e(f.get("lang"))}</span> '
        f'<span class="tag">{_e(route)}</span> {_e(first)}</summary><div class="body">'
        f'<ul class="problems">{problems}</ul>'
        f'<p class="meta">{where}timestamp {_e(inp.get("timestamp") or "none")}</p>'
        '<div class="grid">'
        f'<div class="input"><h4>input</h4>{history}<h4>messages</h4>{_messages_html(inp["messages"])}{initial_html}</div>'
        f'<div class="expected"><h4>expected</h4><pre>{_e(json.dumps(f["expect"], ensure_ascii=False, indent=2))}</pre></div>'
        f'<div class="actual"><h4>USER.md after the turn</h4><pre class="user-md">{_e(actual["user_md"]) or "(empty)"}</pre>'
        f'<h4>MEMORY.md after the turn</h4><pre class="memory-md">{_e(actual["memory_md"]) or "(empty)"}</pre></div>'
        f"</div><h4>decisions</h4>{_decisions_html(f.get('decisions') or [])}</div></details></article>"
    )


def _failures_html(report: dict[str, Any]) -> str:
    parts = ['<section id="failures"><h2>Failing cases</h2>']
    open_ = sum(len(r["failures"]) for r in _runs(report)) <= OPEN_FAILURES_UP_TO
    for i, r in enumerate(_runs(report)):
        failures = r["failures"]
        parts.append(f'<h3>{_e(r["label"])} <span class="tag">{len(failures)} failing</span></h3>')
        if not failures:
            parts.append('<p class="gate-ok">Every case passed.</p>')
        parts.extend(_failure_html(f, i, open_=open_) for f in failures)
    parts.append("</section>")
    return "".join(parts)


def render_html(report: dict[str, Any], min_accuracy: float | None = None) -> str:
    """The whole report as one self-contained page (inline CSS, no scripts, no external assets)."""
    runs = _runs(report)
    suites = ", ".join(report.get("suites", []))
    meta = (
        f"{_e(report.get('date', ''))} · {_e(suites)} · {runs[0]['cases'] if runs else 0} cases · "
        f"{len(runs)} engine/model run(s): {_e(', '.join(r['label'] for r in runs))}"
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>memroute eval · {_e(report.get('date', ''))}</title><style>{CSS}</style></head><body>"
        f'<header><h1>memroute eval</h1><p class="meta">{meta}</p></header>'
        f"{_summary_html(report, min_accuracy)}{_confusion_html(report)}{_by_route_html(report)}"
        f"{_lang_html(report)}{_leaks_html(report)}{_failures_html(report)}"
        "</body></html>\n"
    )


def write_html(report: dict[str, Any], path: str | Path, min_accuracy: float | None = None) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_html(report, min_accuracy), encoding="utf-8")

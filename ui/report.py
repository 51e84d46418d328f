"""Export: a self-contained HTML report of a view (figures work offline: plotly.js is inlined) and CSV."""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

import plotly.graph_objects as go

from ui.tables import cell_text

STYLE = (
    "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:1.5rem auto;"
    "padding:0 1rem;color:#1f2937;line-height:1.45}"
    "h1{font-size:1.6rem;line-height:1.25;margin:.2rem 0 .6rem}h2{font-size:1.2rem;margin:1.6rem 0 .5rem}"
    ".meta{color:#4b5563;font-size:.95rem}.meta a{word-break:break-all}"
    ".verdict{font-size:1.1rem;background:#eff6ff;border-left:4px solid #2563eb;padding:.8rem 1rem;margin:1rem 0}"
    ".verdict.success{background:#ecfdf5;border-color:#059669}.verdict.warning{background:#fffbeb;border-color:#d97706}"
    ".verdict.error{background:#fef2f2;border-color:#dc2626}"
    ".summary{font-size:1.05rem;margin:.4rem 0 1rem 1.2rem}.summary li{margin:.15rem 0}"
    ".figures{display:grid;grid-template-columns:repeat(auto-fit,minmax(9.5rem,1fr));gap:.6rem;margin:1rem 0}"
    ".figure{border:1px solid #e5e7eb;border-radius:.4rem;padding:.5rem .7rem}"
    ".figure .label{color:#4b5563;font-size:.85rem}.figure .value{font-size:1.35rem;font-weight:600}"
    ".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;max-width:100%}"
    "table{border-collapse:collapse;margin:.5rem 0;font-size:.92rem}"
    "td,th{border:1px solid #d1d5db;padding:.3rem .6rem;text-align:left;vertical-align:top;white-space:nowrap}"
    "td.long{white-space:normal;min-width:18rem}"
    "table.inputs th{white-space:nowrap;background:#f9fafb}"
    ".chart{width:100%;margin:1rem 0}"
    "@media (max-width:600px){body{margin:.8rem auto;padding:0 .6rem}h1{font-size:1.3rem}"
    ".figure .value{font-size:1.15rem}"  # a phone's half-width box holds "conversations" (tests/browser)
    "td,th{padding:.25rem .4rem}table.inputs th,table.inputs td{white-space:normal;min-width:0}}"
)


class StaticSvg(NamedTuple):
    """A figure as SVG markup from one of the dashboard's own builders (:func:`ui.memory_svg.memory_svg`, whose
    texts are escaped there): placed in the report as it is."""

    markup: str


def html_report(
    title: str,
    verdict: str,
    inputs: Mapping[str, str],
    figures: Sequence[go.Figure | StaticSvg],
    tables: Mapping[str, Sequence[Mapping[str, object]]] | None = None,
    when: datetime | None = None,
    headline: Sequence[tuple[str, str]] = (),
    link: str | None = None,
    tone: str | None = None,
    summary: Sequence[str] = (),
    sections: Sequence[tuple[str, Sequence[str]]] = (),
) -> str:
    """One HTML file a manager can forward: title, date, a link back to the live view, the verdict in its colour
    (``tone``: success, warning, error; neutral without), a short ``summary`` list, the headline figures, the
    inputs in words, ``sections`` (a heading and its points), figures (a :class:`StaticSvg`, drawn without a
    script: kilobytes; an interactive Plotly figure inlines plotly.js: megabytes) and tables. Text is escaped;
    wide tables scroll inside themselves on a phone instead of widening the page."""
    stamp = (when or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    tone_class = f" {tone}" if tone in ("success", "warning", "error") else ""
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p class='meta'>Headroom report, {html.escape(stamp)}."
        + (f" Live view: <a href='{html.escape(link, quote=True)}'>{html.escape(link)}</a>" if link else "")
        + "</p>",
        f"<p class='verdict{tone_class}'>{html.escape(verdict)}</p>",
    ]
    if summary:
        parts.append("<ul class='summary'>" + "".join(f"<li>{html.escape(s)}</li>" for s in summary) + "</ul>")
    if headline:
        cells = "".join(
            f"<div class='figure'><div class='label'>{html.escape(k)}</div>"
            f"<div class='value'>{html.escape(v)}</div></div>"
            for k, v in headline
        )
        parts.append(f"<div class='figures'>{cells}</div>")
    parts.append("<h2>Inputs</h2><div class='scroll'><table class='inputs'>")
    parts += [f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in inputs.items()]
    parts.append("</table></div>")
    for heading, points in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2><ul>")
        parts += [f"<li>{html.escape(p)}</li>" for p in points]
        parts.append("</ul>")
    config = {"displaylogo": False, "responsive": True}
    plotted = [shown for shown in figures if isinstance(shown, go.Figure)]
    parts += [f"<div class='chart'>{shown.markup}</div>" for shown in figures if isinstance(shown, StaticSvg)]
    for index, shown in enumerate(plotted):
        figure = go.Figure(shown).update_layout(template="plotly_white")  # the dashboard's theme is not here
        chart = figure.to_html(
            full_html=False, include_plotlyjs="inline" if index == 0 else False, config=config, default_width="100%"
        )
        parts.append(f"<div class='chart'>{chart}</div>")
    for name, rows in (tables or {}).items():
        parts.append(f"<h2>{html.escape(name)}</h2>")
        parts.append(_html_table(rows))
    parts.append("</body></html>")
    return "\n".join(parts)


def _cell(value: object) -> str:
    text = cell_text(value)
    return f"<td class='long'>{html.escape(text)}</td>" if len(text) > 48 else f"<td>{html.escape(text)}</td>"


def _html_table(rows: Sequence[Mapping[str, object]]) -> str:
    """A table for reading: one row as a column of name / value; several rows without the columns that are the
    same on every row (said once above the table; the CSV keeps them). Wide tables scroll sideways."""
    if not rows:
        return "<p>(empty)</p>"
    if len(rows) == 1:
        body = "".join(f"<tr><th>{html.escape(str(k))}</th>{_cell(v)}</tr>" for k, v in rows[0].items())
        return f"<div class='scroll'><table class='inputs'>{body}</table></div>"
    keys = list(rows[0])
    same = [k for k in keys if all(row.get(k) == rows[0][k] for row in rows)]
    varying = [k for k in keys if k not in same] or keys
    header = "".join(f"<th>{html.escape(str(k))}</th>" for k in varying)
    body = "".join("<tr>" + "".join(_cell(row.get(k)) for k in varying) + "</tr>" for row in rows)
    shared = [(k, cell_text(rows[0][k])) for k in same if k not in varying]
    common = "; ".join(f"{k}: {text}" for k, text in shared if text)  # an empty value says nothing
    note = f"<p class='meta'>Every row: {html.escape(common.rstrip('.'))}.</p>" if common else ""
    return f"{note}<div class='scroll'><table><tr>{header}</tr>{body}</table></div>"


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A cell a spreadsheet shows as text: text that starts like a formula (``= + - @``, a tab) gets a leading
    apostrophe (OWASP "CSV injection"); numbers stay numbers.

    >>> print(csv_cell('=HYPERLINK("http://evil.example")'), csv_cell(-3), csv_cell("-3 GiB"))
    '=HYPERLINK("http://evil.example") -3 '-3 GiB
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


PERCENT = re.compile(r"^[+-]?\d+(?:\.\d+)?%$")


def _as_number(text: str) -> int | float:
    value = float(text.rstrip("%"))
    return int(value) if value.is_integer() else value


def numeric_columns(rows: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    """``rows`` with every column of percentages written as text on a page (``'+17%'``) turned into numbers, the
    unit moved to the header (``headroom (%)``: 17), so a spreadsheet reads numbers, not apostrophe-guarded text.

    >>> numeric_columns([{"headroom": "+17%", "gpu": "H100"}, {"headroom": "-5.5%", "gpu": "L4"}])
    [{'headroom (%)': 17, 'gpu': 'H100'}, {'headroom (%)': -5.5, 'gpu': 'L4'}]
    """
    if not rows:
        return []
    percent = {
        key
        for key in rows[0]
        if all(isinstance(row.get(key), str) and PERCENT.match(str(row.get(key))) for row in rows)
    }
    return [
        {
            (f"{key} (%)" if key in percent else key): (_as_number(str(value)) if key in percent else value)
            for key, value in row.items()
        }
        for row in rows
    ]


def csv_text(rows: Sequence[Mapping[str, object]]) -> str:
    """Rows as CSV (header from the first row's keys): numbers as numbers with their unit in the header
    (:func:`numeric_columns`), every text cell neutralised (:func:`csv_cell`)."""
    out = io.StringIO()
    rows = numeric_columns(rows)
    if rows:
        writer = csv.DictWriter(out, fieldnames=[str(csv_cell(k)) for k in rows[0]])
        writer.writeheader()
        writer.writerows({str(csv_cell(k)): csv_cell(v) for k, v in row.items()} for row in rows)
    return out.getvalue()

"""Export: a self-contained HTML report of a view (figures work offline: plotly.js is inlined) and CSV."""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

import plotly.graph_objects as go


def html_report(
    title: str,
    verdict: str,
    inputs: Mapping[str, str],
    figures: Sequence[go.Figure],
    tables: Mapping[str, Sequence[Mapping[str, object]]] | None = None,
    when: datetime | None = None,
) -> str:
    """One HTML file: title, date, verdict, inputs, interactive figures and tables. Text is escaped."""
    stamp = (when or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;color:#1f2937}"
        "table{border-collapse:collapse;margin:1rem 0}"
        "td,th{border:1px solid #d1d5db;padding:.3rem .6rem;text-align:left}"
        ".verdict{font-size:1.15rem;background:#eff6ff;border-left:4px solid #2563eb;padding:.8rem 1rem}</style>",
        "</head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>Headroom report, {html.escape(stamp)}</p>",
        f"<p class='verdict'>{html.escape(verdict)}</p>",
        "<h2>Inputs</h2><table>",
        *[f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in inputs.items()],
        "</table>",
    ]
    for index, figure in enumerate(figures):
        parts.append(figure.to_html(full_html=False, include_plotlyjs="inline" if index == 0 else False))
    for name, rows in (tables or {}).items():
        parts.append(f"<h2>{html.escape(name)}</h2>")
        parts.append(_html_table(rows))
    parts.append("</body></html>")
    return "\n".join(parts)


def _html_table(rows: Sequence[Mapping[str, object]]) -> str:
    if not rows:
        return "<p>(empty)</p>"
    header = "".join(f"<th>{html.escape(str(k))}</th>" for k in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row.values()) + "</tr>" for row in rows)
    return f"<table><tr>{header}</tr>{body}</table>"


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


def csv_text(rows: Sequence[Mapping[str, object]]) -> str:
    """Rows as CSV (header from the first row's keys); every text cell neutralised (:func:`csv_cell`)."""
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=[str(csv_cell(k)) for k in rows[0]])
        writer.writeheader()
        writer.writerows({str(csv_cell(k)): csv_cell(v) for k, v in row.items()} for row in rows)
    return out.getvalue()

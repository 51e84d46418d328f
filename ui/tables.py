"""Table rows (lists of dicts) built from planner results: shown on pages and exported as CSV (pure)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, NamedTuple

from planner.assessment.assess import STATE_WORDS, Assessment
from planner.calibration import log_comparisons
from planner.core.kv_formats import KV_FORMATS
from planner.core.precision import WEIGHT_FORMATS
from planner.core.units import UNIT_BYTES
from planner.engines.base import EngineReport
from planner.engines.logfigures import ParsedLog
from planner.planning.results import PlanResult
from ui.figures import shown_components


def breakdown_rows(result: PlanResult, unit: str) -> list[dict[str, object]]:
    """One row per pipeline stage (each GPU of a stage is the same), every component in ``unit``."""
    rows = []
    for stage in result.stages:
        row: dict[str, object] = {
            "stage": stage.stage,
            "layers": f"{stage.layers[0]}–{stage.layers[1] - 1}",
            "GPUs": result.tensor_parallel,
        }
        for field, name, _ in shown_components(result.stages):
            row[f"{name} ({unit})"] = round(getattr(stage, field) / UNIT_BYTES[unit], 3)
        row[f"Capacity ({unit})"] = round(stage.gpu_memory_bytes / UNIT_BYTES[unit], 3)
        row[f"Room for the KV cache ({unit}; negative: short by)"] = round(stage.headroom_bytes / UNIT_BYTES[unit], 3)
        rows.append(row)
    return rows


def cell_text(value: object) -> str:
    """A table cell as people read it: nothing for a missing figure (never "None" or "nan"), whole numbers
    with thousands separators, other numbers to six significant digits.

    >>> [cell_text(v) for v in (None, float("nan"), 30000, 93.58, 0.1234567, 2_500_000.0, "H100")]
    ['', '', '30,000', '93.58', '0.123457', '2,500,000', 'H100']
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 1e5 else f"{value:,.6g}"
    return str(value)


def _numeric(column: Sequence[object]) -> bool:
    """Whether every cell of ``column`` is a number or missing (and one is a number): the grid formats it.

    >>> _numeric([1, 2.5, None]), _numeric([1, "a"]), _numeric([None]), _numeric([True, 1])
    (True, False, False, False)
    """
    cells = [v for v in column if v is not None]
    return bool(cells) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in cells)


class Grid(NamedTuple):
    """Rows ready for a data grid: numbers stay numbers (sorting works) in ``numeric`` columns, which the grid
    formats itself (thousands separators, :func:`ui.common.data_grid`); every other column is text as
    :func:`cell_text` writes it, so a figure no source gives is an empty cell (never "None" or "nan")."""

    frame: Any
    numeric: tuple[str, ...]


def grid(rows: Sequence[Mapping[str, object]]) -> Grid:
    """``rows`` as a :class:`Grid`. Formatting in the browser, not with a pandas Styler: a Styler sent each
    40-row advisor table twice (data and display text, 116 kB a run) and cost its run ~25 ms.

    >>> g = grid([{"GPU": "H100", "price": 30000, "note": None}, {"GPU": "A100", "price": None, "note": "2 GPUs"}])
    >>> g.numeric, g.frame["note"].tolist()
    (('price',), ['', '2 GPUs'])
    """
    import pandas as pd  # type: ignore[import-untyped]  # Streamlit brings pandas; no stubs are installed

    keys = list(dict.fromkeys(k for r in rows for k in r))
    numeric = tuple(k for k in keys if _numeric([r.get(k) for r in rows]))
    columns = {k: [r.get(k) for r in rows] if k in numeric else [cell_text(r.get(k)) for r in rows] for k in keys}
    return Grid(pd.DataFrame(columns), numeric)


TABLE_STYLE = (
    "<style>.hr-table{overflow-x:auto;max-width:100%;margin:.25rem 0 1rem}"
    ".hr-table table{border-collapse:collapse;font-size:.875rem;white-space:nowrap}"
    ".hr-table th,.hr-table td{border:1px solid rgba(49,51,63,.12);padding:.3rem .6rem;text-align:right}"
    ".hr-table th{background:#f3f5f9;font-weight:600}.hr-table td.text,.hr-table th.text{text-align:left}</style>"
)


def html_table(rows: Sequence[Mapping[str, object]]) -> str:
    """A small table as plain HTML (for ``st.html``): no data-grid code to load on a page's first paint, and it
    scrolls sideways inside itself on a phone. Cells as :func:`cell_text`, escaped; numbers right-aligned.

    >>> html_table([{"stage": 0, "Weights (GiB)": 33.842, "name": "<b>"}]).count("<td")
    3
    """
    if not rows:
        return ""
    keys = list(rows[0])
    numeric = {k: all(isinstance(r.get(k), int | float) or r.get(k) is None for r in rows) for k in keys}

    def cls(key: str) -> str:
        return "" if numeric[key] else " class='text'"

    head = "".join(f"<th{cls(k)}>{escape(str(k))}</th>" for k in keys)
    body = "".join(
        "<tr>" + "".join(f"<td{cls(k)}>{escape(cell_text(r.get(k)))}</td>" for k in keys) + "</tr>" for r in rows
    )
    return f"{TABLE_STYLE}<div class='hr-table'><table><tr>{head}</tr>{body}</table></div>"


def preformatted(lines: Sequence[str]) -> str:
    """Lines as a program prints them (for ``st.html``): monospace, escaped, wrapped on a narrow screen.

    >>> preformatted(["a < b"])
    "<pre class='hr-pre' style='white-space:pre-wrap;...'>a &lt; b</pre>"
    """
    style = (
        "white-space:pre-wrap;word-break:break-word;font-size:.875rem;background:#f3f5f9;padding:.75rem 1rem;"
        "border-radius:.5rem"
    )
    return f"<pre class='hr-pre' style='{style}'>" + escape("\n".join(lines)) + "</pre>"


FIGURES_STYLE = (
    "<style>.hr-figures{display:flex;flex-wrap:wrap;gap:1rem;margin:0 0 .5rem;padding:0}"
    ".hr-figure{position:relative;flex:1 1 10rem;min-width:0}"
    ".hr-label{display:flex;align-items:center;gap:.35rem;font-size:.875rem;line-height:1.6}"
    ".hr-value{font-size:2.25rem;line-height:1.3;overflow-wrap:anywhere}"
    ".hr-help{display:inline-flex;align-items:center;justify-content:center;width:1rem;height:1rem;"
    "border:1.5px solid rgba(49,51,63,.6);border-radius:50%;font-size:.65rem;font-weight:700;"
    "color:rgba(49,51,63,.6);cursor:help}"
    ".hr-tip{position:absolute;top:1.5rem;left:0;z-index:10;width:max-content;max-width:min(16rem,100%);"
    "padding:.4rem .6rem;border-radius:.4rem;background:#1f2937;color:#fff;font-size:.8rem;font-weight:400;"
    "line-height:1.4;opacity:0;pointer-events:none}"
    ".hr-help:hover .hr-tip,.hr-help:focus .hr-tip{opacity:1}</style>"
)


def figures_html(figures: Sequence[tuple[str, str, str]]) -> str:
    """Headline figures (label, value, what the figure means) in a row, as plain HTML for ``st.html``: the
    Memory page's four figures in one element that needs no script of its own, where four ``st.metric`` in four
    columns were nine elements and six scripts (the metric's and its number formatting) fetched and run before
    the chart on a cold link (``make bench``, :mod:`bench.coldlink`). Each label has a help mark whose text shows
    on hover and on focus (keyboard, a tap) and is read by a screen reader; two or one a row on a phone, a long
    value wrapped rather than cut.

    >>> page = figures_html([("KV budget", "1.5 k tokens", "Tokens the pools hold <all>.")])
    >>> page.count("class='hr-value'"), "&lt;all&gt;" in page
    (1, True)
    """
    cells = "".join(
        f"<div class='hr-figure'><div class='hr-label'>{escape(label)}<span class='hr-help' tabindex='0'>?"
        f"<span class='hr-tip'>{escape(meaning)}</span></span></div><div class='hr-value'>{escape(value)}</div></div>"
        for label, value, meaning in figures
    )
    return f"{FIGURES_STYLE}<div class='hr-figures'>{cells}</div>"


def compare_row(a: Assessment, unit: str) -> dict[str, object]:
    """A row of the Compare page's table: the pair, its figures in ``unit``, its verdict in words and the formats'
    quality notes and sources."""
    w, kv = a.result.weights, a.result.kv_dtype
    return {
        "weights": w,
        "KV cache dtype": kv,
        f"weights per GPU ({unit})": weights_per_gpu(a, unit),
        "KV budget (tokens)": a.kv_budget_tokens,
        "conversations": a.conversations,
        "verdict": STATE_WORDS[a.state],
        **format_notes(w, kv),
    }


def format_notes(w: str, kv: str) -> dict[str, object]:
    """The quality notes and sources of a weight format and a KV dtype."""
    return {
        "weights quality": WEIGHT_FORMATS[w].quality_note,
        "KV quality": KV_FORMATS[kv].quality_note,
        "source": f"{WEIGHT_FORMATS[w].source} / {KV_FORMATS[kv].source}",
    }


def weights_per_gpu(a: Assessment, unit: str, digits: int = 2) -> float:
    """The fullest GPU's weights in ``unit``, rounded for a table."""
    return round(a.result.per_gpu.weights_bytes / UNIT_BYTES[unit], digits)


def log_comparison_rows(report: EngineReport, parsed: ParsedLog) -> list[dict[str, object]]:
    """The Memory page's calibration table: :func:`planner.calibration.log_comparisons` (what ``calibrate``
    prints), each figure the log printed beside the prediction and their difference, rounded for the table."""

    def shown(value: float | None) -> float | None:
        return None if value is None else round(value, 2)

    return [
        {
            "figure": f"{c.name} ({c.unit})",
            "predicted": shown(c.predicted),
            "log": shown(c.printed),
            "difference": shown(c.difference),
        }
        for c in log_comparisons(report, parsed)
        if c.printed is not None
    ]

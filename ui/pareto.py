"""The advisor's Pareto chart as a Vega-Lite spec and its rows (pure: options in, data out).

Vega-Lite, not Plotly: Streamlit ids a Plotly chart by a hash of its figure, so every change of the ranking (each
move of the context slider) mounts the chart from scratch; a keyed Vega-Lite chart keeps its id (its key and
selection mode, ``streamlit/elements/vega_charts.py``) and takes the new rows in place (docs/benchmarks.md:
491 -> 410 ms a slider move in one run). The rows are passed apart from the spec, so only the data changes.

One point per purchase: a ranking's set-ups stand in columns, one per purchase (the same GPUs and hosts at the same
cost, with other precisions, KV dtypes and splits; Llama-3.1-70B at 512 tokens: 355 priced set-ups on 42 costs).
The chart draws the top of each column (the most that purchase does on its figure), every front point, the
recommendation and the set-up the caption under the chart names (:func:`planner.advisor.passed_over_text`); the
set-ups under a top are in the ranking table and the CSV. The browser's time to draw the rows
grows with their number (a one-chart page, 578 points against 3: +53 ms a slider move, docs/benchmarks.md).

>>> rows, spec = pareto_chart([], [], "capacity", "Total cost of ownership (USD, log scale)")
>>> rows, [layer["mark"]["type"] for layer in spec["layer"]]
([], ['line', 'point'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from planner.advisor import Option

PICK = "pick"  # the selection parameter a click sets: the clicked option's index in the ranking
OPTIONS = "Other purchases, each at its best set-up"
FRONT = "Pareto front (nothing cheaper does more)"
RECOMMENDED = "Recommended"
# The cost axis's ticks: 1, 1.5, 2, 3, 5, 7 in every decade from $1 to $700M (an hourly rent to a cluster's purchase),
# so even a span of 2.5x has two labels. Vega draws the ones inside the data's range and drops any label that would
# overlap its neighbour (labelOverlap "greedy"); fixed here, so the spec does not change with the options.
COST_TICKS = [m * 10**e for e in range(9) for m in (1, 1.5, 2, 3, 5, 7)]
VALUE_TICKS = [m * 10**e for e in range(8) for m in (1, 2, 5)]  # conversations or tokens/s: 1 to 50M
SERIES = {"domain": [OPTIONS, FRONT, RECOMMENDED], "range": ["#94a3b8", "#2563eb", "#16a34a"]}


def value_of(option: Option, against: str) -> float:
    """The chart's vertical figure: conversations held at once, or aggregate decode tokens per second."""
    return option.served_concurrency if against == "capacity" else (option.decode_tokens_per_s_total or 0.0)


def purchase_of(option: Option) -> tuple[str, int, str | None, float | None]:
    """What a set-up buys: its GPUs, how many, their host and the cost (the chart's horizontal figure)."""
    return option.gpu_id, option.gpu_count, option.host_id, option.cost


def _tops(options: Sequence[Option], against: str) -> set[int]:
    """The index of each purchase's best set-up on the figure (the first in the ranking's order among equals)."""
    best: dict[tuple[str, int, str | None, float | None], int] = {}
    for i, o in enumerate(options):
        key = purchase_of(o)
        if key not in best or value_of(o, against) > value_of(options[best[key]], against):
            best[key] = i
    return set(best.values())


def _series_of(option: Option, on_front: set[int], chosen: Option | None) -> str:
    if option is chosen:
        return RECOMMENDED
    return FRONT if id(option) in on_front else OPTIONS


def pareto_rows(
    options: Sequence[Option],
    front: Sequence[Option],
    against: str,
    chosen: Option | None = None,
    named: Option | None = None,
) -> list[dict[str, Any]]:
    """One row per priced purchase at its best set-up on the figure, and one for each front point, the
    recommendation (``chosen``) and the set-up a caption names (``named``) (the module's docstring): its index in
    ``options`` (what a click returns), cost, figure, label, whether it is on the front, and its series (the
    recommendation, on the front, or another purchase), in drawing order: the recommendation last, on top."""
    on_front = {id(o) for o in front}
    tops = _tops(options, against)
    rows = [
        {
            "i": i,
            "cost": o.cost,
            "value": value_of(o, against),
            "label": o.label,
            "front": id(o) in on_front,
            "series": _series_of(o, on_front, chosen),
        }
        for i, o in enumerate(options)
        if o.cost is not None and (i in tops or id(o) in on_front or o is chosen or o is named)
    ]
    return sorted(rows, key=lambda r: SERIES["domain"].index(r["series"]))


def _axes(cost_label: str, y_title: str) -> dict[str, Any]:
    """Cost on a log axis in dollars, labelled at 1, 1.5, 2, 3, 5 and 7 a decade (:data:`COST_TICKS`: "$150k",
    "$200k", "$300k"), the figure on a log axis too, labelled at 1, 2 and 5 a decade (:data:`VALUE_TICKS`): from
    zero, a pick of 4 conversations sat on the axis under options holding 1,600 (browser audit, 2026-12-05)."""
    x = {
        "field": "cost",
        "type": "quantitative",
        "scale": {"type": "log", "nice": False, "padding": 16},  # the costs' own range, not whole decades
        "axis": {"title": cost_label, "format": "$~s", "values": COST_TICKS, "labelOverlap": "greedy"},
    }
    y = {
        "field": "value",
        "type": "quantitative",
        "scale": {"type": "log", "nice": False, "padding": 16},
        "axis": {"title": y_title, "format": "~s", "values": VALUE_TICKS, "labelOverlap": "greedy"},
    }
    return {"x": x, "y": y}


def _when(values: list[Any]) -> dict[str, Any]:
    """A mark property by series, as conditions: another set-up, the front, the recommendation (no legend)."""
    last = {"test": f"datum.series == '{RECOMMENDED}'", "value": values[2]}
    return {"condition": [last, {"test": "datum.front", "value": values[1]}], "value": values[0]}


def _shape(legend: dict[str, Any]) -> dict[str, Any]:
    """The recommendation a diamond, by a scale on the colour's field: one legend, its symbols the marks' shapes."""
    scale = {"domain": SERIES["domain"], "range": ["circle", "circle", "diamond"]}
    return {"field": "series", "type": "nominal", "scale": scale, "legend": legend}


def pareto_chart(
    options: Sequence[Option],
    front: Sequence[Option],
    against: str,
    cost_label: str,
    chosen: Option | None = None,
    named: Option | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Cost against capacity (concurrent conversations) or aggregate decode throughput: every priced purchase a
    point at its best set-up (grey; on the Pareto front blue, joined by a line; the chosen, recommended one a large
    green diamond, drawn on top; ``named``: a set-up a caption names, drawn too). A click on any point selects it:
    :data:`PICK` holds its index in ``options``."""
    y_title = (
        "Concurrent conversations (log scale)"
        if against == "capacity"
        else "Aggregate decode throughput (tokens/s, log scale)"
    )
    axes = _axes(cost_label, y_title)
    tooltip = [
        {"field": "label", "title": "set-up"},
        {"field": "cost", "title": "cost", "format": "$,.0f"},
        {"field": "value", "title": y_title, "format": ",.1f"},
    ]
    # One legend entry a line under the chart, in full: a phone's width cuts a row of three.
    legend = {"title": None, "orient": "bottom", "direction": "vertical", "labelLimit": 0}
    colour = {"field": "series", "type": "nominal", "scale": SERIES, "legend": legend}
    spec = {
        "height": 500,
        "layer": [
            {
                "transform": [{"filter": "datum.front"}],
                "mark": {"type": "line", "strokeWidth": 2, "color": SERIES["range"][1], "interactive": False},
                "encoding": {**axes, "order": {"field": "cost"}},
            },
            {
                "params": [{"name": PICK, "select": {"type": "point", "fields": ["i"], "on": "click"}}],
                "mark": {"type": "point", "filled": True},
                "encoding": {
                    **axes,
                    "color": colour,
                    "shape": _shape(legend),
                    "size": _when([50, 90, 500]),
                    "opacity": _when([0.6, 1.0, 1.0]),
                    "tooltip": tooltip,
                },
            },
        ],
    }
    return pareto_rows(options, front, against, chosen, named), spec

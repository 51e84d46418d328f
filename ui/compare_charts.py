"""The Compare page's two charts as Vega-Lite specs and their rows (pure: planner results in, data out).

Vega-Lite, not Plotly, for the reason :mod:`ui.pareto` gives: Streamlit ids a Plotly chart by a hash of its figure
and mounts it from scratch on every change (60-77 ms of script a chart on each slider move), where a Vega-Lite chart
whose spec stays the same takes new rows in place (the browser's ``createView`` runs again only when the spec
changes; ``updateView`` swaps the data, ``ArrowVegaLiteChart`` in Streamlit 1.67's frontend). So everything a slider
changes is in the rows, titles included (a title reads its text from the rows), and so are the heatmap's formats and
their order; the spec holds only what the unit and the picked pairs decide. The rows are each chart's named datasets
(:data:`CELLS`, :data:`BARS`, :data:`CAPACITY`), given to ``st.vega_lite_chart`` in the spec's ``datasets``, which
Streamlit sends apart from the spec.

The content is the Plotly figures' (:func:`ui.figures.heatmap_figure`, :func:`ui.figures.compare_bars_figure`, still
drawn for the HTML report): the same cells, texts, components, colours and capacity, read by the same helpers.

>>> data, spec = heatmap_chart([], [], [], 4096)
>>> data, [layer["mark"]["type"] for layer in spec["layer"]]
({'cells': []}, ['rect', 'rect', 'text'])
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from planner.assessment.assess import Assessment
from planner.planning.results import PlanResult
from ui.figures import (
    CAPACITY_COLOUR,
    bars_title,
    capacity_label,
    capacity_of,
    compared_components,
    component_values,
    heat_cell,
    heat_title,
    pair_colour,
)

CELLS, BARS, CAPACITY = "cells", "bars", "capacity"  # the named datasets
NO_VALUE_COLOUR = "#fee2e2"  # a cell with no conversations (does not fit, does not start, not run): pale red
STEP_PX = 34  # a heatmap row's height, as the Plotly figure's
Data = dict[str, list[dict[str, Any]]]
# The width fits the page, the height is the content's. Neither spec sets a height: Streamlit makes it the whole
# chart's, and the title and legends (a column on a phone) squeezed the plot into what was left, a sliver. The
# heatmap is a step a row high, the bars' plot Vega-Lite's continuous height (their config).
AUTOSIZE = {"type": "fit-x", "contains": "padding"}
# Streamlit pads a chart only below (its frontend's ``Te``, 1.67): the y axis's title, on its side, touched the
# left edge.
PADDING = {"left": 4}
NARROW = "width < 480 ? 1 : 3"  # the columns of a legend: one on a phone, where a row of three is cut


def title_from(dataset: str) -> dict[str, Any]:
    """A title whose text is the ``title`` of the dataset's first row: the spec stays when the text changes."""
    return {
        "text": {"expr": f"length(data('{dataset}')) ? data('{dataset}')[0].title : ''"},
        "anchor": "start",
        "fontSize": 16,
    }


def heat_rows(
    weights: Sequence[str], kv_dtypes: Sequence[str], grid: Sequence[Sequence[Assessment | None]], context: int
) -> list[dict[str, Any]]:
    """One row per cell: its place (``row``, ``col``), formats, value (whole conversations, ``None`` where there are
    none) and text (the count, or why there is none: :func:`ui.figures.heat_cell`), and the chart's title."""
    title = heat_title(context)
    rows = []
    for i, (w, line) in enumerate(zip(weights, grid, strict=True)):
        for j, (kv, a) in enumerate(zip(kv_dtypes, line, strict=True)):
            value, text = heat_cell(a)
            rows.append({"row": i, "col": j, "weights": w, "kv": kv, "value": value, "text": text, "title": title})
    return rows


def _heat_encoding() -> dict[str, Any]:
    """Weights down (the first at the top), KV dtypes across, both in the grid's order (read from the rows)."""
    return {
        "x": {"field": "kv", "type": "nominal", "sort": {"field": "col", "op": "min"},
              "axis": {"title": "KV cache dtype", "labelAngle": 0, "orient": "bottom"}},
        "y": {"field": "weights", "type": "nominal", "sort": {"field": "row", "op": "min"},
              "axis": {"title": "Weight precision"}},
        "tooltip": [
            {"field": "weights", "title": "weights"},
            {"field": "kv", "title": "KV"},
            {"field": "text", "title": "conversations"},
        ],
    }  # fmt: skip


def heatmap_chart(
    weights: Sequence[str], kv_dtypes: Sequence[str], grid: Sequence[Sequence[Assessment | None]], context: int
) -> tuple[Data, dict[str, Any]]:
    """Whole conversations for each weight precision (rows) x KV dtype (columns), in greens (the more, the darker),
    each cell's text on it; pale red beneath where there are none, with why ("no fit", "no start", "not run"). The
    colour legend lies under the chart, as the Plotly figure's colour bar, and only where a cell holds conversations
    (over none, Vega-Lite's gradient reads "NaN"; the spec changes only when the first cell comes to hold some)."""
    # Whole conversations: labelled as integers one apart at least (over one count, as llama.cpp's slots give in
    # every cell, Vega's gradient labelled its zero-width domain "4.000000").
    legend = {
        "title": "conversations",
        "orient": "bottom",
        "direction": "horizontal",
        "gradientLength": 160,
        "format": ",d",
        "tickMinStep": 1,
    }
    rows = heat_rows(weights, kv_dtypes, grid, context)
    colour = {
        "field": "value",
        "type": "quantitative",
        "scale": {"scheme": "greens"},
        "legend": legend if any(row["value"] is not None for row in rows) else None,
    }
    # The count in white on the darkest cells (Plotly picks the text colour by the cell's, too).
    dark = "isValid(datum.value) && datum.value > 0.6 * datum.most"
    spec = {
        "data": {"name": CELLS},
        "autosize": AUTOSIZE,
        "padding": PADDING,
        "title": title_from(CELLS),
        "height": {"step": STEP_PX},
        "encoding": _heat_encoding(),
        "layer": [
            {"mark": {"type": "rect", "color": NO_VALUE_COLOUR, "stroke": "white", "strokeWidth": 2}},
            {
                "transform": [{"filter": "isValid(datum.value)"}],
                "mark": {"type": "rect", "stroke": "white", "strokeWidth": 2},
                "encoding": {"color": colour},
            },
            {
                "transform": [{"joinaggregate": [{"op": "max", "field": "value", "as": "most"}]}],
                "mark": {"type": "text", "fontSize": 12},
                "encoding": {
                    "text": {"field": "text"},
                    "color": {"condition": {"test": dark, "value": "white"}, "value": "black"},
                },
            },
        ],
    }
    return {CELLS: rows}, spec


def bar_rows(results: Sequence[tuple[str, PlanResult]], unit: str) -> Data:
    """The fullest GPU of each pair as one row per (pair, component), in ``unit`` (``order``: the component's place
    in the stack, the first at the bottom), and the capacity they share as one row (none with nothing compared);
    the title in each."""
    title = bars_title(unit)
    bars = [
        {"i": i, "pair": label, "component": name, "order": k, "value": values[i], "title": title}
        for k, (name, _, values) in enumerate(component_values(results, unit))
        for i, (label, _) in enumerate(results)
    ]
    capacity = capacity_of(results, unit)
    line = [] if capacity is None else [{"capacity": capacity, "line": capacity_label(capacity, unit)}]
    return {BARS: bars, CAPACITY: line}


def _pair_labels(pairs: Sequence[str]) -> dict[str, Any]:
    """Each pair's name in its colour (:func:`ui.figures.pair_colour`), bold, as the Plotly figure's tick text."""
    colours = json.dumps({pair: pair_colour(pair) for pair in pairs})  # quoted as string literals, whatever they hold
    return {"labelColor": {"expr": f"{colours}[datum.value] || 'black'"}, "labelFontWeight": "bold"}


def compare_bars_chart(results: Sequence[tuple[str, PlanResult]], unit: str = "GiB") -> tuple[Data, dict[str, Any]]:
    """Side-by-side stacked bars of the fullest GPU of each pair, a component's colour the same as on every chart,
    each pair's name in its colour, and the capacity as a dashed line named in the legend."""
    pairs = [label for label, _ in results]
    y_title = f"Memory per GPU ({unit})"
    shown = compared_components(results)  # a deployment's components only where a pair holds them
    scale = {"domain": [name for _, name, _ in shown], "range": [colour for _, _, colour in shown]}
    bars = {
        "data": {"name": BARS},
        "mark": {"type": "bar"},
        "encoding": {
            "x": {"field": "pair", "type": "nominal", "sort": {"field": "i", "op": "min"},
                  "axis": {"title": None, "labelAngle": 0, **_pair_labels(pairs)}},
            "y": {"field": "value", "type": "quantitative", "stack": "zero", "axis": {"title": y_title}},
            "color": {"field": "component", "type": "nominal", "scale": scale,
                      "legend": {"title": None, "orient": "bottom", "columns": {"expr": NARROW}, "labelLimit": 0}},
            "order": {"field": "order"},
            "tooltip": [
                {"field": "pair", "title": "pair"},
                {"field": "component", "title": "component"},
                {"field": "value", "title": unit, "format": ",.2f"},
            ],
        },
    }  # fmt: skip
    line = {
        "data": {"name": CAPACITY},
        "mark": {"type": "rule", "color": CAPACITY_COLOUR, "strokeWidth": 1.5},
        "encoding": {
            "y": {"field": "capacity", "type": "quantitative"},
            "strokeDash": {"field": "line", "type": "nominal", "scale": {"range": [[6, 4]]},
                           "legend": {"title": None, "orient": "bottom", "labelLimit": 0}},
            "tooltip": [{"field": "line", "title": "capacity"}],
        },
    }  # fmt: skip
    # The two legends under the chart one above the other (a row of them runs off a phone's screen).
    stacked = {"layout": {"bottom": {"anchor": "start", "direction": "vertical"}}}
    config = {"legend": stacked, "view": {"continuousHeight": 320}}
    title = title_from(BARS)
    spec = {"title": title, "autosize": AUTOSIZE, "padding": PADDING, "layer": [bars, line], "config": config}
    return bar_rows(results, unit), spec


def with_data(spec: dict[str, Any], data: Data) -> dict[str, Any]:
    """The spec with its rows as named datasets, as ``st.vega_lite_chart`` takes them (it sends them apart), each an
    Arrow table: Streamlit sends a table as it is, where it makes a pandas frame of a list of rows first (measured:
    18 ms for the what-if page's three charts of four pairs on three GPUs; under 1 ms so, the rows included). A
    missing figure is a null, which the specs test with ``isValid`` (as they did pandas' NaN)."""
    return {**spec, "datasets": {name: pa.Table.from_pylist(rows) for name, rows in data.items()}}

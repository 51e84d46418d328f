"""The Memory page's chart as a Vega-Lite spec and its rows (pure: a plan in, data out).

Vega-Lite, not Plotly, for the reason :mod:`ui.compare_charts` gives: Streamlit ids a Plotly chart by its figure and
mounts it from scratch on every change, where a keyed Vega-Lite chart whose spec stays the same takes new rows in
place. So everything a slider or a setting changes is in the rows: each GPU's components and their values, the GPUs
themselves (their labels and how many), the capacity and its legend entry, each GPU's own capacity (mixed GPUs), the
shortfall labels, the title and the components the legend names. The spec holds only what the unit decides (the axis
title): every component's colour is declared in it, whether or not the plan holds the component, and the legend
lists those the rows name.

The content is the Plotly figure's (:func:`ui.figures.memory_figure`, still drawn for the HTML report), read by the
same helpers: the GPUs (:func:`ui.figures.gpu_rows`), the components (:func:`ui.figures.shown_components`), the
capacity (:func:`ui.figures.capacity_label`), mixed GPUs (:func:`ui.figures.mixed`) and the shortfall
(:func:`ui.figures.shortfall_label`).

The mixed GPUs' capacities and the shortfall's two labels are layers a view draws only once it has rows for them
(:func:`layers_needed`; the page keeps what a session has needed, so a slider moves them in place from then on):
three empty layers cost a cold link's browser ~25 ms of main-thread CPU before the chart is drawn (a Chrome trace,
5 alternating cold opens each, 2026-12-07, fifty-third session; docs/benchmarks.md).

>>> spec = memory_spec("GiB")
>>> [layer["data"]["name"] for layer in spec["layer"]], [layer["mark"]["type"] for layer in spec["layer"]]
(['bars', 'capacity', 'stages', 'short', 'short'], ['bar', 'rule', 'tick', 'text', 'text'])
>>> [layer["data"]["name"] for layer in memory_spec("GiB", frozenset({SHORT}))["layer"]]
['bars', 'capacity', 'short', 'short']
"""

from __future__ import annotations

from typing import Any

from planner.planning.results import PlanResult
from ui.compare_charts import AUTOSIZE, NARROW, PADDING, Data, title_from
from ui.figures import (
    CAPACITY_COLOUR,
    COMPONENTS,
    SHORTFALL_COLOUR,
    capacity_label,
    gpu_rows,
    in_unit,
    mixed,
    shortfall_label,
    shown_components,
)

BARS, CAPACITY, STAGES, SHORT = "bars", "capacity", "stages", "short"  # the named datasets
OPTIONAL = frozenset({STAGES, SHORT})  # the datasets whose layers a view draws only when it needs them
# A GPU's row: its bar is 90 % of it (Vega-Lite's band padding, 0.1), as the Plotly figure's mixed-GPU marks are
# (y ± 0.45 of a row).
STEP_PX = 44
MARK_PX = round(0.9 * STEP_PX)


def memory_rows(result: PlanResult, unit: str = "GiB", title: str = "") -> Data:
    """One row per (GPU, component) of one replica, in ``unit`` (``i``: the GPU's place, the first at the top;
    ``order``: the component's in the stack, the first at the left), with the title; the capacity of the limiting GPU
    with its legend entry; each GPU's own capacity where they differ (mixed GPUs; none otherwise); the shortfall of
    each GPU that overflows, at the capacity; and the components the legend names
    (:func:`ui.figures.shown_components`)."""
    rows = gpu_rows(result)
    shown = shown_components(result.stages)
    capacity = in_unit(result.per_gpu.gpu_memory_bytes, unit)
    head, _, tail = title.partition(": ")  # a refusal's words under the title (:func:`ui.text.chart_title`)
    bars = [
        {"i": i, "gpu": label, "component": name, "order": k, "components": len(shown),
         "value": in_unit(getattr(stage, field), unit), "title": head, "subtitle": tail}
        for i, (label, stage) in enumerate(rows)
        for k, (field, name, _) in enumerate(shown)
    ]  # fmt: skip
    each = mixed(rows)  # mixed GPUs: each row's own capacity too
    own = [
        {"i": i, "gpu": label, "capacity": in_unit(stage.gpu_memory_bytes, unit)}
        for i, (label, stage) in enumerate(rows)
        if each
    ]
    short = [
        {"i": i, "gpu": label, "capacity": capacity, "text": shortfall_label(stage, unit)}
        for i, (label, stage) in enumerate(rows)
        if stage.headroom_bytes < 0
    ]
    return {
        BARS: bars,
        CAPACITY: [{"capacity": capacity, "line": capacity_label(capacity, unit)}],
        STAGES: own,
        SHORT: short,
    }


def _gpu_axis() -> dict[str, Any]:
    """The GPUs down, the first at the top (the Plotly figure's reversed axis), in the rows' order: every layer that
    places a mark on a GPU sorts them alike, so their domains are one."""
    return {"field": "gpu", "type": "nominal", "sort": {"field": "i", "op": "min"}, "axis": {"title": None}}


def _bars(unit: str) -> dict[str, Any]:
    """The stacked components, each in its colour on every chart (all of :data:`ui.figures.COMPONENTS` declared,
    so the spec is the same whatever the plan holds); the legend names those the rows hold."""
    scale = {"domain": [name for _, name, _ in COMPONENTS], "range": [colour for _, _, colour in COMPONENTS]}
    # The first GPU's rows name the components shown, in stacking order (every GPU's rows name them all).
    first = f"slice(data('{BARS}'), 0, length(data('{BARS}')) ? data('{BARS}')[0].components : 0)"
    legend = {
        "title": None,
        "orient": "bottom",
        "columns": {"expr": NARROW},
        "labelLimit": 0,
        "values": {"expr": f"pluck({first}, 'component')"},
    }
    return {
        "data": {"name": BARS},
        "mark": {"type": "bar"},
        "encoding": {
            "y": _gpu_axis(),
            "x": {"field": "value", "type": "quantitative", "stack": "zero",
                  "axis": {"title": f"Memory per GPU ({unit})"}},
            "color": {"field": "component", "type": "nominal", "scale": scale, "legend": legend},
            "order": {"field": "order"},
            "tooltip": [
                {"field": "gpu", "title": "GPU"},
                {"field": "component", "title": "component"},
                {"field": "value", "title": unit, "format": ",.2f"},
            ],
        },
    }  # fmt: skip


def _capacity() -> dict[str, Any]:
    """The limiting GPU's capacity: a dashed line top to bottom, named in the legend."""
    return {
        "data": {"name": CAPACITY},
        "mark": {"type": "rule", "color": CAPACITY_COLOUR, "strokeWidth": 1.5},
        "encoding": {
            "x": {"field": "capacity", "type": "quantitative"},
            "strokeDash": {"field": "line", "type": "nominal", "scale": {"range": [[6, 4]]},
                           "legend": {"title": None, "orient": "bottom", "labelLimit": 0, "symbolType": "stroke",
                                      "symbolSize": 300, "symbolStrokeWidth": 1.5}},
            "tooltip": [{"field": "line", "title": "capacity"}],
        },
    }  # fmt: skip


def _stages(unit: str) -> dict[str, Any]:
    """Mixed GPUs: each GPU's own capacity as a short dotted mark across its bar."""
    return {
        "data": {"name": STAGES},
        "mark": {"type": "tick", "color": CAPACITY_COLOUR, "thickness": 2, "size": MARK_PX, "strokeDash": [2, 2]},
        "encoding": {
            "y": _gpu_axis(),
            "x": {"field": "capacity", "type": "quantitative"},
            "tooltip": [{"field": "gpu", "title": "GPU"}, {"field": "capacity", "title": unit, "format": ",.1f"}],
        },
    }


def _shortfall(halo: bool) -> dict[str, Any]:
    """A GPU that overflows: "short by X" in red just right of the capacity, on a white halo (``halo``: the halo,
    drawn first) over the bar that runs past it."""
    mark = {"type": "text", "align": "left", "baseline": "middle", "dx": 6, "fontSize": 14, "fontWeight": "bold"}
    if halo:
        mark |= {"fill": "white", "stroke": "white", "strokeWidth": 6, "strokeOpacity": 0.92, "strokeJoin": "round"}
    else:
        mark |= {"color": SHORTFALL_COLOUR}
    return {
        "data": {"name": SHORT},
        "mark": mark,
        "encoding": {"y": _gpu_axis(), "x": {"field": "capacity", "type": "quantitative"}, "text": {"field": "text"}},
    }


def layers_needed(data: Data) -> frozenset[str]:
    """The optional layers (:data:`OPTIONAL`) with rows in this view: mixed GPUs' own capacities, a shortfall.

    >>> sorted(layers_needed({BARS: [{}], CAPACITY: [{}], STAGES: [], SHORT: [{"text": "short by 1 GiB"}]}))
    ['short']
    """
    return frozenset(name for name in sorted(OPTIONAL) if data[name])


def memory_spec(unit: str = "GiB", layers: frozenset[str] = OPTIONAL) -> dict[str, Any]:
    """The chart's spec: what the unit decides (the axis title) and which optional ``layers`` it draws
    (:data:`OPTIONAL`); nothing a slider or a plan changes within them."""
    # The two legends under the chart one above the other (a row of them runs off a phone's screen).
    stacked = {"layout": {"bottom": {"anchor": "start", "direction": "vertical"}}}
    subtitle = f"length(data('{BARS}')) ? data('{BARS}')[0].subtitle : ''"
    return {
        "title": {**title_from(BARS), "subtitle": {"expr": subtitle}, "subtitleFontSize": 13},
        "autosize": AUTOSIZE,
        "padding": PADDING,  # a shortfall's label past the plot's right edge is in the chart's bounds: fit-x
        "height": {"step": STEP_PX},
        "layer": [
            _bars(unit),
            _capacity(),
            *([_stages(unit)] if STAGES in layers else []),
            *([_shortfall(halo=True), _shortfall(halo=False)] if SHORT in layers else []),
        ],
        "config": {"legend": stacked, "axis": {"labelFontSize": 13, "titleFontSize": 14}},
    }


def memory_chart(
    result: PlanResult, unit: str = "GiB", title: str = "", kept: frozenset[str] | None = None
) -> tuple[Data, dict[str, Any]]:
    """The chart :func:`ui.figures.memory_figure` draws (the same arguments): its rows and its spec, with every
    optional layer, or (``kept``: the layers already drawn) those drawn before and those this view needs."""
    data = memory_rows(result, unit, title)
    return data, memory_spec(unit, OPTIONAL if kept is None else kept | layers_needed(data))

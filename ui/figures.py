"""Figure builders: pure functions of planner results, tested without a browser.

The same memory component has the same colour on every chart, and so has the same weight / KV precision pair
(:func:`pair_colour`). Every axis states its unit. Every chart has the same frame (:func:`frame`), laid out so
that nothing overlaps at any width, a phone's included: the title sits below the Plotly toolbar, the legend
below the plot (both placed in the figure's container, which reserves their room), capacities are legend
entries rather than labels beside the axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from planner.assessment.assess import Assessment, VerdictState, context_label
from planner.core.units import UNIT_BYTES
from planner.planning.results import PlanResult, StageMemory

COMPONENTS: tuple[tuple[str, str, str], ...] = (
    # (StageMemory field, legend name, colour)
    ("weights_bytes", "Weights", "#2563eb"),
    ("kv_cache_bytes", "KV cache pool", "#16a34a"),
    ("activation_bytes", "Activations", "#f59e0b"),
    ("framework_bytes", "Framework overhead", "#a855f7"),
    ("reserved_bytes", "Reserved (kept free)", "#94a3b8"),
    # the deployment's components (planner.deploy), drawn when a GPU holds any
    ("lora_bytes", "LoRA adapter slots", "#db2777"),
    ("draft_bytes", "Draft model / MTP / heads", "#0891b2"),
    ("other_bytes", "In use by other processes", "#78350f"),
    ("free_bytes", "Free", "#e5e7eb"),
)
DEPLOYMENT_FIELDS = frozenset({"lora_bytes", "draft_bytes", "other_bytes"})
COLOURS = {name: colour for _, name, colour in COMPONENTS}
SHORTFALL_COLOUR = "#dc2626"
CAPACITY_COLOUR = "#111827"
# The weight / KV pairs people compare most, each its own colour on every chart; any other pair takes one of
# the spare colours by its name (the same one everywhere).
PAIR_COLOURS = {
    "bf16/bf16": "#1f77b4",
    "bf16/fp8": "#0e9aa7",
    "fp8/bf16": "#9467bd",
    "fp8/fp8": "#e8650a",
    "int4-awq/bf16": "#2ca02c",
    "int4-awq/fp8": "#d62728",
    "q4_k_m/bf16": "#8c564b",
    "q4_k_m/fp8": "#d0509f",
}
SPARE_COLOURS = ("#8a8b12", "#5b6b8c", "#136f63", "#7b2d43", "#283d7a", "#556b2f", "#5b3fa8", "#475569")
TOOLBAR_PX = 34  # Plotly's toolbar (modebar) row at the top right: the title starts below it
# What st.plotly_chart is given on every page: no logo, and only the toolbar buttons people use.
CHART_CONFIG: dict[str, object] = {
    "displaylogo": False,
    "modeBarButtonsToRemove": ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d", "pan2d"],
}
FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=13)


def pair_colour(pair: str) -> str:
    """The colour of a ``weights/kv`` pair on every chart: its own for the common pairs, else a spare colour
    chosen by the pair's name (stable across runs, pages and processes).

    >>> pair_colour("fp8/fp8"), pair_colour("nvfp4/fp8") == pair_colour("nvfp4/fp8")
    ('#e8650a', True)
    """
    if pair in PAIR_COLOURS:
        return PAIR_COLOURS[pair]
    return SPARE_COLOURS[sum(pair.encode()) % len(SPARE_COLOURS)]


def frame_layout(title: str | None, height: int, legend: bool = True, right: int = 10) -> dict[str, Any]:
    """The layout every chart shares, as a plain dict. The title (in the figure's container) starts below the
    toolbar row and pushes the plot down; the legend is a row (or a column, on a phone) at the bottom of the
    container, which reserves its room below the axis title; nothing is placed relative to the plot area's
    edges. No template: the dashboard's theme styles the charts (the HTML report adds a light one), and
    resolving a template costs a page run tens of milliseconds."""
    layout: dict[str, Any] = {
        "font": FONT,
        "hoverlabel": {"font": {"size": 13}},
        "height": height,
        "margin": {"l": 10, "r": right, "t": TOOLBAR_PX + (8 if title else 0), "b": 10, "autoexpand": True},
        "showlegend": legend,
        "legend": {
            "orientation": "h",
            "xref": "container",
            "yref": "container",
            "x": 0,
            "y": 0,
            "xanchor": "left",
            "yanchor": "bottom",
            "traceorder": "normal",
            "maxheight": 1,
        },
        "xaxis": {"automargin": True},
        "yaxis": {"automargin": True},
    }
    if title:
        layout["title"] = {
            "text": title,
            "xref": "container",
            "yref": "container",
            "x": 0,
            "y": 1,
            "xanchor": "left",
            "yanchor": "top",
            "pad": {"t": TOOLBAR_PX, "l": 10},
            "automargin": True,
            "font": {"size": 16},
        }
    return layout


def _legend_line(name: str, colour: str = CAPACITY_COLOUR, dash: str = "dash") -> dict[str, Any]:
    """A legend entry for a line drawn as a shape (a capacity): the label lives in the legend, never beside
    the axis where it could cover the tick labels."""
    return {
        "type": "scatter",
        "x": [None],
        "y": [None],
        "mode": "lines",
        "name": name,
        "line": {"color": colour, "dash": dash},
        "hoverinfo": "skip",
    }


def in_unit(n_bytes: float, unit: str) -> float:
    """``n_bytes`` in ``unit`` (GiB, GB, ...), as every chart draws it."""
    return n_bytes / UNIT_BYTES[unit]


def shown_components(stages: Sequence[StageMemory]) -> list[tuple[str, str, str]]:
    """:data:`COMPONENTS` without the deployment's that no GPU holds (a plain plan keeps its legend)."""
    return [c for c in COMPONENTS if c[0] not in DEPLOYMENT_FIELDS or any(getattr(s, c[0]) for s in stages)]


def gpu_rows(result: PlanResult) -> list[tuple[str, StageMemory]]:
    """One row per GPU of one replica: every TP rank of every pipeline stage (identical within a stage)."""
    rows = []
    for stage in result.stages:
        for rank in range(result.tensor_parallel):
            label = f"GPU {stage.stage * result.tensor_parallel + rank}"
            if result.pipeline_parallel > 1:
                label += f" · stage {stage.stage}"
            rows.append((label, stage))
    return rows


def memory_figure(result: PlanResult, unit: str = "GiB", title: str | None = None) -> go.Figure:
    """A stacked bar per GPU of one replica against its capacity (a dashed line, named in the legend).

    When it does not fit, the bar overflows the line and the shortfall is drawn in red. Built as one dict and
    checked once: it is on the landing page's first paint, where building it trace by trace cost ~40 ms.
    """
    rows = gpu_rows(result)
    labels = [label for label, _ in rows]
    data: list[dict[str, Any]] = [
        {
            "type": "bar",
            "y": labels,
            "x": [in_unit(getattr(stage, field), unit) for _, stage in rows],
            "name": name,
            "orientation": "h",
            "marker": {"color": colour},
            "hovertemplate": f"{name}: %{{x:,.2f}} {unit}<extra>%{{y}}</extra>",
        }
        for field, name, colour in shown_components(result.stages)
    ]
    capacity = in_unit(result.per_gpu.gpu_memory_bytes, unit)
    data.append(_legend_line(capacity_label(capacity, unit)))
    line = {"color": CAPACITY_COLOUR, "dash": "dash"}
    shapes = [
        {"type": "line", "xref": "x", "yref": "paper", "x0": capacity, "x1": capacity, "y0": 0, "y1": 1, "line": line}
    ]
    annotations = [
        {
            "y": label,
            "x": capacity,
            "text": shortfall_label(stage, unit),
            "showarrow": False,
            "xanchor": "left",
            "xshift": 6,
            "font": {"color": SHORTFALL_COLOUR, "size": 14},
            "bgcolor": "rgba(255,255,255,0.92)",
            "bordercolor": SHORTFALL_COLOUR,
            "borderpad": 3,
        }
        for label, stage in rows
        if stage.headroom_bytes < 0
    ]
    shapes += _stage_capacities(rows, unit)
    layout = frame_layout(title, height=max(330, 250 + 40 * len(rows)))
    layout.update(barmode="stack", shapes=shapes, annotations=annotations)
    layout["xaxis"] = {**layout["xaxis"], "title": {"text": f"Memory per GPU ({unit})"}}
    layout["yaxis"] = {**layout["yaxis"], "autorange": "reversed"}
    return go.Figure({"data": data, "layout": layout})


def shortfall_label(stage: StageMemory, unit: str) -> str:
    """The red label of a GPU that overflows its capacity (``stage.headroom_bytes`` below zero)."""
    return f"short by {in_unit(-stage.headroom_bytes, unit):,.1f} {unit}"


def mixed(rows: Sequence[tuple[str, StageMemory]]) -> bool:
    """Whether the GPUs of one replica differ in capacity (mixed GPUs: each row's own capacity is drawn)."""
    return len({stage.gpu_memory_bytes for _, stage in rows}) >= 2


def _stage_capacities(rows: list[tuple[str, StageMemory]], unit: str) -> list[dict[str, Any]]:
    """Mixed GPUs: each row's own capacity as a short dotted mark (the dashed line is the limiting GPU's)."""
    if not mixed(rows):
        return []
    line = {"color": CAPACITY_COLOUR, "width": 2, "dash": "dot"}
    return [
        {"type": "line", "xref": "x", "yref": "y", "y0": index - 0.45, "y1": index + 0.45,
         "x0": in_unit(stage.gpu_memory_bytes, unit), "x1": in_unit(stage.gpu_memory_bytes, unit), "line": line}
        for index, (_, stage) in enumerate(rows)
    ]  # fmt: skip


def heat_cell(a: Assessment | None) -> tuple[int | None, str]:
    """A heatmap cell's value and text: whole conversations, or why there are none."""
    if a is None:
        return None, "not run"
    if a.state is VerdictState.WEIGHTS_DO_NOT_FIT:
        return None, "no fit"
    if a.state is VerdictState.ENGINE_REFUSES:
        return None, "no start"
    return a.conversations, f"{a.conversations:,}"


def heat_title(context: int) -> str:
    """The heatmap's title: the context every cell holds conversations of."""
    return f"Conversations of {context_label(context)} tokens"


def capacity_label(capacity: float, unit: str) -> str:
    """A capacity line's legend entry (``capacity`` already in ``unit``)."""
    return f"Capacity: {capacity:,.1f} {unit} per GPU"


def bars_title(unit: str) -> str:
    """The compared pairs' title."""
    return f"The fullest GPU of each pair ({unit})"


def compared_components(results: Sequence[tuple[str, PlanResult]]) -> list[tuple[str, str, str]]:
    """The components of the compared pairs' fullest GPUs (:func:`shown_components`: a deployment's only where one
    holds it), in stacking order."""
    return shown_components([r.per_gpu for _, r in results])


def component_values(results: Sequence[tuple[str, PlanResult]], unit: str) -> list[tuple[str, str, list[float]]]:
    """Each memory component (:func:`compared_components`, in stacking order) as its name, colour and value on the
    fullest GPU of each result, in ``unit``."""
    return [
        (name, colour, [in_unit(getattr(r.per_gpu, field), unit) for _, r in results])
        for field, name, colour in compared_components(results)
    ]


def capacity_of(results: Sequence[tuple[str, PlanResult]], unit: str) -> float | None:
    """The GPU capacity the compared pairs share (the first's), in ``unit``; ``None`` with nothing compared."""
    return in_unit(results[0][1].per_gpu.gpu_memory_bytes, unit) if results else None


def heatmap_figure(
    weights: Sequence[str], kv_dtypes: Sequence[str], grid: Sequence[Sequence[Assessment | None]], context: int
) -> go.Figure:
    """Whole conversations for each weight precision (rows) x KV dtype (columns), as the Memory page counts
    them; "no fit" where the weights and working memory overflow, "no start" where the engine refuses, "not run"
    where the engine does not run the pair (``None``). The colour bar lies under the chart, so that a phone keeps the
    cells wide enough to read."""
    cells = [[heat_cell(a) for a in row] for row in grid]
    z = [[value for value, _ in row] for row in cells]
    text = [[label for _, label in row] for row in cells]
    heatmap = {
        "type": "heatmap",
        "z": z,
        "x": list(kv_dtypes),
        "y": list(weights),
        "text": text,
        "texttemplate": "%{text}",
        "textfont": {"size": 12},
        "colorscale": "Greens",
        "showscale": any(value is not None for row in z for value in row),  # no scale over no conversations
        "colorbar": {
            "title": {"text": "conversations", "side": "top"},
            "tickformat": ",d",  # whole conversations
            "orientation": "h",
            "xref": "container",
            "yref": "container",
            "x": 0,
            "xanchor": "left",
            "y": 0,
            "yanchor": "bottom",
            "thickness": 10,
            "len": 220,
            "lenmode": "pixels",
        },
        "hovertemplate": "weights %{y}, KV %{x}: %{text} conversations<extra></extra>",
        "xgap": 2,
        "ygap": 2,
    }
    layout = frame_layout(heat_title(context), height=max(340, 110 + 34 * len(weights)))
    layout["xaxis"] = {"title": {"text": "KV cache dtype"}, **layout["xaxis"]}
    layout["yaxis"] = {"title": {"text": "Weight precision"}, **layout["yaxis"], "autorange": "reversed"}
    layout["plot_bgcolor"] = "#fee2e2"  # cells with no value (does not fit) show this pale red
    return go.Figure({"data": [heatmap], "layout": layout})


def compare_bars_figure(results: Sequence[tuple[str, PlanResult]], unit: str = "GiB") -> go.Figure:
    """Side-by-side stacked bars of the limiting GPU of each combination; each pair's name in its colour. Built as
    one dict and checked once."""
    labels = [label for label, _ in results]
    data: list[dict[str, Any]] = [
        {
            "type": "bar",
            "x": labels,
            "y": values,
            "name": name,
            "marker": {"color": colour},
            "hovertemplate": f"{name}: %{{y:,.2f}} {unit}<extra>%{{x}}</extra>",
        }
        for name, colour, values in component_values(results, unit)
    ]
    layout = frame_layout(bars_title(unit), height=480)
    capacity = capacity_of(results, unit)
    if capacity is not None:
        line = {"color": CAPACITY_COLOUR, "dash": "dash"}
        layout["shapes"] = [
            {
                "type": "line",
                "xref": "x domain",
                "yref": "y",
                "x0": 0,
                "x1": 1,
                "y0": capacity,
                "y1": capacity,
                "line": line,
            }
        ]
        data.append(_legend_line(capacity_label(capacity, unit)))
    layout["barmode"] = "stack"
    layout["yaxis"] = {"title": {"text": f"Memory per GPU ({unit})"}, **layout["yaxis"]}
    layout["xaxis"] = {
        **layout["xaxis"],
        "tickmode": "array",
        "tickvals": labels,
        "ticktext": [f"<b><span style='color:{pair_colour(label)}'>{label}</span></b>" for label in labels],
    }
    return go.Figure({"data": data, "layout": layout})

"""Figure builders: pure functions of planner results, tested without a browser.

The same memory component has the same colour on every chart. Curves take their x-axis (the context
lengths) from the caller. Every axis states its unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from planner.advisor import Option
from planner.assess import Assessment, CurvePoint, VerdictState
from planner.plan import PlanResult, StageMemory
from planner.units import UNIT_BYTES

COMPONENTS: tuple[tuple[str, str, str], ...] = (
    # (StageMemory field, legend name, colour)
    ("weights_bytes", "Weights", "#2563eb"),
    ("kv_cache_bytes", "KV cache pool", "#16a34a"),
    ("activation_bytes", "Activations", "#f59e0b"),
    ("overhead_bytes", "Framework overhead", "#a855f7"),
    ("reserved_bytes", "Reserved headroom", "#94a3b8"),
    # the deployment's components (planner.deploy), drawn when a GPU holds any
    ("lora_bytes", "LoRA adapter slots", "#db2777"),
    ("draft_bytes", "Draft model / MTP / heads", "#0891b2"),
    ("other_bytes", "In use by other processes", "#78350f"),
    ("free_bytes", "Free", "#e5e7eb"),
)
DEPLOYMENT_FIELDS = frozenset({"lora_bytes", "draft_bytes", "other_bytes"})
COLOURS = {name: colour for _, name, colour in COMPONENTS}
SHORTFALL_COLOUR = "#dc2626"
LAYOUT = dict(
    template="plotly_white",
    margin=dict(l=10, r=10, t=50, b=10),
    legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left", x=0, traceorder="normal"),
    font=dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=13),
    hoverlabel=dict(font_size=13),
)


def _in(n_bytes: float, unit: str) -> float:
    return n_bytes / UNIT_BYTES[unit]


def shown_components(stages: Sequence[StageMemory]) -> list[tuple[str, str, str]]:
    """:data:`COMPONENTS` without the deployment's that no GPU holds (a plain plan keeps its legend)."""
    return [c for c in COMPONENTS if c[0] not in DEPLOYMENT_FIELDS or any(getattr(s, c[0]) for s in stages)]


def _gpu_rows(result: PlanResult) -> list[tuple[str, StageMemory]]:
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
    """A stacked bar per GPU of one replica against its capacity (a dashed line).

    When it does not fit, the bar overflows the line and the shortfall is drawn in red.
    """
    rows = _gpu_rows(result)
    labels = [label for label, _ in rows]
    fig = go.Figure()
    for field, name, colour in shown_components(result.stages):
        values = [_in(getattr(stage, field), unit) for _, stage in rows]
        fig.add_bar(
            y=labels,
            x=values,
            name=name,
            orientation="h",
            marker_color=colour,
            hovertemplate=f"{name}: %{{x:,.2f}} {unit}<extra>%{{y}}</extra>",
        )
    capacity = _in(result.per_gpu.gpu_memory_bytes, unit)
    shortfall = [_in(max(0, -stage.headroom_bytes), unit) for _, stage in rows]
    fig.add_vline(
        x=capacity,
        line_dash="dash",
        line_color="#111827",
        annotation_text=f"capacity {capacity:,.1f} {unit}",
        annotation_position="bottom right",
        annotation_yshift=-18,
    )
    _stage_capacities(fig, rows, unit)
    for (label, _), short in zip(rows, shortfall, strict=True):
        if short:
            fig.add_annotation(
                y=label,
                x=capacity,
                text=f"short by {short:,.1f} {unit}",
                showarrow=False,
                xanchor="left",
                xshift=6,
                font=dict(color=SHORTFALL_COLOUR, size=14),
                bgcolor="rgba(255,255,255,0.92)",
                bordercolor=SHORTFALL_COLOUR,
                borderpad=3,
            )
    fig.update_layout(
        barmode="stack",
        title=title,
        xaxis_title=f"Memory per GPU ({unit})",
        height=max(220, 90 + 46 * len(rows)),
        **LAYOUT,
    )
    if len(shown_components(result.stages)) > len(COMPONENTS) - len(DEPLOYMENT_FIELDS):  # a longer legend
        fig.update_layout(margin=dict(l=10, r=10, t=90, b=10), height=max(260, 130 + 46 * len(rows)))
    fig.update_yaxes(autorange="reversed")
    return fig


def _stage_capacities(fig: go.Figure, rows: list[tuple[str, StageMemory]], unit: str) -> None:
    """Mixed GPUs: each row's own capacity as a short dashed mark (the line above is the limiting GPU's)."""
    if len({stage.gpu_memory_bytes for _, stage in rows}) < 2:
        return
    for index, (_, stage) in enumerate(rows):
        x = _in(stage.gpu_memory_bytes, unit)
        fig.add_shape(type="line", x0=x, x1=x, y0=index - 0.45, y1=index + 0.45, yref="y", xref="x",
                      line=dict(color="#111827", width=2, dash="dot"))  # fmt: skip


@dataclass(frozen=True)
class Curve:
    """One line of the what-if chart: a label and the capacity at each context of the caller's x-axis."""

    label: str
    points: Sequence[CurvePoint]


def concurrency_figure(
    curves: Sequence[Curve], chosen_context: int, show_contiguous: bool = False, chosen_label: str | None = None
) -> go.Figure:
    """Max concurrent sequences against context length (log-log axes), one line per curve, the chosen
    point marked on the first (or ``chosen_label``) curve, paged solid and contiguous dashed."""
    fig = go.Figure()
    palette = ["#2563eb", "#16a34a", "#f59e0b", "#a855f7", "#0891b2", "#db2777", "#65a30d", "#7c3aed"]
    for index, curve in enumerate(curves):
        colour = palette[index % len(palette)]
        xs = [p.context_tokens for p in curve.points]
        fig.add_scatter(
            x=xs,
            y=[p.concurrency for p in curve.points],
            name=curve.label,
            mode="lines",
            line=dict(color=colour, width=2.5),
            hovertemplate="%{x:,} tokens: %{y:,.2f} sequences<extra>" + curve.label + " (paged)</extra>",
        )
        if show_contiguous:
            fig.add_scatter(
                x=xs,
                y=[p.contiguous for p in curve.points],
                name=f"{curve.label} — contiguous",
                mode="lines",
                line=dict(color=colour, width=1.5, dash="dash"),
                hovertemplate="%{x:,} tokens: %{y:,} sequences<extra>" + curve.label + " (contiguous)</extra>",
            )
    target = next((c for c in curves if c.label == chosen_label), curves[0] if curves else None)
    if target is not None:
        point = min(target.points, key=lambda p: abs(p.context_tokens - chosen_context))
        fig.add_scatter(
            x=[point.context_tokens],
            y=[point.concurrency],
            name="Chosen context",
            mode="markers",
            marker=dict(size=13, color="#111827", symbol="diamond"),
            hovertemplate="%{x:,} tokens: %{y:,.2f} sequences<extra>chosen</extra>",
        )
    fig.update_layout(
        xaxis=dict(type="log", title="Context length per sequence (tokens, log scale)"),
        # Log-log: eight times the context is one eighth the sequences, a straight line; set-ups that do not
        # fit (zero sequences) leave a gap rather than squashing every other curve against the axis.
        yaxis=dict(title="Max concurrent sequences (log scale)", type="log"),
        height=460,
        hovermode="closest",
        **LAYOUT,
    )
    return fig


def heatmap_figure(
    weights: Sequence[str], kv_dtypes: Sequence[str], grid: Sequence[Sequence[Assessment]], context: int
) -> go.Figure:
    """Whole conversations for each weight precision (rows) x KV dtype (columns), as the Memory page counts
    them; "does not fit" where the weights and working memory overflow, "will not start" where the engine
    refuses."""
    z: list[list[float | None]] = []
    text: list[list[str]] = []
    for row in grid:
        z_row: list[float | None] = []
        t_row: list[str] = []
        for a in row:
            if a.state is VerdictState.WEIGHTS_DO_NOT_FIT:
                z_row.append(None)
                t_row.append("does not fit")
            elif a.state is VerdictState.ENGINE_REFUSES:
                z_row.append(None)
                t_row.append("will not start")
            else:
                z_row.append(a.conversations)
                t_row.append(f"{a.conversations:,}")
        z.append(z_row)
        text.append(t_row)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(kv_dtypes),
            y=list(weights),
            text=text,
            texttemplate="%{text}",
            colorscale="Greens",
            colorbar=dict(title="conversations"),
            hovertemplate="weights %{y}, KV %{x}: %{text} conversations<extra></extra>",
            xgap=2,
            ygap=2,
        )
    )
    fig.update_layout(
        title=f"Concurrent conversations of {context:,} tokens",
        xaxis_title="KV cache dtype",
        yaxis_title="Weight precision",
        height=max(320, 60 + 34 * len(weights)),
        plot_bgcolor="#fee2e2",  # cells with no value (does not fit) show this pale red
        **LAYOUT,
    )
    fig.update_yaxes(autorange="reversed")
    return fig


def compare_bars_figure(results: Sequence[tuple[str, PlanResult]], unit: str = "GiB") -> go.Figure:
    """Side-by-side stacked bars of the limiting GPU of each combination."""
    labels = [label for label, _ in results]
    fig = go.Figure()
    for field, name, colour in COMPONENTS:
        fig.add_bar(
            x=labels,
            y=[_in(getattr(r.per_gpu, field), unit) for _, r in results],
            name=name,
            marker_color=colour,
            hovertemplate=f"{name}: %{{y:,.2f}} {unit}<extra>%{{x}}</extra>",
        )
    if results:
        capacity = _in(results[0][1].per_gpu.gpu_memory_bytes, unit)
        fig.add_hline(
            y=capacity, line_dash="dash", line_color="#111827", annotation_text=f"capacity {capacity:,.1f} {unit}"
        )
    fig.update_layout(barmode="stack", yaxis_title=f"Memory per GPU ({unit})", height=440, **LAYOUT)
    return fig


def _pareto_value(o: Option, against: str) -> float:
    return o.concurrency if against == "capacity" else (o.decode_tokens_per_s_total or 0.0)


def _option_trace(
    fig: go.Figure, points: Sequence[Option], index: dict[int, int], against: str, **style: object
) -> None:
    """One scatter trace of options; each point carries its option index in ``customdata``."""
    fig.add_scatter(
        x=[o.cost for o in points],
        y=[_pareto_value(o, against) for o in points],
        customdata=[index[id(o)] for o in points],
        text=[o.label for o in points],
        **style,
    )


def pareto_figure(
    options: Sequence[Option],
    front: Sequence[Option],
    against: str,
    cost_label: str,
    chosen: Option | None = None,
) -> go.Figure:
    """Cost against capacity (concurrent conversations) or against aggregate decode throughput.

    Every priced option is a grey point, the Pareto front a line; each point carries its option index in
    ``customdata`` so a click can open it. The chosen (recommended) option is a large diamond.
    """
    index = {id(o): i for i, o in enumerate(options)}
    y_title = "Concurrent conversations" if against == "capacity" else "Aggregate decode throughput (tokens/s)"
    fig = go.Figure()
    hover = "%{text}<br>%{x:$,.0f}<br>%{y:,.1f}<extra>"
    _option_trace(
        fig,
        [o for o in options if o.cost is not None],
        index,
        against,
        mode="markers",
        name="Set-ups that meet the target",
        marker=dict(color="#94a3b8", size=7, opacity=0.6),
        hovertemplate=hover + "</extra>",
    )
    _option_trace(
        fig,
        sorted((o for o in front if o.cost is not None), key=lambda o: o.cost or 0.0),
        index,
        against,
        mode="lines+markers",
        name="Pareto front (nothing cheaper does more)",
        line=dict(color="#2563eb", width=2),
        marker=dict(size=10, color="#2563eb"),
        hovertemplate=hover + "Pareto front</extra>",
    )
    if chosen is not None and chosen.cost is not None:
        _option_trace(
            fig,
            [chosen],
            index,
            against,
            mode="markers",
            name="Recommended",
            marker=dict(size=18, color="#16a34a", symbol="diamond", line=dict(color="#111827", width=1)),
            hovertemplate=hover + "recommended</extra>",
        )
    fig.update_layout(
        xaxis=dict(title=cost_label, type="log"),
        yaxis=dict(title=y_title, rangemode="tozero"),
        height=460,
        hovermode="closest",
        clickmode="event+select",
        **LAYOUT,
    )
    return fig

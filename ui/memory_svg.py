"""The Memory chart as a static SVG for the HTML report: the same bars, components, colours and capacity line as
:func:`ui.figures.memory_figure`, drawn without a script, so the report a manager forwards stays small (the
Plotly figure inlines its 4.7 MB library) and reads offline on a phone. Pure: data in, markup out; every text is
escaped."""

from __future__ import annotations

import html
import math

from planner.planning.results import PlanResult, StageMemory
from ui.figures import (
    CAPACITY_COLOUR,
    SHORTFALL_COLOUR,
    gpu_rows,
    in_unit,
    mixed,
    shortfall_label,
    shown_components,
)
from ui.report import StaticSvg

WIDTH, LEFT, RIGHT, ROW, TOP = 640, 120, 24, 34, 36  # pixels: the drawing's width, margins, one bar's row
LEGEND_ROW = 20


def _ticks(top: float) -> list[float]:
    """Four or five round ticks from 0 to at least ``top``.

    >>> _ticks(79.2), _ticks(8.0), _ticks(14_269)[-1], _ticks(0.3)
    ([0, 20, 40, 60, 80], [0, 2, 4, 6, 8], 15000, [0.0, 0.1, 0.2, 0.3])
    """
    if top <= 0:
        return [0, 1]
    magnitude = 10 ** math.floor(math.log10(top / 4))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if top / (m * magnitude) <= 4)
    count = math.ceil(top / step - 1e-9)
    return [round(i * step, 6) if step < 1 else round(i * step) for i in range(count + 1)]


def memory_svg(result: PlanResult, unit: str = "GiB", title: str | None = None) -> StaticSvg:
    """A stacked bar per GPU of one replica against its capacity (dashed), the shortfall named in red.

    >>> from model_catalog import get_gpu, get_model
    >>> from planner.planning.plan import PlanRequest, plan
    >>> gpu = get_gpu("h100-sxm-80gb")
    >>> model = get_model("meta-llama/Llama-3.1-8B").spec
    >>> r = plan(PlanRequest(model=model, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes))
    >>> svg = memory_svg(r).markup
    >>> svg.startswith("<svg") and "Weights" in svg and "<script" not in svg
    True
    """
    rows, components = gpu_rows(result), shown_components(result.stages)
    capacity = in_unit(result.per_gpu.gpu_memory_bytes, unit)
    longest = max([capacity, *(sum(in_unit(getattr(s, f), unit) for f, _, _ in components) for _, s in rows)])
    ticks = _ticks(longest)
    scale = (WIDTH - LEFT - RIGHT) / (ticks[-1] or 1)
    bars_bottom = TOP + ROW * len(rows)
    legend_top = bars_bottom + 52
    height = legend_top + LEGEND_ROW * ((len(components) + 2) // 3 + 1) + 8
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {WIDTH} {height}' width='100%' role='img' "
        f"aria-label='{html.escape(title or 'Memory per GPU', quote=True)}' font-family='sans-serif' font-size='12'>"
    ]
    if title:
        parts.append(f"<text x='0' y='16' font-size='14' font-weight='bold'>{html.escape(title)}</text>")
    parts += _axis(ticks, scale, bars_bottom, unit)
    for index, (label, stage) in enumerate(rows):
        parts += _bar(label, stage, TOP + index * ROW, components, scale, capacity, unit)
    cap_x = LEFT + capacity * scale
    parts.append(
        f"<line x1='{cap_x:.1f}' y1='{TOP - 4}' x2='{cap_x:.1f}' y2='{bars_bottom}' stroke='{CAPACITY_COLOUR}' "
        "stroke-dasharray='6 4' stroke-width='1.5'/>"
    )
    if mixed(rows):  # each GPU's own capacity, a dotted mark on its row (the dashed line is the limiting GPU's)
        parts += [
            f"<line x1='{LEFT + in_unit(s.gpu_memory_bytes, unit) * scale:.1f}' y1='{TOP + i * ROW + 2}' "
            f"x2='{LEFT + in_unit(s.gpu_memory_bytes, unit) * scale:.1f}' y2='{TOP + (i + 1) * ROW - 2}' "
            f"stroke='{CAPACITY_COLOUR}' stroke-dasharray='2 2' stroke-width='2'/>"
            for i, (_, s) in enumerate(rows)
        ]
    for index, (_, name, colour) in enumerate(components):
        lx, ly = (index % 3) * (WIDTH // 3), legend_top + (index // 3) * LEGEND_ROW
        parts.append(f"<rect x='{lx}' y='{ly - 10}' width='12' height='12' fill='{colour}'/>")
        parts.append(f"<text x='{lx + 16}' y='{ly}'>{html.escape(name)}</text>")
    ly = legend_top + ((len(components) + 2) // 3) * LEGEND_ROW  # the capacity on a row of its own: it is long
    parts.append(
        f"<line x1='0' y1='{ly - 4}' x2='12' y2='{ly - 4}' stroke='{CAPACITY_COLOUR}' stroke-dasharray='4 2'/>"
    )
    parts.append(f"<text x='16' y='{ly}'>{html.escape(f'Capacity: {capacity:,.1f} {unit} per GPU (dashed)')}</text>")
    parts.append("</svg>")
    return StaticSvg("".join(parts))


def _axis(ticks: list[float], scale: float, bottom: int, unit: str) -> list[str]:
    """The vertical grid lines, their values and the axis title."""
    parts = []
    for tick in ticks:
        x = LEFT + tick * scale
        parts.append(f"<line x1='{x:.1f}' y1='{TOP - 4}' x2='{x:.1f}' y2='{bottom}' stroke='#e5e7eb'/>")
        parts.append(f"<text x='{x:.1f}' y='{bottom + 14}' text-anchor='middle'>{tick:g}</text>")
    middle = LEFT + (WIDTH - LEFT - RIGHT) / 2
    parts.append(
        f"<text x='{middle:.1f}' y='{bottom + 28}' text-anchor='middle'>Memory per GPU ({html.escape(unit)})</text>"
    )
    return parts


def _bar(
    label: str,
    stage: StageMemory,
    y: int,
    components: list[tuple[str, str, str]],
    scale: float,
    capacity: float,
    unit: str,
) -> list[str]:
    """One GPU's row: its label, a rectangle per component (its figure in a tooltip), the shortfall in red."""
    parts = [f"<text x='{LEFT - 8}' y='{y + ROW / 2 + 4:.1f}' text-anchor='end'>{html.escape(label)}</text>"]
    x = float(LEFT)
    for field, name, colour in components:
        value = in_unit(getattr(stage, field), unit)
        if value <= 0:
            continue
        parts.append(
            f"<rect x='{x:.1f}' y='{y + 4}' width='{value * scale:.1f}' height='{ROW - 8}' fill='{colour}'>"
            f"<title>{html.escape(f'{label}, {name}: {value:,.2f} {unit}')}</title></rect>"
        )
        x += value * scale
    if stage.headroom_bytes < 0:
        parts.append(
            f"<text x='{LEFT + capacity * scale + 6:.1f}' y='{y + ROW / 2 + 4:.1f}' fill='{SHORTFALL_COLOUR}' "
            "stroke='white' stroke-width='3' paint-order='stroke'>"
            f"{html.escape(shortfall_label(stage, unit))}</text>"
        )
    return parts

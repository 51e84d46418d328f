"""The Context what-if's charts as Vega-Lite specs and their rows (pure: a panel in, data out), one a GPU.

Vega-Lite, not Plotly, for the reason :mod:`ui.compare_charts` gives: Streamlit mounts a Plotly chart from scratch on
every slider move, where a Vega-Lite chart whose spec stays the same takes new rows in place. So everything the
context and users sliders (and the reservation toggle) change is in the rows: the points of each line, the target and
its label, the chosen context, the dots, the diamond, the end labels, and the axes' reach (two invisible points at
the corners, :data:`FRAME`: the scales' domains are the data's). The spec holds only what the GPU, the picked pairs
and the model's context range decide: the title, each pair's colour, the context ticks.

The content is the Plotly figure's (:func:`ui.curves.what_if_figure`, still drawn for the HTML report), read by the
same helpers: the lines (:func:`ui.curves.shown`, :func:`ui.curves.reserved`), the y range
(:func:`ui.curves.y_limits`), the dots (:func:`ui.curves.longest_marked`), the diamond
(:func:`ui.curves.chosen_point`) and the end labels pushed apart (:func:`ui.curves.end_labels`).

>>> data, spec = what_if_chart(Panel("1 × H100", []), 32768, 50, (512, 131072), 1.0)
>>> sorted(data), len(spec["layer"])
(['marks', 'points'], 13)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ui.compare_charts import AUTOSIZE, PADDING, Data
from ui.curves import (
    CHOSEN_COLOUR,
    PLOT_PX,
    TARGET_COLOUR,
    Curve,
    Panel,
    chosen_point,
    context_ticks,
    end_labels,
    longest_marked,
    reserved,
    short_tokens,
    shown,
    y_limits,
)
from ui.figures import CAPACITY_COLOUR, pair_colour

POINTS, MARKS = "points", "marks"  # the named datasets: the lines' points; everything else, by its ``kind``
FRAME, TARGET, CHOSEN, LONGEST, DIAMOND, LABEL = "frame", "target", "chosen", "longest", "diamond", "label"
STRIKE = "\u0336"  # a combining long stroke overlay: a name struck out, as Plotly's <s>
# The y axis's ticks, 1, 2 and 5 in each decade (Plotly's dtick "D2"; Vega draws those in range): decades alone left
# one label, "1", under a target of a few users (browser audit, 2026-12-05)
DECADES = [m * 10**k for k in range(8) for m in (1, 2, 5)]


def struck(text: str) -> str:
    """``text`` struck out, character by character.

    >>> struck("ab") == "a\u0336b\u0336"
    True
    """
    return "".join(ch + STRIKE for ch in text)


def line_rows(curves: Sequence[Curve], contiguous: bool) -> list[dict[str, Any]]:
    """One row per point drawn: the pair, ``paged`` (solid) or ``reserved`` (dashed, llama.cpp's slots, with the
    toggle), the context, the height and the whole conversations; none where the line is not drawn."""
    rows = []
    for curve in curves:
        lines: list[tuple[str, Sequence[float | None], Sequence[int | None]]] = [
            ("paged", shown(curve), [p.conversations for p in curve.points])
        ]
        if contiguous:
            held = reserved(curve)
            lines.append(("reserved", held, held))
        for style, heights, counts in lines:
            rows += [
                {"pair": curve.pair, "style": style, "tokens": p.context_tokens, "y": y, "conversations": n}
                for p, y, n in zip(curve.points, heights, counts, strict=True)
                if y is not None
            ]
    return rows


def _mark(kind: str, tokens: int, y: float, text: str, pair: str | None = None, drawn: bool = False) -> dict[str, Any]:
    """A row of :data:`MARKS`; every row has every column (an Arrow table's columns are the first row's)."""
    return {"kind": kind, "pair": pair, "tokens": tokens, "y": y, "text": text, "drawn": drawn}


def mark_rows(
    panel: Panel, context: int, users: int, x_range: tuple[int, int], y_top: float, marked: str | None = None
) -> list[dict[str, Any]]:
    """The axes' corners, the target (its line and label), the chosen context, a dot where each line crosses the
    target, the ``marked`` pair's diamond at the chosen context, and each pair's name at its line's end."""
    low, high = y_limits(users, y_top)
    rows = [
        _mark(FRAME, x_range[0], 10**low, ""),
        _mark(FRAME, x_range[1], 10**high, ""),
        _mark(TARGET, x_range[0], users, f"target {users:,} users"),
        _mark(CHOSEN, context, 10**low, f"chosen: {context:,} tokens"),
    ]
    rows += [
        _mark(LONGEST, c.longest, users, f"{c.pair}: {users:,} users up to {c.longest:,} tokens", c.pair)
        for c in longest_marked(panel.curves, x_range)
    ]
    own = next((c for c in panel.curves if c.pair == marked), None)
    point = chosen_point(own, context)
    if own is not None and point is not None:
        text = f"{own.pair}, chosen: {context:,} tokens, {point.conversations:,} conversations"
        rows.append(_mark(DIAMOND, context, point.concurrency, text, own.pair))
    for label in end_labels(panel.curves, (low, high), x_range[1]):
        y = 10 ** (low + label.y * (high - low))  # the label's place in the plot's height, as a value
        text = label.pair if label.drawn else struck(label.pair)
        rows.append(_mark(LABEL, label.tokens, y, text, label.pair, label.drawn))
    return rows


def _axes(x_range: tuple[int, int]) -> dict[str, Any]:
    """Log-log, each scale's domain the data's (:data:`FRAME`); the context ticks every second power of two
    (:func:`ui.curves.context_ticks`, labelled as :func:`ui.curves.short_tokens`), the conversations' every decade."""
    ticks = context_ticks(*x_range)
    names = json.dumps({str(t): short_tokens(t) for t in ticks})
    scale = {"type": "log", "nice": False, "zero": False}
    x = {
        "field": "tokens",
        "type": "quantitative",
        "scale": scale,
        "axis": {
            "title": "Tokens per conversation (log scale)",
            "values": ticks,
            "grid": False,
            "labelExpr": f"{names}[datum.value] || datum.label",
        },
    }
    y = {
        "field": "y",
        "type": "quantitative",
        "scale": scale,
        "axis": {"title": "Conversations at once (log)", "values": DECADES, "format": "d"},
    }
    return {"x": x, "y": y}


def _layer(data: str, where: str, mark: dict[str, Any], encoding: dict[str, Any]) -> dict[str, Any]:
    """A layer of the rows of ``data`` that meet ``where``, on the shared axes (an axis given as ``None`` left out:
    a rule spanning the plot)."""
    return {
        "data": {"name": data},
        "transform": [{"filter": where}],
        "mark": mark,
        "encoding": {k: v for k, v in encoding.items() if v is not None},
    }


def _of(kind: str) -> str:
    return f"datum.kind == '{kind}'"


def _texts(where: str, axes: dict[str, Any], colour: dict[str, Any], **mark: Any) -> list[dict[str, Any]]:
    """Text on a white halo (the Plotly labels' background), from the marks that meet ``where``."""
    base = {"type": "text", "fontSize": 13, "align": "left", **mark}
    halo = {**base, "fill": "white", "stroke": "white", "strokeWidth": 4, "strokeOpacity": 0.85, "strokeJoin": "round"}
    text = {**axes, "text": {"field": "text"}}
    return [_layer(MARKS, where, halo, text), _layer(MARKS, where, base, {**text, **colour})]


def _lines(axes: dict[str, Any], colour: dict[str, Any]) -> list[dict[str, Any]]:
    """Each pair's line (solid, 2.5 px) and, with the toggle, its reservation (dashed, 1.5 px); a transparent point
    on each for its tooltip."""
    tooltip = [
        {"field": "pair", "title": "weights / KV"},
        {"field": "tokens", "title": "tokens", "format": ","},
        {"field": "conversations", "title": "conversations", "format": ","},
    ]
    encoding = {**axes, **colour, "detail": {"field": "pair"}, "tooltip": tooltip}
    return [
        _layer(POINTS, f"datum.style == '{style}'", {"type": "line", "point": "transparent", **mark}, encoding)
        for style, mark in (("paged", {"strokeWidth": 2.5}), ("reserved", {"strokeWidth": 1.5, "strokeDash": [6, 4]}))
    ]


def _marks(axes: dict[str, Any], colour: dict[str, Any]) -> list[dict[str, Any]]:
    """The corners (invisible), the target (dashed across), the chosen context (dotted, top to bottom), a dot on
    each line where it crosses the target, and the diamond."""
    tip = {"tooltip": {"field": "text"}}
    dot = {"type": "point", "filled": True, "size": 121, "stroke": "white", "strokeWidth": 2, "opacity": 1}
    diamond = {"type": "point", "filled": True, "shape": "diamond", "size": 260, "color": CAPACITY_COLOUR, "opacity": 1}
    target = {"type": "rule", "color": TARGET_COLOUR, "strokeWidth": 1.5, "strokeDash": [6, 4]}
    chosen = {"type": "rule", "color": CHOSEN_COLOUR, "strokeWidth": 1.5, "strokeDash": [2, 3]}
    return [
        _layer(MARKS, _of(FRAME), {"type": "point", "opacity": 0}, axes),
        _layer(MARKS, _of(TARGET), target, {**axes, "x": None, **tip}),
        _layer(MARKS, _of(CHOSEN), chosen, {**axes, "y": None, **tip}),
        _layer(MARKS, _of(LONGEST), dot, {**axes, **colour, **tip}),
        _layer(MARKS, _of(DIAMOND), diamond, {**axes, **tip}),
    ]


def what_if_spec(panel: Panel, x_range: tuple[int, int]) -> dict[str, Any]:
    """The chart's spec: what the GPU (the title), the pairs (their colours, the room their names take on the
    right) and the model's context range (the ticks) decide; nothing the sliders move."""
    pairs = [c.pair for c in panel.curves]
    colour = {"color": {"field": "pair", "type": "nominal", "legend": None,
                        "scale": {"domain": pairs, "range": [pair_colour(p) for p in pairs]}}}  # fmt: skip
    axes = _axes(x_range)
    labels = f"{_of(LABEL)} && datum.drawn"
    marks = _marks(axes, colour)
    layers = [
        *marks[:3],  # the corners, the target, the chosen context
        *_lines(axes, colour),
        *marks[3:],  # the dots and the diamond, over the lines
        *_texts(_of(TARGET), axes, {}, color=TARGET_COLOUR, baseline="bottom", dy=-2),
        *_texts(labels, axes, colour, baseline="middle", dx=4, fontWeight="bold"),
        *_texts(f"{_of(LABEL)} && !datum.drawn", axes, colour, baseline="middle", dx=4),
    ]
    return {
        "title": {"text": panel.title, "anchor": "start", "fontSize": 16},
        "autosize": AUTOSIZE,
        "padding": PADDING,  # the names past the plot's right edge are in the chart's bounds: fit-x makes room
        "layer": layers,
        "config": {"view": {"continuousHeight": PLOT_PX}, "axis": {"labelFontSize": 13, "titleFontSize": 14}},
    }


def what_if_chart(
    panel: Panel,
    context: int,
    users: int,
    x_range: tuple[int, int],
    y_top: float,
    contiguous: bool = False,
    marked: str | None = None,
) -> tuple[Data, dict[str, Any]]:
    """One GPU's chart, as :func:`ui.curves.what_if_figure` draws it (the same arguments): its rows and its spec."""
    data = {
        POINTS: line_rows(panel.curves, contiguous),
        MARKS: mark_rows(panel, context, users, x_range, y_top, marked),
    }
    return data, what_if_spec(panel, x_range)

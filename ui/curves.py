"""The context what-if, pure: for each GPU and each weight / KV pair, the conversations held at each context
length and the longest context that still holds the target users; one small chart per GPU.

Every figure comes from :func:`planner.assessment.curve.concurrency_curve` and
:func:`planner.assessment.alternatives.longest_context_that_fits` (both judged by
:func:`planner.assessment.assess.assess`), so the
point at the chosen context is the Memory page's number. The charts have no legend: each line is labelled at
its end in its pair's colour (:func:`ui.figures.pair_colour`), labels pushed apart so they never overlap.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

from planner.assessment.assess import context_label
from planner.assessment.curve import CurvePoint, concurrency_curve
from planner.assessment.trial import longest_context_that_fits
from planner.bounds.errors import PlannerError
from planner.planning.plan import PlanRequest
from ui.figures import CAPACITY_COLOUR, TOOLBAR_PX, frame_layout, pair_colour

FLOOR = 0.8  # the y-axis starts just under one conversation: fewer is "does not serve"
PANEL_HEIGHT = 380
LABEL_PX = 17  # a label's height: labels closer than this are pushed apart
CHAR_PX = 7.4  # a label character's width at 12 px
PLOT_PX = PANEL_HEIGHT - TOOLBAR_PX - 8 - 24 - 62  # the plot area's height: title above, ticks and axis title below
TARGET_COLOUR = CAPACITY_COLOUR
CHOSEN_COLOUR = "#6b7280"


@dataclass(frozen=True)
class Curve:
    """One line: a ``weights/kv`` pair, its points, and the longest context holding the target users (0: not
    even the shortest; the model's maximum when every length does)."""

    pair: str
    points: Sequence[CurvePoint]
    longest: int = 0

    def at(self, context: int) -> CurvePoint | None:
        return next((p for p in self.points if p.context_tokens == context), None)


@dataclass(frozen=True)
class Panel:
    """One GPU's chart: its title (``2 × H100 SXM5 80GB``) and a curve per pair."""

    title: str
    curves: Sequence[Curve]


def build_curve(request: PlanRequest, pair: str, contexts: Sequence[int], users: int) -> Curve:
    """The pair's curve over ``contexts``, plus the exact point where it stops holding ``users`` (so the marker
    lies on the line). Raises :class:`PlannerError` when the set-up is not valid (a pair the model refuses)."""
    longest = longest_context_that_fits(request, users)
    xs = sorted({*contexts, *([longest] if contexts[0] <= longest <= contexts[-1] else [])})
    return Curve(pair, concurrency_curve(request, xs, users), longest)


def with_context(curve: Curve, request: PlanRequest, context: int, users: int | None = None) -> Curve:
    """``curve`` with its point at ``context`` (the chosen one, judged against ``users``), computed when the
    curve lacks it."""
    if curve.at(context) is not None:
        return curve
    points = sorted([*curve.points, *concurrency_curve(request, [context], users)], key=lambda p: p.context_tokens)
    return Curve(curve.pair, points, curve.longest)


CurveMaker = Callable[[PlanRequest, str, tuple[int, ...], int], Curve]


def build_panel(
    title: str,
    requests: Sequence[tuple[str, PlanRequest]],
    contexts: Sequence[int],
    users: int,
    chosen: int | None = None,
    make: CurveMaker = build_curve,
) -> tuple[Panel, list[str]]:
    """A panel of every pair that plans (each with its point at ``chosen``), and a note for each one that does
    not. ``make`` builds a curve (a cached :func:`build_curve` on the page: the curve does not depend on the
    chosen context, so moving the slider recomputes one point per curve)."""
    built, skipped = [], []
    for pair, request in requests:
        try:
            curve = make(request.at_context(contexts[0]), pair, tuple(contexts), users)
            built.append(with_context(curve, request, chosen, users) if chosen else curve)
        except PlannerError as exc:
            skipped.append(f"{pair} on {title}: {exc}")
    return Panel(title, built), skipped


def spread(wanted: Sequence[float], gap: float, low: float = 0.0, high: float = 1.0) -> list[float]:
    """Positions as close to ``wanted`` as they can be with at least ``gap`` between any two, kept inside
    [``low``, ``high``] while they fit; in the order given.

    >>> [round(y, 2) for y in spread([0.5, 0.52, 0.9], 0.1)]
    [0.5, 0.6, 0.9]
    >>> [round(y, 2) for y in spread([0.99, 0.98], 0.1)]
    [1.0, 0.9]
    """
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    ys = [max(low, min(high, wanted[i])) for i in order]
    for i in range(1, len(ys)):  # push up
        ys[i] = max(ys[i], ys[i - 1] + gap)
    if ys and ys[-1] > high:  # then down from the top
        ys[-1] = high
        for i in range(len(ys) - 2, -1, -1):
            ys[i] = min(ys[i], ys[i + 1] - gap)
    placed = [0.0] * len(ys)
    for rank, index in enumerate(order):
        placed[index] = ys[rank]
    return placed


def _log(value: float) -> float:
    return math.log10(value)


def _end(curve: Curve) -> CurvePoint | None:
    """The last point drawn (at least :data:`FLOOR` conversations)."""
    shown = [p for p in curve.points if p.concurrency >= FLOOR]
    return shown[-1] if shown else None


def y_limits(users: int, y_top: float) -> tuple[float, float]:
    """The y axis's range, in decades: from just under one conversation to above the highest point and the target."""
    return _log(FLOOR), _log(max(y_top, users) * 1.6)


def shown(curve: Curve) -> list[float | None]:
    """The line's height at each point: the conversations at once, none below :data:`FLOOR` (not drawn)."""
    return [p.concurrency if p.concurrency >= FLOOR else None for p in curve.points]


def reserved(curve: Curve) -> list[int | None]:
    """The conversations each point holds when each reserves its full length up front (llama.cpp's slots), none
    under one."""
    return [p.contiguous if p.contiguous >= 1 else None for p in curve.points]


def _line(curve: Curve, contiguous: bool) -> list[dict[str, Any]]:
    colour = pair_colour(curve.pair)
    xs = [p.context_tokens for p in curve.points]
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": xs,
            "y": shown(curve),
            "mode": "lines",
            "name": curve.pair,
            "line": {"color": colour, "width": 2.5},
            "customdata": [p.conversations for p in curve.points],
            "hovertemplate": "%{x:,} tokens: %{customdata:,} conversations<extra>" + curve.pair + "</extra>",
        }
    ]
    if contiguous:
        traces.append(
            {
                "type": "scatter",
                "x": xs,
                "y": reserved(curve),
                "mode": "lines",
                "name": f"{curve.pair}, reserved up front",
                "line": {"color": colour, "width": 1.5, "dash": "dash"},
                "hovertemplate": "%{x:,} tokens: %{y:,} conversations<extra>"
                + curve.pair
                + ", reserved up front</extra>",
            }
        )
    return traces


@dataclass(frozen=True)
class EndLabel:
    """A pair's name where its line ends: at ``tokens`` (the right edge when not ``inside`` the plot), at ``y`` of
    the plot's height (0 the bottom, 1 the top); a pair not ``drawn`` (no line) is named at the bottom, struck out."""

    pair: str
    drawn: bool
    tokens: int
    inside: bool
    y: float


def end_labels(curves: Sequence[Curve], y_range: tuple[float, float], x_max: int) -> list[EndLabel]:
    """Each pair's name at its line's end, pushed apart so that none overlaps another (:data:`LABEL_PX` on a plot
    :data:`PLOT_PX` high) and whole inside the plot's height."""
    span = y_range[1] - y_range[0]
    ends = [(c, _end(c)) for c in curves]
    wanted = [(_log(end.concurrency) - y_range[0]) / span if end else 0.0 for _, end in ends]
    gap = LABEL_PX / PLOT_PX
    placed = spread(wanted, gap, low=gap / 2, high=1 - gap / 2)
    labels = []
    for (curve, end), y in zip(ends, placed, strict=True):
        inside = end is not None and end.context_tokens < x_max
        tokens = end.context_tokens if end is not None and inside else x_max
        labels.append(EndLabel(curve.pair, end is not None, tokens, inside, y))
    return labels


def _labels(curves: Sequence[Curve], y_range: tuple[float, float], x_max: int) -> list[dict[str, Any]]:
    """Each pair's name at its line's end, in its colour (:func:`end_labels`); struck out for a pair with no line."""
    return [
        {
            "text": f"<b>{label.pair}</b>" if label.drawn else f"<s>{label.pair}</s>",
            "xref": "x" if label.inside else "paper",
            "x": _log(label.tokens) if label.inside else 1,
            "yref": "paper",
            "y": label.y,
            "xanchor": "left",
            "yanchor": "middle",
            "xshift": 4,
            "showarrow": False,
            "font": {"color": pair_colour(label.pair), "size": 12},
            "bgcolor": "rgba(255,255,255,0.85)",
        }
        for label in end_labels(curves, y_range, x_max)
    ]


def longest_marked(curves: Sequence[Curve], x_range: tuple[int, int]) -> list[Curve]:
    """The curves whose longest context holding the target lies on the chart (a dot where they cross it)."""
    return [curve for curve in curves if x_range[0] <= curve.longest < x_range[1]]


def chosen_point(marked: Curve | None, context: int) -> CurvePoint | None:
    """The ``marked`` pair's point at the chosen context, when it is drawn (the diamond)."""
    point = marked.at(context) if marked else None
    return point if point is not None and point.concurrency >= FLOOR else None


def _target(
    curves: Sequence[Curve], users: int, x_range: tuple[int, int]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The target as a dashed line (and its label), and on each curve the longest context that still holds it."""
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": list(x_range),
            "y": [users, users],
            "mode": "lines",
            "name": f"target: {users:,} users",
            "line": {"color": TARGET_COLOUR, "width": 1.5, "dash": "dash"},
            "hovertemplate": f"target: {users:,} users<extra></extra>",
        }
    ]
    label = {
        "text": f"target {users:,} users",
        "xref": "paper",
        "x": 0,
        "y": _log(users),
        "xanchor": "left",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"color": TARGET_COLOUR, "size": 12},
        "bgcolor": "rgba(255,255,255,0.85)",
    }
    for curve in longest_marked(curves, x_range):
        traces.append(
            {
                "type": "scatter",
                "x": [curve.longest],
                "y": [users],
                "mode": "markers",
                "name": f"{curve.pair}: longest for {users:,} users",
                "marker": {"size": 11, "color": pair_colour(curve.pair), "line": {"color": "white", "width": 2}},
                "hovertemplate": f"{curve.pair}: {users:,} users up to {curve.longest:,} tokens<extra></extra>",
            }
        )
    return traces, label


def _chosen(context: int, marked: Curve | None, y_range: tuple[float, float]) -> list[dict[str, Any]]:
    """The chosen context as a dotted line (labelled), and the sidebar's own pair marked on it."""
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": [context, context],
            "y": [10 ** y_range[0], 10 ** y_range[1]],
            "mode": "lines",
            "name": f"chosen: {context:,} tokens",
            "line": {"color": CHOSEN_COLOUR, "width": 1.5, "dash": "dot"},
            "hoverinfo": "skip",
        }
    ]
    point = chosen_point(marked, context)
    if marked is not None and point is not None:
        traces.append(
            {
                "type": "scatter",
                "x": [context],
                "y": [point.concurrency],
                "mode": "markers",
                "name": f"{marked.pair} at {context:,} tokens",
                "marker": {"size": 13, "color": CAPACITY_COLOUR, "symbol": "diamond"},
                "hovertemplate": f"{marked.pair}, chosen: %{{x:,}} tokens, {point.conversations:,} conversations"
                "<extra></extra>",
            }
        )
    return traces


def what_if_figure(
    panel: Panel,
    context: int,
    users: int,
    x_range: tuple[int, int],
    y_top: float,
    contiguous: bool = False,
    marked: str | None = None,
) -> go.Figure:
    """One GPU's chart: conversations against context (log-log: eight times the context is an eighth of the
    conversations, a straight line), the target users as a dashed line with the longest context that holds them
    marked on each curve, the chosen context dotted, the ``marked`` pair's chosen point a diamond. ``x_range``
    and ``y_top`` are shared by every panel so that they compare at a glance. Built as one dict and checked once
    (trace by trace and then laid out, it cost each run ~12 ms of plotly's checks)."""
    y_range = y_limits(users, y_top)
    target, target_label = _target(panel.curves, users, x_range)
    data = [trace for curve in panel.curves for trace in _line(curve, contiguous)]
    data += target + _chosen(context, next((c for c in panel.curves if c.pair == marked), None), y_range)
    ticks = context_ticks(*x_range)
    widest = max((len(c.pair) for c in panel.curves), default=4)
    layout = frame_layout(panel.title, PANEL_HEIGHT, legend=False, right=round(widest * CHAR_PX) + 14)
    layout["xaxis"] = {
        **layout["xaxis"],
        "type": "log",
        "title": {"text": "Tokens per conversation (log scale)"},
        "range": [_log(x_range[0]), _log(x_range[1])],
        "tickvals": ticks,
        "ticktext": [short_tokens(t) for t in ticks],
    }
    layout["yaxis"] = {
        **layout["yaxis"],
        "type": "log",
        "title": {"text": "Conversations at once (log)"},
        "range": list(y_range),
        "dtick": "D2",  # 1, 2, 5 in each decade: a target of a few users spans less than one decade
    }
    layout["hovermode"] = "closest"
    layout["annotations"] = [target_label, *_labels(panel.curves, y_range, x_range[1])]
    return go.Figure({"data": data, "layout": layout})


def context_ticks(low: int, high: int) -> list[int]:
    """Ticks at every second power of two (512, 2k, 8k, 32k, 128k …): few enough for a phone.

    >>> context_ticks(512, 131072)
    [512, 2048, 8192, 32768, 131072]
    """
    return [2**n for n in range(9, 31, 2) if low <= 2**n <= high]


def short_tokens(tokens: int) -> str:
    """``512``, ``8k``, ``1M`` (k = 1,024, M = 1,048,576), as context lengths are quoted.

    >>> short_tokens(512), short_tokens(32768), short_tokens(2**21)
    ('512', '32k', '2M')
    """
    if tokens >= 2**20 and tokens % 2**20 == 0:
        return f"{tokens // 2**20}M"
    return context_label(tokens)


def longest_sentence(curve: Curve, where: str, users: int, context: int, x_max: int) -> str:
    """The page's question answered for one curve, in a sentence.

    >>> from planner.assessment.curve import CurvePoint
    >>> p = CurvePoint(context_tokens=32768, concurrency=12.4, conversations=12, contiguous=9, kv_bytes_per_sequence=1)
    >>> longest_sentence(Curve("fp8/fp8", [p], 8384), "2 × H100", 50, 32768, 131072)
    'fp8/fp8 on 2 × H100 holds 50 conversations up to 8,384 tokens each; at the chosen 32k it holds 12.'
    """
    point = curve.at(context)
    now = f"; at the chosen {context_label(context)} it holds {point.conversations:,}" if point else ""
    if curve.longest <= 0:
        return f"{curve.pair} on {where} cannot hold {users:,} conversations at any length{now}."
    if curve.longest >= x_max:
        return f"{curve.pair} on {where} holds {users:,} conversations at every length up to {x_max:,} tokens{now}."
    return f"{curve.pair} on {where} holds {users:,} conversations up to {curve.longest:,} tokens each{now}."

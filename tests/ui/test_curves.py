"""The context what-if: the target line, the longest context that holds it and the chosen point are the
planner's figures; the labels at the line ends never overlap."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from model_catalog import get_gpu
from planner.assessment.assess import assess
from planner.assessment.trial import longest_context_that_fits
from tests.ui.views import llama_70b_fp8
from ui import curves, figures, state

SEL = llama_70b_fp8(50)
PAIRS = ("fp8/fp8", "bf16/bf16", "int4-awq/fp8", "fp8/bf16")
GPUS = ("h100-sxm-80gb", "a100-sxm-80gb", "h100-pcie-80gb")


def _panel(gpu_id: str) -> curves.Panel:
    low, high = state.context_range(SEL.spec)
    contexts = sorted({*state.log_contexts(low, high, 24), SEL.context_tokens})
    requests = [(p, SEL.request(weights=p.split("/")[0], kv_dtype=p.split("/")[1], gpu_id=gpu_id)) for p in PAIRS]
    panel, skipped = curves.build_panel(f"2 × {get_gpu(gpu_id).name}", requests, contexts, SEL.users)
    assert not skipped
    return panel


@pytest.fixture(scope="module")
def panels() -> list[curves.Panel]:
    return [_panel(gpu) for gpu in GPUS]


def test_longest_context_is_the_planners_and_holds_the_target(panels: list[curves.Panel]) -> None:
    for gpu_id, panel in zip(GPUS, panels, strict=True):
        for curve in panel.curves:
            weights, kv = curve.pair.split("/")
            request = SEL.request(weights=weights, kv_dtype=kv, gpu_id=gpu_id)
            assert curve.longest == longest_context_that_fits(request, SEL.users)
            if curve.longest > 0:
                assert assess(request.at_context(curve.longest)).conversations >= SEL.users
                assert assess(request.at_context(curve.longest + 1)).conversations < SEL.users


def test_figure_draws_the_target_and_each_longest_context(panels: list[curves.Panel]) -> None:
    low, high = state.context_range(SEL.spec)
    y_top = max(p.concurrency for panel in panels for c in panel.curves for p in c.points)
    for panel in panels:
        fig = curves.what_if_figure(panel, SEL.context_tokens, SEL.users, (low, high), y_top, marked="fp8/fp8")
        traces = {t.name: t for t in fig.data}
        target = traces[f"target: {SEL.users:,} users"]
        assert list(target.y) == [SEL.users, SEL.users] and list(target.x) == [low, high]
        for curve in panel.curves:
            line = traces[curve.pair]
            assert line.line.color == figures.pair_colour(curve.pair)
            if low <= curve.longest < high:
                marker = traces[f"{curve.pair}: longest for {SEL.users:,} users"]
                assert (marker.x[0], marker.y[0]) == (curve.longest, SEL.users)
                # the marker lies on its line: the curve has the exact point, at the target or just above it
                point = curve.at(curve.longest)
                assert point is not None and SEL.users <= point.concurrency < SEL.users + 1
        assert not fig.layout.showlegend, "each line is labelled at its end instead"


def test_chosen_point_is_the_memory_pages_number(panels: list[curves.Panel]) -> None:
    low, high = state.context_range(SEL.spec)
    fig = curves.what_if_figure(panels[0], SEL.context_tokens, SEL.users, (low, high), 1000.0, marked="fp8/fp8")
    diamond = next(t for t in fig.data if t.name == f"fp8/fp8 at {SEL.context_tokens:,} tokens")
    a = SEL.assessment()
    assert (diamond.x[0], diamond.y[0]) == (SEL.context_tokens, a.concurrency)
    chosen = next(t for t in fig.data if t.name == f"chosen: {SEL.context_tokens:,} tokens")
    assert list(chosen.x) == [SEL.context_tokens, SEL.context_tokens]


def test_contiguous_restyles_without_a_legend(panels: list[curves.Panel]) -> None:
    low, high = state.context_range(SEL.spec)
    plain = curves.what_if_figure(panels[0], SEL.context_tokens, SEL.users, (low, high), 1000.0)
    both = curves.what_if_figure(panels[0], SEL.context_tokens, SEL.users, (low, high), 1000.0, contiguous=True)
    dashed = [t for t in both.data if t.line and t.line.dash == "dash" and t.name.endswith("reserved up front")]
    assert len(dashed) == len(PAIRS)
    for trace in dashed:
        pair = trace.name.split(",")[0]
        assert trace.line.color == figures.pair_colour(pair)
    assert not both.layout.showlegend and len(both.layout.annotations) == len(plain.layout.annotations)


def test_end_labels_never_overlap(panels: list[curves.Panel]) -> None:
    low, high = state.context_range(SEL.spec)
    for panel in panels:
        fig = curves.what_if_figure(panel, SEL.context_tokens, SEL.users, (low, high), 2000.0)
        labels = [a for a in fig.layout.annotations if a.text.startswith("<b>")]
        drawn = {c.pair for c in panel.curves if any(p.concurrency >= curves.FLOOR for p in c.points)}
        assert {a.text for a in labels} == {f"<b>{pair}</b>" for pair in drawn}
        struck = {a.text for a in fig.layout.annotations if a.text.startswith("<s>")}
        assert struck == {f"<s>{c.pair}</s>" for c in panel.curves if c.pair not in drawn}
        at_edge = sorted(a.y for a in fig.layout.annotations if a.xref == "paper" and a.x == 1)
        gap = curves.LABEL_PX / curves.PLOT_PX
        assert all(b - a >= gap - 1e-9 for a, b in itertools.pairwise(at_edge))


@given(st.lists(st.floats(min_value=0, max_value=1), max_size=10), st.floats(min_value=0.01, max_value=0.1))
def test_spread_keeps_the_gap(wanted: list[float], gap: float) -> None:
    placed = curves.spread(wanted, gap)
    assert len(placed) == len(wanted)
    ordered = sorted(placed)
    assert all(b - a >= gap - 1e-9 for a, b in itertools.pairwise(ordered))
    if len(wanted) * gap <= 1:
        assert all(-1e-9 <= y <= 1 + 1e-9 for y in placed)

"""Figure builders are pure functions of planner results: their traces carry the planner's numbers."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.assessment.curve import concurrency_curve
from planner.core.units import GB, GiB
from planner.planning.plan import PlanRequest, plan
from ui import figures
from ui.figures import COLOURS, COMPONENTS


def _request(**kw: object) -> PlanRequest:
    gpu = get_gpu("h100-sxm-80gb")
    base = dict(
        model=get_model("meta-llama/Llama-3.1-70B").spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes,
        gpu_count=4,
        tensor_parallel=2,
        pipeline_parallel=2,
        context_tokens=32768,
    )
    return PlanRequest(**{**base, **kw})  # type: ignore[arg-type]


def test_memory_figure_traces_equal_the_breakdown() -> None:
    result = plan(_request())
    fig = figures.memory_figure(result, "GiB")
    bars = {trace.name: trace for trace in fig.data if trace.type == "bar"}
    assert [name for _, name, _ in figures.shown_components(result.stages)] == list(bars)
    assert list(bars["Weights"].y) == ["GPU 0 · stage 0", "GPU 1 · stage 0", "GPU 2 · stage 1", "GPU 3 · stage 1"]
    for field, name, colour in figures.shown_components(result.stages):
        expected = [getattr(result.stages[i // 2], field) / GiB for i in range(4)]
        assert list(bars[name].x) == pytest.approx(expected)
        assert bars[name].marker.color == colour
    assert fig.layout.xaxis.title.text == "Memory per GPU (GiB)"
    capacity = next(s for s in fig.layout.shapes if s.type == "line")
    assert capacity.x0 == pytest.approx(result.per_gpu.gpu_memory_bytes / GiB)
    # the capacity is named in the legend, never in a label beside the axis ticks
    assert f"Capacity: {result.per_gpu.gpu_memory_bytes / GiB:,.1f} GiB per GPU" in [t.name for t in fig.data]
    assert not [a for a in fig.layout.annotations if "capacity" in (a.text or "").lower()]


def test_memory_figure_in_gb_and_shortfall() -> None:
    result = plan(_request(gpu_count=1, tensor_parallel=1, pipeline_parallel=1))
    assert not result.fits
    fig = figures.memory_figure(result, "GB")
    assert fig.layout.xaxis.title.text == "Memory per GPU (GB)"
    weights = next(t for t in fig.data if t.name == "Weights")
    assert weights.x[0] == pytest.approx(result.per_gpu.weights_bytes / GB)
    notes = [a.text for a in fig.layout.annotations if a.text and a.text.startswith("short by")]
    assert notes == [f"short by {-result.per_gpu.headroom_bytes / GB:,.1f} GB"]


def test_same_colour_for_the_same_component_everywhere() -> None:
    a = plan(_request())
    b = plan(_request(weights="fp8"))
    bars = figures.compare_bars_figure([("bf16", a), ("fp8", b)], "GiB")
    for trace in bars.data:
        if trace.type != "bar":
            continue  # the capacity's legend entry
        assert trace.marker.color == COLOURS[trace.name]
        field = next(f for f, n, _ in COMPONENTS if n == trace.name)
        assert list(trace.y) == pytest.approx([getattr(a.per_gpu, field) / GiB, getattr(b.per_gpu, field) / GiB])


def test_curve_point_equals_the_assessment_at_that_context() -> None:
    request = _request()
    points = concurrency_curve(request, [1024, 8192, 65536])
    for point in points:
        single = assess(request.model_copy(update={"context_tokens": point.context_tokens}))
        assert (point.concurrency, point.conversations) == (single.concurrency, single.conversations)
        assert point.concurrency == single.result.capacity.sequences_paged


def test_heatmap_marks_does_not_fit() -> None:
    weights, kvs = ["bf16", "fp8"], ["bf16", "fp8"]
    grid = [
        [assess(_request(gpu_count=1, tensor_parallel=1, pipeline_parallel=1, weights=w, kv_dtype=k)) for k in kvs]
        for w in weights
    ]
    fig = figures.heatmap_figure(weights, kvs, grid, 32768)
    heat = fig.data[0]
    assert list(heat.text[0]) == ["no fit", "no fit"]
    assert heat.z[1][1] == grid[1][1].conversations
    assert heat.text[1][1] == f"{grid[1][1].conversations:,}"


def test_every_chart_keeps_its_title_legend_and_toolbar_apart() -> None:
    """The frame of every chart: the title starts below the toolbar row, the legend sits at the bottom of the
    figure's container (which reserves its room under the axis title), so neither can cover the other or the
    plot at any width."""
    result = plan(_request())
    grid = [[assess(_request(weights=w, kv_dtype=k)) for k in ("bf16", "fp8")] for w in ("bf16", "fp8")]
    charts = [
        figures.memory_figure(result, "GiB", title="Memory per GPU (GiB)"),
        figures.compare_bars_figure([("bf16/bf16", result), ("fp8/fp8", plan(_request(weights="fp8")))]),
        figures.heatmap_figure(["bf16", "fp8"], ["bf16", "fp8"], grid, 32768),
    ]
    for fig in charts:
        title, legend = fig.layout.title, fig.layout.legend
        assert (title.yref, title.y, title.yanchor, title.pad.t) == ("container", 1, "top", figures.TOOLBAR_PX)
        assert title.automargin is True
        assert (legend.yref, legend.y, legend.yanchor, legend.orientation) == ("container", 0, "bottom", "h")
        assert fig.layout.margin.t >= figures.TOOLBAR_PX


def test_a_pair_has_one_colour_on_every_chart() -> None:
    common = list(figures.PAIR_COLOURS)
    assert len(set(figures.PAIR_COLOURS.values())) == len(common), "the common pairs are told apart"
    assert not set(figures.PAIR_COLOURS.values()) & set(COLOURS.values()), "pairs are not memory components"
    bars = figures.compare_bars_figure([(p, plan(_request())) for p in ("fp8/fp8", "nvfp4/fp8")])
    assert list(bars.layout.xaxis.ticktext) == [
        f"<b><span style='color:{figures.pair_colour(p)}'>{p}</span></b>" for p in ("fp8/fp8", "nvfp4/fp8")
    ]
    assert figures.pair_colour("nvfp4/fp8") in figures.SPARE_COLOURS

"""Figure builders are pure functions of planner results: their traces carry the planner's numbers."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.assess import assess, concurrency_curve
from planner.plan import PlanRequest, plan
from planner.units import GB, GiB
from ui import figures, state
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
    bars = {trace.name: trace for trace in fig.data}
    assert [name for _, name, _ in figures.shown_components(result.stages)] == list(bars)
    assert list(bars["Weights"].y) == ["GPU 0 · stage 0", "GPU 1 · stage 0", "GPU 2 · stage 1", "GPU 3 · stage 1"]
    for field, name, colour in figures.shown_components(result.stages):
        expected = [getattr(result.stages[i // 2], field) / GiB for i in range(4)]
        assert list(bars[name].x) == pytest.approx(expected)
        assert bars[name].marker.color == colour
    assert fig.layout.xaxis.title.text == "Memory per GPU (GiB)"
    capacity = next(s for s in fig.layout.shapes if s.type == "line")
    assert capacity.x0 == pytest.approx(result.per_gpu.gpu_memory_bytes / GiB)


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
        assert trace.marker.color == COLOURS[trace.name]
        field = next(f for f, n, _ in COMPONENTS if n == trace.name)
        assert list(trace.y) == pytest.approx([getattr(a.per_gpu, field) / GiB, getattr(b.per_gpu, field) / GiB])


def test_concurrency_figure_uses_the_callers_axis() -> None:
    request = _request()
    contexts = state.log_contexts(512, 131072, 64)
    assert len(contexts) == 64 and contexts[0] == 512 and contexts[-1] == 131072
    points = concurrency_curve(request, contexts)
    fig = figures.concurrency_figure([figures.Curve("bf16/bf16", points)], 32768, show_contiguous=True)
    line, contiguous, marker = fig.data
    assert list(line.x) == contexts
    assert list(line.y) == [p.concurrency for p in points]
    assert list(contiguous.y) == [p.contiguous for p in points]
    assert marker.x[0] == min(contexts, key=lambda c: abs(c - 32768))
    assert fig.layout.xaxis.type == "log"
    assert "tokens" in fig.layout.xaxis.title.text


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
    assert list(heat.text[0]) == ["does not fit", "does not fit"]
    assert heat.z[1][1] == grid[1][1].conversations
    assert heat.text[1][1] == f"{grid[1][1].conversations:,}"

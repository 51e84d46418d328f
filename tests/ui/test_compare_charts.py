"""The Compare page's Vega-Lite charts carry the planner's numbers, as the Plotly figures of the report do, and their
specs stay the same when only the context changes (the browser then updates them in place)."""

from __future__ import annotations

from typing import Any

import pytest

from planner.core.units import GB, GiB
from planner.planning.results import PlanResult
from tests.browser.screenshots import VIEW  # Llama 3.1 70B in FP8 on two H100 SXM (TP 2), under vLLM
from ui import answers, compare_charts, figures
from ui.compare_charts import BARS, CAPACITY, CELLS
from ui.figures import COMPONENTS
from ui.state import Selection

# The total vLLM plans on an H100 SXM: 79.19 GiB, what it prints ("total_gpu_memory ... 79.19GiB"; the sidebar names
# it: tests/app/test_wording.py), not the 79.65 GiB the device reports.
H100_VLLM_GIB = 79.19


def _heat(sel: Selection) -> tuple[answers.CompareAnswer, compare_charts.Data, dict[str, Any]]:
    answer = answers.compare_grid(sel)
    data, spec = compare_charts.heatmap_chart(*answer, sel.context_tokens)
    return answer, data, spec


def _cell(data: compare_charts.Data, weights: str, kv: str) -> dict[str, object]:
    return next(r for r in data[CELLS] if (r["weights"], r["kv"]) == (weights, kv))


def test_each_cell_is_the_planners_assessment() -> None:
    (weights, kvs, grid), data, _ = _heat(VIEW)
    # vLLM on an H100: 16 formats of a dense model x 2 KV (28 cells until the int8-vocabulary W4A16 formats, 2026-12-07)
    assert len(data[CELLS]) == len(weights) * len(kvs) == 32
    assert "mxfp4" not in weights  # the experts' format: offered for a dense model until 2026-12-05 (28 cells)
    for i, w in enumerate(weights):
        for j, kv in enumerate(kvs):
            a, cell = grid[i][j], _cell(data, w, kv)
            assert (cell["row"], cell["col"]) == (i, j)
            assert a is not None and a.conversations == VIEW.assessment(weights=w, kv_dtype=kv).conversations
            if a.conversations:
                assert (cell["value"], cell["text"]) == (a.conversations, f"{a.conversations:,}")
    fp8 = _cell(data, "fp8", "fp8")
    assert fp8["value"] == VIEW.assessment().conversations > 0
    assert fp8["title"] == "Conversations of 32k tokens"


def test_cells_without_conversations_say_why() -> None:
    """FP32 weights of a 70B model (131 GiB a GPU) do not fit in 80 GB: "no fit"; vLLM refuses BF16 weights whose KV
    pool is smaller than one sequence: "no start"; a pair the engine does not run: "not run"."""
    (weights, kvs, grid), data, _ = _heat(VIEW)
    assert (_cell(data, "fp32", "bf16")["value"], _cell(data, "fp32", "bf16")["text"]) == (None, "no fit")
    assert (_cell(data, "bf16", "fp8")["value"], _cell(data, "bf16", "fp8")["text"]) == (None, "no start")
    holes = [[None if (i, j) == (3, 1) else a for j, a in enumerate(row)] for i, row in enumerate(grid)]
    data, _ = compare_charts.heatmap_chart(weights, kvs, holes, VIEW.context_tokens)
    assert _cell(data, weights[3], kvs[1])["text"] == "not run"


def test_the_heatmap_shows_what_the_reports_figure_shows() -> None:
    (weights, kvs, grid), data, spec = _heat(VIEW)
    figure = figures.heatmap_figure(weights, kvs, grid, VIEW.context_tokens)
    heat = figure.data[0]
    for cell in data[CELLS]:
        i, j = int(str(cell["row"])), int(str(cell["col"]))
        assert (cell["value"], cell["text"]) == (heat.z[i][j], heat.text[i][j])
    assert {cell["title"] for cell in data[CELLS]} == {figure.layout.title.text}
    assert spec["encoding"]["x"]["axis"]["title"] == figure.layout.xaxis.title.text
    assert spec["encoding"]["y"]["axis"]["title"] == figure.layout.yaxis.title.text
    assert spec["layer"][0]["mark"]["color"] == figure.layout.plot_bgcolor


def test_a_new_context_changes_the_rows_not_the_spec() -> None:
    short, long = (VIEW.model_copy(update={"context_tokens": c}) for c in (4096, 65536))
    (_, short_rows, short_spec), (_, long_rows, long_spec) = _heat(short), _heat(long)
    assert short_spec == long_spec
    assert _cell(short_rows, "fp8", "fp8")["title"] == "Conversations of 4k tokens"
    assert _cell(long_rows, "fp8", "fp8")["value"] == long.assessment().conversations
    assert _cell(short_rows, "fp8", "fp8")["value"] == short.assessment().conversations
    assert short.assessment().conversations > long.assessment().conversations
    chosen = [(p, short.assessment(weights=p.split("/")[0], kv_dtype=p.split("/")[1]).result) for p in ("fp8/fp8",)]
    later = [(p, long.assessment(weights=p.split("/")[0], kv_dtype=p.split("/")[1]).result) for p in ("fp8/fp8",)]
    assert compare_charts.compare_bars_chart(chosen)[1] == compare_charts.compare_bars_chart(later)[1]


def _chosen(sel: Selection, pairs: tuple[str, ...]) -> list[tuple[str, PlanResult]]:
    return [(p, sel.assessment(weights=p.split("/")[0], kv_dtype=p.split("/")[1]).result) for p in pairs]


@pytest.mark.parametrize(("unit", "size"), [("GiB", GiB), ("GB", GB)])
def test_bars_are_the_fullest_gpus_components(unit: str, size: int) -> None:
    pairs = ("fp8/fp8", "bf16/bf16", "int4-awq/fp8")
    chosen = _chosen(VIEW, pairs)
    data, spec = compare_charts.compare_bars_chart(chosen, unit)
    # a plain plan holds no LoRA slots, draft model or other processes' memory: those are not drawn or named
    drawn = [c for c in COMPONENTS if c[0] not in figures.DEPLOYMENT_FIELDS]
    assert len(data[BARS]) == len(pairs) * len(drawn)
    names = spec["layer"][0]["encoding"]["color"]["scale"]["domain"]
    assert names == [name for _, name, _ in drawn] and "LoRA adapter slots" not in names
    for row in data[BARS]:
        field = next(f for f, name, _ in COMPONENTS if name == row["component"])
        result = chosen[int(str(row["i"]))][1]
        assert row["pair"] == pairs[int(str(row["i"]))]
        assert row["value"] == pytest.approx(getattr(result.per_gpu, field) / size, rel=1e-12)
        assert row["title"] == f"The fullest GPU of each pair ({unit})"
    (capacity,) = data[CAPACITY]
    assert capacity["capacity"] == pytest.approx(H100_VLLM_GIB * GiB / size, abs=0.005)
    assert capacity["line"] == f"Capacity: {H100_VLLM_GIB * GiB / size:,.1f} {unit} per GPU"
    bars, _ = spec["layer"]
    assert bars["encoding"]["y"]["axis"]["title"] == f"Memory per GPU ({unit})"


def test_bars_have_the_reports_colours_and_capacity() -> None:
    chosen = _chosen(VIEW, ("fp8/fp8", "nvfp4/fp8"))
    data, spec = compare_charts.compare_bars_chart(chosen)
    figure = figures.compare_bars_figure(chosen)
    bars, line = spec["layer"]
    scale = bars["encoding"]["color"]["scale"]
    traces = [t for t in figure.data if t.type == "bar"]
    assert scale == {"domain": [t.name for t in traces], "range": [t.marker.color for t in traces]}
    for trace in traces:
        assert [r["value"] for r in data[BARS] if r["component"] == trace.name] == list(trace.y)
    assert data[CAPACITY][0]["capacity"] == figure.layout.shapes[0].y0
    assert data[CAPACITY][0]["line"] in [t.name for t in figure.data]
    assert line["mark"]["color"] == figures.CAPACITY_COLOUR
    colours = bars["encoding"]["x"]["axis"]["labelColor"]["expr"]
    spare = figures.pair_colour("nvfp4/fp8")
    assert colours == '{"fp8/fp8": "#e8650a", "nvfp4/fp8": "' + spare + "\"}[datum.value] || 'black'"


def test_nothing_compared_draws_no_capacity() -> None:
    data, _ = compare_charts.compare_bars_chart([])
    assert data == {BARS: [], CAPACITY: []}


def test_no_colour_legend_when_no_cell_holds_a_conversation() -> None:
    """Llama 3.1 405B on one H100 fits in no format: every cell is "no fit", so a colour scale has no range. Its legend
    read "NaN" (Vega-Lite's gradient over an empty domain) and the report's colour bar an empty scale; both are left
    out until a cell holds conversations, and come back with the first that does."""
    sel = VIEW.model_copy(update={"model_id": "meta-llama/Llama-3.1-405B", "gpu_count": 1, "tensor_parallel": 1})
    (weights, kvs, grid), data, spec = _heat(sel)
    assert {c["text"] for c in data[CELLS]} == {"no fit"}
    assert spec["layer"][1]["encoding"]["color"]["legend"] is None
    assert figures.heatmap_figure(weights, kvs, grid, sel.context_tokens).data[0].showscale is False
    _, _, fits = _heat(VIEW)
    assert fits["layer"][1]["encoding"]["color"]["legend"]["title"] == "conversations"
    assert figures.heatmap_figure(*answers.compare_grid(VIEW), VIEW.context_tokens).data[0].showscale is True


def test_the_colour_legend_counts_whole_conversations() -> None:
    """Where every cell holds one count (llama.cpp's slots, each of a whole context), Vega's gradient over that
    zero-width domain was labelled "4.000000". The legend and the report's colour bar label whole numbers."""
    _, _, spec = _heat(VIEW.model_copy(update={"engine": "llamacpp"}))
    legend = spec["layer"][1]["encoding"]["color"]["legend"]
    assert (legend["format"], legend["tickMinStep"]) == (",d", 1)
    figure = figures.heatmap_figure(*answers.compare_grid(VIEW), VIEW.context_tokens)
    assert figure.data[0].colorbar.tickformat == ",d"

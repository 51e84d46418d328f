"""The Memory page's Vega-Lite chart shows what the report's Plotly figure shows (the same GPUs, components, values,
colours, capacity, mixed GPUs' own capacities, shortfall and title, read by the same helpers), and its spec is the
same whatever the plan (the browser then updates it in place)."""

from __future__ import annotations

import doctest
import json
from typing import Any

import pytest

from planner.assessment.assess import Assessment, VerdictState
from planner.core.units import GB, GiB
from planner.planning.plan import plan
from planner.planning.results import PlanResult
from tests.browser.screenshots import VIEW  # Llama 3.1 70B in FP8 on two H100 SXM (TP 2), under vLLM
from tests.ui.test_figures import _request
from ui import compare_charts, figures, memory_chart, settings, text
from ui.deployment import options_from
from ui.memory_chart import BARS, CAPACITY, SHORT, STAGES
from ui.state import Selection

# The total vLLM plans on an H100 SXM: 79.19 GiB, what it prints ("total_gpu_memory ... 79.19GiB";
# tests/app/test_wording.py), not the 79.65 GiB the device reports.
H100_VLLM_GIB = 79.19


def _deployed(sel: Selection, **values: object) -> Assessment:
    """``sel`` with the Memory page's deployment settings ``values`` (by URL name)."""
    return sel.assessment(deployment=options_from(sel, values).options)


def _both(a: Assessment, unit: str = "GiB") -> tuple[Any, compare_charts.Data, dict[str, Any]]:
    title = text.chart_title(a, unit)
    figure = figures.memory_figure(a.allocated, unit, title=title)
    data, spec = memory_chart.memory_chart(a.allocated, unit, title=title)
    return figure, data, spec


def _colours(spec: dict[str, Any]) -> dict[str, str]:
    scale = spec["layer"][0]["encoding"]["color"]["scale"]
    return dict(zip(scale["domain"], scale["range"], strict=True))


def _legend(data: compare_charts.Data) -> list[str]:
    """The components the legend names: the first GPU's rows (its ``values`` expression, in Python)."""
    return [row["component"] for row in data[BARS][: data[BARS][0]["components"]]]


def _title(data: compare_charts.Data) -> str:
    first = data[BARS][0]
    return f"{first['title']}: {first['subtitle']}" if first["subtitle"] else str(first["title"])


def _cases() -> dict[str, Assessment]:
    sel = VIEW.model_copy(update={"gpu_count": 1, "tensor_parallel": 1})
    return {
        "plain": VIEW.assessment(),
        "pipeline": Selection(**{**VIEW.model_dump(), "gpu_count": 4, "pipeline_parallel": 2}).assessment(),
        "short": sel.model_copy(update={"weights": "bf16"}).assessment(),
        "refuses": _deployed(VIEW, **{settings.USED_MEMORY.url: 10.0, settings.MAX_LORAS.url: 4}),
        "mixed": _deployed(sel, **{settings.STAGE_GPUS.url: ["a100-sxm-40gb"]}),
    }


CASES = _cases()


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_gpus_components_are_the_figures(case: str) -> None:
    """Every bar of the Plotly figure (a trace a component, a value a GPU) is a row: the same GPUs in the same
    order, the same values in the same stacking order, the same colours, and the legend names the same components."""
    figure, data, spec = _both(CASES[case])
    traces = [t for t in figure.data if t.type == "bar"]
    assert _legend(data) == [t.name for t in traces]
    colours = _colours(spec)
    for k, trace in enumerate(traces):
        rows = [r for r in data[BARS] if r["component"] == trace.name]
        assert [r["gpu"] for r in sorted(rows, key=lambda r: r["i"])] == list(trace.y)
        assert [r["value"] for r in sorted(rows, key=lambda r: r["i"])] == list(trace.x)
        assert {r["order"] for r in rows} == {k} and colours[trace.name] == trace.marker.color
    assert len(data[BARS]) == len(traces) * len(traces[0].y)


@pytest.mark.parametrize("case", sorted(CASES))
def test_capacity_shortfall_and_title_are_the_figures(case: str) -> None:
    figure, data, _ = _both(CASES[case])
    (line, *own) = [s for s in figure.layout.shapes if s.line.dash == "dash"]
    assert not own
    assert data[CAPACITY] == [{"capacity": line.x0, "line": figure.data[-1].name}]
    notes = [(a.y, a.x, a.text) for a in figure.layout.annotations]
    assert [(r["gpu"], r["capacity"], r["text"]) for r in data[SHORT]] == notes
    dotted = [(s.x0, (s.y0 + s.y1) / 2) for s in figure.layout.shapes if s.line.dash == "dot"]
    assert [(r["capacity"], r["i"]) for r in data[STAGES]] == dotted
    assert _title(data) == figure.layout.title.text


def test_the_planners_numbers() -> None:
    """The rows are the plan's bytes in the unit: the weights, the capacity vLLM plans with, the shortfall of BF16
    weights of a 70B model on one H100 (131 GiB of weights in 79.19), the refusal named in the title, and the A100
    40GB's own capacity beside the H100's."""
    a = VIEW.assessment()
    weights = [r["value"] for r in memory_chart.memory_rows(a.allocated)[BARS] if r["component"] == "Weights"]
    assert weights == [pytest.approx(a.result.per_gpu.weights_bytes / GiB, rel=1e-12)] * 2
    data = memory_chart.memory_rows(a.allocated)
    assert data[CAPACITY] == [
        {"capacity": pytest.approx(H100_VLLM_GIB, abs=0.005), "line": "Capacity: 79.2 GiB per GPU"}
    ]
    assert data[SHORT] == data[STAGES] == []
    short = CASES["short"].allocated
    assert not short.fits
    (note,) = memory_chart.memory_rows(short)[SHORT]
    assert note["text"] == f"short by {-short.per_gpu.headroom_bytes / GiB:,.1f} GiB" and note["gpu"] == "GPU 0"
    refused = CASES["refuses"]
    assert refused.state is VerdictState.ENGINE_REFUSES
    _, rows, _ = _both(refused)
    assert _title(rows) == "Memory per GPU (GiB): vLLM would not start, so no KV cache is allocated"
    assert {r["value"] for r in rows[BARS] if r["component"] == "KV cache pool"} == {0}
    assert "In use by other processes" in _legend(rows) and "LoRA adapter slots" in _legend(rows)
    mixed = CASES["mixed"].allocated
    own = [r["capacity"] for r in memory_chart.memory_rows(mixed)[STAGES]]
    assert own == [pytest.approx(s.gpu_memory_bytes / GiB) for s in mixed.stages] and len(set(own)) == 2


def test_in_gb() -> None:
    result: PlanResult = plan(_request(gpu_count=1, tensor_parallel=1, pipeline_parallel=1))
    figure, data, spec = _both_plan(result, "GB")
    weights = next(r for r in data[BARS] if r["component"] == "Weights")
    assert weights["value"] == pytest.approx(result.per_gpu.weights_bytes / GB)
    assert [r["text"] for r in data[SHORT]] == [f"short by {-result.per_gpu.headroom_bytes / GB:,.1f} GB"]
    assert spec["layer"][0]["encoding"]["x"]["axis"]["title"] == figure.layout.xaxis.title.text


def _both_plan(result: PlanResult, unit: str) -> tuple[Any, compare_charts.Data, dict[str, Any]]:
    figure = figures.memory_figure(result, unit, title=f"Memory per GPU ({unit})")
    data, spec = memory_chart.memory_chart(result, unit, title=f"Memory per GPU ({unit})")
    return figure, data, spec


def test_the_spec_is_the_same_whatever_the_plan() -> None:
    """What a slider or a setting changes (the GPUs, the components, the capacity, the shortfall, the title) is in
    the rows: the spec is one for every case, so the browser takes new rows in place."""
    specs = {json.dumps(_both(a)[2], sort_keys=True) for a in CASES.values()}
    assert len(specs) == 1
    assert {json.dumps(_both(a, "GB")[2], sort_keys=True) for a in CASES.values()} != specs  # the axis's unit


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_rows_are_arrow_tables(case: str) -> None:
    """Handed to the browser as Arrow tables (:func:`ui.compare_charts.with_data`): every column keeps its values."""
    data, spec = memory_chart.memory_chart(CASES[case].allocated, "GiB", text.chart_title(CASES[case], "GiB"))
    tables = compare_charts.with_data(spec, data)["datasets"]
    assert {name: table.to_pylist() for name, table in tables.items()} == data


def test_the_modules_examples() -> None:
    result = doctest.testmod(memory_chart, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0

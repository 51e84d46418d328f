"""The Memory page's chart (ui/memory_chart.py): a Vega-Lite chart that keeps its element and spec when a slider or a
setting changes what it shows (the browser takes the new rows in place), showing the planner's numbers; the HTML
report keeps its Plotly figure, made only when the report is asked for."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from planner.assessment.accuracy import accuracy_of
from planner.assessment.assess import Assessment
from planner.core.units import GiB
from tests.app.conftest import run_page
from tests.app.conftest import vega_rows as rows_of
from tests.browser.screenshots import VIEW
from ui import figures, links, memory_svg
from ui.guard import as_text
from ui.memory_chart import BARS, CAPACITY, SHORT, STAGES
from ui.memory_views import CHART_LAYERS_KEY
from ui.state import Selection

# Llama 3.1 70B in FP8 on two H100 SXM (TP 2) under vLLM, as the screenshots show it.
PARAMS = links.selection_params(VIEW)
# llama.cpp reserves each slot's whole context up front: its pool is the context's (vLLM's takes what is free).
LLAMACPP = {"engine": "llamacpp", "weights": "q4_k_m", "kv": "bf16"}


def _run(**changes: str) -> tuple[Any, Assessment]:
    """The page's chart for the link with ``changes``, and the planner's answer for that set-up."""
    at = run_page("memory", {**PARAMS, **changes})
    assert not at.exception, [e.value for e in at.exception]
    assert not at.get("plotly_chart"), "no Plotly chart: Streamlit mounts it again on every change"
    (chart,) = at.get("vega_lite_chart")
    sel: Selection = at.session_state["_selection"]
    return chart.proto, sel.assessment()


def _chart(**changes: str) -> Any:
    return _run(**changes)[0]


def _run_short_first(**changes: str) -> tuple[Any, Assessment]:
    """:func:`_run` in a session whose chart has drawn a shortfall before (its optional layers then kept)."""
    at = run_page("memory", {**PARAMS, **changes})
    at.session_state[CHART_LAYERS_KEY] = frozenset({SHORT, STAGES})
    at.run()
    (chart,) = at.get("vega_lite_chart")
    return chart.proto, at.session_state["_selection"].assessment()


def _short_first(**changes: str) -> Any:
    return _run_short_first(**changes)[0]


def _layers(at: Any) -> list[str]:
    (chart,) = at.get("vega_lite_chart")
    return [layer["data"]["name"] for layer in json.loads(chart.proto.spec)["layer"]]


def test_a_chart_draws_its_optional_layers_once_needed_and_keeps_them() -> None:
    """A cold link that fits draws the chart without the mixed GPUs' and the shortfall's layers (three empty layers:
    ~25 ms of the browser's main thread before the chart is drawn, docs/benchmarks.md); the first view that
    overflows draws the shortfall's two, and the session keeps them (a slider then moves it in place again): 70B
    weights in BF16 on one H100 SXM are 63.2 GiB short, in FP8 they fit (the engine then refuses to start, with no
    GPU over its capacity)."""
    at = run_page("memory", {**PARAMS, "gpus": "1", "tp": "1"}, editor=True, first_paint=True)
    assert _layers(at) == [BARS, CAPACITY]
    at.run()  # the signal's rerun (the whole page): the same spec, so the browser keeps the chart it drew
    assert _layers(at) == [BARS, CAPACITY]
    at.selectbox(key="weights").select("bf16").run()
    assert _layers(at) == [BARS, CAPACITY, SHORT, SHORT]
    (chart,) = at.get("vega_lite_chart")
    assert [r["text"] for r in rows_of(chart)[SHORT]] == ["short by 63.2 GiB"]
    short_spec = chart.proto.spec
    at.selectbox(key="weights").select("fp8").run()
    (chart,) = at.get("vega_lite_chart")
    assert chart.proto.spec == short_spec and rows_of(chart)[SHORT] == []


def _pool(chart: Any) -> list[tuple[str, float]]:
    return [(r["gpu"], r["value"]) for r in rows_of(chart)[BARS] if r["component"] == "KV cache pool"]


def test_the_chart_keeps_its_element_and_spec_when_a_slider_or_setting_moves() -> None:
    """Streamlit ids a Plotly chart by its figure, so every change of the figure mounted the chart from scratch. This
    keeps its element (no selection, so no id: the browser knows it by its place) and its spec at another context,
    on more GPUs, with memory in use (the engine then refuses: the title says so) and with too little memory (a
    shortfall; each session has drawn one before, so its layers are kept: :func:`_short_first`); only the rows
    change."""
    base, short_context = _run_short_first(**LLAMACPP, context="4096")
    long, long_context = _run_short_first(**LLAMACPP, context="65536")
    changed = {
        "context": long,
        "gpus": _short_first(gpus="4", tp="4"),
        "used memory": _short_first(used_mem="10", users="20"),
        "short": _short_first(gpus="1", tp="1", weights="bf16"),
    }
    for name, after in changed.items():
        assert (base.id, base.spec) == (after.id, after.spec), name
        assert rows_of(base) != rows_of(after), name
    for chart, a in ((base, short_context), (long, long_context)):
        # a bar a GPU: each TP rank of each stage (llama.cpp's split is a stage a GPU, the first holding a layer more)
        per_gpu = [s.kv_cache_bytes / GiB for s in a.allocated.stages for _ in range(a.result.tensor_parallel)]
        assert [v for _, v in _pool(chart)] == per_gpu and len(per_gpu) == 2
    assert _pool(base) != _pool(long)
    assert [gpu for gpu, _ in _pool(changed["gpus"])] == ["GPU 0", "GPU 1", "GPU 2", "GPU 3"]
    assert {r["subtitle"] for r in rows_of(changed["used memory"])[BARS]} == {
        "vLLM would not start, so no KV cache is allocated"
    }
    assert [r["text"] for r in rows_of(changed["short"])[SHORT]] == ["short by 63.2 GiB"]
    assert json.loads(base.spec)["layer"][0]["encoding"]["x"]["axis"]["title"] == "Memory per GPU (GiB)"


def test_the_chart_shows_the_planners_numbers() -> None:
    chart = _chart()
    a = VIEW.assessment()
    data = rows_of(chart)
    for stage_row in data[BARS]:
        field = next(f for f, name, _ in figures.COMPONENTS if name == stage_row["component"])
        assert stage_row["value"] == getattr(a.allocated.per_gpu, field) / GiB
    capacity = a.allocated.per_gpu.gpu_memory_bytes / GiB
    assert data[CAPACITY] == [{"capacity": capacity, "line": "Capacity: 79.2 GiB per GPU"}]
    assert data[SHORT] == []


def test_the_report_has_its_svg_figure_made_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page run builds no report figure (the chart is Vega-Lite); pressing "HTML report" makes it, as SVG since
    2026-12-06 (no plotting library: tens of kilobytes), with the same title, capacity and shortfall as the page's
    chart (BF16 weights of a 70B model on one H100)."""
    made: list[str | None] = []
    deferred: dict[str, Callable[[], Any]] = {}
    original = MediaFileManager.add_deferred
    build = memory_svg.memory_svg

    def record(self: MediaFileManager, data_callable: Callable[[], Any], *args: Any, **kwargs: Any) -> str:
        file_id = original(self, data_callable, *args, **kwargs)
        deferred[kwargs.get("file_name") or args[2]] = data_callable
        return file_id

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(kwargs.get("title"))
        return build(*args, **kwargs)

    monkeypatch.setattr(memory_svg, "memory_svg", counted)
    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    at = run_page("memory", {**PARAMS, "gpus": "1", "tp": "1", "weights": "bf16"}, share=True)
    assert not at.exception and made == []
    html = deferred["headroom-memory.html"]()
    assert made == ["Memory per GPU (GiB)"]
    assert ">Memory per GPU (GiB)</text>" in html and "Capacity: 79.2 GiB per GPU (dashed)" in html
    assert "GPU 0, Weights: " in html and ">short by 63.2 GiB</text>" in html
    assert "plotly" not in html.lower() and len(html.encode()) < 100_000


def test_a_windowed_model_under_trtllm_says_what_its_windows_would_give() -> None:
    """Gemma 3 27B under TensorRT-LLM on one H100: the engine section's captions carry the report's note (the window
    setting and the conversations it gives), as the planner words it."""
    at = run_page("memory", {"model": "google/gemma-3-27b-it", "gpu": "h100-sxm-80gb", "engine": "trtllm"})
    assert not at.exception, [e.value for e in at.exception]
    sel: Selection = at.session_state["_selection"]
    report = sel.assessment().report
    assert report is not None
    (note,) = [n for n in report.notes if "attention window" in n]
    assert "sliding-window layers (1,024 tokens)" in note
    assert as_text(note) in [c.value for c in at.caption]  # shown as text, never Markdown


def test_the_engine_section_says_how_close_such_set_ups_came() -> None:
    """Llama 3.1 70B in FP8 on two H100 under vLLM: the engine section's caption is the planner's accuracy sentence
    for its group (planner.assessment.accuracy), as text."""
    at = run_page("memory", PARAMS)
    assert not at.exception, [e.value for e in at.exception]
    sel: Selection = at.session_state["_selection"]
    note = accuracy_of(sel.assessment(), sel.unit)
    assert note is not None and note.group.device == "datacenter"
    assert as_text(f"How close: {note.sentence}") in [c.value for c in at.caption]

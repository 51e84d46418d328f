"""The Compare page's charts (ui/compare_charts.py): Vega-Lite charts that keep their element and spec when the
context changes (the browser takes the new rows in place), showing the planner's numbers; the HTML report keeps its
Plotly figures, made only when the report is asked for."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from tests.app.conftest import figures as figures_of
from tests.app.conftest import run_page
from tests.app.conftest import vega_rows as rows_of
from tests.browser.screenshots import VIEW
from ui import figures, links
from ui.compare_charts import BARS, CAPACITY, CELLS

# Llama 3.1 70B in FP8 on two H100 SXM (TP 2) under vLLM, as the screenshots show it, and three pairs side by side.
PARAMS = {**links.selection_params(VIEW), "combos": ["fp8/fp8", "bf16/bf16", "int4-awq/fp8"]}


def _charts(context: str) -> list[Any]:
    at = run_page("compare", {**PARAMS, "context": context})
    assert not at.exception
    assert not at.get("plotly_chart"), "no Plotly chart: Streamlit mounts it again on every change"
    return [chart.proto for chart in at.get("vega_lite_chart")]


def test_the_charts_keep_their_element_and_spec_when_the_context_changes() -> None:
    """Streamlit ids a Plotly chart by its figure, so every slider move mounted both charts from scratch. These keep
    their element (no selection, so no id: the browser knows them by their place, the same in both runs) and their
    spec (the browser builds the view again only when it changes); only the rows change (the heatmap's: vLLM's
    pool is the same size at any context, and so are the bars)."""
    short, long = _charts("4096"), _charts("65536")
    assert len(short) == len(long) == 2
    for before, after in zip(short, long, strict=True):
        assert before.id == after.id and before.spec == after.spec
    assert rows_of(short[0]) != rows_of(long[0])
    assert {r["title"] for r in rows_of(short[0])[CELLS]} == {"Conversations of 4k tokens"}
    assert {r["title"] for r in rows_of(long[0])[CELLS]} == {"Conversations of 64k tokens"}


def test_the_charts_show_the_planners_numbers() -> None:
    heat, bars = _charts("32768")
    sel = VIEW  # at 32k
    cells = {(r["weights"], r["kv"]): r for r in rows_of(heat)[CELLS]}
    fp8 = sel.assessment()
    assert (cells["fp8", "fp8"]["value"], cells["fp8", "fp8"]["text"]) == (fp8.conversations, f"{fp8.conversations:,}")
    assert (cells["fp32", "bf16"]["value"], cells["fp32", "bf16"]["text"]) == (None, "no fit")  # null, not NaN
    data = rows_of(bars)
    weights = {r["pair"]: r["value"] for r in data[BARS] if r["component"] == "Weights"}
    assert weights["int4-awq/fp8"] == pytest.approx(
        sel.assessment(weights="int4-awq").result.per_gpu.weights_bytes / 2**30, rel=1e-9
    )
    assert data[CAPACITY] == [{"capacity": pytest.approx(79.19, abs=0.005), "line": "Capacity: 79.2 GiB per GPU"}]
    assert json.loads(bars.spec)["layer"][0]["encoding"]["y"]["axis"]["title"] == "Memory per GPU (GiB)"


def test_the_report_has_the_plotly_figures_made_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page run builds no Plotly figure (the charts are Vega-Lite); pressing "HTML report" makes both, with the
    same title and capacity as the page's charts."""
    made: list[str] = []
    deferred: dict[str, Callable[[], Any]] = {}
    original = MediaFileManager.add_deferred

    def record(self: MediaFileManager, data_callable: Callable[[], Any], *args: Any, **kwargs: Any) -> str:
        file_id = original(self, data_callable, *args, **kwargs)
        deferred[kwargs.get("file_name") or args[2]] = data_callable
        return file_id

    def counted(name: str) -> Callable[..., Any]:
        build = getattr(figures, name)

        def made_now(*args: Any, **kwargs: Any) -> Any:
            made.append(name)
            return build(*args, **kwargs)

        return made_now

    for name in ("heatmap_figure", "compare_bars_figure"):
        monkeypatch.setattr(figures, name, counted(name))
    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    at = run_page("compare", {**PARAMS, "context": "4096"}, share=True)
    assert not at.exception and made == []
    html = deferred["headroom-compare.html"]()
    assert made == ["heatmap_figure", "compare_bars_figure"]
    assert "Conversations of 4k tokens" in html and "Capacity: 79.2 GiB per GPU" in html


def test_the_table_says_each_verdict_in_words() -> None:
    """The table's verdict column showed the keys ('weights-do-not-fit', 'misses-target'; browser audit,
    2026-12-05); the CSV keeps them for programs, beside the verdict in words."""
    at = run_page("compare", PARAMS)
    table = at.dataframe[0].value
    verdicts = set(table["verdict"])
    assert verdicts <= {
        "meets the target",
        "misses the target",
        "weights do not fit",
        "no room for one conversation",
        "the engine refuses to start",
    }, verdicts
    assert "weights do not fit" in verdicts  # fp32 weights of a 70B model on 2 x 80 GB


def test_the_grid_holds_the_set_ups_own_kv_cache() -> None:
    """llama.cpp's default cache is FP16, outside the compared bf16 / fp8 / int8 / int4: the grid left the sidebar's
    own pair out (browser audit, 2026-12-05); it is a column now, and its cell is the Memory page's answer."""
    params = {
        "model": "meta-llama/Llama-3.1-70B",
        "gpu": "rtx-3090",
        "gpus": "2",
        "engine": "llamacpp",
        "weights": "q4_k_m",
        "kv": "fp16",
        "context": "8192",
        "users": "4",
    }
    at = run_page("compare", params)
    assert not at.exception
    table = at.dataframe[0].value
    own = table[(table["weights"] == "q4_k_m") & (table["KV cache dtype"] == "fp16")]
    assert len(own) == 1
    shown = dict(figures_of(run_page("memory", params)))
    assert shown["Conversations at 8k"] == f"{int(own.iloc[0]['conversations']):,}"

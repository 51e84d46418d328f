"""The what-if page's charts (ui/what_if_charts.py): one Vega-Lite chart a GPU that keeps its element and spec when
the context or the users change (the browser takes the new rows in place), showing the planner's numbers; the HTML
report keeps its Plotly figures, made only when the report is asked for."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from tests.app.conftest import plain, run_page
from tests.app.conftest import vega_rows as rows_of
from tests.browser.screenshots import FOUR_BY_THREE, VIEW
from ui import curves, links
from ui.what_if_charts import CHOSEN, DIAMOND, MARKS, POINTS, TARGET

# Llama 3.1 70B in FP8 on two H100 SXM (TP 2) under vLLM, four pairs on three GPUs, as the screenshots show it.
PARAMS = {**links.selection_params(VIEW), **FOUR_BY_THREE}


def _charts(**changes: str) -> list[Any]:
    at = run_page("what_if", {**PARAMS, **changes})
    assert not at.exception, [e.value for e in at.exception]
    assert not at.get("plotly_chart"), "no Plotly chart: Streamlit mounts it again on every change"
    return [chart.proto for chart in at.get("vega_lite_chart")]


def _marks(chart: Any, kind: str) -> list[dict[str, Any]]:
    return [row for row in rows_of(chart)[MARKS] if row["kind"] == kind]


def test_the_charts_keep_their_element_and_spec_when_the_sliders_move() -> None:
    """Streamlit ids a Plotly chart by its figure, so every slider move mounted the three charts from scratch. These
    keep their element and their spec at another context and for other users; only the rows change."""
    base, shorter, fewer = _charts(context="32768"), _charts(context="4096"), _charts(users="10")
    assert len(base) == len(shorter) == len(fewer) == 3
    for before, after in (*zip(base, shorter, strict=True), *zip(base, fewer, strict=True)):
        assert before.id == after.id and before.spec == after.spec
        assert rows_of(before) != rows_of(after)
    assert [row["tokens"] for row in _marks(shorter[0], CHOSEN)] == [4096]
    assert [row["text"] for row in _marks(fewer[2], TARGET)] == ["target 10 users"]
    titles = [json.loads(chart.spec)["title"]["text"] for chart in base]
    assert titles == ["2 × H100 SXM5 80GB", "2 × A100 SXM4 80GB", "2 × H100 PCIe 80GB"]


def test_the_charts_show_the_planners_numbers() -> None:
    first = _charts(context="32768", users="40")[0]
    a = VIEW.assessment()  # at 32k, 40 users
    (diamond,) = _marks(first, DIAMOND)
    assert (diamond["tokens"], diamond["y"]) == (32768, a.concurrency)
    fp8 = {r["tokens"]: r for r in rows_of(first)[POINTS] if (r["pair"], r["style"]) == ("fp8/fp8", "paged")}
    assert (fp8[32768]["y"], fp8[32768]["conversations"]) == (a.concurrency, a.conversations)
    reserved = [r for r in rows_of(first)[POINTS] if r["style"] == "reserved"]
    assert {r["pair"] for r in reserved} == set(FOUR_BY_THREE["curves"]), "the toggle is on: dashed lines"


def test_the_report_has_the_plotly_figures_made_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page run builds no Plotly figure (the charts are Vega-Lite); pressing "HTML report" makes one a GPU, with
    the same titles and target as the page's charts."""
    made: list[str] = []
    deferred: dict[str, Callable[[], Any]] = {}
    original = MediaFileManager.add_deferred
    build = curves.what_if_figure

    def record(self: MediaFileManager, data_callable: Callable[[], Any], *args: Any, **kwargs: Any) -> str:
        file_id = original(self, data_callable, *args, **kwargs)
        deferred[kwargs.get("file_name") or args[2]] = data_callable
        return file_id

    def counted(panel: curves.Panel, *args: Any, **kwargs: Any) -> Any:
        made.append(panel.title)
        return build(panel, *args, **kwargs)

    monkeypatch.setattr(curves, "what_if_figure", counted)
    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    at = run_page("what_if", {**PARAMS, "users": "50"}, share=True)
    assert not at.exception and made == []
    html = deferred["headroom-what_if.html"]()
    assert made == ["2 × H100 SXM5 80GB", "2 × A100 SXM4 80GB", "2 × H100 PCIe 80GB"]
    # Plotly's JSON escapes "/" and "×"
    assert '"text":"target 50 users"' in html and "fp8\\u002ffp8: 50 users up to 8,704 tokens" in html
    assert all(f'"text":"2 \\u00d7 {gpu}"' in html for gpu in ("H100 SXM5 80GB", "A100 SXM4 80GB", "H100 PCIe 80GB"))


@pytest.mark.parametrize(
    ("engine", "weights", "said", "not_said"),
    [
        ("vllm", "fp8", "Solid: vLLM as the sidebar runs it, in blocks of 16 tokens", "slots"),
        ("sglang", "fp8", "Solid: SGLang as the sidebar runs it, in blocks of 1 token", "16 tokens"),
        ("llamacpp", "q4_k_m", "each of its -np slots reserving a whole conversation's length at start", "blocks of"),
    ],
)
def test_the_caption_says_how_the_sidebars_engine_holds_conversations(
    engine: str, weights: str, said: str, not_said: str
) -> None:
    """The caption said "Solid: paged engines (vLLM, SGLang, TensorRT-LLM) take blocks of 16 tokens" whatever the
    engine: SGLang pages single tokens, and under llama.cpp the solid line is its slots, each a fixed length."""
    at = run_page("what_if", {**PARAMS, "engine": engine, "weights": weights})
    caption = " ".join(plain(str(c.value)) for c in at.caption)
    assert said in caption and "paged engines (vLLM, SGLang, TensorRT-LLM)" not in caption, caption
    assert not_said not in caption.split(";")[0], caption

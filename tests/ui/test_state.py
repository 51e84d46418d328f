"""Settings, links and words: pure functions of the dashboard, tested without Streamlit."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

from model_catalog import get_gpu, get_model
from planner.plan import PlanRequest, plan
from ui import links, report, state, text
from ui.state import Selection, ignored_parameters


def test_every_setting_has_one_unique_name() -> None:
    keys = [s.key for s in state.SIDEBAR_SETTINGS + state.PAGE_SETTINGS]
    assert len(keys) == len(set(keys))
    assert set(links.selection_params(Selection())) == {s.key for s in state.SIDEBAR_SETTINGS} - {"hf"}
    with_all = Selection(hf="Qwen/Qwen3-8B", calibration="cal1~vllm~0.19.0~0.95", custom_spec="m1.x")
    assert set(links.selection_params(with_all)) == {s.key for s in state.SIDEBAR_SETTINGS} | {"calib", "spec"}


def test_ignored_parameters() -> None:
    initial = {"model": ["x/y"], "gpus": ["2"], "context": ["4096.0"], "junk": ["1"], "curves": ["a", "zz"]}
    rendered = {"model": "meta-llama/Llama-3.1-8B", "gpus": 2, "context": 4096, "curves": ["a"]}
    assert ignored_parameters(initial, rendered, state.ALL_KEYS) == ["model", "junk", "curves"]
    assert ignored_parameters({"context": ["nan"]}, {"context": 8192}, state.ALL_KEYS) == ["context"]
    assert ignored_parameters({"contiguous": ["true"]}, {"contiguous": True}, state.ALL_KEYS) == []


def test_link_round_trip() -> None:
    sel = Selection(model_id="Qwen/Qwen3-8B", gpu_count=2, tensor_parallel=2, context_tokens=32768, unit="GB")
    query = links.query_string(sel, {"combos": ["bf16/bf16", "fp8/fp8"]}, context="4096")
    params = parse_qs(query[1:])
    assert params["model"] == ["Qwen/Qwen3-8B"] and params["context"] == ["4096"]
    assert params["combos"] == ["bf16/bf16", "fp8/fp8"]
    url = links.share_url("http://example.test:8501/memory?old=1", "compare", query)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("http", "example.test:8501", "/compare")
    assert "old=1" not in url


def test_tp_options_are_legal_and_default_is_largest() -> None:
    qwen = get_model("Qwen/Qwen2.5-7B").spec  # 28 heads, 4 KV heads
    assert state.tp_options(qwen, 8) == [1, 2, 4]
    assert state.default_tp(qwen, 8) == 4
    assert state.tp_options(get_model("meta-llama/Llama-3.1-8B").spec, 8) == [1, 2, 4, 8]


def test_verdict_sentences() -> None:
    gpu = get_gpu("h100-sxm-80gb")
    spec = get_model("meta-llama/Llama-3.1-70B").spec
    request = PlanRequest(
        model=spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes, gpu_count=2, weights="fp8", context_tokens=32768
    )
    result = plan(request)
    sentence = text.verdict(result, "Llama 3.1 70B", gpu, "GiB", users=20)
    count = text.conversations(result)
    assert sentence.startswith("Llama 3.1 70B in FP8 on 2 × H100 SXM5 80GB holds ")
    assert f": {count} concurrent conversations of 32k tokens." in sentence
    assert "target of 20 users" in sentence
    single = plan(request.model_copy(update={"gpu_count": 1, "weights": "bf16", "tensor_parallel": 1}))
    assert "does not fit on 1 × H100 SXM5 80GB" in text.verdict(single, "Llama 3.1 70B", gpu, "GiB")
    assert text.context_label(32768) == "32k" and text.context_label(5000) == "5,000"


def test_html_report_is_self_contained_and_escaped() -> None:
    import plotly.graph_objects as go

    html = report.html_report(
        "T <1>",
        "V & W",
        {"model": "<x>"},
        [go.Figure()],
        {"rows": [{"a": "<b>"}]},
        when=datetime(2026, 11, 29, tzinfo=UTC),
    )
    assert "T &lt;1&gt;" in html and "V &amp; W" in html and "&lt;x&gt;" in html and "&lt;b&gt;" in html
    assert "2026-11-29 00:00 UTC" in html
    # plotly.js is inlined (a few MB), no script is loaded from the network: the report works offline.
    assert len(html) > 1_000_000 and "<script src=" not in html.replace('<script src="data:', "")
    assert report.csv_text([{"a": 1, "b": "x,y"}]) == 'a,b\r\n1,"x,y"\r\n'

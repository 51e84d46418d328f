"""Settings, links and words: pure functions of the dashboard, tested without Streamlit."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess, context_label
from planner.bounds.errors import PlannerError
from planner.engines.registry import overhead_profile
from planner.engines.settings import ENGINE_SETTINGS, shown_name
from planner.planning.plan import PlanRequest
from ui import links, report, settings, state
from ui.state import Selection


def test_every_setting_has_one_unique_name() -> None:
    keys = [key for s in settings.SETTINGS for key in s.widget_keys]
    assert len(keys) == len(set(keys))
    sidebar = {s.url for s in settings.SIDEBAR_SETTINGS}
    optional = {s.url for s in settings.SIDEBAR_SETTINGS if s.optional}
    launch = {shown_name(declared) for declared in ENGINE_SETTINGS}
    assert optional == {"hf", "spec", "calib", "engine_version", "util"} | launch
    assert set(links.selection_params(Selection())) == sidebar - optional
    with_all = Selection(
        hub_reference="Qwen/Qwen3-8B",
        calibration="cal1~vllm~0.19.0~0.95",
        custom_spec="m1.x",
        engine_version="0.19.0",
        util=0.9,
        max_num_batched_tokens=4096,
        max_num_seqs=2,
        enforce_eager=True,
        no_enable_extensible_kv_cache=True,
        max_cudagraph_capture_size=16,
        kv_cache_memory_gib=4.5,
        max_total_tokens=100_000,
        language_model_only=True,
        skip_mm_profiling=True,
        limit_mm_per_prompt=0,
        limit_mm_audio=0,
        enable_prefix_caching=False,  # a switch's off side is in the link, as false
        use_v2_model_runner=False,  # an environment switch likewise (VLLM_USE_V2_MODEL_RUNNER=0)
        compile_cache="cold",
        load_format="fastsafetensors",
        safetensors_load_strategy="prefetch",
        max_attention_window=True,
        enable_dp_attention=True,
    )
    assert set(links.selection_params(with_all)) == sidebar
    for setting in settings.SETTINGS:  # every field a setting fills exists on its model
        if setting.scope == settings.SIDEBAR:
            assert setting.field in Selection.model_fields, setting.url


def test_every_launch_setting_is_a_link_setting_and_a_selection_field() -> None:
    """An engine setting declared once (planner.engines.settings) is a link parameter under the name the CLI
    takes and a Selection field; what a link holds reaches the engine profile in its own units."""
    for declared in ENGINE_SETTINGS:
        name = shown_name(declared)
        assert name in Selection.model_fields, f"add a Selection field {name!r} for {declared.flag}"
        assert settings.LAUNCH_BY_NAME[declared.name].url == name
    params = links.selection_params(
        Selection(engine="vllm", max_num_seqs=2, kv_cache_memory_gib=1.5, enforce_eager=False)
    )
    assert (params["max_num_seqs"], params["kv_cache_memory_gib"], params["enforce_eager"]) == ("2", "1.5", "false")
    taken = Selection(engine="vllm", max_num_seqs=2, kv_cache_memory_gib=1.5).launch_settings
    assert taken == {"max_num_seqs": 2, "kv_cache_memory_bytes": 1_610_612_736}


def test_a_cold_compile_cache_round_trips_and_plans_what_fit_plans() -> None:
    """``compile_cache=cold`` in a link is the Selection's, reads back from the link it makes, and plans the profile
    ``fit --compile-cache cold`` plans: Qwen3-8B on one RTX 3090, 22,288 tokens cold, 28,976 warm (vLLM 0.31.0; 21,344
    and 28,016 until the desktop cards' share was refitted beside FlashInfer's decode workspace, 2026-12-07; 29,888
    and 36,576 since the mechanistic non-torch model plans no desktop share, the same day)."""
    base = Selection(model_id="Qwen/Qwen3-8B", gpu_id="rtx-3090", engine="vllm", context_tokens=8192)
    cold = base.model_copy(update={"compile_cache": "cold"})
    params = links.selection_params(cold)
    assert params["compile_cache"] == "cold" and "compile_cache" not in links.selection_params(base)
    assert settings.BY_URL["compile_cache"].parse_values([params["compile_cache"]]) == "cold"
    assert cold.launch_settings == {"compile_cache": "cold"}
    assert cold.request().overhead == overhead_profile("vllm", compile_cache="cold")
    assert (cold.assessment().kv_budget_tokens, base.assessment().kv_budget_tokens) == (29_888, 36_576)
    with pytest.raises(PlannerError, match="SGLang has no --compile-cache setting"):
        cold.model_copy(update={"engine": "sglang"}).request()


def test_launch_settings_change_the_plan_as_the_cli_flags_do() -> None:
    """``max_num_seqs=2&enforce_eager=true`` in a link plans what ``fit --max-num-seqs 2 --enforce-eager`` does:
    the same engine profile, so the same KV pool (no CUDA-graph memory, a sampler sized for 2 sequences)."""
    base = Selection(model_id="Qwen/Qwen3-8B", gpu_id="rtx-3090", engine="vllm", context_tokens=8192)
    tuned = base.model_copy(update={"max_num_seqs": 2, "enforce_eager": True})
    profile = overhead_profile("vllm", max_num_seqs=2, enforce_eager=True)  # fit without --gpu-memory-utilization
    assert tuned.request().overhead == profile
    assert tuned.assessment().kv_budget_tokens > base.assessment().kv_budget_tokens
    with pytest.raises(PlannerError, match="generic profile has no"):
        Selection(engine="generic", max_num_seqs=2).request()


def test_the_address_always_says_auto_or_the_split() -> None:
    assert links.selection_params(Selection())["tp"] == "auto"
    assert links.selection_params(Selection(tensor_parallel=2))["tp"] == "2"


@pytest.mark.parametrize(
    ("url", "raw", "value"),
    [
        ("gpus", ["4"], 4),
        ("tp", ["auto"], None),
        ("tp", ["2"], 2),
        ("util", ["0.95"], 0.95),
        ("context", ["32768"], 32768),
        ("contiguous", ["true"], True),
        ("curves", ["bf16/bf16", "fp8/fp8", "bf16/bf16"], ["bf16/bf16", "fp8/fp8"]),
        ("unit", ["GB"], "GB"),
    ],
)
def test_settings_parse_what_links_carry(url: str, raw: list[str], value: object) -> None:
    setting = settings.BY_URL[url]
    assert setting.parse_values(raw) == value
    assert setting.parse_values([*(setting.to_url(value) if setting.many else [setting.to_url(value)])]) == value


@pytest.mark.parametrize(
    ("url", "raw"),
    [
        ("gpus", "²"),
        ("gpus", "1e9"),
        ("gpus", "0"),
        ("users", "9" * 400),
        ("util", "nan"),
        ("util", "inf"),
        ("util", "1e-3"),
        ("context", "-4096"),
        ("context", "4096.5"),
        ("model", "<script>"),
        ("hf", "owner/name with space"),
        ("hf", "x" * 300),
        ("curves", "x/y"),
        ("engine", "lmdeploy"),
        ("compile_cache", "lukewarm"),
        ("compile_cache", "<b>cold</b>"),
        ("compile_cache", "c" * 100_000),
    ],
)
def test_settings_refuse_junk_with_a_reason(url: str, raw: str) -> None:
    with pytest.raises(ValueError, match=r"\w"):
        settings.BY_URL[url].parse_values([raw])


def test_link_round_trip() -> None:
    sel = Selection(model_id="Qwen/Qwen3-8B", gpu_count=2, tensor_parallel=2, context_tokens=32768, unit="GB")
    query = links.query_string(sel, {"combos": ["bf16/bf16", "fp8/fp8"]}, context="4096")
    params = parse_qs(query[1:])
    assert params["model"] == ["Qwen/Qwen3-8B"] and params["context"] == ["4096"]
    assert params["combos"] == ["bf16/bf16", "fp8/fp8"]
    url = links.share_url("http://example.test:8501?old=1", "compare", query)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("http", "example.test:8501", "/compare")
    assert "old=1" not in url
    # behind a reverse proxy under a path prefix, the prefix stays in the link (st.context.url carries it)
    proxied = urlsplit(links.share_url("https://tools.example/headroom", "compare", query))
    assert (proxied.scheme, proxied.netloc, proxied.path) == ("https", "tools.example", "/headroom/compare")
    # st.context.url is the page the reader is on: its own path is replaced, never repeated
    for current in ("what_if", "advisor/", "memory"):
        on_page = urlsplit(links.share_url(f"https://tools.example/headroom/{current}", "compare", query))
        assert on_page.path == "/headroom/compare", current
        assert urlsplit(links.share_url(f"http://h:8501/{current}", "", query)).path == "/"


def test_tp_options_are_legal_and_auto_is_first() -> None:
    qwen = get_model("Qwen/Qwen2.5-7B").spec  # 28 heads, 4 KV heads
    assert state.tp_options(qwen, 8) == [None, 1, 2, 4]
    assert state.default_tp(qwen, 8) == 4
    assert state.tp_options(get_model("meta-llama/Llama-3.1-8B").spec, 8) == [None, 1, 2, 4, 8]


def test_two_gpus_of_a_70b_model_split_with_tp_2_by_default() -> None:
    sel = Selection(model_id="meta-llama/Llama-3.1-70B", gpu_count=2, weights="fp8", kv_dtype="fp8")
    assert sel.tensor_parallel is None
    assert sel.assessment().result.tensor_parallel == 2


def test_verdict_sentences() -> None:
    gpu = get_gpu("h100-sxm-80gb")
    spec = get_model("meta-llama/Llama-3.1-70B").spec
    request = PlanRequest(
        model=spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes, gpu_count=2, weights="fp8", context_tokens=32768
    )
    a = assess(request, 20)
    sentence = a.sentence("GiB")
    assert sentence.startswith("Llama 3.1 70B in FP8 on 2 × H100 SXM5 80GB holds ")
    assert f": {a.conversations} concurrent conversations of 32k tokens." in sentence
    assert "target of 20 users" in sentence
    single = assess(request.model_copy(update={"gpu_count": 1, "weights": "bf16", "tensor_parallel": 1}))
    assert "does not fit on 1 × H100 SXM5 80GB" in single.sentence("GiB")
    assert context_label(32768) == "32k" and context_label(5000) == "5,000"


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

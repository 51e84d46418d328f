"""Issue 22 on the pages: what an engine would not do is never shown as done, and what it would do instead is said.

Each test opens a link as a buyer would (AppTest, the dashboard's own run) and reads what the page shows.
"""

from __future__ import annotations

import html
import json
from typing import Any

from planner.cli import main
from tests.app.conftest import figures, nearest_link, plain, run_page, texts, vega_rows
from ui.compare_charts import CELLS
from ui.memory_chart import BARS

ISSUE = {
    "model": "meta-llama/Llama-3.1-70B", "gpu": "h100-sxm-80gb", "gpus": "2", "weights": "fp8", "kv": "fp8",
    "engine": "vllm", "context": "32768", "users": "20",
}  # fmt: skip


def _metrics(at: Any) -> dict[str, str]:
    return dict(figures(at))


def _markdown(at: Any) -> str:
    return "\n".join(plain(str(m.value)) for m in at.markdown)


def _chart(at: Any) -> dict[str, list[dict[str, Any]]]:
    """The Memory page's chart's rows (:mod:`ui.memory_chart`)."""
    (chart,) = at.get("vega_lite_chart")
    return vega_rows(chart.proto)


def _printed(at: Any) -> str:
    return "\n".join(html.unescape(h.proto.body) for h in at.get("html") if "hr-pre" in h.proto.body)


def test_memory_in_use_shows_no_pool_and_offers_the_fraction_that_starts(capsys: Any) -> None:
    at = run_page("memory", {**ISSUE, "used_mem": "10"})
    assert not at.exception
    assert any("vLLM would refuse to start" in e for e in texts(at.error))
    assert _metrics(at)["KV budget"] == "none: vLLM does not start"  # was 440.2 k tokens
    chart = _chart(at)
    pool = [row["value"] for row in chart[BARS] if row["component"] == "KV cache pool"]
    assert set(pool) == {0}, pool  # was a normal green pool
    assert {row["subtitle"] for row in chart[BARS]} == {"vLLM would not start, so no KV cache is allocated"}
    printed = _printed(at)
    assert "Free memory on device" in printed and "Available KV cache memory" not in printed
    shown = _markdown(at)
    assert "more than the weights" not in shown and "Offloading weights does not cure this" in shown
    assert "Largest `--max-model-len`" not in shown and "No `--max-model-len` starts this set-up" in shown
    assert not any("Nothing close does" in i for i in texts(at.info))
    params = nearest_link(shown, "memory fraction 0.85")
    assert params["util"] == "0.85"
    opened = run_page("memory", params)
    assert main(["fit", *_cli(params), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["conversations_total"] == 11  # MRV2's sampler read from the source (10 before)
    assert cli["verdict_sentence"] in texts(opened.success) + texts(opened.warning)


def _cli(params: dict[str, str]) -> list[str]:
    return [
        "--model", params["model"], "--gpu", params["gpu"], "--gpus", params["gpus"], "--weights", params["weights"],
        "--kv-dtype", params["kv"], "--engine", params["engine"], "--gpu-util", params["util"],
        "--context", params["context"], "--users", params["users"], "--used-memory-gib", params["used_mem"],
    ]  # fmt: skip


def test_another_engine_beside_it_is_answered_the_same_way() -> None:
    at = run_page("memory", {**ISSUE, "colocate": "meta-llama/Llama-3.1-8B", "colocate_util": "0.3"})
    assert _metrics(at)["KV budget"] == "none: vLLM does not start"
    assert "memory fraction 0." in _markdown(at)
    assert not any("Nothing close does" in i for i in texts(at.info))


def test_a_link_asking_llamacpp_for_fp8_is_planned_as_what_it_runs() -> None:
    at = run_page("memory", {**ISSUE, "engine": "llamacpp", "context": "8192"})
    assert not at.exception and not at.error, texts(at.error)  # was only "engine: llama.cpp has no FP8 weights"
    assert at.session_state["weights"] == "q8_0" and at.session_state["kv"] == "int8"
    notes = " ".join(texts(at.warning))
    assert "llama.cpp has no FP8 weights" in notes and "llama.cpp has no FP8 KV cache" in notes
    header = " ".join(plain(c.value) for c in at.caption)
    assert "INT8 (q8_0) KV cache" in header and "layers split over 2 GPUs" in header and "TP 2" not in header
    printed = _printed(at)
    assert "K (q8_0)" in printed and "f16" not in printed
    # every layer is on the GPUs (it was 19.88 GiB): system RAM holds token_embd alone, as llama.cpp keeps it
    assert "System RAM holds 19.88" not in header and "(token_embd and every CPU layer)" in header
    assert "Largest context per slot (`-c` ÷ `-np`)" in _markdown(at)  # was "Largest `--max-model-len`"


def test_the_sidebar_offers_only_what_the_engine_runs() -> None:
    vllm = run_page("memory", {"engine": "vllm"}, editor=True)
    assert "q4_k_m" not in vllm.selectbox(key="weights").options  # GGUF is llama.cpp's
    assert {"int8", "int4"}.isdisjoint(vllm.selectbox(key="kv").options)  # vLLM has no INT8 or 4-bit KV cache
    llama = run_page("memory", {"engine": "llamacpp"}, editor=True)
    assert {"fp8", "int4-awq"}.isdisjoint(llama.selectbox(key="weights").options)
    assert "fp8" not in llama.selectbox(key="kv").options and "int8" in llama.selectbox(key="kv").options


def test_the_deployment_section_greys_out_what_the_engine_has_no_flag_for() -> None:
    at = run_page("memory", {"engine": "vllm", "ngl": "20", "context": "4096"})
    assert at.selectbox(key="ngl").disabled and at.selectbox(key="ngl").value == "all"  # was editable, did nothing
    assert any("`ngl` (vLLM does not keep layers in system RAM" in w for w in texts(at.warning))
    assert not at.number_input(key="cpu_offload").disabled
    llama = run_page("memory", {"engine": "llamacpp", "cpu_offload": "4", "context": "4096"})
    assert llama.number_input(key="cpu_offload").disabled and not llama.selectbox(key="ngl").disabled
    assert llama.selectbox(key="spec_method").options == ["none", "draft"]


def test_any_gpu_count_is_a_setting(capsys: Any) -> None:
    for count in ("3", "6"):
        at = run_page("memory", {"model": "meta-llama/Llama-3.1-8B", "gpus": count, "engine": "vllm"})
        assert at.session_state["gpus"] == int(count)  # was 1 GPU and a red verdict
        assert at.query_params["gpus"] in (count, [count])
        assert not any("gpus" in w for w in texts(at.warning))
        main(["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--gpus", count, "--engine",
              "vllm", "--context", "8192", "--users", "32", "--json"])  # fmt: skip
        sentence = json.loads(capsys.readouterr().out)["verdict_sentence"]
        assert sentence in texts(at.success) + texts(at.warning), sentence


def test_headlines_say_why_a_windowed_model_holds_more() -> None:
    at = run_page(
        "memory",
        {"model": "google/gemma-4-31B-it", "gpus": "2", "weights": "fp8", "kv": "fp8", "engine": "vllm",
         "engine_version": "0.19.0", "context": "32768", "users": "20"},
    )  # fmt: skip
    verdict = " ".join(texts(at.success) + texts(at.warning))
    assert "because its 50 sliding-window layers keep only the last 1,024 tokens of each conversation" in verdict


def test_seed_texts_are_cited_by_title() -> None:
    at = run_page("what_if")
    shown = " ".join(plain(c.value) for c in at.caption)
    assert "seed text" not in shown and "“Memory Planning for LLMs”" in shown
    simple = run_page("memory", {"engine": "simple"})
    assert not any("seed text" in plain(c.value) for c in simple.caption)


def test_compare_shows_only_the_kv_dtypes_the_engine_keeps() -> None:
    """Already so since the engines declared their support (a719bc5): pinned here. vLLM's columns used to include
    int8 and int4 filled from llama.cpp's q8_0 / q4_0."""
    vllm, llama = (
        {r["kv"] for r in vega_rows(run_page("compare", {"engine": e}).get("vega_lite_chart")[0].proto)[CELLS]}
        for e in ("vllm", "llamacpp")
    )
    assert {"int8", "int4"}.isdisjoint(vllm) and "fp8" in vllm
    assert "fp8" not in llama and {"int8", "int4"} <= llama


def test_the_advisor_workload_choice_is_in_words() -> None:
    at = run_page("advisor", {"model": "meta-llama/Llama-3.1-8B", "context": "4096", "users": "8"})
    options = at.selectbox(key="preset").options
    assert "sidebar" not in options and "the sidebar's context and users" in options


def test_the_what_if_curves_are_pairs_the_engine_runs() -> None:
    vllm = run_page("what_if", {"engine": "vllm"}).multiselect(key="curves").options
    assert not any(o.startswith("q4_k_m") or o.endswith("/int8") for o in vllm) and "fp8/fp8" in vllm
    llama = run_page("what_if", {"engine": "llamacpp"}).multiselect(key="curves").options
    assert not any("fp8" in o or "int4-awq" in o for o in llama) and "q4_k_m/int8" in llama

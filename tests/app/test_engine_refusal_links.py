"""A set-up its engine refuses is not a dead end: the Memory page says why, and links the same set-up under each
engine that runs it (:func:`planner.engines.registry.engines_that_run`), every other setting kept.

Before, SGLang or TensorRT-LLM with a linear-attention model (Qwen3.5) drew only the refusal, whose words named vLLM
but offered no way to it; the reader had to find the engine box, change it and set the rest again."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.other_engines import engines_that_start
from planner.cli import main
from planner.engines.registry import engines_that_run, overhead_profile
from planner.planning.plan import PlanRequest
from tests.app.conftest import plain, run_page, texts

HYBRID = {
    "model": "Qwen/Qwen3.5-27B",
    "gpu": "h100-sxm-80gb",
    "gpus": "2",
    "context": "32768",
    "users": "7",
    "kv": "fp8",
}
LINK = re.compile(r"\[Open this set-up under ([^\]]+)\]\((\?[^)]*)\)")


def _links(at: object) -> dict[str, dict[str, str]]:
    found = {}
    for line in (plain(str(m.value)) for m in at.markdown):  # type: ignore[attr-defined]
        for label, query in LINK.findall(line):
            found[label] = {k: v[0] for k, v in parse_qs(urlsplit(query).query).items()}
    return found


@pytest.mark.parametrize("engine", ["sglang", "trtllm"])
def test_a_refused_hybrid_links_the_engines_that_run_it(engine: str) -> None:
    at = run_page(
        "memory", {**HYBRID, "engine": engine, **({"engine_version": "0.5.18"} if engine == "sglang" else {})}
    )
    (error,) = texts(at.error)
    assert "linear-attention / Mamba layers" in error and "not planned here" in error
    links = _links(at)
    assert set(links) == {"vLLM"}  # llama.cpp has no FP8 KV cache (its q8_0 is another format)
    for params in links.values():
        assert params["engine"] == "vllm"
        assert "engine_version" not in params  # the refusing engine's release is not another's
        assert {k: params[k] for k in HYBRID} == HYBRID  # the model, GPU, context, users and KV dtype kept
    opened = run_page("memory", links["vLLM"])
    assert not opened.error and opened.title, texts(opened.error)
    assert "vLLM" in plain(str(opened.caption[0].value)) and "32k-token conversations" in plain(
        str(opened.caption[0].value)
    )


@pytest.mark.parametrize("page", ["what_if", "compare"])
def test_the_other_pages_link_them_too(page: str) -> None:
    """What-if and Compare stop at the same refusal (:func:`ui.refusals.offering_engines`) and link the same
    set-up, on the same page, under vLLM."""
    at = run_page(page, {**HYBRID, "engine": "sglang"})
    assert any("linear-attention / Mamba layers" in e for e in texts(at.error))
    links = _links(at)
    assert set(links) == {"vLLM"} and {k: links["vLLM"][k] for k in HYBRID} == HYBRID
    opened = run_page(page, links["vLLM"])
    assert not opened.error, texts(opened.error)


def test_no_link_where_the_engine_runs_the_set_up() -> None:
    at = run_page("memory", {**HYBRID, "engine": "vllm"})
    assert not at.error and not _links(at)


def test_the_engines_that_run_a_request_are_the_registrys_answer() -> None:
    """vLLM at its defaults: none (it runs the request); SGLang with a llama.cpp GGUF format: llama.cpp alone."""
    gpu = get_gpu("h100-sxm-80gb")

    def running(model: str, engine: str, weights: str = "bf16") -> list[str]:
        request = PlanRequest(
            model=get_model(model).spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes, weights=weights,
            overhead=overhead_profile(engine),
        )  # fmt: skip
        return [e.name for e in engines_that_run(request)]

    assert running("meta-llama/Llama-3.1-8B", "vllm") == []
    assert running("meta-llama/Llama-3.1-8B", "sglang", "q4_k_m") == ["llamacpp"]
    assert running("Qwen/Qwen3.5-27B", "trtllm") == ["vllm", "llamacpp"]


def test_fit_names_the_engines_that_run_a_refused_set_up(capsys: pytest.CaptureFixture[str]) -> None:
    """``fit`` refuses with the engine's reason (exit 2) and names the flags that run the same set-up."""
    assert main(["fit", "--model", "Qwen/Qwen3.5-27B", "--gpu", "h100-sxm-80gb", "--engine", "trtllm"]) == 2
    err = capsys.readouterr().err
    assert "MambaHybridCacheManager" in err
    # vLLM takes it but stops at its Mamba-block check at 1,024 sequences on an H100 (reviewer, 2026-12-05: the
    # refusal had sent the reader there): only the engines that start are named
    assert err.rstrip().endswith("The same set-up starts under llama.cpp (--engine llamacpp)")
    h100 = get_gpu("h100-sxm-80gb")
    hybrid = PlanRequest(
        model=get_model("Qwen/Qwen3.5-27B").spec, gpu=h100, gpu_memory_bytes=h100.memory_bytes_for(True),
        overhead=overhead_profile("trtllm"),
    )  # fmt: skip
    assert [e.name for e in engines_that_run(hybrid)] == ["vllm", "llamacpp"]
    assert [e.name for e in engines_that_start(hybrid)] == ["llamacpp"]
    assert main(["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--weights", "q4_k_m",
                 "--engine", "sglang"]) == 2  # fmt: skip
    assert capsys.readouterr().err.rstrip().endswith("The same set-up starts under llama.cpp (--engine llamacpp)")


@pytest.mark.parametrize("page", ["memory", "compare"])
def test_a_release_that_predates_the_model_links_a_release_that_loads_it(page: str) -> None:
    """vLLM 0.8.5 does not load gpt-oss (GptOssForCausalLM came with 0.10.1): the page links the same set-up under
    the oldest vLLM release offered that does, every other setting kept (reviewer, 2026-12-05: only other engines
    were offered)."""
    link = {"model": "openai/gpt-oss-20b", "gpu": "h100-sxm-80gb", "engine": "vllm", "engine_version": "0.8.5"}
    at = run_page(page, link)
    (error,) = texts(at.error)
    assert "vLLM 0.8.5 does not load gpt_oss models" in error
    links = _links(at)
    assert links["vLLM 0.10.1"]["engine_version"] == "0.10.1" and links["vLLM 0.10.1"]["model"] == "openai/gpt-oss-20b"
    opened = run_page(page, links["vLLM 0.10.1"])
    assert not opened.error, texts(opened.error)

"""Launch commands, the largest max-model-len, and the engine profiles as overhead models."""

from __future__ import annotations

import math

import pytest

from model_catalog import get_gpu, get_model
from planner.core.units import GiB
from planner.engines import registry
from planner.engines.launch import launch_commands
from planner.engines.llamacpp.profile import LlamacppProfile, llamacpp_kv_bytes
from planner.engines.registry import engine_report, max_model_len_allowed
from planner.engines.sglang import SglangProfile, sglang_default_mem_fraction
from planner.engines.trtllm import TrtllmProfile
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")
LLAMA = get_model("meta-llama/Llama-3.1-8B").spec


def _request(**kw: object) -> PlanRequest:
    base: dict[str, object] = {
        "model": LLAMA,
        "gpu": H100,
        "gpu_memory_bytes": H100.engine_visible_bytes,
        "context_tokens": 8192,
        "max_model_len": 8192,
        "overhead": VllmProfile(gpu_memory_utilization=0.95),
    }
    base.update(kw)
    return PlanRequest(**base)  # type: ignore[arg-type]


def test_vllm_command() -> None:
    request = _request(gpu_count=2, tensor_parallel=2, kv_dtype="fp8")
    cmd = launch_commands(request, plan(request))["vllm"]
    assert cmd == (
        "vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 2 --gpu-memory-utilization 0.95 "
        "--max-model-len 8192 --max-num-seqs 1024 --kv-cache-dtype fp8"
    )


def test_other_engines_commands() -> None:
    request = _request(gpu_count=4, tensor_parallel=2, kv_dtype="int8")
    cmds = launch_commands(request, plan(request))
    assert set(cmds) == set(registry.engine_names())
    # An INT8 KV cache is llama.cpp's q8_0; SGLang has none and vLLM's (per token and head) is not this format, and
    # their commands say so above the line.
    assert cmds["vllm"].startswith("# not runnable as planned: vLLM's INT8 KV cache (--kv-cache-dtype int8_per_")
    assert "--data-parallel-size 2" in cmds["vllm"].splitlines()[-1]
    assert "--kv-cache-dtype" not in cmds["vllm"].splitlines()[-1]
    assert (
        cmds["sglang"]
        .splitlines()[-1]
        .startswith("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --tp 2 --dp 2")
    )
    assert "--context-length 8192" in cmds["sglang"] and "--mem-fraction-static 0.8" in cmds["sglang"]
    assert "--kv_cache_free_gpu_memory_fraction 0.9" in cmds["trtllm"] and "--tp_size 2" in cmds["trtllm"]
    # the default build, b9849, takes -fa on|off|auto (from ~b6327; b6000, the default until 2026-12-05, a bare -fa)
    assert "-c 8192 -np 1 -ngl 99 -fa on --cache-type-k q8_0 --cache-type-v q8_0" in cmds["llamacpp"]


def test_max_model_len_allowed_vllm() -> None:
    request = _request(
        model=get_model("openai/gpt-oss-120b").spec,
        weights="mxfp4",
        context_tokens=131072,
        max_model_len=131072,
        overhead=VllmProfile(gpu_memory_utilization=0.9),
    )
    result = plan(request)
    report = engine_report(request, result)
    allowed = max_model_len_allowed(request, result)
    assert not report.fits and report.estimated_max_model_len == allowed
    assert 0 < allowed < 131072
    ok = _request()
    assert max_model_len_allowed(ok) == LLAMA.max_position_embeddings  # 58 GiB holds 476k tokens


def test_max_model_len_allowed_llamacpp_is_the_largest_that_fits() -> None:
    gpu = get_gpu("rtx-4090")
    request = _request(gpu=gpu, gpu_memory_bytes=gpu.engine_visible_bytes, weights="q4_k_m", overhead=LlamacppProfile())
    allowed = max_model_len_allowed(request)
    assert 0 < allowed <= LLAMA.max_position_embeddings
    fits = engine_report(request, plan(request.model_copy(update={"max_model_len": allowed})))
    assert fits.fits


def test_hybrid_grouping_gemma_3() -> None:
    """gemma-3-27b: 52 sliding + 10 full layers -> groups of 10, 6 sliding groups (2 padding layers) + 1 full.
    0.19 prints blocks // groups x 16 tokens; from 0.20.1 int(concurrency x max_model_len), concurrency = blocks /
    pages one request holds (8192 / 16 = 512 full + 6 x (cdiv(min(1023 + batched, 8192), 16) + 1) sliding)."""
    spec = get_model("google/gemma-3-27b-it").spec
    old = _request(model=spec, weights="bf16", gpu_count=2, tensor_parallel=2, overhead=VllmProfile(
        engine_version="0.19.0", gpu_memory_utilization=0.95))  # fmt: skip
    report = engine_report(old, plan(old))
    assert report.kv_cache_groups == 7
    assert report.kv_cache_tokens == report.gpu_blocks // 7 * 16
    new = _request(model=spec, weights="bf16", gpu_count=2, tensor_parallel=2)
    report = engine_report(new, plan(new))
    assert report.kv_cache_tokens == int(report.max_concurrency * 8192)
    assert report.max_concurrency == report.gpu_blocks / (512 + 6 * (math.ceil(min(1023 + 8192, 8192) / 16) + 1))


def test_mla_not_split_by_tp_and_gqa_replication() -> None:
    ds = get_model("deepseek-ai/DeepSeek-V2-Lite").spec
    one = engine_report(r1 := _request(model=ds, weights="bf16"), plan(r1))
    two = engine_report(r2 := _request(model=ds, weights="bf16", gpu_count=2, tensor_parallel=2), plan(r2))
    # The latent is whole on every rank: more free memory per GPU, same bytes per token.
    assert two.kv_cache_tokens / (two.available_kv_cache_bytes_per_gpu / GiB) == pytest.approx(
        one.kv_cache_tokens / (one.available_kv_cache_bytes_per_gpu / GiB), rel=0.001
    )


def test_v020_subtracts_cuda_graphs_and_raises_the_default_fraction() -> None:
    """vllm PR #38284 ships in the 0.20.0 wheel (envs.py:1724, config/cache.py:66), not 0.21.0 as its notice says."""
    same = {"gpu_memory_utilization": 0.95, "sampler": "triton"}
    old = engine_report(r := _request(overhead=VllmProfile(engine_version="0.19.1", **same)), plan(r))
    new = engine_report(r := _request(overhead=VllmProfile(engine_version="0.20.0", **same)), plan(r))
    terms = old.budget_bytes - old.weights_bytes - old.activation_bytes - old.non_torch_bytes
    assert old.available_kv_cache_bytes_per_gpu == terms
    terms = new.budget_bytes - new.weights_bytes - new.activation_bytes - new.non_torch_bytes - new.cuda_graph_bytes
    assert new.available_kv_cache_bytes_per_gpu == terms and new.cuda_graph_bytes > 0
    assert VllmProfile(engine_version="0.19.1").utilization == 0.90
    assert VllmProfile(engine_version="0.20.0").utilization == 0.92


def test_profiles_are_overhead_models_and_round_trip() -> None:
    for profile in (VllmProfile(), SglangProfile(), TrtllmProfile(), LlamacppProfile(n_ctx=4096)):
        request = _request(overhead=profile)
        assert PlanRequest.model_validate_json(request.model_dump_json()) == request
        result = plan(request)
        assert result.per_gpu.gpu_memory_bytes == H100.engine_visible_bytes
        report = engine_report(request, result)
        assert report.engine == profile.kind
        assert report.lines


def test_sglang_default_fraction() -> None:
    # v0.5.3+ on an H100 (81,559 MiB): 512 + 1.5 x 8192 + 2 x 256 + 1024 / 8 = 13,440 MB reserved -> 0.835
    # (above the 10 GiB floor); older releases 0.88 (TP1) / 0.85 (TP4).
    assert sglang_default_mem_fraction(H100.memory_bytes, 1, version="0.5.4") == round((81559 - 13440) / 81559, 3)
    assert sglang_default_mem_fraction(H100.memory_bytes, 1, version="0.5.4") == 0.835
    # 0.5.10+ adds the prefill graphs: 58 sizes to 8,192 tokens x 8 MB = 464 MB -> 0.830 (0.5.18's ServerArgs: 0.83)
    assert sglang_default_mem_fraction(H100.memory_bytes, 1) == round((81559 - 13440 - 464) / 81559, 3) == 0.830
    assert sglang_default_mem_fraction(H100.memory_bytes, 4, version="0.4.6") == 0.85


def test_llamacpp_kv_glm4() -> None:
    """ik_llama.cpp PR #344: GLM-4-32B-0414, n_ctx 32768, f16: 1952 MiB (61 layers x 2 KV heads x 128)."""
    spec = get_model("THUDM/GLM-4-32B-0414").spec
    assert llamacpp_kv_bytes(spec, 32768) == 1952 * 2**20
    assert llamacpp_kv_bytes(spec, 32768, "q8_0", "q8_0") == round(1952 * 2**20 * 8.5 / 16)
    assert llamacpp_kv_bytes(spec, 32768, layers=30) < llamacpp_kv_bytes(spec, 32768)


def test_a_start_up_predicted_to_fail_says_so_above_its_command() -> None:
    """gpt-oss-120b on a DGX Spark under vLLM's defaults: the plan predicts vLLM's free-memory refusal at util 0.92
    (the host's share of the unified memory); the command had been printed as if it would start (an outside review,
    2026-12-05). Its own engine's tab now says so, in the engine's words; the other engines' commands do not."""
    spark = get_gpu("dgx-spark-gb10")
    request = PlanRequest(
        model=get_model("openai/gpt-oss-120b").spec,
        gpu=spark,
        gpu_memory_bytes=spark.memory_bytes_for(True, None),
        weights="mxfp4",
        context_tokens=32_768,
        max_model_len=32_768,
        overhead=registry.engine_profile("vllm"),
    )
    result = plan(request)
    commands = launch_commands(request, result)
    first, command = commands["vllm"].split("\n")
    assert first == (
        "# predicted not to start as planned: ValueError: Free memory on device (110.79/121.69 GiB) on startup is "
        "less than desired GPU memory utilization (0.92, 111.95 GiB). Decrease GPU memory utilization or reduce GPU "
        "memory used by other processes."
    )
    assert command.startswith("vllm serve openai/gpt-oss-120b") and "--gpu-memory-utilization 0.92" in command
    assert not any(c.startswith("# predicted") for name, c in commands.items() if name != "vllm")
    started = request.model_copy(update={"overhead": VllmProfile(gpu_memory_utilization=0.85)})
    assert not launch_commands(started, plan(started))["vllm"].startswith("#")

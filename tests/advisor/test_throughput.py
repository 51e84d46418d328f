"""The speed model's structure: what each engine's step reads and waits for (the fitted constants are checked
against public measurements in test_benchmarks.py)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor.engine_speed import FITTED, prefill_alone, step
from planner.advisor.hardware import link, memory_class
from planner.advisor.kernels import GEMM_EFFICIENCY
from planner.advisor.serving_cycle import serving
from planner.advisor.throughput import decode_load, experts_touched, prefill_load, setup_for, weight_bytes
from planner.core.params import parameter_breakdown

LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec
GPT_OSS = get_model("openai/gpt-oss-120b").spec
GEMMA_3 = get_model("google/gemma-3-27b-it").spec


def test_llamacpp_layer_split_gains_no_bandwidth() -> None:
    """llama.cpp's layer split runs the GPUs one after another: two RTX 3090s decode no faster than one would
    (the XiongjieDai scoreboard: 2 x 3090 16.6 tok/s, 4 x 3090 17.1 tok/s on 70B Q4_K_M)."""
    gpu = get_gpu("rtx-3090")
    load = decode_load(LLAMA_70B, "q4_k_m", "fp16", 1, 512)
    two = step(setup_for(gpu, "llamacpp", "16-bit", 2, "q4_k_m"), load)
    four = step(setup_for(gpu, "llamacpp", "16-bit", 4, "q4_k_m"), load)
    assert four.seconds >= two.seconds  # a hop per extra GPU, no bandwidth gained
    tensor = step(setup_for(gpu, "vllm", "16-bit", 2, "int4-awq"), decode_load(LLAMA_70B, "int4-awq", "fp8", 1, 512))
    assert tensor.memory_seconds < two.memory_seconds / 1.5  # tensor parallelism reads half a model per GPU


def test_moe_batch_reads_the_experts_it_touches() -> None:
    params = parameter_breakdown(GPT_OSS)
    share = params.experts_active / params.experts
    assert experts_touched(params, 1) == pytest.approx(share)
    assert experts_touched(params, 50) > 0.5  # at 50 users most experts are read, not the 5 B active
    one = decode_load(GPT_OSS, "mxfp4", "fp8", 1, 4_096)
    fifty = decode_load(GPT_OSS, "mxfp4", "fp8", 50, 4_096)
    assert fifty.weights_bytes(FITTED.moe_locality) > 5 * one.weights_bytes(FITTED.moe_locality)
    assert (
        fifty.weights_bytes(FITTED.moe_locality)
        <= weight_bytes(params, "mxfp4").dense + weight_bytes(params, "mxfp4").experts
    )


def test_tensor_parallel_over_pcie_costs_more_than_over_nvlink() -> None:
    load = decode_load(LLAMA_70B, "fp8", "fp8", 50, 32_768)
    pcie = step(setup_for(get_gpu("rtx-pro-6000-blackwell"), "vllm", "fp8", 4, "fp8"), load)
    nvlink = step(setup_for(get_gpu("h100-sxm-80gb"), "vllm", "fp8", 4, "fp8"), load)
    assert link(get_gpu("rtx-pro-6000-blackwell"), 4)[0] == "pcie" and link(get_gpu("h100-sxm-80gb"), 4)[0] == "nvlink"
    assert pcie.comm_seconds > 2 * nvlink.comm_seconds > 0
    assert link(get_gpu("rtx-3090"), 2)[0] == "nvlink" and link(get_gpu("rtx-3090"), 4)[0] == "pcie"  # a bridged pair


@pytest.mark.parametrize(
    ("gpu", "per_peer"), [("mi300x", 64e9), ("mi325x", 64e9), ("mi350x", 76.5e9), ("mi355x", 76.5e9)]
)
def test_infinity_fabric_gives_a_group_one_link_per_peer(gpu: str, per_peer: float) -> None:
    """An 8-GPU AMD Instinct platform links each GPU to each of its 7 peers by one Infinity Fabric link, no switch:
    a tensor-parallel group of n uses n - 1 of them (stas00/ml-engineering@744d01e18b79 network/README.md: "64GBps
    GPU-to-GPU (peer-to-peer), but 448GBps in total on a board of 8" for MI300X / MI325X, 76.5 and 535.5 for
    MI350X / MI355X; measured all-reduce busbw on MI300X 47.7 GB/s on 2 GPUs, 312.9 on 8). Before, every group
    took the whole board's 448 GB/s (MI300X), or PCIe's 64 where the catalog had no fabric figure."""
    device = get_gpu(gpu)
    assert link(device, 2) == ("nvlink", pytest.approx(per_peer))
    assert link(device, 4) == ("nvlink", pytest.approx(3 * per_peer))
    assert link(device, 8) == ("nvlink", pytest.approx(7 * per_peer))
    load = decode_load(LLAMA_70B, "fp8", "fp8", 50, 32_768)
    pair, board = (
        step(setup_for(device, "vllm", "fp8", 2, "fp8"), load),
        step(setup_for(device, "vllm", "fp8", 8, "fp8"), load),
    )
    assert pair.comm_seconds > board.comm_seconds


def test_kv_reads_grow_with_context_and_stop_at_a_window() -> None:
    short = decode_load(LLAMA_70B, "fp8", "fp8", 8, 4_096)
    long = decode_load(LLAMA_70B, "fp8", "fp8", 8, 32_768)
    assert long.kv_bytes == pytest.approx(8 * short.kv_bytes)
    windowed_short = decode_load(GEMMA_3, "bf16", "bf16", 8, 4_096)
    windowed_long = decode_load(GEMMA_3, "bf16", "bf16", 8, 32_768)
    assert windowed_long.kv_bytes < 5 * windowed_short.kv_bytes  # 52 of 62 layers stop at their 1,024 window


def test_a_step_waits_for_the_slower_of_memory_and_compute() -> None:
    gpu = get_gpu("h100-sxm-80gb")
    setup = setup_for(gpu, "vllm", "fp8", 1, "fp8")
    small = step(setup, decode_load(get_model("meta-llama/Llama-3.1-8B").spec, "fp8", "fp8", 1, 1_024))
    large = step(setup, decode_load(get_model("meta-llama/Llama-3.1-8B").spec, "fp8", "fp8", 1_024, 128))
    assert small.bound == "memory" and large.bound == "compute"
    assert small.seconds >= small.memory_seconds and large.seconds >= (large.compute_seconds or 0)


def test_unknown_compute_is_never_free() -> None:
    gpu = get_gpu("l40s")
    blank = gpu.model_copy(update={"compute": gpu.compute.model_copy(update={"fp8": "unknown"})})
    result = step(setup_for(blank, "vllm", "fp8", 1, "fp8"), decode_load(LLAMA_70B, "fp8", "fp8", 4, 1_024))
    assert result.bound == "unknown" and result.compute_seconds is None
    assert prefill_alone(setup_for(blank, "vllm", "fp8", 1, "fp8"), prefill_load(LLAMA_70B, "fp8", 1_000)) is None


def test_serving_counts_the_prompts_of_a_full_batch() -> None:
    setup = setup_for(get_gpu("h100-sxm-80gb"), "trtllm", "fp8", 2, "fp8")
    decode = decode_load(LLAMA_70B, "fp8", "fp8", 50, 5_250)
    without = serving(setup, decode, None, 500)
    with_prompts = serving(setup, decode, prefill_load(LLAMA_70B, "fp8", 5_000), 500)
    assert with_prompts.per_user_tokens_per_s < without.per_user_tokens_per_s
    assert with_prompts.total_tokens_per_s == pytest.approx(50 * with_prompts.per_user_tokens_per_s)


def test_pipeline_stages_pay_a_bubble() -> None:
    gpu = get_gpu("rtx-pro-6000-blackwell")
    load = decode_load(LLAMA_70B, "nvfp4", "fp8", 64, 1_500)
    tensor = setup_for(gpu, "trtllm", "fp4", 8, "nvfp4")
    pipeline = tensor._replace(split="pipeline")
    no_comm = step(tensor, load)
    assert step(pipeline, load).seconds > no_comm.seconds - no_comm.comm_seconds


def test_memory_classes() -> None:
    assert memory_class(get_gpu("h100-sxm-80gb")) == "hbm" and memory_class(get_gpu("rtx-4090")) == "gddr"
    assert memory_class(get_gpu("apple-m4-max")) == "apple" and memory_class(get_gpu("dgx-spark-gb10")) == "lpddr"


def test_tensor_parallel_reduces_once_per_row_parallel_block() -> None:
    """Two all-reduces per transformer layer (attention's o_proj, the MLP's down projection); a Nemotron-H block
    holds a Mamba mixer, an attention or a MoE and reduces once (vLLM nemotron_h.py): Nemotron-3 Nano's 52 blocks
    reduce 52 times a step, Llama-3.1-70B's 80 layers 160 times, and two B200s spend half the time on them."""
    nano = get_model("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").spec
    assert decode_load(nano, "fp8", "fp8", 1, 1_000).allreduces == 52
    assert decode_load(LLAMA_70B, "fp8", "fp8", 1, 1_000).allreduces == 160
    setup = setup_for(get_gpu("b200-sxm"), "vllm", "fp8", 2, "fp8")
    load = decode_load(nano, "fp8", "fp8", 1, 1_000)
    one = FITTED.ar_nvlink_s + load.allreduce_bytes * 2 * (2 - 1) / 2 / setup.link[1]  # ring: 2(G-1)/G
    assert step(setup, load).comm_seconds == pytest.approx(52 * one)


def test_llamacpp_expert_matmuls_run_at_a_share_of_their_backends_quantized_rate() -> None:
    """A MoE prompt under llama.cpp: the routed experts' FLOPs at the fitted share of the backend's quantized
    rate (Vulkan on AMD, CUDA on NVIDIA; on CUDA the attention at the flash-attention kernel's share); a dense
    model's prompt is unchanged, and the other engines are not affected."""
    from planner.advisor.engine_speed import compute_seconds, mfu, moe_matmul_share
    from planner.advisor.kernels import LLAMACPP_FLASH_ATTENTION_SHARE

    prompt = prefill_load(GPT_OSS, "mxfp4", 512)
    assert prompt.expert_flops == 2 * parameter_breakdown(GPT_OSS).experts_active * 512
    strix, spark = get_gpu("amd-ryzen-ai-max-plus-395"), get_gpu("dgx-spark-gb10")
    assert moe_matmul_share(setup_for(strix, "llamacpp", "16-bit", 1, "mxfp4")) == FITTED.ll_moe_mfu
    assert mfu(setup_for(strix, "llamacpp", "16-bit", 1, "mxfp4")) == FITTED.ll_mfu_quant_vulkan
    assert mfu(setup_for(spark, "llamacpp", "16-bit", 1, "mxfp4")) == FITTED.ll_mfu_quant
    setup = setup_for(spark, "llamacpp", "16-bit", 1, "mxfp4")
    rate = 213e12 * FITTED.ll_mfu_quant  # MXFP4 GGUF: llama.cpp's quantized kernels; DGX Spark's 16-bit peak
    dense = prompt.flops - prompt.expert_flops - prompt.attention_flops  # attention: the flash-attention kernel's
    attention = prompt.attention_flops / (213e12 * LLAMACPP_FLASH_ATTENTION_SHARE)
    expected = (dense + prompt.expert_flops / FITTED.ll_moe_mfu) / rate + attention
    assert compute_seconds(setup, prompt) == pytest.approx(expected)
    vllm = setup_for(spark, "vllm", "16-bit", 1, "mxfp4")
    assert compute_seconds(vllm, prompt) == pytest.approx(prompt.flops / (213e12 * GEMM_EFFICIENCY["16-bit"]))


def test_fp16_accumulation_doubles_only_where_the_catalog_says_fp32_accumulation_is_halved() -> None:
    """llama.cpp's cuBLAS matmuls accumulate in FP16 (CUBLAS_COMPUTE_16F); GeForce parts and the L40 run that at
    twice their FP32-accumulate rate, the figure the catalog's ``fp16`` gives (what serving engines use). Read from
    each entry's sourced ``fp16_accumulate``, not its name: the L40 (181 / 362 dense) is no GeForce."""
    from planner.advisor.hardware import fp16_accumulate_factor

    expected = {"rtx-3090": 142 / 71, "rtx-4090": 2.0, "rtx-5090": 2.0, "l40": 2.0}
    for gpu_id, factor in expected.items():
        assert fp16_accumulate_factor(get_gpu(gpu_id)) == pytest.approx(factor, rel=0.01), gpu_id
    for gpu_id in ("l40s", "rtx-6000-ada", "h100-pcie-80gb", "a100-pcie-80gb", "rtx-pro-6000-blackwell"):
        assert fp16_accumulate_factor(get_gpu(gpu_id)) == 1.0, gpu_id


def test_a_paged_prompt_reads_its_weights_once_per_chunk_of_the_engines_default() -> None:
    """vLLM prefills 2,048 prompt tokens a step on an A100 (``max_num_batched_tokens`` for ``vllm serve``, vllm
    0.11.0 engine/arg_utils.py:1601-1624) and 8,192 on an H100; SGLang 8,192 on both (``chunked_prefill_size``,
    sglang 0.5.3 server_args.py) and 2,048 on an RTX 4090. A 3,996-token Qwen3-14B BF16 prompt under vLLM on an
    A100 80GB then reads its 29.5 GB of weights 3,996 / 2,048 times, not 3,996 / 8,192: 24.5 ms more of the GPU
    (a weight read there is 16.7 ms at the fitted HBM share), 538.4 ms in all where SGLang's 8,192 gives 513.9 ms
    (21.8, 14.9, 534.9 and 513.1 ms at the HBM share of 0.92 before the refit of 2026-12-07, now 0.82)."""
    from planner.advisor.engine_speed import prefill_in_serving
    from planner.advisor.throughput import prefill_chunk_tokens

    a100, h100, rtx = get_gpu("a100-sxm-80gb"), get_gpu("h100-sxm-80gb"), get_gpu("rtx-4090")
    engines = ("vllm", "sglang", "trtllm", "llamacpp")
    assert [prefill_chunk_tokens(a100, e, 1) for e in engines] == [2048, 8192, None, None]
    assert [prefill_chunk_tokens(h100, e, 1) for e in ("vllm", "sglang")] == [8192, 8192]
    assert [prefill_chunk_tokens(rtx, e, 1) for e in ("vllm", "sglang")] == [2048, 2048]
    prompt = prefill_load(get_model("Qwen/Qwen3-14B").spec, "bf16", 3996)
    vllm = prefill_in_serving(setup_for(a100, "vllm", "16-bit", 1, "bf16"), prompt)
    sglang = prefill_in_serving(setup_for(a100, "sglang", "16-bit", 1, "bf16"), prompt)
    assert vllm == pytest.approx(0.5384, abs=2e-4) and sglang == pytest.approx(0.5139, abs=2e-4)
    assert vllm - sglang == pytest.approx(0.0245, abs=2e-4)

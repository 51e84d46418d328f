"""Seconds per step, per engine: the speed model the advisor ranks with and :mod:`planner.advisor.validation`
checks against published measurements.

A decode step of a replica (the loads of :mod:`planner.advisor.throughput`, ``G`` GPUs):

- **memory** ``= (weights + KV) / G / (bandwidth x efficiency)``, the efficiency per engine family and memory
  class (HBM, GDDR, unified);
- **compute** ``= FLOPs / G / (TFLOPS x MFU)``, the dense TFLOPS of the arithmetic the engine runs, the MFU per
  arithmetic measured for vLLM, SGLang and TensorRT-LLM (:data:`planner.advisor.kernels.GEMM_EFFICIENCY`:
  16-bit; 8- and 4-bit tensor cores), fitted for llama.cpp (its own kernels for GGUF quants); a GPU without the
  figure has an unknown compute time, never a free one;
- **vLLM, SGLang, TensorRT-LLM** (continuous batching, tensor parallel): ``max(memory, compute)`` + a fixed time
  per step (and per sequence; per MoE layer where the engine's expert kernels cost one, vLLM's Triton MXFP4 MoE on
  Hopper: :mod:`planner.advisor.kernels`) + two all-reduces per layer (one per Nemotron-H block): over NVLink a
  fitted latency and ``bytes x 2(G-1)/G / link``, over PCIe NCCL's measured time at the message's size
  (:mod:`planner.advisor.allreduce`); a TensorRT-LLM decode step on a GPU and arithmetic NVIDIA's aiconfigurator
  measured (NVFP4 on B200, GB200, RTX PRO 6000; 16-bit on A100 SXM, H100 SXM, H200, L40S) takes as compute its
  GEMMs' and fused MoE's measured times by shape, then attention (the KV read or its FLOPs), and a prompt's routed
  experts the time they add to that step's fused MoE: :mod:`planner.advisor.gemm_tables`;
- **llama.cpp** (layer split: the GPUs run one after another, each over its own layers): ``G x max(memory,
  compute)`` of one GPU's share, i.e. the time of the whole model on one GPU, + a fixed time per step and per layer
  (kernel launches) + a measured hop per extra GPU (:data:`LLAMACPP_HOP_S`). Bandwidth is not multiplied by
  ``G``; slots decoding together share one pass over the weights; the routed experts' matmuls run at a share of the
  backend's quantized rate (:func:`moe_matmul_share`); a CUDA build before PR 8075 dequantizes a quant's prompt for
  cuBLAS (:func:`dequant_seconds`); on Metal without flash attention the KV cache is read per query head; on CUDA
  with flash attention the attention matmuls run at that kernel's measured share of the 16-bit peak
  (:data:`planner.advisor.kernels.LLAMACPP_FLASH_ATTENTION_SHARE`); its 16-bit matmuls on Hopper reach 2/3 of the
  peak, its quantized ones (MMQ) an SM's consumer-line rate (:mod:`planner.advisor.kernels`: A100 1/2, Hopper 1/4);
- **pipeline stages** (an ideal pipeline, enough micro-batches in flight): as tensor parallel without all-reduces.

A prompt (prefill) is compute-bound with every weight read once; in a serving run its weights are read once per
chunk, the tokens the engine prefills per step (``Setup.prefill_chunk``: vLLM's ``max_num_batched_tokens`` default,
2,048 on an A100 and on GPUs under 70 GiB; SGLang's ``chunked_prefill_size`` by memory; else
:data:`PREFILL_CHUNK_TOKENS`). :func:`planner.advisor.serving_cycle.serving` puts them together for ``B`` users in
flight, each reading a prompt and writing a reply: a cycle of ``output`` decode steps at batch ``B`` plus ``B``
prefills, ``B x output`` tokens per cycle (what continuous batching sustains once the batch is full).

The constants (:data:`FITTED`) are fitted by :func:`planner.advisor.fit.fit_roofline` to the ``fit`` rows of
``planner/advisor/benchmarks/*.toml``; the ``held-out`` rows measure the error (README, "Speed").
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from planner.advisor.allreduce import pcie_allreduce_seconds
from planner.advisor.collectives import attention_dp_seconds, measured_collective_seconds
from planner.advisor.gemm_tables import decode_gemm_seconds
from planner.advisor.hardware import compute_tflops, fp16_accumulate_factor, memory_class, pcie_generation
from planner.advisor.host_cpu import host_time_factor
from planner.advisor.kernels import (
    LLAMACPP_FLASH_ATTENTION_SHARE,
    LLAMACPP_MMQ_MAX_BATCH,
    gemm_efficiency,
    llamacpp_mmq_share,
    llamacpp_tensor_share,
)
from planner.advisor.moe_transfer import Transfer, transferred_moe
from planner.advisor.paged_moe import paged_moe_seconds
from planner.advisor.prompt_moe import alone_moe_seconds, serving_moe_seconds
from planner.advisor.rank_balance import rank_wait_seconds, ranks_wait, replicated_dense_seconds
from planner.advisor.replica_kv import kv_copies
from planner.advisor.throughput import Load, Setup
from planner.advisor.triton_attention import triton_prompt_seconds
from planner.engines.llamacpp.backend import llamacpp_backend

Bound = Literal["memory", "compute", "unknown"]
# Tokens of prompt a serving engine prefills per step where the set-up states none (Setup.prefill_chunk: vLLM's and
# SGLang's defaults by GPU, planner.advisor.throughput.prefill_chunk_tokens): TensorRT-LLM's max_num_tokens default
# (planner.engines.trtllm), vLLM's max_num_batched_tokens on GPUs of 70 GiB and more (not an A100).
PREFILL_CHUNK_TOKENS = 8192


class Roofline(NamedTuple):
    """The fitted constants of the speed model (see the module docstring). ``cb_``: the continuous-batching
    engines (vLLM, SGLang, TensorRT-LLM); ``ll_``: llama.cpp."""

    cb_bw_hbm: float  # share of the datasheet bandwidth a decode step reaches (vLLM, SGLang)
    trt_bw_hbm: float  # TensorRT-LLM's share on HBM (its own kernels: fitted on its rows alone)
    cb_bw_gddr: float
    cb_bw_lpddr: float
    ll_bw_hbm: float
    ll_bw_gddr: float
    ll_bw_apple: float
    ll_bw_lpddr: float
    trt_step_s: float  # fixed time per step (scheduling, sampling, launches)
    vllm_step_s: float
    ll_step_s: float
    ll_layer_s: float  # llama.cpp: per layer per step (kernel launches)
    ll_moe_layer_s: float  # llama.cpp: per MoE layer per step (routing, expert selection, mul_mat_id launches)
    ll_mfu_16: float  # llama.cpp's 16-bit GEMMs (cuBLAS on CUDA): F16 files, and GGUF quants before PR 8075 (kernels)
    ll_mfu_quant: float  # llama.cpp's own quantized matmuls (MMQ on CUDA, Metal's), of the 16-bit rate
    ll_mfu_alu: float  # llama.cpp on a GPU without matrix units (Apple): its matmuls on the FP32 ALUs
    ar_nvlink_s: float  # latency of one all-reduce over NVLink / Infinity Fabric (PCIe: measured, not fitted)
    trt_seq_s: float  # per sequence per step (scheduling, sampling, attention launches)
    vllm_seq_s: float
    moe_locality: float  # a batch of B tokens touches experts as B ** locality independent tokens would
    ll_moe_mfu: float  # llama.cpp's expert matmuls (mul_mat_id) as a share of its dense matmuls' rate
    ll_mfu_quant_vulkan: float  # llama.cpp's quantized matmuls through its Vulkan backend (AMD, Intel GPUs)


# Reproduced by planner.advisor.fit.fit_roofline() from the "fit" rows (tests/advisor/test_benchmarks.py checks it).
FITTED = Roofline(
    cb_bw_hbm=0.82,
    trt_bw_hbm=0.98,
    cb_bw_gddr=0.69,
    cb_bw_lpddr=0.7,
    ll_bw_hbm=0.49,
    ll_bw_gddr=0.9,
    ll_bw_apple=0.71,
    ll_bw_lpddr=0.77,
    trt_step_s=0.0024,
    vllm_step_s=0.0009,
    ll_step_s=0.0006,
    ll_layer_s=5e-05,
    ll_moe_layer_s=5.6e-05,
    ll_mfu_16=0.46,
    ll_mfu_quant=0.56,
    ll_mfu_alu=0.76,
    ar_nvlink_s=3.3e-05,
    trt_seq_s=1.2e-05,
    vllm_seq_s=3.85e-05,
    moe_locality=0.76,
    ll_moe_mfu=0.17,
    ll_mfu_quant_vulkan=0.33,
)


# llama.cpp's layer split: the time each extra GPU adds to a decode step (the activations handed on, a sync), measured
# rather than fitted (no fit row pins it: the multi-GPU rows are 70B models whose 50-200 ms steps hide it). In
# XiongjieDai/GPU-Benchmarks-on-LLM-Inference@aa72e0ec86c3 (README, May 2024) Llama-3-8B Q4_K_M tg512 runs at
# 124.65 / 120.32 / 118.09 t/s on 2 / 4 / 8 RTX 4090s and 111.67 / 108.66 / 104.17 on 2 / 4 / 6 RTX 3090s: the
# least-squares slope of the step time over the hops is 0.069 ms (4090s) and 0.161 ms (3090s); their mean. The
# 70B multi-GPU rows (fit and held out) check it; these six figures are not rows.
LLAMACPP_HOP_S = (0.069e-3 + 0.161e-3) / 2


def bandwidth_efficiency(setup: Setup, r: Roofline = FITTED) -> float:
    cls = memory_class(setup.gpu)
    if setup.family == "layer-split":
        return float(getattr(r, f"ll_bw_{cls}"))
    if setup.family == "fused" and cls == "hbm":
        return r.trt_bw_hbm
    return float(getattr(r, f"cb_bw_{'lpddr' if cls == 'apple' else cls}"))


def mfu(setup: Setup, r: Roofline = FITTED) -> float:
    if setup.family == "layer-split":
        if setup.gpu.vendor == "Apple":  # Apple GPUs' catalog rate is their FP32 ALUs' (no tensor cores)
            return r.ll_mfu_alu
        if not setup.quantized_gguf or setup.dequant_gemm:  # dequantized: the F16 files' cuBLAS GEMM
            return r.ll_mfu_16
        return r.ll_mfu_quant_vulkan if llamacpp_backend(setup.gpu) == "vulkan" else r.ll_mfu_quant
    return gemm_efficiency(setup.path, setup.gpu, setup.engine, setup.release)  # measured (kernels), not fitted


def step_overhead(setup: Setup, load: Load, r: Roofline = FITTED) -> float:
    """The fixed time of one step: per step, and for llama.cpp per layer and per extra GPU of its split; for the
    continuous-batching engines per sequence of a decode batch and per MoE layer where the engine's expert kernels
    add a time of their own (:attr:`Setup.moe_layer_s`)."""
    if setup.family == "layer-split":
        hops = (setup.gpus - 1) * LLAMACPP_HOP_S
        return r.ll_step_s + load.layers * r.ll_layer_s + hops + load.moe_layers * r.ll_moe_layer_s
    trt = setup.family == "fused"
    fixed = r.trt_step_s if trt else r.vllm_step_s
    per_sequence = r.trt_seq_s if trt else r.vllm_seq_s
    kernels = load.moe_layers * setup.moe_layer_s  # vLLM's Triton MXFP4 MoE on Hopper (planner.advisor.kernels)
    return fixed + (per_sequence * load.tokens if load.kv_bytes else 0.0) + kernels


def allreduce_seconds(setup: Setup, load: Load, r: Roofline = FITTED) -> float:
    """The step's all-reduces under tensor parallelism (two per layer, :func:`allreduces_per_step`; none for one
    GPU, a layer split or a pipeline): over NVLink a fitted latency and the fabric's bandwidth, over PCIe NCCL's
    measured time at the message's size (:func:`planner.advisor.allreduce.pcie_allreduce_seconds`; TensorRT-LLM's on
    a server aiconfigurator measured, and its attention-DP gather and scatter: :mod:`planner.advisor.collectives`)."""
    g = setup.gpus
    if setup.split != "tensor" or g < 2:
        return 0.0
    if setup.attention_dp and setup.family == "fused":  # TensorRT-LLM: a gather and a scatter per MoE layer
        return attention_dp_seconds(setup, load, r.ar_nvlink_s)  # (planner.advisor.collectives)
    kind, bytes_per_s = setup.link
    measured = measured_collective_seconds(setup, "all_reduce", load.allreduce_bytes)
    if measured is not None:  # TensorRT-LLM's NCCL as measured on the server (planner.advisor.collectives)
        one = measured
    elif kind == "nvlink":
        one = r.ar_nvlink_s + load.allreduce_bytes * 2 * (g - 1) / g / bytes_per_s
    else:
        one = pcie_allreduce_seconds(load.allreduce_bytes, g, pcie_generation(setup.gpu))
    return load.allreduces * one


class Step(NamedTuple):
    """One step of a replica: its time, the memory and compute parts, which bounds it, what it assumes."""

    seconds: float
    memory_seconds: float
    compute_seconds: float | None
    comm_seconds: float
    bound: Bound
    transfer: Transfer | None = None  # the measured kernel's efficiency that priced its experts (moe_transfer)


def compute_seconds(setup: Setup, load: Load, r: Roofline = FITTED) -> float | None:
    """The matmul time of ``load`` on one GPU holding the whole model (``None``: no TFLOPS figure)."""
    tflops, _ = compute_tflops(setup.gpu, setup.path)
    if not tflops:
        return None
    if setup.family != "layer-split":
        return load.flops / (tflops * 1e12 * mfu(setup, r))
    mmq = setup.quantized_gguf and not setup.dequant_gemm  # MMQ: an SM's consumer-line int8 rate (kernels)
    rate = tflops * (llamacpp_mmq_share(setup.gpu) if mmq else llamacpp_tensor_share(setup.gpu)) * 1e12 * mfu(setup, r)
    tflops *= llamacpp_tensor_share(setup.gpu)  # mma.sync on Hopper (planner.advisor.kernels)
    attention = 0.0
    if setup.flash_attention:  # its own rate, of the catalog's 16-bit figure (planner.advisor.kernels)
        attention = load.attention_flops / (tflops * 1e12 * LLAMACPP_FLASH_ATTENTION_SHARE)
    if setup.path == "16-bit":
        rate *= fp16_accumulate_factor(setup.gpu)
    experts = load.expert_flops / moe_matmul_share(setup, r)
    others = load.flops - load.expert_flops - (load.attention_flops if setup.flash_attention else 0.0)
    return (others + experts) / rate + attention


def moe_matmul_share(setup: Setup, r: Roofline = FITTED) -> float:
    """The rate llama.cpp's routed-expert matmuls reach as a share of its dense ones. ``mul_mat_id`` runs each
    expert's matmul over the rows routed to it, ``tokens x k / E`` of them (gpt-oss-120b: 4 of 128 experts, 16
    rows per expert for a 512-token micro-batch): many small matmuls, each with few rows to spend its tile of
    weights on, instead of one of 512 rows (ggml/src/ggml-cuda/ggml-cuda.cu ``ggml_cuda_mul_mat_id``,
    ggml-vulkan.cpp ``ggml_vk_mul_mat_id``). One share for every backend, of that backend's own quantized rate
    (``ll_mfu_quant``, ``ll_mfu_quant_vulkan``): the fit rows' MoE prompts (gpt-oss-20b on DGX Spark over CUDA,
    gpt-oss-120b on Strix Halo over Vulkan) pin the products, the dense quantized prompts (RTX 5090 over CUDA) the
    rates; held out: gpt-oss-120b on DGX Spark, Qwen3-30B-A3B and Llama-2-7B Q4_0 on Strix Halo. Metal has no MoE
    prompt row."""
    return r.ll_moe_mfu


def step(setup: Setup, load: Load, r: Roofline = FITTED, with_kv: bool = True) -> Step:
    """The time of ``load`` on ``setup`` (see the module docstring); ``None`` compute when TFLOPS are unknown.
    A vLLM or SGLang decode step whose routed experts aiconfigurator measured takes their measured time instead of
    their bytes and FLOPs (:func:`planner.advisor.paged_moe.paged_moe_seconds`)."""
    gpu = setup.gpu
    experts = paged_moe_seconds(setup, load) if with_kv else None
    moved = None
    if with_kv and experts is None:  # elsewhere the measured kernel's efficiency (planner.advisor.moe_transfer)
        moved = transferred_moe(setup, load, lambda s: experts_roofline_seconds(s, load, r))
        experts = None if moved is None else moved.seconds
    if experts is not None:
        load = load._replace(experts_bytes=0.0, flops=load.flops - load.expert_flops, expert_flops=0.0)
    bandwidth = (gpu.bandwidth_bytes_per_s or 0) * bandwidth_efficiency(setup, r)
    kv = load.kv_bytes * (load.query_groups if setup.kv_per_query_head else 1.0)  # Metal without flash attention
    kv *= kv_copies(setup, load)  # each GPU reads the cache it holds
    read = load.weights_bytes(r.moe_locality) + (kv if with_kv else 0.0)
    memory = read / bandwidth if bandwidth else 0.0
    compute = compute_seconds(setup, load, r)
    if setup.split != "layer":  # tensor or pipeline: each GPU holds 1/G (attention DP: its own layers whole)
        memory = memory / setup.gpus + replicated_dense_seconds(setup, load, bandwidth)
        compute = None if compute is None else compute / setup.gpus
    gemm = decode_gemm_seconds(setup, load) if with_kv and bandwidth else None
    if gemm is not None and compute is not None:  # measured GEMM times, then attention (planner.advisor.gemm_tables)
        attention = max(kv / bandwidth / setup.gpus, load.attention_flops / (load.flops or 1.0) * compute)
        compute = gemm + attention
    comm = allreduce_seconds(setup, load, r)
    bound: Bound = "unknown" if compute is None else ("compute" if compute > memory else "memory")
    seconds = max(memory, compute or 0.0) + step_overhead(setup, load, r) + comm + dequant_seconds(setup, load, r)
    seconds += experts or 0.0
    seconds = max(seconds, host_time_factor(setup) * step_overhead(setup, load, r))  # a Grace host (host_cpu)
    if setup.split == "pipeline":  # G micro-batches through G stages: (2G - 1) / G stage times (GPipe's bubble)
        seconds *= (2 * setup.gpus - 1) / setup.gpus
    return Step(seconds, memory, compute, comm, bound, moved)


def experts_roofline_seconds(setup: Setup, load: Load, r: Roofline = FITTED) -> float:
    """One GPU's routed-expert time of ``load`` at the roofline, as :func:`step` prices them where nothing is
    measured: the experts' touched bytes at the bandwidth's share (:func:`bandwidth_efficiency`) or their FLOPs at
    the compute rate (:func:`compute_seconds`), the longer, divided over the set-up's GPUs."""
    bandwidth = (setup.gpu.bandwidth_bytes_per_s or 0) * bandwidth_efficiency(setup, r)
    experts = load._replace(dense_bytes=0.0, flops=load.expert_flops, attention_flops=0.0)
    memory = experts.weights_bytes(r.moe_locality) / bandwidth if bandwidth else 0.0
    return max(memory, compute_seconds(setup, experts, r) or 0.0) / setup.gpus


def dequant_seconds(setup: Setup, load: Load, r: Roofline = FITTED) -> float:
    """The pass an old llama.cpp CUDA build runs before its cuBLAS GEMM when more than 32 tokens multiply a
    quantized GGUF (:func:`planner.advisor.kernels.llamacpp_dequant_gemm`): every matrix read at its quantized
    bytes and written at 2 bytes a weight, at llama.cpp's share of the bandwidth; 0 on every other path."""
    if not setup.dequant_gemm or load.tokens <= LLAMACPP_MMQ_MAX_BATCH:
        return 0.0
    bandwidth = (setup.gpu.bandwidth_bytes_per_s or 0) * bandwidth_efficiency(setup, r)
    moved = load.dense_bytes + load.experts_bytes + 2 * load.matrix_weights
    return moved / bandwidth if bandwidth else 0.0


def prefill_alone(setup: Setup, load: Load, r: Roofline = FITTED, chunk: int | None = None) -> float | None:
    """Seconds to prefill one prompt alone (time to first token, no queue); ``None`` without a compute figure.
    The weights are read once per ``chunk`` tokens: by default the engine's (:func:`serving_chunk`), llama.cpp's
    512-token micro-batch (its ``-ub`` default, common/common.h ``n_ubatch = 512``)."""
    if chunk is None:
        chunk = 512 if setup.family == "layer-split" else serving_chunk(setup)
    passes = -(-load.tokens // chunk)
    experts = alone_moe_seconds(setup, load, chunk, lambda s, at: experts_roofline_seconds(s, at, r))
    own = load if experts is None else _without_experts(load)  # measured passes (planner.advisor.prompt_moe)
    scaled = own._replace(
        dense_bytes=own.dense_bytes * passes,
        experts_bytes=own.experts_bytes * passes,
        matrix_weights=own.matrix_weights * passes,
    )
    result = step(setup, scaled, r, with_kv=False)
    if result.compute_seconds is None:
        return None
    extra = (passes - 1) * step_overhead(setup, load, r) + rank_prefill_seconds(setup, load, r)
    return result.seconds + extra + (experts or 0.0) + triton_prompt_seconds(setup, load.attention_flops)


def _without_experts(load: Load) -> Load:
    """``load`` without its routed experts' bytes and FLOPs (priced apart, at their measured kernel time)."""
    return load._replace(experts_bytes=0.0, flops=load.flops - load.expert_flops, expert_flops=0.0)


def rank_prefill_seconds(setup: Setup, load: Load, r: Roofline = FITTED) -> float:
    """With attention data parallelism a prompt runs on one rank: its layers but the routed experts are computed by
    that rank's GPUs (:attr:`Setup.attention_tp`) alone, not by every GPU the step divides them over; the time that
    adds to a prompt alone (0 without attention data parallelism, or a compute figure)."""
    if not setup.attention_dp or setup.gpus <= setup.attention_tp:
        return 0.0
    own = compute_seconds(setup, _without_experts(load), r)  # what the rank computes by itself
    return 0.0 if own is None else own / setup.attention_tp - own / setup.gpus


def prompt_rank_wait_seconds(setup: Setup, prompt: Load, prompts_per_step: float, r: Roofline = FITTED) -> float:
    """What ``prompt`` holds a TensorRT-LLM attention-DP step on its busiest rank
    (:func:`planner.advisor.rank_balance.rank_wait_seconds` of its layers but the routed experts on one GPU holding
    the whole model), computed only where a rank waits (:func:`planner.advisor.rank_balance.ranks_wait`)."""
    own = compute_seconds(setup, _without_experts(prompt), r) if ranks_wait(setup) else None
    return 0.0 if own is None else rank_wait_seconds(setup, own, prompts_per_step)


def serving_chunk(setup: Setup) -> int:
    """Prompt tokens one serving step prefills: the engine's default on the GPU (``Setup.prefill_chunk``), else
    :data:`PREFILL_CHUNK_TOKENS`."""
    return setup.prefill_chunk or PREFILL_CHUNK_TOKENS


def prefill_in_serving(setup: Setup, load: Load, r: Roofline = FITTED, batch: int = 0) -> float | None:
    """GPU seconds one prompt costs inside a serving run: its compute, its share of a chunk's weight read (one
    read per :func:`serving_chunk` tokens) and its all-reduces (chunked prefill rides along the decode steps); the
    routed experts at their measured time, beside ``batch`` decoding sequences for TensorRT-LLM
    (:func:`planner.advisor.prompt_moe.serving_moe_seconds`), not their FLOPs at the dense GEMMs' share."""
    roofline = lambda s, at: experts_roofline_seconds(s, at, r)  # noqa: E731
    experts = serving_moe_seconds(setup, load, serving_chunk(setup), roofline, batch)
    load = load if experts is None else _without_experts(load)
    result = step(setup, load._replace(dense_bytes=0.0, experts_bytes=0.0), r, with_kv=False)
    if result.compute_seconds is None:
        return None
    share = load.tokens / serving_chunk(setup)
    weights = step(setup, load._replace(flops=0.0, allreduce_bytes=0.0), r, with_kv=False).memory_seconds
    comm = prompt_allreduce_seconds(setup, load, r) if setup.family == "fused" else result.comm_seconds
    attention = triton_prompt_seconds(setup, load.attention_flops)  # vLLM's Triton backend (triton_attention)
    return result.compute_seconds + comm + share * weights + (experts or 0.0) + attention


def prompt_allreduce_seconds(setup: Setup, load: Load, r: Roofline = FITTED) -> float:
    """A TensorRT-LLM prompt's all-reduces inside a serving run: its share (tokens / chunk) of one chunk's, less
    their latency. TensorRT-LLM runs a step's context chunks and generation tokens in one forward (each context
    request's chunk, then each generation request's token, in one ``input_ids``: ``PyTorchModelEngine.
    _prepare_tp_inputs``, ``tensorrt_llm/_torch/pyexecutor/model_engine.py`` at NVIDIA/TensorRT-LLM@001e67005b4f; the
    0.x TensorRT engines' in-flight batching packs context then generation tokens in one input tensor:
    ``docs/source/advanced/gpt-attention.md``, "In-flight Batching", search-index file id 49065559), so a step's
    all-reduces carry both and their latency is the decode step's (:func:`allreduce_seconds`); the prompt adds its
    bytes."""
    if setup.split != "tensor" or setup.gpus < 2 or not load.tokens:
        return 0.0
    share = load.tokens / serving_chunk(setup)
    chunk = allreduce_seconds(setup, load._replace(allreduce_bytes=load.allreduce_bytes / share), r)
    return share * (chunk - allreduce_seconds(setup, load._replace(allreduce_bytes=0.0), r))

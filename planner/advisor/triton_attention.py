"""vLLM's Triton attention backend, where the release picks it: a prompt's attention at the kernel's own rate.

vLLM 0.10.2 and 0.11.0 choose the attention backend by the GPU: on compute capability 8.0 and up FlashAttention,
except that a model with attention sinks (gpt-oss), and from 0.11.0 an FP8 KV cache too, runs the Triton backend on
every such GPU but SM 9.0 (vllm 0.10.2 ``vllm/platforms/cuda.py:355-358``: ``if has_sink and not
cls.is_device_capability(90): ... return TRITON_ATTN_VLLM_V1``; vllm 0.11.0 ``vllm/platforms/cuda.py:358-361``:
``if (has_sink or use_fp8_kv_cache) and not cls.is_device_capability(90)``); SM 10.0 takes FlashInfer before
that test (0.11.0 ``cuda.py:338-349``). That backend's kernel (``vllm/attention/ops/triton_unified_attention.py``,
0.11.0 lines 728-747) packs ``BLOCK_M = 16`` query rows (two tokens of gpt-oss's eight query heads per KV head)
against 32-token KV tiles in a prompt (``TILE_SIZE_PREFILL = 32``): matmuls of 16 x 32 x 64 that keep the tensor
cores far below the rate of the weight GEMMs, which the speed model otherwise gives attention too.

Its rate, :data:`VLLM_TRITON_PREFILL_ATTENTION_SHARE` of the GPU's 16-bit peak, is fitted (no public kernel
benchmark of this release on an NVIDIA GPU was found): on one row, GPUStack's gpt-oss-20b on one A100 at 32,000
prompt tokens (vLLM 0.11.0, 100 requests, 21.62 output tokens/s; tests/advisor/benchmarks/unseen-2026-12b.toml), a
bisection of the share until the row's drained prediction meets it (0.1028; 0.1024 before a prompt's sliding
layers scored each token's whole window, :mod:`planner.advisor.attended`). Held out: the same page set's
gpt-oss-120b at 32,000 tokens (+132.5 -> +0.2 %), both models at 4,000 (+49.0 / +38.0 -> +18.2 / +17.4 %) and 2,000
tokens (+32.9 / +25.9 -> +16.8 / +15.0 %) and every other row (unchanged: none states a release in the range on such
a GPU).
Only the releases read take it (``EngineSupport.triton_attention_releases``); later ones choose by a priority list
not traced here, and a set-up without a stated release (the advisor's) keeps the GEMM rate.
"""

from __future__ import annotations

from planner.advisor.hardware import compute_tflops
from planner.advisor.kernels import ComputePath, gemm_efficiency
from planner.advisor.throughput import Setup
from planner.core.gpu import GpuSpec
from planner.core.releases import parse_version
from planner.engines.registry import get_engine

# The Triton prefill attention kernel's share of the 16-bit dense peak: fitted on one row (the module docstring).
VLLM_TRITON_PREFILL_ATTENTION_SHARE = 0.103


def vllm_triton_attention(gpu: GpuSpec, engine: str, release: str | None, sinks: bool, kv_dtype: str) -> bool:
    """Whether ``engine`` at ``release`` runs ``gpu``'s attention through its Triton backend (the module docstring):
    an NVIDIA GPU of compute capability 8.0 or more but 9.0 and 10.0, a model with attention sinks or (from the
    engine's FP8-KV release) an FP8 KV cache, a release in the range read
    (``EngineSupport.triton_attention_releases``: vLLM 0.10.2-0.11.0).
    """
    read = get_engine(engine).support.triton_attention_releases if engine else None
    capability = gpu.platform.capability
    if read is None or release is None or gpu.vendor != "NVIDIA" or capability is None:
        return False
    version = parse_version(release)
    first, fp8_kv, last = (parse_version(v) for v in read)
    if not first <= version <= last or capability < (8, 0) or capability in ((9, 0), (10, 0)):
        return False
    return sinks or (kv_dtype == "fp8" and version >= fp8_kv)


def triton_attention_extra_seconds(
    gpu: GpuSpec, path: ComputePath, engine: str, release: str | None, gpus: int, attention_flops: float
) -> float:
    """The time a prompt's attention takes over what the GEMM rate gives it, when it runs at
    :data:`VLLM_TRITON_PREFILL_ATTENTION_SHARE` of the 16-bit peak instead of the path's GEMM share
    (:func:`planner.advisor.kernels.gemm_efficiency`), over the set-up's ``gpus``."""
    sixteen, _ = compute_tflops(gpu, "16-bit")
    tflops, _ = compute_tflops(gpu, path)
    if not sixteen or not tflops or not attention_flops:
        return 0.0
    own = attention_flops / (sixteen * 1e12 * VLLM_TRITON_PREFILL_ATTENTION_SHARE)
    counted = attention_flops / (tflops * 1e12 * gemm_efficiency(path, gpu, engine, release))
    return (own - counted) / gpus


def triton_prompt_seconds(setup: Setup, attention_flops: float) -> float:
    """:func:`triton_attention_extra_seconds` for a set-up whose vLLM runs the Triton backend
    (:attr:`Setup.triton_attention`, from :func:`vllm_triton_attention`); 0 for every other set-up."""
    if not setup.triton_attention:
        return 0.0
    return triton_attention_extra_seconds(
        setup.gpu, setup.path, setup.engine, setup.release, setup.gpus, attention_flops
    )

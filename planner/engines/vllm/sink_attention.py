"""Attention sinks (gpt-oss) with an FP8 KV cache on Ada, by release.

From 0.11.0 a sink model off Hopper takes the Triton attention backend (0.11.0 ``platforms/cuda.py:357-361``; from
0.11.1 the only backend of the priority list with sinks there: FlashAttention 2 has none, FlashInfer only on SM100 and
SM12x), which keeps FP8 from SM89 (``platforms/vllm.toml``, the Ada MXFP4 row). In 0.10.1 and 0.10.2 the V1 engine
takes an FP8 KV cache below Blackwell only with FlashAttention 3 (``CudaPlatform.is_kv_cache_dtype_supported``:
0.10.1 ``platforms/cuda.py:497-508``, 0.10.2 :521-561, with its default backend FLASH_ATTN_VLLM_V1), which Ada has
not, and otherwise falls back to the V0 engine (``engine/arg_utils.py`` ``_raise_or_fallback``: 0.10.1 :1407-1414,
:1761-1770), whose attention backends take no sinks (no ``sinks`` in 0.10.1 ``vllm/attention/backends/``).
"""

from __future__ import annotations

from planner.engines.support import family
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest

TRITON_SINKS_FP8_SINCE = (0, 11, 0)


def sink_fp8_refusal(profile: VllmProfile, request: PlanRequest) -> str | None:
    """Why a release before 0.11.0 does not start a sink model with an FP8 KV cache on Ada (module docstring);
    ``None`` elsewhere (Ampere's FP8 refusal is the platform rows', every release)."""
    model = request.model
    if not model.attention_sinks or not request.resolved_kv_dtype.startswith("fp8"):
        return None
    if family(request.gpu) != "ada" or profile.version >= TRITON_SINKS_FP8_SINCE:
        return None
    return (
        f"vLLM {profile.engine_version}'s V1 engine takes an FP8 KV cache on Ada only through FlashAttention 3, which "
        "Ada has not ('--kv-cache-dtype is not supported by the V1 Engine. Falling back to V0'), and the V0 engine's "
        f"attention has no sinks for {model.display_name}: plan 0.11.0 or later (its Triton attention backend keeps "
        "FP8 on Ada) or a 16-bit KV cache"
    )

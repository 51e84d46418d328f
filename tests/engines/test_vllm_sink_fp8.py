"""gpt-oss (attention sinks) with an FP8 KV cache below Hopper: vLLM's Triton attention backend serves sinks on Ada and
Ampere (FlashAttention 2 has none; FlashInfer only on SM100 and SM12x: 0.28.0 ``platforms/cuda.py:156-163``,
``fa_utils.py:250-253``, ``flashinfer.py:543-555``) and takes FP8 from SM89 (0.28.0 ``triton_attn.py:296-306``,
``:540-550``). Found by an outside review (2026-12-06): the planner refused it on an RTX 4090 at 0.28.0."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.engines.launch import launch_commands
from planner.engines.registry import get_engine
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest

VLLM = get_engine("vllm")


def _request(version: str, gpu: str = "rtx-4090", kv: str = "fp8") -> PlanRequest:
    card = get_gpu(gpu)
    return PlanRequest(
        model=get_model("openai/gpt-oss-20b").spec,
        gpu=card,
        gpu_memory_bytes=card.memory_bytes_for(True),
        context_tokens=8192,
        max_model_len=8192,
        kv_dtype=kv,
        overhead=VllmProfile(engine_version=version),
    )


@pytest.mark.parametrize("version", ["0.11.0", "0.22.0", "0.25.1", "0.27.1", "0.28.0", "0.29.0"])
@pytest.mark.parametrize("gpu", ["rtx-4090", "l40s"])
def test_ada_keeps_fp8_for_gpt_oss_from_0_11(version: str, gpu: str) -> None:
    assert VLLM.refusal(_request(version, gpu)) is None


def test_fp8_doubles_the_rtx_4090s_tokens_at_0_28() -> None:
    """Before: 'vLLM keeps no fp8 KV cache with mxfp4 weights on Ada GPUs (it keeps bf16, fp16)'. 303,926 / 151,957
    until the desktop cards' share was refitted beside FlashInfer's decode workspace (2026-12-07; Triton serves the
    sinks here, so no workspace); 311,475 / 155,732 until its refit on the merged tree (2026-12-07, fifty-third
    session: graphics_extra 1.046 -> 1.032 GiB); 312,276 / 156,132 until the mechanistic non-torch model planned no
    desktop share (the same day); 371,708 / 185,854 until the Triton sampler's cached buffer (128 rows of the
    vocabulary on the RTX 4090's 128 multiprocessors, 2026-12-07, fifty-sixth session)."""
    fp8, bf16 = assess(_request("0.28.0")), assess(_request("0.28.0", kv="bf16"))
    assert fp8.fits and fp8.report is not None and bf16.report is not None
    assert (fp8.report.kv_cache_tokens, bf16.report.kv_cache_tokens) == (367_617, 183_808)
    command = launch_commands(fp8.request, fp8.result)["vllm"]
    assert command.endswith("--max-num-seqs 256 --kv-cache-dtype fp8")


def test_ampere_and_0_10_ada_are_refused() -> None:
    assert VLLM.refusal(_request("0.28.0", "rtx-3090")) == (
        "vLLM keeps no fp8 KV cache with mxfp4 weights on Ampere GPUs (it keeps bf16, fp16)"
    )
    old = VLLM.refusal(_request("0.10.2"))
    assert old is not None and old.startswith("vLLM 0.10.2's V1 engine takes an FP8 KV cache on Ada only through ")
    assert old.endswith("plan 0.11.0 or later (its Triton attention backend keeps FP8 on Ada) or a 16-bit KV cache")

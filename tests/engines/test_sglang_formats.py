"""The weight formats SGLang runs, as its docs state them. Before: its platform rows had 16-bit, FP8 and MXFP4 only,
so the Memory page said "SGLang does not run int4-awq weights on hopper", which its documentation contradicts: the
platform compatibility table of ``docs/advanced_features/quantization.md`` (sgl-project/sglang@0f4513c2) lists
``awq``, ``gptq``, ``awq_marlin``, ``gptq_marlin``, ``w8a8_int8`` and ``modelopt_fp4`` (Blackwell, SM100+) on NVIDIA
GPUs and ``awq``, ``gptq``, ``w8a8_int8`` on AMD MI300X/MI325X/MI350X."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.engines.registry import get_engine, overhead_profile
from planner.planning.plan import PlanRequest

LLAMA = get_model("meta-llama/Llama-3.1-8B").spec


def _refusal(gpu_id: str, weights: str) -> str | None:
    gpu = get_gpu(gpu_id)
    request = PlanRequest(
        model=LLAMA,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        weights=weights,  # type: ignore[arg-type]
        overhead=overhead_profile("sglang"),
    )
    return get_engine("sglang").refusal(request)


@pytest.mark.parametrize(
    ("gpu", "weights"),
    [
        ("h100-sxm-80gb", "int4-awq"),
        ("h100-sxm-80gb", "int4-gptq"),
        ("a100-sxm-80gb", "int4-awq"),
        ("l40s", "int4-gptq"),
        ("rtx-5090", "int4-awq"),
        ("mi300x", "int4-awq"),
        ("mi355x", "int4-gptq"),
        ("h100-sxm-80gb", "int8"),
        ("a100-sxm-80gb", "int8"),
        ("mi300x", "int8"),
        ("b200-sxm", "nvfp4"),
        ("b300-sxm", "nvfp4"),
    ],
)
def test_sglang_runs_what_its_docs_list(gpu: str, weights: str) -> None:
    assert _refusal(gpu, weights) is None


@pytest.mark.parametrize(
    ("gpu", "weights"), [("h100-sxm-80gb", "nvfp4"), ("t4", "int4-awq"), ("v100-sxm2-32gb", "int8")]
)
def test_sglang_still_refuses_what_they_do_not(gpu: str, weights: str) -> None:
    """``modelopt_fp4`` needs Blackwell (SM100+); the Marlin and int8 kernels are not claimed before Ampere."""
    assert _refusal(gpu, weights) is not None

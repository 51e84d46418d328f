"""The Triton top-k / top-p kernel's cached buffer in the sampler warm-up (issue 20; helper ``coder3``, read
2026-12-07; docs/fidelity.md "The Triton sampler's per-program buffer").

``apply_top_k_top_p_triton`` keeps one fp32 row of the vocabulary for each of ``min(next_power_of_2(n), SMs)``
programs, ``n = min(SMs, rows)``, in a module-level cache that is never freed (vLLM 0.24.0
``v1/sample/ops/topk_topp_triton.py:906-917``, the cache at :19; the same lines 0.17.0 :993-1001, 0.22.0
:1017-1025, 0.27.1 :907-915, 0.28.0 :908-916), where the SMs are ``num_compute_units``, the device's
``multi_processor_count`` (``platforms/cuda.py:676-677``). The sampler takes that path from 8 rows on
(``topk_topp_sampler.py:356-357``): on the V1 runner's Triton sampler (0.17-0.20) and in the second,
``forward_native`` warm-up call of ``_dummy_sampler_run`` from 0.21 (``gpu_model_runner.py:6088-6104``), inside
``profile_run`` (:6306) and so inside the torch peak the budget takes (``v1/worker/gpu_worker.py:434-442``).
The fitted copies counted it as a share of the rows; it is a count of the device's multiprocessors.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import pytest

from bench.fidelity import run_case
from bench.fidelity_cases import build_request, load_cases, setup_of
from model_catalog import get_gpu
from planner.engines.vllm.terms import triton_buffer_rows
from planner.engines.vllm.versions import fitted_constants

CODER_NEXT = "vllm-0.24-4xl40s-qwen3-coder-next-tp4-16k-mamba-refusal"
VOCAB = 151_936  # Qwen3-Next's vocabulary


@cache
def _cases() -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in load_cases()}


@pytest.mark.parametrize(
    ("sms", "rows", "buffer"),
    [(142, 256, 142), (132, 1024, 132), (132, 16, 16), (170, 100, 128), (48, 256, 48), (188, 7, 0), (None, 256, 0)],
)
def test_the_buffer_rows_are_vllm_s(sms: int | None, rows: int, buffer: int) -> None:
    """``min(next_power_of_2(min(SMs, rows)), SMs)`` rows from 8 rows on (below: the PyTorch sort, no buffer); none
    where the device's count is not known."""
    assert triton_buffer_rows(sms, rows) == buffer


@pytest.mark.parametrize(
    ("gpu", "sms"), [("l40s", 142), ("h100-sxm-80gb", 132), ("rtx-5090", 170), ("dgx-spark-gb10", 48), ("t4", None)]
)
def test_the_catalog_gives_the_device_s_multiprocessors(gpu: str, sms: int | None) -> None:
    assert get_gpu(gpu).platform.multiprocessors == sms


def test_the_coder_next_boot_holds_142_rows_of_its_vocabulary() -> None:
    """Four L40S ranks, 256 sampler rows: 142 x 151,936 x 4 = 86,299,648 bytes a rank (0.080 GiB) in the planned
    peak beside the fitted copies of the 256 rows, the held hidden states and the persistent MoE workspace."""
    case = _cases()[CODER_NEXT]
    request = build_request(case, setup_of(case))
    assert request.gpu is not None and request.gpu.platform.multiprocessors == 142
    result = run_case(copy.deepcopy(case))
    assert result.report is not None
    note = next(n for n in result.report.notes if n.startswith("Profile run"))
    assert "256 sampler rows, triton sampler" in note
    copies = fitted_constants().copies("triton")
    workspace = 2 * 2048 * 10 * 2048 * 2  # the Triton experts' two workspaces (test_coder_next_source.py)
    rest = round(256 * VOCAB * 4 * copies + 2048 * 2048 * 2)
    assert triton_buffer_rows(142, 256) * VOCAB * 4 == 86_299_648
    assert result.report.activation_bytes - workspace - rest == pytest.approx(86_299_648, abs=1)

"""A TensorRT-LLM step's host time on a Grace CPU (planner/advisor/host_cpu.py): PyTorch's CPU time for one ``Linear``
forward as NVIDIA/TransformerEngine#2053 measured it (2025-08-11, BF16, hidden 2048, 8,192 tokens; "CPU runtime
[us]", backend torch): GB200 37.08, GH200 33.17, H100 DGX (Intel Xeon Platinum 8480C) 13.48."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model, load_gpus
from planner.advisor.engine_speed import FITTED, step, step_overhead
from planner.advisor.host_cpu import host_time_factor
from planner.advisor.throughput import Load, Setup, decode_load
from planner.core.params import parameter_breakdown


def _setup(gpu: str, family: str = "fused") -> Setup:
    return Setup(get_gpu(gpu), family, "fp4", 1, "tensor", False, weights="nvfp4")


def test_grace_host_factor_is_the_issue_s_cpu_times() -> None:
    """GB200's 37.08 us over the Xeon 8480C's 13.48 us for the same PyTorch op: 2.751 (to 1e-3)."""
    assert host_time_factor(_setup("gb200-per-gpu")) == pytest.approx(37.08 / 13.48, abs=1e-12)
    assert host_time_factor(_setup("gb200-per-gpu")) == pytest.approx(2.751, abs=1e-3)


@pytest.mark.parametrize("gpu", ["b200-sxm", "h200-sxm-141gb", "dgx-spark-gb10", "rtx-pro-6000-blackwell"])
def test_x86_and_non_grace_hosts_keep_the_fitted_host_time(gpu: str) -> None:
    """The fit rows' hosts (x86) and GB10 (MediaTek Arm cores, not Grace) take the fitted time unchanged."""
    assert host_time_factor(_setup(gpu)) == 1.0


def test_only_tensorrt_llm_steps_are_scaled() -> None:
    """The paged engines' per-sequence time is fitted apart (vllm_seq_s); this change keeps to TensorRT-LLM."""
    assert host_time_factor(_setup("gb200-per-gpu", "paged")) == 1.0


def test_the_catalog_names_its_grace_hosts() -> None:
    """A Grace host is read from the catalog entry (its form factor names the Grace CPU: GB200 and GB300 in NVL72
    racks), so a Grace entry added to the catalog is one without another list to edit; GB10 is not one."""
    assert {slug for slug, gpu in load_gpus().items() if gpu.platform.grace_host} == {"gb200-per-gpu", "gb300"}


def _load(model_id: str, batch: int, context: int) -> Load:
    model = get_model(model_id).spec
    return decode_load(model, "nvfp4", "fp8", batch, context, parameter_breakdown(model))


def test_a_grace_host_sets_the_pace_of_a_small_moe_at_4096_sequences() -> None:
    """Qwen3-30B-A3B NVFP4 at 4,096 sequences and 192 tokens of context (trtllm-gb200-qwen3-30b-a3b-fp4-128-128's
    batch, trtllm-bench's cap): the x86-fitted host time, 2.4 ms + 4,096 x 12 us = 51.55 ms, times 2.751 is 141.8 ms,
    longer than the step as priced on an x86 host (83.7 ms): the step is the host's."""
    load = _load("Qwen/Qwen3-30B-A3B", 4096, 192)
    host = step_overhead(_setup("b200-sxm"), load, FITTED)
    assert host == pytest.approx(FITTED.trt_step_s + 4096 * FITTED.trt_seq_s, rel=1e-9)
    assert host == pytest.approx(0.05155, abs=1e-5)
    gb200 = step(_setup("gb200-per-gpu"), load, FITTED).seconds
    assert gb200 == pytest.approx(host * 37.08 / 13.48, rel=1e-9)
    assert gb200 == pytest.approx(0.1418, abs=1e-4)


def test_a_long_gpu_step_hides_the_grace_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """Llama-3.3-70B NVFP4 at 64 sequences: GB200's step as priced (18.5 ms) outlasts 2.751 x its host time
    (8.7 ms), so it is the step an x86 host would give (the host's work overlaps the GPU's)."""
    load = _load("meta-llama/Llama-3.3-70B-Instruct", 64, 1000)
    setup = _setup("gb200-per-gpu")
    grace = step(setup, load, FITTED).seconds
    assert grace == pytest.approx(0.01845, abs=1e-4)
    assert host_time_factor(setup) * step_overhead(setup, load, FITTED) == pytest.approx(0.00872, abs=1e-4)
    monkeypatch.setattr("planner.advisor.engine_speed.host_time_factor", lambda _: 1.0)
    assert step(setup, load, FITTED).seconds == grace

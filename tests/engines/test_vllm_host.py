"""The machine vLLM runs on (``DeploymentOptions.host``, :mod:`planner.deploy.host`), against the public start-ups
that set it: under Windows (WSL2, Docker Desktop) CUDA reports the card's whole memory, the desktop holds part of
it before the worker's snapshot, and vLLM holds none of the share fitted on Linux desktop cards.

The RTX 5090 under WSL2 (vLLM 0.27.1, unsloth's Qwen3.8-27B-NVFP4, 32,768 tokens, fp8 KV, 8 sequences, prefix
caching off) printed "Free memory on device cuda:0 (30.2/31.84 GiB) on startup is less than desired GPU memory
utilization (0.98, 31.21 GiB)" (tests/fidelity vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-util098-free-memory); the
same machine started at util 0.90."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.core.units import GiB
from planner.deploy.host import (
    SNAPSHOT_CONTEXT_GIB,
    WINDOWS_DESKTOP_BYTES,
    HostOs,
    device_memory_bytes,
    held_bytes,
)
from planner.deploy.options import DeploymentOptions
from planner.engines.base import EngineReport
from planner.engines.registry import get_engine
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import fitted_constants
from planner.planning.plan import PlanRequest, plan


def _qwen_on_5090(host: HostOs, util: float, used_gib: float = 0) -> tuple[int, EngineReport]:
    """(the plan's pool per GPU, the report) of the WSL2 set-up above on ``host``."""
    gpu = get_gpu("rtx-5090")
    profile = VllmProfile(
        engine_version="0.27.1", gpu_memory_utilization=util, max_num_seqs=8, enable_prefix_caching=False
    )
    request = PlanRequest(
        model=get_model("Qwen/Qwen3.8-27B").spec, gpu=gpu, gpu_memory_bytes=device_memory_bytes(gpu, True, host),
        weights="nvfp4-fp8tail", kv_dtype="fp8", context_tokens=32768, max_model_len=32768, overhead=profile,
        deployment=DeploymentOptions(host=host, used_memory_bytes=round(used_gib * GiB)),
    )  # fmt: skip
    result = plan(request)
    return result.stages[0].kv_cache_bytes, get_engine("vllm").report(request, result, profile)


def test_windows_refuses_util_098_with_vllms_own_figures() -> None:
    """The desktop's default (1.64 GiB at the snapshot, the worker's context in it) leaves 30.20 of 31.84 GiB free,
    under the 31.21 GiB util 0.98 asks for: vLLM's own message, figure for figure. On the Linux desktop default (no
    desktop memory, Linux's 31.36 GiB total) the same flags were planned to start."""
    _, report = _qwen_on_5090("windows", 0.98)
    assert report.failure_kind == "free-memory"
    assert "(30.20/31.84 GiB)" in (report.failure or "") and "(0.98, 31.21 GiB)" in (report.failure or "")
    _, linux = _qwen_on_5090("linux", 0.98)
    assert linux.failure_kind is None
    assert linux.total_memory_bytes == get_gpu("rtx-5090").engine_visible_bytes


def test_windows_starts_at_util_090_on_the_whole_card_and_the_plan_is_the_report() -> None:
    """CUDA's total under WSL2 is nvidia-smi's 32,607 MiB (31.84 GiB, the log's figure); the desktop's memory does not
    enter vLLM 0.27's budget (a snapshot-based start), so the pool is util x 31.84 less vLLM's own use."""
    pool, report = _qwen_on_5090("windows", 0.9)
    assert report.failure_kind is None
    assert report.total_memory_bytes == 32607 * 2**20
    assert pool == report.available_kv_cache_bytes_per_gpu


def test_under_windows_the_windows_share_is_planned_beside_linux_figures() -> None:
    """Since the mechanistic non-torch model (2026-12-07, fifty-third session) the Windows start-ups hold a share
    fitted on the 18 public WSL2 / Docker Desktop start-ups alone (planner.engines.vllm.windows_share: 1.18 GiB per
    process until the fifty-fourth session, since then ``windows_weights_share``, 7.38 % of the weights the rank
    loaded), and Linux no desktop share (``graphics_extra`` fitted 0): the non-torch memory on Linux is the era's base
    0.25 GiB and Qwen3.8-27B's vision encoder's amount (0.71 GiB), under Windows the same and the share of the 21.18
    GiB this rank loads, 1.56 GiB (1.18 as a per-process amount). 7.05 %, 1.49 GiB and 0.65 GiB until FlashInfer's
    workspace was placed in FULL's first capture and make calibrate refit the encoder amount to 46,417 B (2026-12-07;
    0.79 GiB the encoder's amount before that refit's predecessor); 0.63 GiB since make calibrate refit it to 41,312 B
    beside the MTP drafter's buffers (2026-12-07, fifty-fifth session). Before it both machines held the desktop share
    of 1.03-1.18 GiB (ten of eleven WSL2 start-ups 1.1-4.2 GiB over without it)."""
    _, linux = _qwen_on_5090("linux", 0.9)
    _, windows = _qwen_on_5090("windows", 0.9)
    fitted = fitted_constants()
    # 7.05 % and 1.49 GiB until FlashInfer's decode workspace sat in FULL's first capture (2026-12-07, fifty-fourth
    # session: the WSL2 RTX 5090 boots' graph estimate 0.09 GiB lower, the refit share 7.38 %)
    assert fitted.graphics_extra == 0 and fitted.windows_weights_share == pytest.approx(0.0738, abs=0.0005)
    assert windows.weights_bytes / GiB == pytest.approx(21.18, abs=0.01)
    assert (windows.non_torch_bytes - linux.non_torch_bytes) / GiB == pytest.approx(1.56, abs=0.01)
    # 0.25 + 0.79 in the pin until the refit, 0.25 + 0.71 until the refit beside the MTP drafter's buffers (2026-12-07)
    # 0.25 + 0.63 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert linux.non_torch_bytes / GiB == pytest.approx(0.25 + 0.57, abs=0.01)


def test_memory_in_use_given_replaces_the_desktop_default() -> None:
    """nvidia-smi under WSL2 counts the desktop in its use, so a figure given replaces the default: 3 GiB in use
    leaves 31.84 - 3 - 0.51 (the worker's context) = 28.33 GiB free."""
    assert held_bytes(0, "windows") == WINDOWS_DESKTOP_BYTES
    assert held_bytes(0, "linux") == 0
    _, report = _qwen_on_5090("windows", 0.9, used_gib=3)
    assert report.failure_kind == "free-memory" and "(28.33/31.84 GiB)" in (report.failure or "")


def test_the_desktop_default_takes_the_workers_context_off_the_printed_figure() -> None:
    """The printed figure (total less free at the snapshot) holds vLLM's own CUDA context: the fitted one-GPU
    baseline, which the desktop's default leaves out so it is not counted twice."""
    assert fitted_constants().init_baseline_tp1 / GiB == pytest.approx(SNAPSHOT_CONTEXT_GIB, abs=0.005)
    assert WINDOWS_DESKTOP_BYTES / GiB == pytest.approx(1.64 - 0.51, abs=0.005)


def test_under_windows_a_datacenter_card_s_total_is_the_whole_card() -> None:
    """Under Windows an H100's total is the whole card (nvidia-smi's 81,559 MiB), not vLLM's Linux 79.19 GiB; a
    generic profile plans the card's memory either way."""
    gpu = get_gpu("h100-sxm-80gb")
    assert device_memory_bytes(gpu, True, "windows") == gpu.memory_bytes > device_memory_bytes(gpu, True, "linux")
    assert device_memory_bytes(gpu, False, "windows") == gpu.memory_bytes_for(False)


def test_mixed_gpus_under_windows_plan_each_whole_card() -> None:
    """Each pipeline stage's card under Windows is its whole memory too (RTX 5090 32,607 MiB, RTX 4090 24,564 MiB),
    where on Linux it is what vLLM prints there."""
    from planner.deploy.mixed import stage_gpu

    for gpu_id, mib in (("rtx-5090", 32607), ("rtx-4090", 24564)):
        gpu = get_gpu(gpu_id)
        assert stage_gpu(gpu, True, "windows").memory_bytes == mib * 2**20
        assert stage_gpu(gpu, True).memory_bytes == gpu.memory_bytes_for(True) < mib * 2**20

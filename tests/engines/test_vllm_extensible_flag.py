"""``--no-enable-extensible-kv-cache`` as a launch setting: vLLM 0.34.0 adds the extensible KV cache with a
``BooleanOptionalAction`` flag (``engine/arg_utils.py`` :1412-1415, ``config/cache.py`` :395), on by default on
CUDA and ROCm; turned off, 0.34 sizes the cache at the profile run as 0.33 did, at 0.33's default fraction
(``config/cache.py`` :495-501). A release before 0.34 does not know the flag, so ``vllm serve`` stops at it."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.cli import main
from planner.core.units import GiB
from planner.engines.registry import get_engine, launch_values, overhead_profile
from planner.engines.settings import BY_NAME
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest, plan

FLAG = "--no-enable-extensible-kv-cache"


def _request(version: str, **settings: object) -> PlanRequest:
    gpu = get_gpu("l40s")
    return PlanRequest(
        model=get_model("Qwen/Qwen3-8B").spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        context_tokens=32_768,
        max_model_len=32_768,
        overhead=overhead_profile("vllm", version=version, **settings),
    )


def test_turned_off_0_34_plans_exactly_as_0_33() -> None:
    """No rule but the extensible cache changes between 0.33.0 and 0.34.0 (versions.toml), so with the flag the
    0.34 plan is 0.33's to the byte: Qwen3-8B on an L40S at 32k, 24.31 GiB and 176,992 tokens at the fraction 0.92
    (177,008 before the allocator's segment tails were counted with the weights, 2026-12-07),
    against 26.58 GiB committed after warm-up (193,536 tokens) with the extensible cache at 1.0 (26.16 GiB and 190,464
    tokens before the capture term was fitted without FlashAttention 3's split accumulators, 2026-12-07; 26.30 GiB and
    191,488 before its base off Hopper was fitted on the other devices' lines, the same day)."""
    off, old, on = _request("0.34.0", no_enable_extensible_kv_cache=True), _request("0.33.0"), _request("0.34.0")
    engine = get_engine("vllm")
    reports = [engine.report(r, plan(r), r.overhead) for r in (off, old, on)]  # type: ignore[arg-type]
    assert reports[0].available_kv_cache_bytes_per_gpu == reports[1].available_kv_cache_bytes_per_gpu
    assert reports[0].kv_cache_tokens == reports[1].kv_cache_tokens == 176_992
    assert round(reports[0].available_kv_cache_bytes_per_gpu / GiB, 2) == 24.31
    assert reports[2].kv_cache_tokens == 193_536
    profile = off.overhead
    assert isinstance(profile, VllmProfile) and not profile.extensible() and profile.utilization == 0.92


def test_the_launch_command_and_the_link_carry_it() -> None:
    request = _request("0.34.0", no_enable_extensible_kv_cache=True)
    command = get_engine("vllm").launch_command(request, plan(request), request.overhead)  # type: ignore[arg-type]
    assert command.endswith(FLAG) and "--gpu-memory-utilization 0.92 " in command
    assert FLAG not in get_engine("vllm").launch_command(_request("0.34.0"), plan(_request("0.34.0")), None)
    assert launch_values(request.overhead)["no_enable_extensible_kv_cache"] is True  # type: ignore[arg-type]
    assert BY_NAME["no_enable_extensible_kv_cache"].flag == FLAG


def test_a_release_without_it_refuses_the_flag_by_name() -> None:
    with pytest.raises(PlannerError, match=r"vLLM 0\.33\.0 has no --no-enable-extensible-kv-cache.*0\.34\.0"):
        overhead_profile("vllm", version="0.33.0", no_enable_extensible_kv_cache=True)
    with pytest.raises(PlannerError, match="SGLang has no --no-enable-extensible-kv-cache setting"):
        overhead_profile("sglang", no_enable_extensible_kv_cache=True)


def test_the_cli_takes_it(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["fit", "--model", "Qwen/Qwen3-8B", "--gpu", "l40s", "--engine", "vllm", "--context", "32768"]
    assert main([*args, "--engine-version", "0.34.0", FLAG]) == 0
    assert "Available KV cache memory: 24.31 GiB" in capsys.readouterr().out
    assert main([*args, "--engine-version", "0.33.0", FLAG]) != 0
    assert "vLLM 0.33.0 has no --no-enable-extensible-kv-cache" in capsys.readouterr().err

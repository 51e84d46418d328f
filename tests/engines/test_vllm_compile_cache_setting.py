"""The compile-cache state as a launch setting (``--compile-cache``, :mod:`planner.engines.vllm.compile_cache`):
taken by vLLM V1 from 0.22.0, whose cold compile is planned (:mod:`planner.engines.vllm.compile_copy`), refused by
name before it and by every other engine; a cold plan's command says what cold means; and planned cold, no set-up
holds more KV cache than planned warm (the copy only adds to the profile's transient)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.core.overhead import parse_version
from planner.engines.registry import engine_names, engine_profile, get_engine
from planner.engines.vllm.versions import known_releases
from planner.planning.plan import PlanRequest, plan

MODELS = ("Qwen/Qwen3-8B", "meta-llama/Llama-3.1-8B", "Qwen/Qwen3-30B-A3B", "google/gemma-3-27b-it")
GPUS = ("rtx-3090", "rtx-5090", "l40s", "h100-sxm-80gb")
COLD_RELEASES = tuple(v for v in known_releases() if parse_version(v) >= (0, 22, 0))
QWEN3 = get_model("Qwen/Qwen3-8B").spec


def _request(model: str, gpu_id: str, tp: int, tokens: int, **profile: object) -> PlanRequest:
    gpu = get_gpu(gpu_id)
    return PlanRequest(
        model=get_model(model).spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True), gpu_count=tp,
        tensor_parallel=tp, context_tokens=tokens, max_model_len=tokens, overhead=engine_profile("vllm", **profile),
    )  # fmt: skip


def test_every_other_engine_says_it_has_no_such_setting() -> None:
    for name in engine_names():
        if name == "vllm":
            continue
        with pytest.raises(PlannerError, match=f"{get_engine(name).label} has no --compile-cache setting"):
            engine_profile(name, compile_cache="cold")


@pytest.mark.parametrize("state", ["cold", "warm"])
def test_a_release_before_0_22_says_it_does_not_apply(state: str) -> None:
    """0.21.0 and earlier were not read for a cold compile (rule ``compile_benchmarks_inputs``): refused, either
    state; not given, planned as before."""
    engine_profile("vllm", version="0.22.0", compile_cache=state)
    with pytest.raises(PlannerError, match=r"vLLM 0\.21\.0: --compile-cache does not apply before 0\.22\.0"):
        engine_profile("vllm", version="0.21.0", compile_cache=state)
    assert engine_profile("vllm", version="0.21.0").compile_cache == "warm"  # type: ignore[attr-defined]


def test_a_cold_plan_says_so_above_its_command() -> None:
    request = _request("Qwen/Qwen3-8B", "rtx-3090", 1, 8192, compile_cache="cold")
    lines = get_engine("vllm").launch_command(request, plan(request), request.overhead).splitlines()
    assert lines[0].startswith("# Planned with a cold torch.compile cache (--compile-cache cold)")
    assert "VLLM_DISABLE_COMPILE_CACHE=1" in lines[0] and lines[1].startswith("vllm serve Qwen/Qwen3-8B ")
    warm = _request("Qwen/Qwen3-8B", "rtx-3090", 1, 8192, compile_cache="warm")
    assert get_engine("vllm").launch_command(warm, plan(warm), warm.overhead).startswith("vllm serve ")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.sampled_from(MODELS),
    gpu=st.sampled_from(GPUS),
    tp=st.sampled_from((1, 2)),
    tokens=st.sampled_from((4096, 32768)),
    release=st.sampled_from(COLD_RELEASES),
    eager=st.booleans(),
)
def test_cold_never_holds_more_kv_than_warm(
    model: str, gpu: str, tp: int, tokens: int, release: str, eager: bool
) -> None:
    """Cold adds the table copy to the profile's transient, which is the larger of it and the run: its KV cache per
    GPU is at most warm's, the same where nothing compiles (``--enforce-eager``)."""
    kv = {}
    for state in ("warm", "cold"):
        request = _request(model, gpu, tp, tokens, version=release, compile_cache=state, enforce_eager=eager or None)
        report = get_engine("vllm").report_figures(request, plan(request), request.overhead)
        kv[state] = report.available_kv_cache_bytes_per_gpu
    assert kv["cold"] <= kv["warm"], kv
    if eager:
        assert kv["cold"] == kv["warm"], kv

"""One answer under vLLM, SGLang and TensorRT-LLM: the plan's KV pool per GPU (the Memory chart's KV bar, ``fit
--json``'s breakdown) is the pool the engine report prints (vLLM's "Available KV cache memory", SGLang's and
TensorRT-LLM's pool, and the tokens and conversations beside them) on every set-up that starts, at every release
the engine's rules cover: both size from one overhead context (:mod:`planner.planning.context`).

Before, vLLM's plan saw neither the drafted tokens nor the device's attention backend, so its CUDA-graph
estimate was a start-up's without speculative decoding on FlashAttention; nor did it see what other processes held
when vLLM 0.34 commits its extensible cache, nor the LoRA slots and drafter a unified-memory device's non-torch share
grows with; SGLang's plan left in the 100 MB a vision-language model's budget loses from 0.5.18.

llama.cpp is not here: it allocates each slot's context whole, so its pool is not what the memory leaves.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model_catalog import get_gpu, get_model, load_gpus
from planner.bounds.errors import PlannerError
from planner.core.units import GiB
from planner.deploy.host import device_memory_bytes
from planner.deploy.options import DeploymentOptions, LoraOptions, SpeculativeOptions
from planner.engines.registry import engine_profile, get_engine, settings_taken
from planner.engines.settings import EngineSetting
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest, plan
from tests.engines.test_settings_reach_commands import changed_value

MiB = 2**20
MODELS = ("meta-llama/Llama-3.1-8B", "Qwen/Qwen3-30B-A3B", "google/gemma-3-27b-it", "openai/gpt-oss-20b")
OPTIONS = {
    "none": None,
    "eagle": DeploymentOptions(speculative=SpeculativeOptions(method="eagle", num_speculative_tokens=3)),
    "mtp": DeploymentOptions(speculative=SpeculativeOptions(method="mtp", num_speculative_tokens=2)),
    "draft": DeploymentOptions(
        speculative=SpeculativeOptions(
            method="draft", draft_model=get_model("meta-llama/Llama-3.2-1B").spec, num_speculative_tokens=4
        )
    ),
    "lora": DeploymentOptions(lora=LoraOptions(max_loras=2, max_lora_rank=32)),
    "used": DeploymentOptions(used_memory_bytes=3 * GiB),
    "windows": DeploymentOptions(host="windows"),  # the whole card, the desktop's default memory, no share
}


ENGINES = ("vllm", "sglang", "trtllm")
RELEASES = [(engine, release) for engine in ENGINES for release in get_engine(engine).releases()]


def _gap(
    model: str, gpu_id: str, kv: str | None, option: str, release: str, tp: int = 1, engine: str = "vllm"
) -> float | None:
    """The plan's KV pool per GPU less the report's, in GiB; ``None`` where the engine does not start (its pool
    is then not one a page shows) or the set-up is refused outright."""
    gpu, plugin = get_gpu(gpu_id), get_engine(engine)
    profile = plugin.profile_type(engine_version=release)
    try:
        request = PlanRequest(
            model=get_model(model).spec, gpu=gpu, gpu_count=tp,
            gpu_memory_bytes=device_memory_bytes(gpu, True, OPTIONS[option].host if OPTIONS[option] else "linux"),
            tensor_parallel=tp, context_tokens=8192, max_model_len=8192, overhead=profile, kv_dtype=kv,
            deployment=OPTIONS[option],
        )  # fmt: skip
        result = plan(request)
        report = plugin.report(request, result, profile)
    except PlannerError:
        return None
    if report.failure_kind is not None:
        return None
    return (result.stages[0].headroom_bytes - report.available_kv_cache_bytes_per_gpu) / GiB


@pytest.mark.parametrize(
    ("model", "gpu", "kv", "option", "engine", "release", "before"),
    [
        ("meta-llama/Llama-3.1-8B", "b200-sxm", "fp8", "none", "vllm", "0.29.0", 0.429),  # FlashInfer's graphs, SM100
        ("meta-llama/Llama-3.1-8B", "h100-sxm-80gb", None, "eagle", "vllm", "0.29.0", -0.013),  # 4 tokens a step
        ("meta-llama/Llama-3.1-8B", "rtx-4090", "fp8", "eagle", "vllm", "0.29.0", -0.228),  # FlashInfer, a drafter
        ("meta-llama/Llama-3.1-8B", "h100-sxm-80gb", "fp8", "used", "vllm", "0.34.0", 1.959),  # held at the snapshot
        ("google/gemma-3-27b-it", "h100-sxm-80gb", None, "none", "sglang", "0.5.18", 0.098),  # the VLM's 100 MB
    ],
)
def test_the_cases_that_differed(
    model: str, gpu: str, kv: str | None, option: str, engine: str, release: str, before: float
) -> None:
    """The set-ups where the plan and the report first parted, with the gap they had (GiB)."""
    gap = _gap(model, gpu, kv, option, release, engine=engine)
    assert gap is not None and abs(gap) < MiB / GiB, f"was {before:+.3f} GiB, is {gap}"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.sampled_from(MODELS),
    gpu=st.sampled_from(sorted(load_gpus())),
    kv=st.sampled_from((None, "fp8")),
    option=st.sampled_from(sorted(OPTIONS)),
    release=st.sampled_from(RELEASES),
    tp=st.sampled_from((1, 2)),
)
def test_the_plan_is_the_report_on_every_set_up_that_starts(
    model: str, gpu: str, kv: str | None, option: str, release: tuple[str, str], tp: int
) -> None:
    engine, version = release
    gap = _gap(model, gpu, kv, option, version, tp, engine)
    assert gap is None or abs(gap) < MiB / GiB, (
        f"{engine} {version}: the plan's pool is {gap:+.3f} GiB off the report's"
    )


@pytest.mark.parametrize(("option", "before"), [("lora", -1.25), ("draft", -2.30)])
def test_a_fixed_kv_size_is_the_chart_s_kv_bar_beside_adapters_and_a_drafter(option: str, before: float) -> None:
    """vLLM's ``--kv-cache-memory`` fixes the pool: 20 GiB on the chart as in the engine's line, with LoRA slots or a
    drafter loaded beside the weights (before, the plan took their bytes out of the fixed pool as well: 18.75 and
    17.70 GiB on the chart against 20 in the line)."""
    profile = VllmProfile(kv_cache_memory_bytes=20 * GiB)
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-8B").spec, gpu=get_gpu("h100-sxm-80gb"),
        gpu_memory_bytes=get_gpu("h100-sxm-80gb").memory_bytes, context_tokens=8192, max_model_len=8192,
        overhead=profile, deployment=OPTIONS[option],
    )  # fmt: skip
    result = plan(request)
    report = get_engine("vllm").report(request, result, profile)
    assert report.available_kv_cache_bytes_per_gpu == 20 * GiB
    assert result.stages[0].kv_cache_bytes == 20 * GiB, f"was {before:+.2f} GiB off"


def test_sglangs_token_cap_is_the_chart_s_kv_bar_and_the_rest_is_left_free() -> None:
    """``--max-total-tokens 100000`` under SGLang: the pool it allocates (100,000 tokens of Llama-3.1-8B, 12.21 GiB)
    is the chart's KV bar, and the memory the cap leaves (37.9 GiB of the 50.14 the fraction allows) is shown free,
    not as KV (before, the chart drew the uncapped 50.14 GiB beside a report of 100,000 tokens)."""
    gpu = get_gpu("h100-sxm-80gb")
    plugin = get_engine("sglang")
    capped = plugin.profile_type(max_total_tokens=100_000)
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-8B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192, overhead=capped,
    )  # fmt: skip
    result = plan(request)
    report = plugin.report(request, result, capped)
    stage = result.stages[0]
    assert report.kv_cache_tokens == 100_000 and stage.kv_cache_bytes == report.available_kv_cache_bytes_per_gpu
    assert round(stage.kv_cache_bytes / GiB, 2) == 12.21 and round(stage.free_bytes / GiB, 2) == 37.93
    uncapped = plan(request.model_copy(update={"overhead": plugin.profile_type()}))
    assert stage.headroom_bytes == uncapped.stages[0].headroom_bytes  # what is left is the same; the cap leaves it


SETTINGS = [(engine, setting) for engine in ENGINES for setting in settings_taken(engine)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    taken=st.sampled_from(SETTINGS),
    model=st.sampled_from(MODELS),
    gpu=st.sampled_from(sorted(load_gpus())),
    kv=st.sampled_from((None, "fp8")),
    data=st.data(),
)
def test_the_plan_is_the_report_with_each_launch_setting_set(
    taken: tuple[str, EngineSetting], model: str, gpu: str, kv: str | None, data: st.DataObject
) -> None:
    """Each launch setting an engine takes, set (:func:`tests.engines.test_settings_reach_commands.changed_value`), at a
    release its rules cover: the chart's pool is the engine's wherever it starts."""
    engine, setting = taken
    plugin = get_engine(engine)
    release = data.draw(st.sampled_from(plugin.releases()))
    device = get_gpu(gpu)
    try:
        profile = engine_profile(engine, version=release, **{setting.name: changed_value(setting)})
        request = PlanRequest(
            model=get_model(model).spec, gpu=device, gpu_memory_bytes=device.memory_bytes_for(True),
            context_tokens=8192, max_model_len=8192, overhead=profile, kv_dtype=kv,
        )  # fmt: skip
        result = plan(request)
        report = plugin.report(request, result, profile)
    except PlannerError:
        return
    if report.failure_kind is None:
        assert result.stages[0].kv_cache_bytes == pytest.approx(report.available_kv_cache_bytes_per_gpu, abs=MiB)

"""vLLM's weight loader as a launch setting (``--load-format``, ``--safetensors-load-strategy``): on unified memory
(DGX Spark GB10) the loaders that read the checkpoint ahead of the copy leave a larger share of the loaded weights
outside the KV budget than vLLM's default, memory-mapped loader (:mod:`planner.engines.vllm.unified`); the flag, or
its value, is one the planned release takes; GGUF weights have their own loader."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.core.units import GiB
from planner.engines.platform import vllm_platform
from planner.engines.registry import get_engine, overhead_profile
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import fitted_constants
from planner.planning.plan import PlanRequest, plan

GB10 = get_gpu("dgx-spark-gb10")
H100 = get_gpu("h100-sxm-80gb")
QWEN = get_model("Qwen/Qwen3-14B").spec
WEIGHTS = 28 * GiB


def _non_torch(gpu_id: str, **loader: str) -> int:
    profile = VllmProfile(engine_version="0.30.0", **loader)  # type: ignore[arg-type]
    return profile.non_torch_bytes(1, 1, vllm_platform(get_gpu(gpu_id)), WEIGHTS)


def test_the_default_loader_holds_the_smaller_fitted_share_on_unified_memory() -> None:
    """The two shares are fitted apart (docs/fidelity.md, 'Unified memory'): the read-ahead loaders' 0.28 of the
    weights a rank loaded, the default loader's about a tenth."""
    fitted = fitted_constants()
    assert 0.25 <= fitted.uma_weights_share <= 0.35
    assert 0.0 <= fitted.uma_weights_share_lazy <= 0.15
    base = _non_torch("dgx-spark-gb10")
    for loader in ({"load_format": "fastsafetensors"}, {"load_format": "instanttensor"}):
        extra = _non_torch("dgx-spark-gb10", **loader) - base
        assert extra == pytest.approx((fitted.uma_weights_share - fitted.uma_weights_share_lazy) * WEIGHTS, abs=2)
    assert _non_torch("dgx-spark-gb10", safetensors_load_strategy="prefetch") > base
    assert _non_torch("dgx-spark-gb10", safetensors_load_strategy="lazy") == base


def test_on_a_discrete_gpu_the_loader_moves_nothing() -> None:
    """Page cache and pinned host memory are not device memory on an H100: vLLM's budget does not see them."""
    assert _non_torch("h100-sxm-80gb", load_format="fastsafetensors") == _non_torch("h100-sxm-80gb")


def test_the_launch_command_carries_the_loader() -> None:
    engine = get_engine("vllm")
    profile = engine.profile(load_format="fastsafetensors", safetensors_load_strategy="prefetch")
    request = PlanRequest(
        model=QWEN, gpu=GB10, gpu_memory_bytes=GB10.memory_bytes_for(True), context_tokens=32_768, overhead=profile
    )
    command = engine.launch_command(request, plan(request), profile)
    assert " --load-format fastsafetensors" in command
    assert " --safetensors-load-strategy prefetch" in command


@pytest.mark.parametrize(
    ("version", "setting", "value", "since", "what"),
    [
        ("0.17.0", "safetensors_load_strategy", "prefetch", "0.18.0", "the value"),
        ("0.17.0", "load_format", "instanttensor", "0.18.0", "the value"),
        ("0.7.2", "load_format", "fastsafetensors", "0.8.2", "the value"),
        ("0.9.2", "safetensors_load_strategy", "lazy", "0.10.2", "the flag"),
    ],
)
def test_a_release_without_the_loader_refuses_it_by_name(
    version: str, setting: str, value: str, since: str, what: str
) -> None:
    """Each first release read in the wheels' ``config/load.py`` and loaders (versions.toml rules)."""
    with pytest.raises(PlannerError, match=f"vLLM {version} has no --.*: {what} came with {since}"):
        overhead_profile("vllm", version=version, **{setting: value})
    overhead_profile("vllm", version=since, **{setting: value})


def test_a_value_not_offered_is_invalid_input() -> None:
    with pytest.raises(ValueError, match="fastsafetensors"):
        overhead_profile("vllm", load_format="pt")


def test_gguf_weights_refuse_a_safetensors_loader() -> None:
    engine = get_engine("vllm")
    profile = engine.profile(load_format="fastsafetensors")
    request = PlanRequest(
        model=QWEN, gpu=H100, gpu_memory_bytes=H100.memory_bytes_for(True), weights="q4_k_m", context_tokens=8192,
        overhead=profile,
    )  # fmt: skip
    assert "GGUF loader" in (engine.refusal(request) or "")

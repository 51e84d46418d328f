"""LoRA adapter slots as each engine is told them. Before: SGLang got ``--max-loras-per-batch N --max-lora-rank R``
alone, which does not enable LoRA at all (``--enable-lora`` or ``--lora-paths`` does, and without adapters SGLang
asserts that ``--lora-target-modules`` is given too: 0.5.4 ``srt/server_args.py`` :3511-3513), so the engine
started with a KV pool the plan had shrunk by the adapters; vLLM was given neither the host cache
(``--max-cpu-loras``) nor the modules the plan wrapped (``--lora-target-modules``), and a rank its
``--max-lora-rank`` does not take (``config/lora.py`` MaxLoRARanks) was planned as if it started."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.core.model import ModelSpec
from planner.deploy.options import DeploymentOptions, LoraOptions
from planner.engines.registry import get_engine, overhead_profile
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")
LLAMA = get_model("meta-llama/Llama-3.1-8B").spec
MOE = get_model("Qwen/Qwen3-30B-A3B").spec
MLA = get_model("deepseek-ai/DeepSeek-V2-Lite").spec


def _request(engine: str, lora: LoraOptions, model: ModelSpec = LLAMA, version: str | None = None) -> PlanRequest:
    return PlanRequest(
        model=model,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        context_tokens=8192,
        max_model_len=8192,
        overhead=overhead_profile(engine, version=version),
        deployment=DeploymentOptions(lora=lora),
    )


def _flags(engine: str, lora: LoraOptions, model: ModelSpec = LLAMA, version: str | None = None) -> str:
    request = _request(engine, lora, model, version)
    assert get_engine(engine).refusal(request) is None
    return " ".join(get_engine(engine).deployment_flags(request, plan(request), 0))


def _refusal(engine: str, lora: LoraOptions, model: ModelSpec = LLAMA, version: str | None = None) -> str:
    found = get_engine(engine).refusal(_request(engine, lora, model, version))
    assert found is not None
    return found


# -- vLLM -----------------------------------------------------------------------------------------------------


def test_vllm_every_module_needs_no_target_flag() -> None:
    """vLLM wraps every supported module unless told (0.34.0 ``config/lora.py`` target_modules, :47-50)."""
    assert _flags("vllm", LoraOptions(max_loras=4)) == "--enable-lora --max-loras 4 --max-lora-rank 16"


def test_vllm_is_told_the_host_cache_and_the_modules_planned() -> None:
    """``--max-cpu-loras`` (0.34.0 ``engine/arg_utils.py`` :1643) and ``--lora-target-modules`` by the names of
    the modules vLLM wraps: a packed ``qkv_proj`` when any of q, k, v is targeted, as the plan counts it (suffix
    match in 0.19.0 ``lora/utils.py`` is_in_target_modules :260-280, which takes no child names)."""
    lora = LoraOptions(max_loras=2, max_lora_rank=32, max_cpu_loras=8, target_modules=("q_proj", "v_proj", "down_proj"))
    assert _flags("vllm", lora) == (
        "--enable-lora --max-loras 2 --max-lora-rank 32 --max-cpu-loras 8 --lora-target-modules qkv_proj down_proj"
    )


def test_vllm_names_moe_experts_by_their_module() -> None:
    """Fused MoE experts are the ``experts`` module (``mlp.experts``); a MoE layer has no dense MLP to wrap."""
    lora = LoraOptions(max_loras=1, target_modules=("o_proj", "experts"))
    assert _flags("vllm", lora, MOE).endswith("--lora-target-modules o_proj experts")


@pytest.mark.parametrize(
    ("version", "rank", "choices"),
    [
        ("0.19.1", 24, "1, 8, 16, 32, 64, 128, 256, 320 or 512"),  # 0.11.1 config/lora.py:26 MaxLoRARanks
        ("0.11.0", 1, "8, 16, 32, 64, 128, 256, 320 or 512"),  # 0.11.0 config/lora.py:104 possible_max_ranks
        ("0.7.2", 512, "8, 16, 32, 64, 128 or 256"),  # 0.7.2 config.py:2122
    ],
)
def test_vllm_refuses_a_rank_its_release_does_not_take(version: str, rank: int, choices: str) -> None:
    reason = _refusal("vllm", LoraOptions(max_lora_rank=rank), version=version)
    assert reason.startswith(f"vLLM {version} takes --max-lora-rank {choices}, not {rank}"), reason


@pytest.mark.parametrize(("version", "rank"), [("0.12.0", 1), ("0.8.5", 512), ("0.7.2", 256), ("0.34.0", 320)])
def test_vllm_plans_a_rank_its_release_takes(version: str, rank: int) -> None:
    assert f"--max-lora-rank {rank}" in _flags("vllm", LoraOptions(max_lora_rank=rank), version=version)


def test_vllm_before_target_modules_refuses_a_restricted_set() -> None:
    """``--lora-target-modules`` is in the 0.19.0 wheel (``engine/arg_utils.py`` :1146) and not in 0.18.0's: an
    older release wraps every module, more than a restricted plan counts."""
    lora = LoraOptions(target_modules=("q_proj", "v_proj"))
    reason = _refusal("vllm", lora, version="0.18.0")
    assert reason == "vLLM 0.18.0 has no --lora-target-modules (the flag came with 0.19.0): it wraps every module"
    assert _flags("vllm", lora, version="0.19.0").endswith("--lora-target-modules qkv_proj")
    assert "--lora-target-modules" not in _flags("vllm", LoraOptions(), version="0.18.0")
    dense = LoraOptions(target_modules=("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"))
    assert "--lora-target-modules" not in _flags("vllm", dense, version="0.18.0")  # every module a dense model has


def test_vllm_before_fused_moe_lora_refuses_expert_slots() -> None:
    """``lora/layers/fused_moe.py`` is first in the 0.11.1 wheel: before, a MoE model's experts get no adapter
    slots, which the plan would count."""
    reason = _refusal("vllm", LoraOptions(), MOE, version="0.11.0")
    assert reason == "vLLM 0.11.0 gives MoE experts no LoRA slots (they came with 0.11.1); the plan counts them"
    assert "--max-loras 1" in _flags("vllm", LoraOptions(), MOE, version="0.12.0")


def test_vllm_refuses_restricted_modules_of_mla_attention() -> None:
    """MLA's projections are not the q/k/v the options name (DeepSeek's ``kv_a_proj_with_mqa``, ``kv_b_proj``, or
    a fused ``fused_qkv_a_proj``, by release): every module is planned, a restricted set is not."""
    reason = _refusal("vllm", LoraOptions(target_modules=("q_proj", "o_proj")), MLA)
    assert "MLA" in reason and "every module" in reason
    assert "--lora-target-modules" not in _flags("vllm", LoraOptions(), MLA)


# -- SGLang ---------------------------------------------------------------------------------------------------


def test_sglang_is_told_to_enable_lora_and_its_modules() -> None:
    """0.5.4 ``srt/server_args.py``: ``--enable-lora`` (:2291), ``--max-lora-rank`` (:2297),
    ``--lora-target-modules`` with 'all' (:2303-2311) required without ``--lora-paths`` (:3511-3513),
    ``--max-loras-per-batch`` (:2321), ``--max-loaded-loras`` (:2327)."""
    assert _flags("sglang", LoraOptions(max_loras=4)) == (
        "--enable-lora --max-loras-per-batch 4 --max-lora-rank 16 --lora-target-modules all"
    )
    lora = LoraOptions(max_loras=2, max_lora_rank=24, max_cpu_loras=6, target_modules=("q_proj", "gate_proj"))
    assert _flags("sglang", lora) == (
        "--enable-lora --max-loras-per-batch 2 --max-lora-rank 24 --max-loaded-loras 6 "
        "--lora-target-modules qkv_proj gate_up_proj"
    )


@pytest.mark.parametrize(("model", "why"), [(MOE, "MoE"), (MLA.model_copy(update={"moe": None}), "MLA")])
def test_sglang_refuses_lora_it_sizes_otherwise(model: ModelSpec, why: str) -> None:
    """SGLang 0.5's adapter pool has no expert slots and no MLA projections among its target modules
    (``SUPPORTED_LORA_TARGET_MODULES``, ``srt/utils/common.py`` :3179-3189), so what the plan counts is not what it
    allocates: refused with vLLM as the way to plan it."""
    reason = _refusal("sglang", LoraOptions(), model)
    assert why in reason and "vLLM" in reason, reason


# -- both -----------------------------------------------------------------------------------------------------


def test_host_cache_below_the_slots_is_invalid() -> None:
    """vLLM: "max_cpu_loras must be >= max_loras" (0.34.0 ``config/lora.py`` :116-118); SGLang asserts
    ``max_loaded_loras >= max_loras_per_batch`` (0.5.4 ``srt/server_args.py`` :3517-3520)."""
    with pytest.raises(ValueError, match="max_cpu_loras"):
        LoraOptions(max_loras=4, max_cpu_loras=2)

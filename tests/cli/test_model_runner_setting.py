"""``VLLM_USE_V2_MODEL_RUNNER`` as a launch setting people set: ``fit --use-v2-model-runner`` /
``--no-use-v2-model-runner`` (not given: the release's choice for the model), the link's ``use_v2_model_runner`` and
the sidebar's Launch settings. The runner changes the KV budget: before 0.29.0 Model Runner V2 subtracts no CUDA-graph
estimate (rule ``v2_cudagraph_estimate``) and runs its own sampler warm-up. vLLM obeys the variable before its own
choice from 0.22.0 to 0.33.0 (``VllmConfig.use_v2_model_runner``; 0.33.0 ``config/vllm.py:748-750``); 0.34.0 has no
V1 runner and no such variable; before 0.22.0 a 1 starts an experimental runner the planner does not plan.

The evidence: a public vLLM 0.26.0 start-up of Gemma 4 31B on one B300 run with ``VLLM_USE_V2_MODEL_RUNNER=0``
(``tests/fidelity/cases/vllm-blind-2026-12f.json``, "Available KV cache memory: 182.37 GiB"). Before the setting
existed the planner had it as a profile field only: ``fit`` could not be told, and planned V2, 3.39 GiB over."""

from __future__ import annotations

import json

import pytest

from model_catalog import get_gpu, get_model
from planner.cli import main
from planner.engines.launch import launch_commands
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest, plan

GiB = 2**30
BOOT = ["fit", "--model", "google/gemma-4-31B-it", "--gpu", "b300-sxm", "--engine", "vllm", "--context", "16384"]
PRINTED_KV_GIB = 182.37  # the public 0.26.0 start-up's "Available KV cache memory" with VLLM_USE_V2_MODEL_RUNNER=0


def _kv_gib(capsys: pytest.CaptureFixture[str], *extra: str) -> float:
    assert main([*BOOT, *extra, "--json"]) == 0
    found: int = json.loads(capsys.readouterr().out)["available_kv_cache_bytes_per_gpu"]
    return found / GiB


def test_the_public_v1_runner_boot_is_planned_as_it_ran(capsys: pytest.CaptureFixture[str]) -> None:
    """With the V1 runner the graph estimate comes off the budget: 182.51 GiB planned against 182.37 printed
    (within the 0.5 GiB the fidelity suite holds vLLM to); at the release's own choice (V2 for Gemma 4 on 0.26.0)
    185.56, 3.19 over what that boot printed (182.14 and 185.76 until the V slot of the k_eq_v global layers was
    planned, 2026-12-06: 0.21 GiB more weights; V1 181.93 until the estimate's cost per graph on compute capability
    10.x was fitted on this boot's printed estimate, 2026-12-07: 0.76 GiB planned where the shared term gave 1.34;
    182.51 and 185.56 until the mechanistic non-torch model (2026-12-07, fifty-third session): Gemma 4 31B's vision
    encoder's non-torch amount; 182.33 and 185.38 until make calibrate refitted that amount without club-3090 #851's
    under-counted INT4 weights, 2026-12-07, fifty-fourth session; 182.36 and 185.40 until FlashInfer's workspace was
    placed in FULL's first capture and make calibrate refit the encoder amount to 46,417 B, 2026-12-07; 182.35 and
    185.39 until make calibrate refit it to 41,312 B beside the MTP drafter's buffers, 2026-12-07, fifty-fifth
    session; V1 182.36 until the Triton sampler's cached buffer and the refit Triton copies, 2026-12-07, fifty-sixth
    session)."""
    v1 = _kv_gib(capsys, "--engine-version", "0.26.0", "--no-use-v2-model-runner")
    default = _kv_gib(capsys, "--engine-version", "0.26.0")
    # 182.36 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    # 182.37 until coder3's Triton sampler buffer beside relout2's Gated DeltaNet layer peak (fifty-sixth session)
    assert v1 == pytest.approx(182.35, abs=0.005) and abs(v1 - PRINTED_KV_GIB) < 0.5
    # 185.4 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert default == pytest.approx(185.410, abs=0.005)
    assert _kv_gib(capsys, "--engine-version", "0.26.0", "--use-v2-model-runner") == pytest.approx(default)


def test_the_command_sets_the_variable() -> None:
    gpu = get_gpu("b300-sxm")
    request = PlanRequest(
        model=get_model("google/gemma-4-31B-it").spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        context_tokens=16384,
        max_model_len=16384,
        overhead=overhead_profile("vllm", version="0.26.0", use_v2_model_runner=False),
    )
    command = launch_commands(request, plan(request))["vllm"]
    assert command.startswith("VLLM_USE_V2_MODEL_RUNNER=0 vllm serve google/gemma-4-31B-it "), command


@pytest.mark.parametrize(
    ("version", "flag", "words"),
    [
        ("0.19.1", "--use-v2-model-runner", "vLLM 0.19.1 runs Model Runner V2 only as an experiment"),
        ("0.34.0", "--no-use-v2-model-runner", "vLLM 0.34.0 has no VLLM_USE_V2_MODEL_RUNNER"),
        ("0.34.0", "--use-v2-model-runner", "vLLM 0.34.0 has no VLLM_USE_V2_MODEL_RUNNER"),
    ],
)
def test_a_release_without_the_choice_refuses_it_by_name(
    capsys: pytest.CaptureFixture[str], version: str, flag: str, words: str
) -> None:
    assert main([*BOOT, "--engine-version", version, flag]) == 2
    assert words in capsys.readouterr().err


def test_the_v1_runner_where_it_is_the_releases_own_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """Before 0.22.0 the V1 runner is the release's: a 0 is what it runs anyway."""
    default = _kv_gib(capsys, "--engine-version", "0.19.1")
    assert _kv_gib(capsys, "--engine-version", "0.19.1", "--no-use-v2-model-runner") == pytest.approx(default)


def test_other_engines_refuse_it(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["fit", "--model", "google/gemma-4-31B-it", "--gpu", "b300-sxm", "--context", "16384"]
    assert main([*flags, "--engine", "sglang", "--no-use-v2-model-runner"]) == 2
    assert "SGLang has no VLLM_USE_V2_MODEL_RUNNER setting" in capsys.readouterr().err

"""``--skip-mm-profiling``: the vision tower is loaded, its encoder is not profiled.

vLLM 0.28.0 ``v1/worker/gpu_model_runner.py:6558-6566`` (``profile_run``): with ``mm_config.skip_mm_profiling``
the runner logs "Skipping memory profiling for multimodal encoder and encoder cache." and runs neither
``_get_mm_dummy_batch`` nor ``embed_multimodal`` (0.27.1 the same at ``:6437``; the field: 0.28.0
``config/multimodal.py:217``, the flag ``engine/arg_utils.py:1354``). So the plan holds no encoder profile: neither
the encoder outputs the profile holds (``encoder_bytes``) nor the non-torch memory it leaves
(:mod:`planner.engines.vllm.encoder_memory`); the tower's weights stay. The flag came with 0.10.1 (the wheels'
parsers, ``tests/fixtures/reference/engine-flags.json``: added in 0.10.1, absent in 0.10.0; 0.10.2
``engine/arg_utils.py:790``).
"""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.core.overhead import StageContext
from planner.engines.registry import overhead_profile
from planner.engines.vllm.encoder_memory import profiles_encoder, stage_encoder_non_torch
from planner.engines.vllm.flags import FLAG_RULES
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.report import knob_flags
from planner.engines.vllm.versions import first_release_with

QWEN38 = get_model("Qwen/Qwen3.8-27B").spec
RTX5090 = get_gpu("rtx-5090")


def _ctx() -> StageContext:
    return StageContext(
        model=QWEN38, gpu_memory_bytes=RTX5090.engine_visible_bytes or RTX5090.memory_bytes, tensor_parallel=1,
        pipeline_parallel=1, is_last_stage=True, weights_format="bf16", gpu_name=RTX5090.name,
    )  # fmt: skip


def test_no_encoder_profile_under_the_flag() -> None:
    """Without the flag the RTX 5090 plans 41,312 B x 16,384 item tokens (0.63 GiB; 46,417 B and 0.71 GiB until make
    calibrate refit it beside the MTP drafter's buffers, 2026-12-07, fifty-fifth session; 42,337 B and 0.65 GiB until
    FlashInfer's workspace was placed in FULL's first capture and make calibrate refit the encoder amount, 2026-12-07;
    51,796 B and 0.79 GiB until make calibrate refitted it without club-3090 #851's under-counted INT4 weights) of
    non-torch memory and the fitted encoder outputs; with it neither."""
    profiled = VllmProfile(engine_version="0.28.0")
    skipped = VllmProfile(engine_version="0.28.0", skip_mm_profiling=True)
    assert (
        # 41_312 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
        stage_encoder_non_torch(profiled, _ctx()) == 37_217 * 16_384
    )  # 46,417 until the drafter's buffers, 42,337 until the graph22 refit (51,796 before)
    assert profiled.stage_terms(_ctx()).encoder == profiled.fitted.encoder_bytes > 0
    assert stage_encoder_non_torch(skipped, _ctx()) == 0
    assert skipped.stage_terms(_ctx()).encoder == 0


def test_the_tower_is_still_loaded_under_the_flag() -> None:
    skipped = VllmProfile(engine_version="0.28.0", skip_mm_profiling=True)
    assert skipped.loads_encoder(QWEN38) is True
    assert profiles_encoder(skipped, QWEN38) is False


def test_the_flag_is_in_the_command() -> None:
    assert "--skip-mm-profiling" in knob_flags(VllmProfile(engine_version="0.28.0", skip_mm_profiling=True), QWEN38)


def test_the_flag_is_refused_before_its_release() -> None:
    assert first_release_with(FLAG_RULES["skip_mm_profiling"]) == "0.10.1"
    overhead_profile("vllm", version="0.10.1", skip_mm_profiling=True)
    with pytest.raises(PlannerError, match=r"vLLM 0\.9\.2 has no --skip-mm-profiling: the flag came with 0\.10\.1"):
        overhead_profile("vllm", version="0.9.2", skip_mm_profiling=True)


def test_the_encoder_amount_is_planned_on_cuda_alone() -> None:
    """The amount per item token is fitted on CUDA start-ups (:mod:`planner.engines.vllm.encoder_memory`); on the
    MI300X HIP's fitted non-torch amount (``cdna3_non_torch``, fitted without it, bench/calibrate_hip.py) already
    holds what the three public Gemma 4 boots print, which the amount took 0.10-0.24 GiB over
    (tests/fidelity/test_blind_2026_12g.py). A CUDA device plans it, a ROCm one does not."""
    from planner.engines.platform import vllm_platform

    profiled = VllmProfile(engine_version="0.31.0")
    mi300x, h100 = get_gpu("mi300x"), get_gpu("h100-sxm-80gb")
    on_rocm = _ctx().model_copy(update={"platform": vllm_platform(mi300x), "gpu_name": mi300x.name})
    on_cuda = _ctx().model_copy(update={"platform": vllm_platform(h100), "gpu_name": h100.name})
    assert (
        # 41_312 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
        stage_encoder_non_torch(profiled, on_cuda) == 37_217 * 16_384
    )  # 46,417 until the drafter's buffers, 42,337 until the graph22 refit (51,796 before)
    assert stage_encoder_non_torch(profiled, on_rocm) == 0

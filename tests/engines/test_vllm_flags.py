"""A launch flag is planned only on a release that defines it (:mod:`planner.engines.vllm.flags`); each first
release read in the ``engine/arg_utils.py`` of the PyPI wheels (``pip download --no-deps vllm==X``): the
release before has no such argument, so its ``vllm serve`` stops at the flag."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.core.overhead import parse_version
from planner.core.units import GiB
from planner.engines.registry import get_engine, overhead_profile
from planner.engines.settings import BY_NAME
from planner.engines.vllm.flags import FLAG_RULES
from planner.engines.vllm.versions import first_release_with, known_releases
from planner.planning.plan import PlanRequest, plan

# setting, value, the last release without the flag, the first with it (both wheels read)
FIRST = [
    ("kv_cache_memory_bytes", 4 * GiB, "0.10.1", "0.10.2"),  # 0.10.2 engine/arg_utils.py:744
    ("max_cudagraph_capture_size", 16, "0.11.0", "0.11.1"),  # 0.11.1 :1124; 0.11.0 has --cuda-graph-sizes only
    ("language_model_only", True, "0.16.0", "0.17.0"),  # 0.17.0 :1029
    ("no_enable_extensible_kv_cache", True, "0.33.0", "0.34.0"),  # 0.34.0 :1412-1415
]


@pytest.mark.parametrize(("setting", "value", "before", "since"), FIRST)
def test_a_flag_is_refused_by_name_before_its_release(setting: str, value: object, before: str, since: str) -> None:
    assert first_release_with(FLAG_RULES[setting]) == since
    overhead_profile("vllm", version=since, **{setting: value})
    with pytest.raises(PlannerError, match=f"vLLM {before} has no {BY_NAME[setting].flag}: the flag came with {since}"):
        overhead_profile("vllm", version=before, **{setting: value})


def test_a_flag_not_given_is_not_refused() -> None:
    assert overhead_profile("vllm", version="0.8.5", language_model_only=False, enforce_eager=True)


def test_every_release_gated_flag_is_a_launch_setting_with_a_rule() -> None:
    """Adding a gated flag means a setting of planner.engines.settings and a versions.toml rule on from a release
    the planner offers (or between two it offers)."""
    releases = known_releases()
    for setting, rule in FLAG_RULES.items():
        assert setting in BY_NAME, f"{setting}: declare it in planner/engines/settings.py"
        since = first_release_with(rule)
        first = releases[0]
        assert parse_version(first) <= parse_version(since), f"{rule}: {since} is before the planner's {first}"


def test_vllm_before_data_parallel_runs_one_server_per_replica() -> None:
    """``--data-parallel-size`` is first in the 0.8.3 wheel's ``engine/arg_utils.py`` (:429): two replicas
    under 0.7.2 are two ``vllm serve`` processes, each on its own GPUs, which the command says instead of passing
    a flag the release stops at."""
    gpu = get_gpu("h100-sxm-80gb")
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-8B").spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        gpu_count=2,
        tensor_parallel=1,
        overhead=overhead_profile("vllm", version="0.7.2"),
    )
    result = plan(request)
    assert result.replicas == 2
    note, command = get_engine("vllm").launch_command(request, result, request.overhead).split("\n")  # type: ignore[arg-type]
    assert "--data-parallel-size" not in command and command.startswith("vllm serve meta-llama/Llama-3.1-8B")
    assert note == (
        "# vLLM 0.7.2 has no --data-parallel-size (it came with 0.8.3): run this command once per replica, 2 in all, "
        "each on its own GPU (CUDA_VISIBLE_DEVICES), behind a load balancer"
    )
    newer = request.model_copy(update={"overhead": overhead_profile("vllm", version="0.8.5")})
    assert "--data-parallel-size 2" in get_engine("vllm").launch_command(newer, plan(newer), newer.overhead)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("version", "flag"),
    [
        ("0.7.2", "--limit-mm-per-prompt image=2,video=2"),
        ("0.8.5", '--limit-mm-per-prompt \'{"image": 2, "video": 2}\''),
        ("0.34.0", '--limit-mm-per-prompt \'{"image": 2, "video": 2}\''),
    ],
)
def test_images_per_prompt_in_the_form_the_release_parses(version: str, flag: str) -> None:
    """0.7.2 reads ``--limit-mm-per-prompt`` with ``nullable_kvs`` (``KEY=VALUE`` items: "Each item should be in the
    form KEY=VALUE", ``engine/arg_utils.py`` :596-598; 0.8.4 :670-672 still); 0.8.5 takes JSON (``get_kwargs``
    ``optional_type(json.loads)``, :673-674), and from 0.10.1 only JSON (no ``nullable_kvs`` in the wheel)."""
    from planner.engines.vllm.report import knob_flags

    profile = overhead_profile("vllm", version=version, limit_mm_per_prompt=2)
    assert knob_flags(profile) == f" {flag}"  # type: ignore[arg-type]


def test_vllm_reads_the_models_length_with_a_linear_rope_factor() -> None:
    """vLLM's _get_and_verify_max_len multiplies the config's maximum by a linear or dynamic RoPE factor (0.19.0
    vllm/config/model.py :2106-2130, 0.31.0 :2539-2570), Gemma 3 excepted: a model with linear x2 at twice its
    maximum was refused with 'greater than the derived max_model_len'."""
    from model_catalog import get_gpu, get_model
    from planner.assessment.assess import assess
    from planner.core.blocks import RopeScaling
    from planner.engines.registry import overhead_profile
    from planner.planning.plan import PlanRequest

    gpu = get_gpu("h200-sxm-141gb")
    base = get_model("meta-llama/Llama-3.1-8B").spec
    stretched = base.model_copy(update={"rope_scaling": RopeScaling(rope_type="linear", factor=2)})
    for model, refused in ((stretched, False), (base, True)):
        request = PlanRequest(
            model=model, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True), overhead=overhead_profile("vllm"),
            context_tokens=200_000, max_model_len=200_000,
        )  # fmt: skip
        a = assess(request)
        assert a.report is not None and (a.report.failure_kind == "max-model-len") == refused, a.report.failure
    gemma = get_model("google/gemma-3-27b-it").spec  # linear x8 already in its 131,072: not applied
    request = PlanRequest(
        model=gemma, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True), overhead=overhead_profile("vllm"),
        context_tokens=200_000, max_model_len=200_000,
    )  # fmt: skip
    a = assess(request)
    assert a.report is not None and a.report.failure_kind == "max-model-len"


@pytest.mark.parametrize(("gpu_id", "half"), [("t4", True), ("v100-sxm2-32gb", True), ("a100-sxm-80gb", False)])
def test_a_bf16_checkpoint_below_ampere_is_served_as_fp16(gpu_id: str, half: bool) -> None:
    """vLLM 0.6.4 on a T4 had no --dtype half in its command: up to 0.8.5 it stops with "Bfloat16 is only supported
    on GPUs with compute capability of at least 8.0 ... --dtype=half" (0.8.5 v1/worker/gpu_worker.py:346); 0.9.0 falls
    back itself (config.py:3086-3101). The flag runs on every release."""
    from model_catalog import get_gpu, get_model
    from planner.assessment.assess import assess
    from planner.engines.launch import launch_commands
    from planner.engines.registry import overhead_profile
    from planner.planning.plan import PlanRequest

    gpu = get_gpu(gpu_id)
    for version in ("0.6.4", "0.31.0"):
        request = PlanRequest(
            model=get_model("meta-llama/Llama-3.2-3B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
            overhead=overhead_profile("vllm", version=version),
        )  # fmt: skip
        a = assess(request)
        assert ("--dtype half" in launch_commands(a.request, a.result)["vllm"]) == half

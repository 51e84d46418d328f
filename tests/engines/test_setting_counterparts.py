"""A launch setting an engine does not plan names the engine's own flag for the same thing, so the reader knows
where it lives there (before: only "SGLang has no --max-num-seqs setting"). SGLang's flags, each planned now: 0.5.4
``srt/server_args.py`` ``--max-running-requests`` :1806, ``--max-total-tokens`` :1818, ``--chunked-prefill-size``
:1825, ``--cuda-graph-max-bs`` :2858, ``--disable-cuda-graph`` :2870 (tests/engines/test_sglang_launch_settings.py);
llama.cpp's slots are ``-np``, which the planner sets from the target users; vLLM's block count is
``--num-gpu-blocks-override``."""

from __future__ import annotations

import pytest

from planner.bounds.errors import PlannerError
from planner.engines.registry import overhead_profile


@pytest.mark.parametrize(
    ("engine", "setting", "value", "counterpart"),
    [
        ("llamacpp", "max_num_seqs", 8, "-np"),
        ("vllm", "max_total_tokens", 100_000, "--num-gpu-blocks-override"),
    ],
)
def test_a_setting_not_planned_names_the_engines_own(
    engine: str, setting: str, value: object, counterpart: str
) -> None:
    with pytest.raises(PlannerError) as refused:
        overhead_profile(engine, **{setting: value})
    message = str(refused.value)
    assert "has no --" in message and f"its own {counterpart}" in message and "not planned here" in message, message


@pytest.mark.parametrize(
    ("setting", "field", "flag"),
    [
        ("max_num_seqs", "max_running_requests", "--max-running-requests"),
        ("max_num_batched_tokens", "chunked_prefill_size", "--chunked-prefill-size"),
        ("max_cudagraph_capture_size", "cuda_graph_max_bs", "--cuda-graph-max-bs"),
    ],
)
def test_sglang_plans_its_own_batch_settings(setting: str, field: str, flag: str) -> None:
    """The three SGLang plans (its chunk and graph batch enter the default mem_fraction_static; the running
    requests cap what is served at once), under its own names."""
    from planner.engines.registry import get_engine

    assert getattr(overhead_profile("sglang", **{setting: 8}), field) == 8
    assert get_engine("sglang").flag_for(setting) == flag


def test_a_setting_without_a_counterpart_says_only_that() -> None:
    with pytest.raises(PlannerError, match=r"SGLang has no --no-enable-extensible-kv-cache setting$"):
        overhead_profile("sglang", no_enable_extensible_kv_cache=True)


def test_every_unplanned_flag_is_a_launch_setting_the_engine_does_not_plan() -> None:
    """An engine's ``setting_unplanned`` (its own flag of that name, not planned) names a declared launch setting it
    takes no field for, with a reason: the refusal says the flag is not planned, never that the engine lacks it."""
    from planner.engines.registry import engine_names, get_engine
    from planner.engines.settings import BY_NAME

    for name in engine_names():
        engine = get_engine(name)
        for setting, why in engine.setting_unplanned.items():
            assert setting in BY_NAME and setting not in engine.setting_fields and why, (name, setting)
            assert engine.untaken(setting).startswith(f"{engine.label}'s {BY_NAME[setting].flag} is not planned")

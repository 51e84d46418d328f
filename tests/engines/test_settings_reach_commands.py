"""No silent setting: every launch setting an engine takes (:func:`planner.engines.registry.settings_taken`) changes
its launch command when set, for every registered engine; a value the engine's default release refuses is refused
by name (a flag that came later), never dropped from the command."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.engines.registry import engine_names, engine_profile, get_engine, settings_taken
from planner.engines.settings import EngineSetting, SettingValue
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")
GEMMA = get_model("google/gemma-3-27b-it").spec  # a VLM with sliding windows: every setting applies to it
# but data-parallel attention, which splits a mixture-of-experts model's experts over two ranks or more, and audio's
# own limit, which only a model with an audio tower takes (vLLM ignores a modality the model lacks)
MOE_ON_TWO = {
    "enable_dp_attention": (get_model("Qwen/Qwen3-30B-A3B").spec, 2),
    "limit_mm_audio": (get_model("google/gemma-4-E2B-it").spec, 1),
}
COUNTS = {"max_num_batched_tokens": 4096, "max_num_seqs": 7, "max_cudagraph_capture_size": 64,
          "max_total_tokens": 100_000, "limit_mm_per_prompt": 2, "limit_mm_audio": 0}  # fmt: skip


def changed_value(setting: EngineSetting) -> SettingValue:
    """A value other than the engine's default for ``setting``."""
    if setting.kind == "flag":
        return True
    if setting.kind == "switch":  # given either way it is said; off is not a dense model's default in any release
        return False
    if setting.kind == "choice":
        return setting.choices[-1]
    if setting.kind == "bytes":
        return 8 * 2**30
    return COUNTS[setting.name]


def _command(engine: str, setup: str | None = None, **settings: SettingValue) -> str:
    profile = engine_profile(engine, **settings)
    model, gpus = MOE_ON_TWO.get(setup or "", (GEMMA, 1))
    request = PlanRequest(
        model=model, gpu=H100, gpu_memory_bytes=H100.memory_bytes, gpu_count=gpus, context_tokens=8192,
        max_model_len=8192, overhead=profile,
    )  # fmt: skip
    return get_engine(engine).launch_command(request, plan(request), profile)


@pytest.mark.parametrize(
    ("engine", "setting"),
    [(engine, setting) for engine in engine_names() for setting in settings_taken(engine)],
    ids=lambda v: v if isinstance(v, str) else v.name,
)
def test_every_setting_an_engine_takes_reaches_its_command(engine: str, setting: EngineSetting) -> None:
    try:
        changed = _command(engine, setting.name, **{setting.name: changed_value(setting)})
    except PlannerError as exc:  # the default release predates the flag: said, with the release that has it
        assert setting.flag in str(exc) and "came with" in str(exc)
        return
    unset = _command(engine, setting.name)
    assert changed != unset, f"{engine}: {setting.flag} set changes nothing in the launch command"

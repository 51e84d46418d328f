"""Models with linear-attention or state-space layers (Qwen3.5/3.6/3.8's Gated DeltaNet, Mamba hybrids): the
engines whose state pools are planned plan them; SGLang and TensorRT-LLM, which size the states' pool out of the
same budget by rules not modelled here, refuse them by name (before, both planned the whole budget as KV for the
full-attention layers: Qwen3.6-27B on an H100 at 32k "held 182.9k tokens" under SGLang and 392.3k under
TensorRT-LLM, where vLLM's default 1,024 sequences would not start for want of state blocks)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.engines.registry import engine_names, get_engine, overhead_profile
from planner.planning.plan import PlanRequest

H100 = get_gpu("h100-sxm-80gb")


def _request(model: str, engine: str) -> PlanRequest:
    return PlanRequest(
        model=get_model(model).spec, gpu=H100, gpu_memory_bytes=H100.memory_bytes_for(True),
        context_tokens=32768, max_model_len=32768, overhead=overhead_profile(engine),
    )  # fmt: skip


@pytest.mark.parametrize("engine", sorted(engine_names()))
def test_a_hybrid_model_is_planned_or_refused_by_name(engine: str) -> None:
    hybrid, plain = _request("Qwen/Qwen3.6-27B", engine), _request("Qwen/Qwen3-8B", engine)
    assert get_engine(engine).refusal(plain) is None
    reason = get_engine(engine).refusal(hybrid)
    if engine in ("sglang", "trtllm"):
        assert reason is not None and "not planned here" in reason and "vLLM" in reason, reason
        with pytest.raises(PlannerError, match="state"):
            get_engine(engine).check(hybrid)
    else:
        assert reason is None


def test_every_engine_says_whether_it_plans_state_layers() -> None:
    """Registry completeness: an engine either plans the states (vLLM's state blocks, llama.cpp's per-slot
    recurrent cache) or declares why not."""
    planned = {"vllm", "llamacpp"}
    for name in engine_names():
        assert (name in planned) != bool(get_engine(name).support.state_layers_refusal), name


def test_the_advisor_runs_a_hybrid_model_only_on_engines_that_plan_its_states() -> None:
    """The advisor's engine choice (``planner.advisor.support.runner``) skips them; asked for SGLang alone, it says
    the engine's reason (not "no engine runs bf16 weights for a mixture-of-experts model")."""
    from planner.advisor.support import runner, why_not

    plain = runner(H100, "bf16", "bf16", True, ("sglang",))
    assert plain is not None and plain.engine == "sglang"
    assert runner(H100, "bf16", "bf16", True, ("sglang",), state_layers=True) is None
    found = runner(H100, "bf16", "bf16", True, state_layers=True)
    assert found is not None and found.engine == "vllm"
    why = why_not(H100, "bf16", "bf16", True, ("sglang",), state_layers=True)
    assert why == get_engine("sglang").support.state_layers_refusal

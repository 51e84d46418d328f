"""llama.cpp with a draft model (an outside review, 2026-12-05): the plan held a BF16 draft (2.47 GB) where the
command loads its Q4_K_M file; the draft context's own KV cache was not counted; a draft whose vocabulary is not
the target's was planned (llama.cpp refuses it: common/speculative.cpp, common_speculative_are_compatible)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.core.params import parameter_breakdown
from planner.core.weights import weights_bytes
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.launch import launch_commands
from planner.engines.registry import engine_profile, get_engine
from planner.planning.plan import PlanRequest, plan

RTX_4090 = get_gpu("rtx-4090")
LLAMA_1B = get_model("meta-llama/Llama-3.2-1B").spec


def _request(target: str = "meta-llama/Llama-3.1-8B", kv: str = "fp16") -> PlanRequest:
    return PlanRequest(
        model=get_model(target).spec,
        gpu=RTX_4090,
        gpu_memory_bytes=RTX_4090.memory_bytes_for(True, None),
        weights="q4_k_m",
        kv_dtype=kv,  # type: ignore[arg-type]
        context_tokens=8_192,
        overhead=engine_profile("llamacpp"),
        deployment=DeploymentOptions(speculative=SpeculativeOptions(method="draft", draft_model=LLAMA_1B)),
    )


def test_the_draft_is_planned_as_the_command_loads_it() -> None:
    request = _request()
    result = plan(request)
    assert result.stages[0].draft_bytes == weights_bytes(parameter_breakdown(LLAMA_1B), "q4_k_m")
    assert "--model-draft Llama-3.2-1B-Q4_K_M.gguf" in launch_commands(request, result)["llamacpp"]


def test_the_draft_contexts_cache_is_counted_and_said() -> None:
    """8,192 cells of Llama 3.2 1B's cache (16 layers x 8 KV heads x 64 x 2 x 2 bytes) in f16: 256 MiB; in q8_0,
    the command gives the draft the target's cache type (its default is f16)."""
    for kv, per_token, cache in (("fp16", 32_768, None), ("int8", 17_408, "q8_0")):
        request = _request(kv=kv)
        result = plan(request)
        report = get_engine("llamacpp").report(request, result, request.overhead)  # type: ignore[arg-type]
        assert f"holds its own KV cache: {8_192 * per_token / 2**20:,.2f} MiB on the GPU" in " ".join(report.notes)
        command = launch_commands(request, result)["llamacpp"]
        assert ("--cache-type-k-draft" in command) == (cache is not None)
        if cache:
            assert f"--cache-type-k-draft {cache} --cache-type-v-draft {cache}" in command


def test_a_draft_of_another_tokenizer_is_refused() -> None:
    with pytest.raises(PlannerError, match="must share the target's tokenizer"):
        plan(_request("Qwen/Qwen3-8B"))

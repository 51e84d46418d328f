"""llama.cpp beyond one server: llama-server splits layers over the GPUs of its own machine; across servers it
needs its RPC backend (rpc-server, --rpc), which is not planned. Llama 3.1 405B over 16 H100s had been planned
with one llama-server and a 16-entry --tensor-split (an outside review, 2026-12-05)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank
from planner.bounds.errors import PlannerError
from planner.engines.registry import engine_profile, get_engine
from planner.planning.plan import PlanRequest

H100 = get_gpu("h100-sxm-80gb")
LLAMA_405B = get_model("meta-llama/Llama-3.1-405B").spec


def _request(gpus: int) -> PlanRequest:
    return PlanRequest(
        model=LLAMA_405B,
        gpu=H100,
        gpu_memory_bytes=H100.engine_visible_bytes,
        gpu_count=gpus,
        tensor_parallel=gpus,
        weights="q4_k_m",
        context_tokens=8_192,
        overhead=engine_profile("llamacpp"),
    )


def test_more_gpus_than_a_server_are_refused_with_the_rpc_backend_named() -> None:
    assert get_engine("llamacpp").refusal(_request(16)) == (
        "llama.cpp splits a model over the GPUs of one machine; 16 GPUs are more than one server's 8: across "
        "servers it needs its RPC backend (rpc-server, --rpc), not planned here; plan at most 8 GPUs a replica"
    )
    assert get_engine("llamacpp").refusal(_request(8)) is None
    assert get_engine("vllm").refusal(_request(16).model_copy(update={"weights": "fp8"})) is None


def test_the_advisor_rejects_it_with_that_reason_and_does_not_fail() -> None:
    """Rented (no host to limit the count), 16 GPUs a replica reach the assessment, whose refusal had escaped as
    an error ending the ranking."""
    workload = Workload.fixed_length(
        8_192, concurrent_conversations=2, pricing="cloud", engines=("llamacpp",), weights=("q4_k_m",)
    )
    ranking = rank(LLAMA_405B, workload, gpus=[H100], counts=(8, 16))
    wide = [r for r in ranking.rejected if r.tensor_parallel == 16 and r.kv_dtype != "fp8"]
    assert wide and all(r.reason == "no-engine" and "RPC backend" in r.detail for r in wide)
    assert all(o.tensor_parallel <= 8 for o in ranking.options)


def test_plan_refuses_it_too() -> None:
    from planner.assessment.assess import assess

    with pytest.raises(PlannerError, match="RPC backend"):
        assess(_request(16))

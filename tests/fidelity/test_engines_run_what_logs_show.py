"""An engine's support table may not refuse what a public start-up log shows it running: every start-up in the
fidelity cases (in scope, not a failed start) is a set-up its engine ran on that GPU, so the engine's declared
platforms (planner/engines/platforms/*.toml) must cover its weights and KV dtype there. A refusal here is the
planner saying what is not so (``fit`` and the advisor would refuse a set-up people run)."""

from __future__ import annotations

import pytest

from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.core.overhead import EngineProfile
from planner.engines.registry import engine_of

# Start-ups whose set-up the planner knowingly does not model, with the refusal it gives: a new entry needs a reason.
NOT_MODELLED = {
    # vLLM 0.20+'s int8_per_token_head cache (a CUDA-graph point only; its KV pool is not scored)
    "vllm-0.23-2x3090-nvlink-qwen36-27b-fp8-mtp3-graphs-club3090-434": "--kv-cache-dtype int8_per_token_head",
}
STARTED = [
    c for c in load_cases() if not c.get("failed") and not setup_of(c).out_of_scope and setup_of(c).engine != "generic"
]


@pytest.mark.parametrize("case", STARTED, ids=[c["id"] for c in STARTED])
def test_the_engine_runs_what_its_log_shows(case: dict[str, object]) -> None:
    request = build_request(case, setup_of(case))
    assert isinstance(request.overhead, EngineProfile)
    engine = engine_of(request.overhead)[0]
    refusal = engine.refusal(request)
    if case["id"] in NOT_MODELLED:
        assert refusal is not None and NOT_MODELLED[str(case["id"])] in refusal, refusal
    else:
        assert refusal is None, (case["id"], refusal, case["source"])

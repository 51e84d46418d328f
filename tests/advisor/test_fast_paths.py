"""The advisor's shortcuts give exactly what the plain calls give (hypothesis over models, GPUs, splits, precisions,
lengths, targets and engines).

- ``plan_basis(request, like=...)``: the basis of the same request without its GPU, the GPU's parts re-read;
- :class:`planner.advisor.evaluate.Evaluator`: its first check (the GPU-less basis on the GPU), its request (the
  basis's on the GPU) and its assessment (a plan made once with that check, the engine's report without its notes)
  against ``plan_basis``/``stages_at``, :meth:`Evaluator.request` and ``assess()`` of the same request; its engine
  choice against ``runner``/``why_not``;
- :meth:`planner.engines.base.Engine.report_figures`: every registered engine's report less its notes;
- :func:`planner.advisor.rank`: the whole ranking against one whose Evaluator makes every call afresh.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from model_catalog import get_model, load_gpus, load_hosts, running_costs
from planner.advisor import Workload, rank
from planner.advisor import ranking as ranking_module
from planner.advisor.build import Built
from planner.advisor.costs import Assumptions, HostChoice, SystemCost, choose_host, cloud_cost, purchase_cost
from planner.advisor.evaluate import Evaluator
from planner.advisor.options import Candidate, purchase_text
from planner.advisor.suitability import rack_only
from planner.advisor.support import SupportRow, runner, runners, why_not
from planner.advisor.throughput import Setup
from planner.assessment.assess import Assessment, assess
from planner.bounds.errors import PlannerError
from planner.core.model import ModelSpec
from planner.core.overhead import EngineProfile, OverheadModel
from planner.core.parallel import parallel_problem
from planner.engines.registry import engine_of
from planner.planning.plan import MemoryFit, fit_of, plan_basis, stages_at

MODELS = (
    "meta-llama/Llama-3.1-8B",  # dense
    "meta-llama/Llama-3.1-70B",
    "Qwen/Qwen3-30B-A3B",  # MoE
    "Qwen/Qwen3-Next-80B-A3B-Instruct",  # hybrid: linear attention
    "google/gemma-3-27b-it",  # sliding window, vision tower
    "openai/gpt-oss-20b",  # MXFP4 experts (kernel padding differs by GPU)
    "ibm-granite/granite-4.0-h-small",  # Mamba hybrid MoE
)
GPUS = load_gpus()
# The common precisions and "any engine" drawn more often: most other draws have no engine to run them.
WEIGHTS = ("bf16", "bf16", "bf16", "fp8", "fp8", "int8", "int4-awq", "mxfp4", "nvfp4", "q8_0", "q4_k_m")
ENGINES = (None, None, None, None, ("sglang",), ("trtllm",), ("llamacpp",))
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _evaluator(model: str, context: int, users: int, engines: tuple[str, ...] | None) -> Evaluator:
    spec = get_model(model).spec
    workload = Workload.fixed_length(
        context, concurrent_conversations=users, engines=engines, include_personal=True, include_restricted=True
    )
    costs = Assumptions.from_catalog(running_costs(), None, None, None)
    return Evaluator(spec, workload, None, 16, list(load_hosts().values()), costs)


def _without_notes(a: Assessment) -> Assessment:
    if a.report is None:
        return a
    return a.model_copy(update={"report": a.report.model_copy(update={"notes": ()})})


def _plain_fit(ev: Evaluator, c: Candidate, overhead: OverheadModel, memory: int) -> MemoryFit:
    """The first check as it was first written: the GPU-less basis, then its stages on the GPU."""
    basis = plan_basis(ev.request(c, overhead, 10**12).model_copy(update={"gpu": None}))
    on_gpu = basis.model_copy(update={"request": basis.request.model_copy(update={"gpu": c.gpu})})
    return fit_of(basis, stages_at(on_gpu, memory), 1)


def _users(ev: Evaluator, c: Candidate, overhead: OverheadModel) -> int | None:
    fixed = isinstance(overhead, EngineProfile) and engine_of(overhead)[0].fixed_slots
    return math.ceil(max(1, ev.target) / c.replicas) if fixed else None


@FAST
@given(
    model=st.sampled_from(MODELS),
    gpu=st.sampled_from(sorted(GPUS)),
    tp=st.sampled_from((1, 2, 4, 8)),
    replicas=st.sampled_from((1, 2)),
    weights=st.sampled_from(WEIGHTS),
    kv=st.sampled_from(("bf16", "fp8")),
    context=st.integers(256, 200_000),
    users=st.integers(1, 400),
    engines=st.sampled_from(ENGINES),
)
# The GPU changes the weights as loaded: Marlin's FP8 scales on Ampere, MXFP4 experts padded on Blackwell.
@example("meta-llama/Llama-3.1-8B", "a100-sxm-80gb", 1, 2, "fp8", "bf16", 8192, 20, None)
@example("openai/gpt-oss-20b", "b200-sxm", 2, 1, "mxfp4", "fp8", 32768, 100, None)
def test_evaluator_matches_the_plain_calls(
    model: str,
    gpu: str,
    tp: int,
    replicas: int,
    weights: str,
    kv: str,
    context: int,
    users: int,
    engines: tuple[str, ...] | None,
) -> None:
    assume(context <= get_model(model).spec.max_position_embeddings)
    ev = _evaluator(model, context, users, engines)
    assume(parallel_problem(ev.model, tp, 1, tp * replicas) is None)
    c = Candidate(GPUS[gpu], tp * replicas, tp, replicas, weights, kv, None)
    rows = ev.runner(c)
    plain_rows = runners(c.gpu, weights, kv, ev.moe, engines, state_layers=ev.state_layers)
    why = why_not(c.gpu, weights, kv, ev.moe, engines, ev.state_layers)
    assert rows == (plain_rows or why)
    if isinstance(rows, str):
        event("no engine runs it")
        return
    row = rows[0]
    assert row == runner(c.gpu, weights, kv, ev.moe, engines, state_layers=ev.state_layers)
    overhead = ev.profile(row.engine)
    memory = ev.memory(c.gpu, overhead)
    assert ev.weights_fit(c, row.engine) == _plain_fit(ev, c, overhead, memory)
    request = ev.request(c, overhead, memory)
    planned = ev._planned_request(c, row.engine)  # the basis's request on the GPU, its memory validated alone
    assert planned == request and planned.model_fields_set == request.model_fields_set
    gpu_less = plan_basis(ev.request(c, overhead, 10**12).model_copy(update={"gpu": None}))
    assert plan_basis(request, like=gpu_less) == plan_basis(request)
    longer = request.model_copy(update={"context_tokens": request.context_tokens + 1})
    assert plan_basis(longer, like=gpu_less) == plan_basis(longer)  # another length: ``like`` is not used
    try:
        expected = assess(ev.request(c, overhead, memory), _users(ev, c, overhead))
    except PlannerError as refused:
        with pytest.raises(PlannerError, match=re.escape(str(refused))):
            ev.assessment(c, row.engine)
        event("the engine refuses it")
        return
    event(f"assessed: {expected.state}")
    assert ev.assessment(c, row.engine) == _without_notes(expected)


class _PlainBuilt(Built):
    """Every set-up and cost computed afresh."""

    def setup(
        self, c: Candidate, row: SupportRow, cached: ModelSpec | None = None, group: int = 1
    ) -> tuple[Setup, float | None, float]:
        # Built's own computation, with nothing kept: a copy of it here had missed the row's other_bits (llama.cpp's
        # gpt-oss GGUF) and disagreed with the ranking by 0.02 ms a prompt (hypothesis found it, 2026-12-06)
        return self._new_setup(c, row, cached or self.model, group)

    def cost(self, c: Candidate, host: HostChoice | None, assumptions: Assumptions) -> SystemCost:
        if self.workload.pricing == "purchase":
            return purchase_cost(c.gpu, c.gpu_count, host, assumptions)
        return cloud_cost(c.gpu, c.gpu_count)

    def purchase(self, c: Candidate, host: HostChoice | None, cost: SystemCost) -> str:
        return purchase_text(c.gpu, c.gpu_count, cost.host_name, cost.hosts, c.gpu.price is not None)


class _PlainEvaluator(Evaluator):
    """The Evaluator with every call made afresh: the plain first check, assess() of each candidate with its notes,
    runner / why_not and the host choice per candidate."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.built = _PlainBuilt(self.model, self.workload, self.params)

    def runner(self, c: Candidate) -> tuple[SupportRow, ...] | str:
        rows = runners(c.gpu, c.weights, c.kv_dtype, self.moe, self.engines(), state_layers=self.state_layers)
        return rows or why_not(c.gpu, c.weights, c.kv_dtype, self.moe, self.engines(), self.state_layers)

    def host(self, c: Candidate, engine: str) -> HostChoice | None:
        return choose_host(c.gpu, c.gpu_count, self.together(c, engine), self.hosts, rack_only(self.workload))

    def weights_fit(self, c: Candidate, engine: str) -> MemoryFit:
        overhead = self.profile(engine)
        return _plain_fit(self, c, overhead, self.memory(c.gpu, overhead))

    def assessment(self, c: Candidate, engine: str) -> Assessment:
        overhead = self.profile(engine)
        return assess(self.request(c, overhead, self.memory(c.gpu, overhead)), _users(self, c, overhead))


RANK_GPUS = ("rtx-4090", "l40s", "h100-sxm-80gb", "a100-sxm-80gb", "mi300x", "apple-m3-max", "b200-sxm", "t4")


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example("google/gemma-3-27b-it", 512, 33, "support-chat", "cloud")  # found 2026-12-05: another engine's pool
@given(
    model=st.sampled_from(MODELS),
    context=st.integers(512, 100_000),
    users=st.integers(1, 300),
    preset=st.sampled_from((None, "support-chat", "rag", "coding-agent")),
    pricing=st.sampled_from(("purchase", "cloud")),
)
def test_rank_matches_plain_evaluation(model: str, context: int, users: int, preset: str | None, pricing: str) -> None:
    spec = get_model(model).spec
    fields: dict[str, object] = {"concurrent_conversations": users, "pricing": pricing, "gpu_ids": RANK_GPUS}
    fields["include_personal"] = True
    if preset is None:
        assume(context <= spec.max_position_embeddings)
        workload = Workload.fixed_length(context, **fields)
    else:
        workload = Workload.from_preset(preset, **fields)
        assume(workload.context_tokens <= spec.max_position_embeddings)
    fast = rank(spec, workload)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(ranking_module, "Evaluator", _PlainEvaluator)
        plain = rank(spec, workload)
    assert fast.model_dump_json() == plain.model_dump_json()

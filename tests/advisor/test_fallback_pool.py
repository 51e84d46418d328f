"""A fallback engine not assessed where its pool kept at another length could not hold the target
(:mod:`planner.advisor.fallback_pool`): what is kept reads no length, the bound holds for every assessment it
stands for (the engine's defaults and the raised fractions), and a slider's rankings equal cold ones."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model_catalog import get_model, load_gpus
from planner.advisor import Workload, rank, reuse
from planner.advisor.evaluate import Evaluator
from planner.advisor.fallback_pool import full_attention, kept_pool
from planner.assessment.assess import assess
from planner.assessment.search import HIGHEST_FRACTION, with_fraction
from planner.bounds.errors import PlannerError
from planner.core.kv import kv_bytes_per_sequence
from planner.engines.registry import engine_profile
from tests.advisor.advisor_requests import advisor_request

GPUS = load_gpus()
MODELS = ("meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-70B", "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-8B")
GPU_IDS = ("h100-sxm-80gb", "a100-sxm-80gb", "l40s", "rtx-4090", "mi300x", "b200-sxm", "t4", "a10g")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.sampled_from(MODELS),
    gpu=st.sampled_from([g for g in GPU_IDS if g in GPUS]),
    tp=st.sampled_from((1, 2, 4, 8)),
    weights=st.sampled_from(("bf16", "fp8", "int8")),
    kv=st.sampled_from(("bf16", "fp8")),
    engine=st.sampled_from(("sglang", "trtllm")),
    lengths=st.lists(st.integers(256, 131_072), min_size=2, max_size=4, unique=True),
)
def test_the_pool_kept_reads_no_length_and_bounds_the_conversations(
    model: str, gpu: str, tp: int, weights: str, kv: str, engine: str, lengths: list[int]
) -> None:
    """At every length the engine's report at its defaults keeps the same pool, and no assessment the bound stands
    for (the defaults, the highest fraction) holds more conversations a replica than the bound."""
    spec = get_model(model).spec
    assert full_attention(spec)
    kept = set()
    for context in lengths:
        try:
            request = advisor_request(
                model, gpu, tp, weights, kv, engine_profile(engine), min(context, spec.max_position_embeddings)
            )
            a = assess(request, notes=False)
        except PlannerError:  # an illegal split, or the engine does not run it
            return
        assert a.report is not None
        pool = kept_pool(a.report)
        kept.add(pool)
        assert pool.fraction is not None
        least = kv_bytes_per_sequence(spec, request.resolved_kv_dtype, request.context_tokens, tp)
        grown = max(0.0, pool.available + max(0.0, HIGHEST_FRACTION - pool.fraction) * pool.total)
        raised = assess(with_fraction(request, HIGHEST_FRACTION), notes=False)
        for held in (a, raised):
            assert math.floor(held.concurrency / held.replicas + 1e-9) <= grown / least + 1e-9
            assert held.conversations // held.replicas <= grown / least + 1e-9
    assert len(kept) == 1


def _ranked(spec_id: str, moves: tuple[int, ...], users: int) -> list[str]:
    spec = get_model(spec_id).spec
    return [rank(spec, Workload.fixed_length(c, concurrent_conversations=users)).model_dump_json() for c in moves]


@pytest.mark.parametrize(
    ("model_id", "moves", "users"),
    [
        ("meta-llama/Llama-3.1-70B", (8192, 24000, 2000, 131072), 50),
        ("meta-llama/Llama-3.1-8B", (4096, 65536, 1000), 200),
        ("Qwen/Qwen3-30B-A3B", (16384, 3000, 40000), 64),
    ],
)
def test_a_slider_ranking_with_fallbacks_left_unassessed_equals_a_cold_one(
    model_id: str, moves: tuple[int, ...], users: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The slider's rankings (each at a new length, the bound then in force) equal rankings made cold at each length;
    and the bound left fallbacks unassessed (before it, each was assessed: 812 over three re-ranks of the 70B)."""
    reuse.clear()
    skipped = 0
    original = Evaluator.pool_short

    def counted(self: Evaluator, *args: object) -> bool:
        nonlocal skipped
        short = original(self, *args)  # type: ignore[arg-type]
        skipped += short
        return short

    monkeypatch.setattr(Evaluator, "pool_short", counted)
    kept = _ranked(model_id, moves, users)
    assert skipped > 0
    cold = []
    for c in moves:
        reuse.clear()
        cold += _ranked(model_id, (c,), users)
    reuse.clear()
    assert kept == cold

"""A ranking at a new context after one at another equals a cold ranking at the new one (planner.advisor.reuse keeps
what reads no length across rank() calls: the plan's stages on each GPU, vLLM's stages in the engine, and the first
checks' outcomes: planner.advisor.screen)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model_catalog import get_model, load_gpus
from planner.advisor import Workload, kept_memory, levers, rank, reuse, screen
from planner.bounds.errors import PlannerError
from planner.bounds.memo import BoundedMemo, ScopedMemo
from planner.core.model import ModelSpec
from planner.engines.registry import engine_names, engine_profile
from planner.engines.vllm import failures
from planner.engines.vllm import stage as vllm_stage
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest

GPUS = list(load_gpus().values())
# dense, MoE, hybrids (Mamba / linear attention), sliding-window (Gemma 2 / 3, gpt-oss: also MoE)
MODELS = (
    "meta-llama/Llama-3.1-8B",
    "meta-llama/Llama-3.1-70B",
    "Qwen/Qwen3-30B-A3B",
    "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "ibm-granite/granite-4.0-h-small",
    "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
    "google/gemma-2-9b",
    "google/gemma-3-27b-it",
    "openai/gpt-oss-20b",
)


MEMOS: tuple[BoundedMemo[Any, Any] | ScopedMemo[Any, Any, Any], ...] = (
    screen._SCREENS,
    failures._SAMPLERS,
    *reuse.KEPT,
    vllm_stage._SCOPES,
)


@contextmanager
def _keeping_nothing() -> Iterator[None]:
    """The memos hold no entry: every candidate computed from scratch (a key too coarse would make a cleared memo
    alias candidates within one ranking too, the same way cold and warm)."""
    sizes = [memo.max_entries for memo in MEMOS]
    reuse.clear()
    for memo in MEMOS:
        memo.max_entries = 0
    try:
        yield
    finally:
        for bounded, size in zip(MEMOS, sizes, strict=True):
            bounded.max_entries = size
        reuse.clear()


def _cold(spec: ModelSpec, workload: Workload, **kw: Any) -> str:
    """The ranking with every memo cleared first, which must equal the one computed keeping nothing."""
    reuse.clear()
    cold = rank(spec, workload, **kw).model_dump_json()
    with _keeping_nothing():
        assert rank(spec, workload, **kw).model_dump_json() == cold
    return cold


def _after(spec: ModelSpec, first: Workload, then: Workload, **kw: Any) -> str:
    reuse.clear()
    rank(spec, first, **kw)
    return rank(spec, then, **kw).model_dump_json()


def _workloads(a: int, b: int, **fields: Any) -> tuple[Workload, Workload]:
    return Workload.fixed_length(a, **fields), Workload.fixed_length(b, **fields)


Case = tuple[ModelSpec, Workload, Workload, dict[str, Any]]


@st.composite
def _cases(draw: st.DrawFn) -> Case:
    spec = get_model(draw(st.sampled_from(MODELS))).spec
    top = min(spec.max_position_embeddings, 131072)
    contexts = st.integers(256, top) | st.sampled_from(sorted({c for c in (512, 4096, 32768, top) if c <= top}))
    fields: dict[str, Any] = {
        "concurrent_conversations": draw(st.integers(1, 300)),
        "pricing": draw(st.sampled_from(["purchase", "cloud"])),
        "include_personal": draw(st.booleans()),
        "min_tokens_per_s_per_user": draw(st.sampled_from([None, 10.0])),
    }
    engines = draw(st.sampled_from([None, ("llamacpp",), ("sglang", "vllm"), ("trtllm", "vllm")]))
    if engines is not None:
        fields["engines"] = engines
    context = draw(contexts)
    then_context = context if draw(st.booleans()) else draw(contexts)  # what is kept at one context, read
    then_fields = fields | {"concurrent_conversations": draw(st.integers(1, 300))}  # ... for other users
    first, then = Workload.fixed_length(context, **fields), Workload.fixed_length(then_context, **then_fields)
    gpus = draw(st.lists(st.sampled_from(GPUS), min_size=3, max_size=10, unique_by=lambda g: g.id))
    kv = draw(st.sampled_from([("bf16", "fp8"), ("fp8",), ("bf16",)]))
    return spec, first, then, {"gpus": gpus, "kv_dtypes": kv}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_ranking_after_another_context_equals_a_cold_one(case: Case) -> None:
    spec, first, then, kw = case
    assert _after(spec, first, then, **kw) == _cold(spec, then, **kw)


def test_long_then_tiny_and_back_over_the_catalog() -> None:
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    long, tiny = _workloads(131072, 512, concurrent_conversations=8)
    assert _after(spec, long, tiny, gpus=GPUS) == _cold(spec, tiny, gpus=GPUS)
    assert _after(spec, tiny, long, gpus=GPUS) == _cold(spec, long, gpus=GPUS)


def test_hybrid_state_pages_follow_the_context() -> None:
    """A Mamba-2 hybrid under vLLM 0.26-0.28 (prefix caching on for hybrids, not yet always 'align': versions.toml)
    holds ceil(max_model_len / block) state pages per request (mode "all"): computed again on a kept vLLM stage."""
    spec = get_model("ibm-granite/granite-4.0-h-small").spec
    short, long = _workloads(2048, 131072, concurrent_conversations=16)
    for kw in ({"gpus": GPUS}, {"gpus": GPUS, "overhead": VllmProfile(engine_version="0.27.0")}):
        assert _after(spec, short, long, **kw) == _cold(spec, long, **kw)
        assert _after(spec, long, short, **kw) == _cold(spec, short, **kw)


def test_a_set_up_refused_at_one_context_starts_at_another() -> None:
    """At 131,072 tokens vLLM refuses the 70B on a 2 x 80 GB split (one request's KV cache does not fit); at 4,096
    it starts: the ranking at 4,096 after the one at 131,072 is the cold one."""
    spec = get_model("meta-llama/Llama-3.1-70B").spec
    long, short = _workloads(131072, 4096, concurrent_conversations=4)
    reuse.clear()
    refused = {
        (r.gpu_id, r.gpu_count, r.tensor_parallel, r.weights, r.kv_dtype)
        for r in rank(spec, long, gpus=GPUS).rejected
        if "To serve at least one request" in r.detail
    }
    assert refused
    warm = rank(spec, short, gpus=GPUS)
    started = {(o.gpu_id, o.gpu_count, o.tensor_parallel, o.weights, o.kv_dtype) for o in warm.options}
    assert refused & started
    assert warm.model_dump_json() == _cold(spec, short, gpus=GPUS)


def test_the_memos_are_bounded() -> None:
    """The entries of every scope (a model under one overhead model) are bounded together: two models over the
    catalog plan more stages and assessments than a bound of 500, which keeps exactly 500 (the bounds themselves:
    8,192 stages that read no length in each memo, 4,096 assessments kept at one length)."""
    assert (reuse.ENTRIES, vllm_stage.LENGTH_FREE_ENTRIES, reuse.AT_LENGTH_ENTRIES) == (8192, 8192, 4096)
    memos = (reuse._STAGES, vllm_stage._SCOPES, reuse._ASSESSMENTS)
    sizes = [memo.max_entries for memo in memos]
    reuse.clear()
    for memo in memos:
        memo.max_entries = 500
    try:
        for model_id in MODELS[:2]:
            rank(get_model(model_id).spec, Workload.fixed_length(1024, concurrent_conversations=4), gpus=GPUS)
        assert [len(memo) for memo in memos] == [500, 500, 500]
    finally:
        for memo, size in zip(memos, sizes, strict=True):
            memo.max_entries = size
        reuse.clear()


def test_llamacpp_whose_working_memory_reads_the_context() -> None:
    """llama.cpp's compute buffer grows with n_ctx: its stages are never kept (reuse.stages_reusable)."""
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    fields: dict[str, Any] = {"concurrent_conversations": 2, "engines": ("llamacpp",), "include_personal": True}
    long, short = _workloads(131072, 2048, **fields)
    assert _after(spec, short, long, gpus=GPUS) == _cold(spec, long, gpus=GPUS)
    assert _after(spec, long, short, gpus=GPUS) == _cold(spec, short, gpus=GPUS)


def test_vllm_v0_whose_profile_batch_reads_the_context() -> None:
    """vLLM V0 profiles max(max_model_len, 2048) tokens and chunks prefill from 32,768: never kept."""
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    v0 = VllmProfile(engine_version="0.6.4")
    short, long = _workloads(4096, 24576, concurrent_conversations=8)
    assert _after(spec, short, long, gpus=GPUS, overhead=v0) == _cold(spec, long, gpus=GPUS, overhead=v0)
    assert _after(spec, long, short, gpus=GPUS, overhead=v0) == _cold(spec, short, gpus=GPUS, overhead=v0)


def test_lever_profiles_leave_the_default_stages_kept() -> None:
    """The levers plan some set-ups under profiles of their own (a lower memory fraction on a T4 and a V100, where
    vLLM's default asks for more than is free): each is a scope of a handful of stages. Under a bound on scopes (4)
    those five pushed the default's ~600 stages out, so every ranking at a new context planned them all again (the
    dashboard's advisor slider: 468 -> 268 ms for the 8B once kept). The bound is on entries in all: a ranking at a
    context plans no vLLM stage it planned at another (at 4,096 tokens after 16,384 and 4,096: the longer context
    raises the fraction of a few set-ups more, whose stages are new there)."""
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    reuse.clear()
    for context in (16384, 4096):
        rank(spec, Workload.fixed_length(context, concurrent_conversations=32), gpus=GPUS)
    planned: list[object] = []
    original = vllm_stage._vllm_stage

    def counted(*args: Any, **kwargs: Any) -> Any:
        planned.append(args)
        return original(*args, **kwargs)

    vllm_stage._vllm_stage = counted  # type: ignore[assignment]
    try:
        ranking = rank(spec, Workload.fixed_length(16384, concurrent_conversations=32), gpus=GPUS)
    finally:
        vllm_stage._vllm_stage = original  # type: ignore[assignment]
    lowered = {o.gpu_id for o in ranking.options if o.engine_fraction_lowered}
    assert lowered, "the case needs set-ups planned under a lever's profile"
    assert planned == []


def test_a_lowered_fraction_kept_across_contexts() -> None:
    """Where vLLM's default fraction asks for more than is free (a T4, a V100, a DGX Spark) the advisor lowers it to
    the highest that starts; what that search finds is kept across contexts (reuse.KeptFraction) only where the
    set-up starts with it: at 131,072 tokens the pool is too small at every fraction, which hides the failures above
    the threshold. Every order of a long, a middle and a short context equals a cold ranking."""
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    gpus = [g for g in GPUS if g.id in ("t4", "v100-sxm2-16gb", "v100-sxm2-32gb", "dgx-spark-gb10")]
    contexts = (131072, 24576, 2048)
    for first in contexts:
        for then in contexts:
            a, b = _workloads(first, then, concurrent_conversations=4)
            assert _after(spec, a, b, gpus=gpus) == _cold(spec, b, gpus=gpus), (first, then)
    lowered = [o for o in rank(spec, Workload.fixed_length(2048, concurrent_conversations=4), gpus=gpus).options]
    assert any(o.engine_fraction_lowered for o in lowered)


def test_a_lowered_fraction_that_does_not_start_is_searched_once_at_its_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the highest fraction free does not start the set-up at a context (the 70B on eight T4s at 131,072
    tokens: the pool too small at every fraction), what the search found is not kept across contexts, but it is at
    that context: a ranking for other users there (the slider's tries) searches no fraction again (before, each
    ranking searched four T4 set-ups again, ~5 ms each), and equals the cold ranking."""
    spec = get_model("meta-llama/Llama-3.1-70B").spec
    searched: list[str] = []
    original = levers.fraction_not_held_back

    def counted(request: PlanRequest, low: float, high: float) -> float | None:
        searched.append(request.gpu.id)
        return original(request, low, high)

    monkeypatch.setattr(levers, "fraction_not_held_back", counted)
    reuse.clear()
    rank(spec, Workload.fixed_length(131072, concurrent_conversations=32))
    assert "t4" in searched
    searched.clear()
    warm = rank(spec, Workload.fixed_length(131072, concurrent_conversations=33)).model_dump_json()
    assert searched == []
    assert warm == _cold(spec, Workload.fixed_length(131072, concurrent_conversations=33))


def _assessed(
    monkeypatch: pytest.MonkeyPatch, spec: ModelSpec, workload: Workload, **kw: Any
) -> tuple[list[PlanRequest], str]:
    """The assessments a ranking makes under the engines' own profiles (planner.assessment.assess.assess as the
    evaluator calls it; not those under a lever's profile: a memory fraction or --max-num-seqs set for the target)
    and its JSON."""
    defaults = {engine_profile(name) for name in engine_names()}
    calls: list[PlanRequest] = []
    original = kept_memory.assess

    def counted(request: PlanRequest, *args: Any, **kwargs: Any) -> Any:
        if request.overhead in defaults:
            calls.append(request)
        return original(request, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(kept_memory, "assess", counted)
        ranking = rank(spec, workload, **kw).model_dump_json()
    return calls, ranking


@pytest.mark.parametrize("context", [131072, 512])
def test_another_count_of_users_at_a_context_seen_assesses_nothing_again(
    monkeypatch: pytest.MonkeyPatch, context: int
) -> None:
    """An assessment reads its request and plan, and the advisor builds neither from the users (but for a
    fixed-slot engine's slots: reuse.Kept): a link for 33 users at a context a link for 32 ranked (the dashboard's
    slider, ``make bench``'s tries) assesses no set-up again under the engines' own profiles (before, all ~500 of
    the 70B over the catalog again), only the few the 32 users' ranking did not reach, and equals the cold
    ranking. (A lever's profile set for the target, a raised fraction or ``--max-num-seqs``, is a profile of its
    own: a few dozen set-ups are assessed under those.)"""
    spec = get_model("meta-llama/Llama-3.1-70B").spec
    reuse.clear()
    first, _ = _assessed(monkeypatch, spec, Workload.fixed_length(context, concurrent_conversations=32))
    again, warm = _assessed(monkeypatch, spec, Workload.fixed_length(context, concurrent_conversations=33))
    assert len(first) > 400
    assert set(again).isdisjoint(first)  # only set-ups the 32 users' ranking did not reach (another engine tried)
    assert len(again) < len(first) / 20
    assert warm == _cold(spec, Workload.fixed_length(context, concurrent_conversations=33))


def test_fixed_slots_are_assessed_again_for_other_users(monkeypatch: pytest.MonkeyPatch) -> None:
    """llama.cpp gives each user a slot of its own (``-np``): another count of users is another launch, assessed
    again, and the ranking equals the cold one."""
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    fields: dict[str, Any] = {"engines": ("llamacpp",), "include_personal": True}
    reuse.clear()
    first, _ = _assessed(
        monkeypatch, spec, Workload.fixed_length(8192, concurrent_conversations=2, **fields), gpus=GPUS
    )
    again, warm = _assessed(
        monkeypatch, spec, Workload.fixed_length(8192, concurrent_conversations=3, **fields), gpus=GPUS
    )
    assert len(first) > 0 and len(again) > len(first) / 2  # a replica of one or two GPUs: 3 slots, not 2
    assert warm == _cold(spec, Workload.fixed_length(8192, concurrent_conversations=3, **fields), gpus=GPUS)


def test_a_gpu_changed_under_its_id_is_planned_again() -> None:
    """What is kept at one context is keyed by the GPU itself, not its id: a dashboard's custom GPU edited between
    two rankings (here the catalog's L40S given Hopper's architecture, which changes the engines and kernels that
    run it) is assessed again, and two different GPUs of one id in one ranking are refused by name."""
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    l40s = next(g for g in GPUS if g.id == "l40s")
    edited = l40s.model_copy(update={"architecture": "Hopper"})
    workload = Workload.fixed_length(8192, concurrent_conversations=16)
    assert _after(spec, workload, workload, gpus=[l40s]) != _cold(spec, workload, gpus=[edited])
    reuse.clear()
    rank(spec, workload, gpus=[l40s])
    assert rank(spec, workload, gpus=[edited]).model_dump_json() == _cold(spec, workload, gpus=[edited])
    with pytest.raises(PlannerError, match="two different GPUs share the id 'l40s'"):
        rank(spec, workload, gpus=[l40s, edited])

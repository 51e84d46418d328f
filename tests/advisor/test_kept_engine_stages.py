"""SGLang's and TensorRT-LLM's stages kept at every length (:data:`planner.advisor.reuse.LENGTH_FREE_STAGES`): their
working memory reads no ``max_model_len``, so a ranking at a new context (the advisor's slider) plans none of their
stages again, and what it ranks equals a cold ranking (every memo cleared) at that context."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model_catalog import get_model, load_gpus
from planner.advisor import Workload, kept_memory, rank, reuse
from planner.core.overhead import OverheadModel
from planner.engines.registry import engine_profile

GPUS = list(load_gpus().values())
MODELS = ("meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-70B", "Qwen/Qwen3-30B-A3B", "google/gemma-3-27b-it")


def _planned_stages(monkeypatch: pytest.MonkeyPatch, engine: str) -> Counter[bool]:
    """Each stage planned (:func:`planner.advisor.reuse.gpu_stages`), counted by whether its profile is the engine's
    default (``False``: a lever's, a raised memory fraction, first asked at this context)."""
    planned: Counter[bool] = Counter()
    original, default = reuse.gpu_stages, engine_profile(engine)

    def counted(request: Any, basis: Any, memory: int, gpu: Any) -> reuse.GpuStages:
        planned[request.overhead == default] += 1
        return original(request, basis, memory, gpu)

    monkeypatch.setattr(kept_memory, "gpu_stages", counted)
    return planned


@pytest.mark.parametrize("engine", ["sglang", "trtllm"])
def test_a_new_context_plans_no_stage_again(engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 70B over the catalog under one engine at 4,096 then 32,768 tokens: every stage of the engine's default
    profile the second ranking reads was planned by the first (before, each was planned again at each length: ~300
    SGLang and ~130 TensorRT-LLM stages in three re-ranks of the 70B over every engine)."""
    spec = get_model("meta-llama/Llama-3.1-70B").spec
    reuse.clear()
    rank(spec, Workload.fixed_length(4096, concurrent_conversations=16, engines=(engine,)), gpus=GPUS)
    planned = _planned_stages(monkeypatch, engine)
    again = rank(spec, Workload.fixed_length(32768, concurrent_conversations=16, engines=(engine,)), gpus=GPUS)
    assert again.options
    assert planned[True] == 0
    reuse.clear()
    cold = rank(spec, Workload.fixed_length(32768, concurrent_conversations=16, engines=(engine,)), gpus=GPUS)
    assert again.model_dump_json() == cold.model_dump_json()
    assert planned[True] > 0  # the cold ranking plans them (the counter reads every call)


def test_only_the_engines_own_profiles_are_kept_at_every_length() -> None:
    """A subclass could read more: only the engines' own classes, beside vLLM V1's, are kept at every length."""
    profiles: dict[str, OverheadModel] = {e: engine_profile(e) for e in ("sglang", "trtllm", "llamacpp", "vllm")}
    assert {e: reuse.stages_kept(p) for e, p in profiles.items()} == {
        "sglang": True,
        "trtllm": True,
        "llamacpp": False,
        "vllm": True,
    }
    assert [reuse.stages_reusable(p) for p in profiles.values()] == [False, False, False, True]


Case = tuple[str, tuple[int, ...], int, tuple[str, ...], list[Any]]


@st.composite
def _cases(draw: st.DrawFn) -> Case:
    model = draw(st.sampled_from(MODELS))
    top = min(get_model(model).spec.max_position_embeddings, 131072)
    contexts = draw(st.lists(st.integers(256, top) | st.sampled_from((512, 8192, top)), min_size=2, max_size=3))
    engines = draw(st.sampled_from([("sglang",), ("trtllm",), ("sglang", "trtllm"), ("trtllm", "sglang", "vllm")]))
    gpus = draw(st.lists(st.sampled_from(GPUS), min_size=3, max_size=12, unique_by=lambda g: g.id))
    return model, tuple(contexts), draw(st.integers(1, 200)), engines, gpus


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_rankings_after_other_contexts_equal_cold_ones(case: Case) -> None:
    model, contexts, users, engines, gpus = case
    spec = get_model(model).spec
    reuse.clear()
    for context in contexts[:-1]:
        rank(spec, Workload.fixed_length(context, concurrent_conversations=users, engines=engines), gpus=gpus)
    then = Workload.fixed_length(contexts[-1], concurrent_conversations=users, engines=engines)
    warm = rank(spec, then, gpus=gpus).model_dump_json()
    reuse.clear()
    assert warm == rank(spec, then, gpus=gpus).model_dump_json()

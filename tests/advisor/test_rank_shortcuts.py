"""A ranking made through every shortcut equals one made without any (hypothesis over dense, MoE, hybrid and
sliding-window models, contexts, user counts, pricing and engines).

Through the shortcuts: a ranking at a new context after one at another, so that what is kept across rankings serves
it (the stages on each GPU and the screens, planner.advisor.reuse; vLLM's stages, the start-up checks kept with them
and the sampler headrooms), with the per-ranking memos of planner.advisor.evaluate.Evaluator and
planner.advisor.build.Built (what is bought, once per GPU, count and hosts), the KV bytes per token kept per stage
(planner.core.kv), vLLM's view of each GPU (planner.engines.platform) and the PCIe generation
(planner.advisor.hardware) kept per GPU, vLLM's profile-run terms kept per what they read and its working space
per stage context (planner.engines.vllm.kept) and its loaded weights per load context
(planner.engines.vllm.loaded), a stage's spec counts kept on it (planner.engines.vllm.blocks), the plan made from
the GPU-less basis, and hashes computed once (planner.bounds.hashing). Without: the plain Evaluator of
test_fast_paths (every call afresh: plan() and assess() of each candidate's own request) with every memo emptied and
holding no entry, and the terms, working space, loaded weights and spec counts computed at every call.
"""

from __future__ import annotations

import copy
import pickle
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from model_catalog import get_model, load_gpus
from planner.advisor import Workload, hardware, rank, reuse, screen
from planner.advisor import ranking as ranking_module
from planner.bounds.errors import PlannerError
from planner.bounds.hashing import field_values
from planner.bounds.memo import BoundedMemo, ScopedMemo
from planner.core import kv
from planner.core.model import ModelSpec
from planner.core.overhead import StageContext
from planner.engines import platform
from planner.engines.base import stage_total_bytes
from planner.engines.vllm import blocks, failures, loaded
from planner.engines.vllm import profile as vllm_profile
from planner.engines.vllm import stage as vllm_stage
from planner.engines.vllm.blocks import LayerKey
from planner.engines.vllm.profile import VllmProfile
from planner.planning.context import result_context
from planner.planning.plan import PlanRequest, plan
from tests.advisor.test_fast_paths import _PlainEvaluator

GPUS = list(load_gpus().values())
MODELS = (
    "meta-llama/Llama-3.1-70B",  # dense
    "Qwen/Qwen3-30B-A3B",  # MoE
    "Qwen/Qwen3-Next-80B-A3B-Instruct",  # hybrid: linear attention
    "ibm-granite/granite-4.0-h-small",  # Mamba hybrid MoE
    "google/gemma-2-9b",  # sliding window
    "google/gemma-3-27b-it",  # sliding window, vision tower
    "openai/gpt-oss-20b",  # sliding window, MXFP4 experts
)
MEMOS: tuple[BoundedMemo[Any, Any] | ScopedMemo[Any, Any, Any], ...] = (
    *reuse.KEPT,
    vllm_stage._SCOPES,
    screen._SCREENS,
    failures._SAMPLERS,
    kv._PER_TOKEN,
    platform._GPU_PLATFORMS,
    hardware._GENERATIONS,
)


@contextmanager
def _plain() -> Iterator[None]:
    """The plain Evaluator, and every memo empty and kept empty (its size 0)."""
    sizes = [memo.max_entries for memo in MEMOS]
    reuse.clear()
    for memo in MEMOS:
        memo.clear()
        memo.max_entries = 0
    try:
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(ranking_module, "Evaluator", _PlainEvaluator)
            patched.setattr(vllm_profile, "_terms_kept", lambda p, m, *a: p.terms_of(m, *a))
            patched.setattr(vllm_profile, "_per_gpu_kept", lambda p, ctx: p.per_gpu_of(ctx))
            patched.setattr(loaded, "_loaded_kept", loaded.loaded_bytes)
            patched.setattr(blocks.VllmStage, "spec_counts", property(lambda s: tuple(Counter(s.layer_keys).items())))
            yield
    finally:
        for memo, size in zip(MEMOS, sizes, strict=True):
            memo.max_entries = size
        reuse.clear()


Case = tuple[str, int, int, dict[str, Any], dict[str, Any], dict[str, Any]]


def _fields(draw: st.DrawFn) -> dict[str, Any]:
    """A workload's fields but its length: the users, pricing, personal devices and engines."""
    fields: dict[str, Any] = {
        "concurrent_conversations": draw(st.integers(1, 300)),
        "pricing": draw(st.sampled_from(["purchase", "cloud"])),
        "include_personal": draw(st.booleans()),
    }
    engines = draw(st.sampled_from([None, None, ("sglang", "vllm"), ("trtllm", "vllm"), ("llamacpp",)]))
    if engines is not None:
        fields["engines"] = engines
    return fields


@st.composite
def _cases(draw: st.DrawFn) -> Case:
    """Two rankings of one model over the same GPUs: the second at the first's context half the time (what is kept
    at one context is then read), each with fields of its own (what is kept must not read them)."""
    model = draw(st.sampled_from(MODELS))
    top = min(get_model(model).spec.max_position_embeddings, 131072)
    contexts = st.integers(256, top) | st.sampled_from(sorted({c for c in (512, 4096, 32768, top) if c <= top}))
    first = draw(contexts)
    then = first if draw(st.booleans()) else draw(contexts)
    gpus = draw(st.lists(st.sampled_from(GPUS), min_size=3, max_size=8, unique_by=lambda g: g.id))
    kw: dict[str, Any] = {"gpus": gpus, "kv_dtypes": draw(st.sampled_from([("bf16", "fp8"), ("fp8",), ("bf16",)]))}
    if draw(st.booleans()):
        kw["overhead"] = VllmProfile(engine_version=draw(st.sampled_from(["0.19.0", "0.27.0"])))
    return model, first, then, _fields(draw), _fields(draw), kw


def _outcome(spec: ModelSpec, workload: Workload, **kw: Any) -> str:
    """The ranking as JSON, or the error it raises (a fixed vLLM profile refuses the GGUF weights the 4-bit fallback
    tries: the same with or without the shortcuts)."""
    try:
        return rank(spec, workload, **kw).model_dump_json()
    except PlannerError as refused:
        return f"refused: {refused}"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_a_ranking_through_the_shortcuts_equals_one_without(case: Case) -> None:
    """The second ranking (at the first's context or another, with other users, pricing and engines: what is kept
    at one context is kept across them) equals the one made with no shortcut and nothing kept."""
    model, first, then, first_fields, then_fields, kw = case
    spec = get_model(model).spec
    reuse.clear()
    _outcome(spec, Workload.fixed_length(first, **first_fields), **kw)
    fast = _outcome(spec, Workload.fixed_length(then, **then_fields), **kw)
    with _plain():
        assert _outcome(spec, Workload.fixed_length(then, **then_fields), **kw) == fast


def test_the_70b_over_the_catalog_at_two_contexts() -> None:
    """The dashboard's case: the whole catalog, the slider moved from 131,072 tokens to 512 and back, each link with
    another count of users (the third ranking reads what the first kept). All the fast rankings first: the plain
    ones clear what is kept."""
    spec = get_model("meta-llama/Llama-3.1-70B").spec
    steps = ((131072, 32), (512, 33), (131072, 34))
    reuse.clear()
    fast = [
        rank(spec, Workload.fixed_length(c, concurrent_conversations=u), gpus=GPUS).model_dump_json() for c, u in steps
    ]
    with _plain():
        plain = [
            rank(spec, Workload.fixed_length(c, concurrent_conversations=u), gpus=GPUS).model_dump_json()
            for c, u in steps
        ]
    assert fast == plain


@pytest.mark.parametrize(
    ("model", "contexts"),
    [
        ("meta-llama/Llama-3.1-70B", (32768, 512)),
        ("openai/gpt-oss-120b", (32768, 131072)),
        ("Qwen/Qwen3-30B-A3B", (32768, 4096)),
    ],
)
def test_the_benchmarked_models_cold_and_at_a_new_context(model: str, contexts: tuple[int, int]) -> None:
    """The rankings bench.advisor_ab times (the catalog, 50 users), cold and then at a new context: the whole
    output of each (``planner advise --json``'s ranking) equals the plain one's, byte for byte (the fast ones
    first: the plain ones clear what is kept)."""
    spec = get_model(model).spec
    reuse.clear()
    fast = [rank(spec, Workload.fixed_length(c, concurrent_conversations=50)).model_dump_json() for c in contexts]
    with _plain():
        plain = [rank(spec, Workload.fixed_length(c, concurrent_conversations=50)).model_dump_json() for c in contexts]
    assert fast == plain


@pytest.mark.parametrize("model", MODELS)
def test_a_stage_context_is_the_one_validation_makes(model: str) -> None:
    """planner.planning.context.result_context builds its context without validating it again: field for field,
    type for type and fields set, it is the one StageContext(...) validates from the same values (one and two
    stages, TP 1 and 2, a GPU with and without an engine-visible total); and a stage's layer keys, not validated
    again, are (str, int) pairs that strict validation takes as they are."""
    spec = get_model(model).spec
    gpus = {g.id: g for g in GPUS}
    for gpu_id, tp, pp in (("h100-sxm-80gb", 1, 1), ("rtx-4090", 2, 1), ("a100-sxm-80gb", 2, 2)):
        gpu = gpus[gpu_id]
        request = PlanRequest(
            model=spec,
            gpu=gpu,
            gpu_memory_bytes=gpu.memory_bytes_for(True, None),
            gpu_count=tp * pp,
            tensor_parallel=tp,
            pipeline_parallel=pp,
            context_tokens=8192,
            max_model_len=8192,
            overhead=VllmProfile(),
        )
        result = plan(request)
        for index in range(len(result.stages)):
            made = result_context(request, result, index, stage_total_bytes(request, result, index))
            validated = StageContext(**dict(made))
            assert made == validated and made.model_fields_set == validated.model_fields_set
            assert [type(v) for v in dict(made).values()] == [type(v) for v in dict(validated).values()]
            stage = vllm_stage.vllm_stage(request, result, VllmProfile(), index, made.gpu_memory_bytes)
            keys = TypeAdapter(tuple[LayerKey, ...]).validate_python(stage.layer_keys, strict=True)
            assert keys == stage.layer_keys and all(type(k) is str and type(w) is int for k, w in keys)


def test_a_hash_kept_is_the_one_of_the_fields() -> None:
    """planner.bounds.hashing.HashedOnce: pydantic's frozen hash (the fields' values), kept; a copy with other
    fields hashes its own; equal specs hash alike however they were made."""
    gpu = GPUS[0]
    assert hash(gpu) == hash(field_values(gpu)) == hash(gpu)
    renamed = gpu.model_copy(update={"name": gpu.name + " (copy)"})
    assert hash(renamed) == hash(field_values(renamed)) != hash(gpu)
    for same in (gpu.model_copy(), copy.deepcopy(gpu), pickle.loads(pickle.dumps(gpu)), type(gpu)(**dict(gpu))):
        assert same == gpu and hash(same) == hash(gpu)
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    assert {spec: 1}[type(spec).model_validate(spec.model_dump())] == 1
    profile = VllmProfile(engine_version="0.27.0")
    assert profile.rules == VllmProfile(engine_version="0.27.0").rules
    assert profile.model_copy(update={"engine_version": "0.19.0"}).rules.version == (0, 19, 0)

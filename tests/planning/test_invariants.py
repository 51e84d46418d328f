"""Invariants of the capacity arithmetic, checked with hypothesis over catalog models and random inputs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model_catalog import load_models
from planner.core.overhead import Estimate, SimpleFraction
from planner.core.parallel import parallel_problem
from planner.core.params import layer_breakdowns, parameter_breakdown
from planner.core.precision import WEIGHT_FORMATS
from planner.core.units import GB
from planner.core.weights import model_weights_bytes, stage_weights_bytes_per_gpu
from planner.planning.plan import PlanRequest, plan

MODELS = load_models()
MODEL_IDS = sorted(MODELS)
models = st.sampled_from(MODEL_IDS)
contexts = st.integers(min_value=1, max_value=262_144)
memories = st.integers(min_value=4 * GB, max_value=300 * GB)
overheads = st.sampled_from([SimpleFraction(), Estimate(), SimpleFraction(fraction=0.0)])
kv_dtypes = st.sampled_from(["fp32", "bf16", "fp8", "int8", "int4"])
weight_names = st.sampled_from(sorted(WEIGHT_FORMATS))
# Bits each format spends on its quantized tensors, to order them.
ORDERED = sorted(WEIGHT_FORMATS, key=lambda n: WEIGHT_FORMATS[n].bits_per_weight)


def _layout_of(model_id: str, name: str) -> bool:
    """Whether ``name`` is a layout of ``model_id``'s checkpoints (a MoE checkpoint's: MoE models only; one read from
    a dense checkpoint: dense models only)."""
    fmt, moe = WEIGHT_FORMATS[name], MODELS[model_id].spec.moe is not None
    return not ((fmt.moe_only and not moe) or (fmt.dense_only and moe))


def _request(model_id: str, memory: int, context: int, **kw: object) -> PlanRequest:
    return PlanRequest(model=MODELS[model_id].spec, gpu_memory_bytes=memory, context_tokens=context, **kw)  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(models, memories, contexts, contexts, kv_dtypes, overheads)
def test_more_context_never_gives_more_sequences(model_id, memory, c1, c2, kv, overhead) -> None:
    short, long = sorted((c1, c2))
    a = plan(_request(model_id, memory, short, kv_dtype=kv, overhead=overhead)).capacity
    b = plan(_request(model_id, memory, long, kv_dtype=kv, overhead=overhead)).capacity
    assert b.sequences <= a.sequences + 1e-9
    assert b.sequences_paged <= a.sequences_paged + 1e-9


@settings(max_examples=150, deadline=None)
@given(models, memories, memories, contexts, kv_dtypes)
def test_more_memory_never_gives_fewer_sequences(model_id, m1, m2, context, kv) -> None:
    small, big = sorted((m1, m2))
    overhead = SimpleFraction()
    a = plan(_request(model_id, small, context, kv_dtype=kv, overhead=overhead))
    b = plan(_request(model_id, big, context, kv_dtype=kv, overhead=overhead))
    assert b.capacity.sequences >= a.capacity.sequences - 1e-9
    assert b.kv_budget_tokens >= a.kv_budget_tokens
    assert b.fits or not a.fits


# What a format quantizes and how, besides its main bits: formats that agree on all of it quantize the same tensors
# (nvfp4-fp8tail keeps its last eight MLPs and its lm_head in FP8 where nvfp4-mlp, of the same scope and bits, keeps
# every MLP in NVFP4 and the head in BF16, so the two are not ordered by bits).
_NOT_LAYOUT = {"name", "label", "bits_per_weight", "quality_note", "source"}


def _layout_key(name: str) -> str:
    return WEIGHT_FORMATS[name].model_dump_json(exclude=_NOT_LAYOUT)


LAYOUTS = sorted({_layout_key(n) for n in WEIGHT_FORMATS})


@settings(max_examples=200, deadline=None)
@given(models, st.sampled_from(LAYOUTS), st.data(), memories)
def test_smaller_weight_precision_never_leaves_less_free_memory(model_id, layout, data, memory) -> None:
    """Among formats that quantize the same tensors, fewer bits never leave less room for the KV cache.

    (Across scopes the order is not by bits alone: NVFP4 at 4.5 bits keeps a 1.4B-parameter embedding in
    16 bits, where GGUF Q4_K_M at 4.84 bits quantizes it.)
    """
    family = [n for n in ORDERED if _layout_key(n) == layout and _layout_of(model_id, n)]
    if not family:
        return
    small, large = sorted(data.draw(st.lists(st.sampled_from(family), min_size=2, max_size=2)), key=ORDERED.index)
    a = plan(_request(model_id, memory, 4096, weights=small, overhead=SimpleFraction()))
    b = plan(_request(model_id, memory, 4096, weights=large, overhead=SimpleFraction()))
    assert a.weights_bytes_total <= b.weights_bytes_total
    assert a.per_gpu.headroom_bytes >= b.per_gpu.headroom_bytes
    assert a.capacity.sequences >= b.capacity.sequences


def test_formats_with_another_tail_are_not_ordered_by_bits() -> None:
    """The pair a random run found (Qwen2.5-0.5B at 4 GB): nvfp4-fp8tail outweighs nvfp4-mlp at the same 4.5 bits,
    so the two are different layouts, not a precision order."""
    model = "Qwen/Qwen2.5-0.5B-Instruct"
    tail, mlp = (
        plan(_request(model, 4 * GB, 4096, weights=w, overhead=SimpleFraction()))
        for w in ("nvfp4-fp8tail", "nvfp4-mlp")
    )
    assert tail.weights_bytes_total > mlp.weights_bytes_total
    assert _layout_key("nvfp4-fp8tail") != _layout_key("nvfp4-mlp")


@settings(max_examples=100, deadline=None)
@given(models, st.sampled_from([1, 2, 4, 8]), weight_names)
def test_tensor_parallel_split_sums_back_to_the_whole(model_id, tp, precision) -> None:
    """TP shards sum to the whole model, plus exactly the parts every rank keeps a copy of."""
    spec = MODELS[model_id].spec
    if parallel_problem(spec, tp, 1, tp) is not None:
        return
    params = parameter_breakdown(spec)
    layers = layer_breakdowns(spec)
    whole = stage_weights_bytes_per_gpu(spec, layers, params, precision, 1, range(spec.num_hidden_layers), True, True)
    shard = stage_weights_bytes_per_gpu(spec, layers, params, precision, tp, range(spec.num_hidden_layers), True, True)
    assert whole == model_weights_bytes(spec, precision)  # weights_bytes(params, precision) but a format's tail
    assert shard * tp >= whole - tp  # rounding up per rank
    # Replicated parts are small: a few percent at most for every catalog model at TP <= 8.
    assert shard * tp <= whole * 1.10 + tp


@settings(max_examples=60, deadline=None)
@given(models, st.sampled_from([1, 2, 4]), weight_names)
def test_pipeline_stages_sum_back_to_the_whole(model_id, pp, precision) -> None:
    spec = MODELS[model_id].spec
    if pp > spec.num_hidden_layers or not _layout_of(model_id, precision):
        return
    result = plan(
        _request(
            model_id,
            80 * GB,
            4096,
            gpu_count=pp,
            tensor_parallel=1,
            pipeline_parallel=pp,
            weights=precision,
            overhead=SimpleFraction(),
        )
    )
    total = sum(stage.weights_bytes for stage in result.stages)
    assert abs(total - result.weights_bytes_total) <= pp  # per-stage rounding
    assert sum(s.kv_bytes_per_token for s in result.stages) == result.kv_bytes_per_token


@settings(max_examples=60, deadline=None)
@given(models, st.sampled_from([1, 2, 4, 8]), contexts)
def test_data_parallel_replicas_multiply_capacity(model_id, replicas, context) -> None:
    one = plan(_request(model_id, 80 * GB, context, gpu_count=1, tensor_parallel=1, overhead=SimpleFraction()))
    many = plan(_request(model_id, 80 * GB, context, gpu_count=replicas, tensor_parallel=1, overhead=SimpleFraction()))
    assert many.replicas == replicas
    assert many.capacity.sequences == pytest.approx(one.capacity.sequences * replicas)

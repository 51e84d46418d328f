"""Planning cost is linear in the layers and the caches are bounded in bytes (issue 11: ``model.layers[index]``
rebuilt an n-tuple per layer; ``lru_cache(1024)`` kept ~24 MB per distinct 20k-layer spec)."""

from __future__ import annotations

import ast
import gc
import time
import tracemalloc
from pathlib import Path

import pytest

from model_catalog import get_gpu
from planner.assessment.assess import assess
from planner.bounds import limits
from planner.core.kv import kinds_in
from planner.core.model import ModelSpec
from planner.core.params import _layer_breakdowns, decoder_layer_params, layer_breakdowns, parameter_breakdown
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest, _stage_weights_bytes


def largest(tag: str, layers: int = limits.MAX_LAYERS) -> ModelSpec:
    """The largest description the limits allow, with every per-layer feature that varies by layer."""
    return ModelSpec.model_validate(
        {
            "id": f"big/{tag}",
            "hidden_size": 16384,
            "num_hidden_layers": layers,
            "num_attention_heads": 128,
            "num_key_value_heads": 8,
            "intermediate_size": 53248,
            "vocab_size": limits.MAX_VOCAB,
            "layer_pattern": ["sliding", "full", "chunked"],
            "sliding_window": 4096,
            "attention_chunk_size": 8192,
            "num_kv_shared_layers": layers // 10,
            "max_position_embeddings": limits.MAX_CONTEXT,
            "moe": {"num_experts": 512, "num_experts_per_tok": 8, "moe_intermediate_size": 2048, "moe_layer_period": 2},
        }
    )


def test_the_layer_layout_is_built_once() -> None:
    """Failed before the fix: ``layers`` and ``kv_kinds`` were new n-tuples on every access."""
    full = ModelSpec(id="x", num_parameters=10**9, num_hidden_layers=1000, num_key_value_heads=8, head_dim=128)
    assert full.layers is full.layers
    shared = largest("layout")
    assert shared.kv_kinds is shared.kv_kinds


def test_layer_breakdowns_count_each_distinct_layer_once() -> None:
    spec = largest("signatures")
    layers = layer_breakdowns(spec)
    assert len(layers) == spec.num_hidden_layers
    assert len({id(layer) for layer in layers}) <= 16  # a handful of distinct layers, shared
    assert all(layers[i] == decoder_layer_params(spec, i) for i in range(0, spec.num_hidden_layers, 37))


def test_planning_the_largest_allowed_spec_is_fast() -> None:
    spec = largest("timed")
    gpu = get_gpu("h100-sxm-80gb")
    request = PlanRequest(
        model=spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        gpu_count=64,
        tensor_parallel=8,
        pipeline_parallel=8,
        context_tokens=limits.MAX_CONTEXT,
        max_model_len=limits.MAX_CONTEXT,
        overhead=overhead_profile("vllm"),
    )
    start = time.perf_counter()
    assess(request)
    assert time.perf_counter() - start < 1.0


@pytest.mark.slow
def test_the_caches_stay_bounded_in_bytes() -> None:
    """Many distinct largest-allowed specs: the planner's caches keep at most ~12 MB (the comments in params.py,
    plan.py and kv.py state the measured sizes per entry)."""
    for cached in (_layer_breakdowns, parameter_breakdown, kinds_in, _stage_weights_bytes):
        cached.cache_clear()
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for i in range(270):
            spec = largest(str(i))
            parameter_breakdown(spec)
            for pp in (1, 2, 4):
                step = spec.num_hidden_layers // pp
                for stage in range(pp):
                    kinds_in(spec, stage * step, (stage + 1) * step)
                    _stage_weights_bytes(spec, "fp8", 8, stage * step, (stage + 1) * step, stage == 0, stage == pp - 1)
            del spec
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert kept < 16 * 2**20, f"{kept / 2**20:.1f} MiB kept"


def test_every_streamlit_cache_is_bounded() -> None:
    """Every ``st.cache_data`` / ``st.cache_resource`` of the dashboard keeps a bounded number of entries (the
    advisor's rankings: 8 as objects, ~10 MB each, none pickled)."""
    root = Path(__file__).resolve().parents[2]
    found: dict[str, int] = {}
    for path in [root / "app.py", *sorted((root / "pages").glob("*.py")), *sorted((root / "ui").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                call = decorator if isinstance(decorator, ast.Call) else None
                name = ast.unparse(call.func if call else decorator)
                if name in ("st.cache_data", "st.cache_resource"):
                    bound = next((k.value for k in (call.keywords if call else []) if k.arg == "max_entries"), None)
                    assert isinstance(bound, ast.Constant), f"{path.name}:{node.name} has no max_entries"
                    found[f"{path.name}:{node.name}"] = bound.value
    assert found["advisor.py:_ranking"] == 8 and "advisor.py:_shown_ranking" not in found, found
    assert all(0 < n <= 256 for n in found.values()), found

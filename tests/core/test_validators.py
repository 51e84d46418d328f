"""Each validator rejects an impossible input with a message naming the field; "does not fit" is data."""

from __future__ import annotations

import itertools

import pytest
from pydantic import ValidationError

from planner.assessment.curve import concurrency_curve
from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.kv import kv_bytes_per_sequence
from planner.core.kv_formats import kv_format
from planner.core.model import ModelSpec
from planner.core.paging import reservation_waste
from planner.core.parallel import check_parallel, default_parallelism, parallel_problem, stage_layer_ranges
from planner.core.precision import weight_format
from planner.planning.plan import PlanRequest, plan

BASE = dict(
    id="t/m",
    hidden_size=4096,
    num_hidden_layers=32,
    num_attention_heads=32,
    num_key_value_heads=8,
    intermediate_size=14336,
    vocab_size=128256,
)


def _error(**changes: object) -> str:
    with pytest.raises(ValidationError) as info:
        ModelSpec.model_validate({**BASE, **changes})
    return str(info.value)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"num_key_value_heads": 7}, "num_attention_heads (32) must be a multiple of num_key_value_heads (7)"),
        ({"num_key_value_heads": 64, "num_attention_heads": 32}, "must be a multiple of num_key_value_heads"),
        (
            {"hidden_size": 4000, "num_attention_heads": 48, "num_key_value_heads": 8},
            "hidden_size (4000) is not divisible by num_attention_heads (48)",
        ),
        ({"layer_types": ["full"] * 31}, "layer_types has 31 entries but num_hidden_layers is 32"),
        ({"layer_pattern": ["sliding", "full"]}, "sliding_window: required"),
        ({"layer_pattern": ["chunked", "full"]}, "attention_chunk_size: required"),
        ({"layer_pattern": ["linear", "full"]}, "linear_attention: required"),
        ({"hidden_size": None}, "hidden_size: required to count parameters"),
        ({"vocab_size": None}, "vocab_size"),
        ({"num_hidden_layers": 0}, "num_hidden_layers"),
        (
            {"moe": {"num_experts": 8, "num_experts_per_tok": 9, "moe_intermediate_size": 10}},
            "moe.num_experts_per_tok (9) exceeds moe.num_experts (8)",
        ),
        (
            {
                "moe": {
                    "num_experts": 8,
                    "num_experts_per_tok": 2,
                    "moe_intermediate_size": 10,
                    "first_k_dense_replace": 40,
                }
            },
            "first_k_dense_replace exceeds num_hidden_layers",
        ),
        ({"layer_types": ["full"] * 31 + ["bogus"]}, "layer_types.31"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_model_validators_name_the_field(changes: dict[str, object], message: str) -> None:
    assert message in _error(**changes)


def test_head_dim_explicit_is_not_hidden_over_heads() -> None:
    """Mistral-Nemo: hidden 5120 / 32 heads = 160, but head_dim is 128."""
    nemo = ModelSpec.model_validate({**BASE, "hidden_size": 5120, "head_dim": 128, "num_hidden_layers": 40})
    assert nemo.resolved_head_dim == 128


def test_size_only_model_needs_kv_fields() -> None:
    ok = ModelSpec(id="x", num_parameters=10**9, num_hidden_layers=4, num_key_value_heads=2, head_dim=64)
    assert ok.resolved_head_dim == 64
    with pytest.raises(ValidationError, match="head_dim: required"):
        ModelSpec(id="x", num_parameters=10**9, num_hidden_layers=4, num_key_value_heads=2)


def test_gpu_validators() -> None:
    good = dict(
        id="g",
        name="G",
        vendor="NVIDIA",
        memory_marketed_gb=80,
        sources=["a source string"],
        compute={"bf16": 100, "fp16": 100, "fp8": "none", "int8": "unknown", "fp4": "none", "source": "s"},
        purchase={
            "kind": "card",
            "gpus_per_unit": 1,
            "description": "a card",
            "source": "s",
            "cooling": "active",
            "cooling_source": "s",
            "slot_width": 2,
            "slot_width_source": "s",
        },
    )
    GpuSpec.model_validate(good)
    with pytest.raises(ValidationError, match=r"memory_reported_bytes .* implausible for a 80 GB device"):
        GpuSpec.model_validate({**good, "memory_reported_bytes": 10**9, "memory_reported_source": "x"})
    with pytest.raises(ValidationError, match="memory_reported_source: required"):
        GpuSpec.model_validate({**good, "memory_reported_bytes": 85_520_809_984})
    with pytest.raises(ValidationError, match="sources"):
        GpuSpec.model_validate({**good, "sources": []})
    with pytest.raises(ValidationError, match="id"):
        GpuSpec.model_validate({**good, "id": "H100 SXM"})


def test_unknown_precisions_are_planner_errors() -> None:
    with pytest.raises(PlannerError, match="weights: unknown precision 'int3'"):
        weight_format("int3")
    with pytest.raises(PlannerError, match="kv_dtype: unknown KV cache dtype 'fp4'"):
        kv_format("fp4")
    assert issubclass(PlannerError, ValueError)


def test_request_validators() -> None:
    model = ModelSpec.model_validate(BASE)
    with pytest.raises(ValidationError, match="gpu_memory_bytes"):
        PlanRequest(model=model, gpu_memory_bytes=0)
    with pytest.raises(ValidationError, match="context_tokens"):
        PlanRequest(model=model, gpu_memory_bytes=10**10, context_tokens=-5)
    with pytest.raises(ValidationError, match="shared_prefix_tokens cannot exceed context_tokens"):
        PlanRequest(model=model, gpu_memory_bytes=10**10, context_tokens=100, shared_prefix_tokens=200)
    with pytest.raises(ValidationError, match="weights"):
        PlanRequest(model=model, gpu_memory_bytes=10**10, weights="int3")  # type: ignore[arg-type]
    with pytest.raises(PlannerError, match="contexts"):
        concurrency_curve(PlanRequest(model=model, gpu_memory_bytes=10**10), [1024, 0])
    with pytest.raises(PlannerError, match="used_tokens"):
        reservation_waste(500, 100)
    with pytest.raises(PlannerError, match="tokens"):
        kv_bytes_per_sequence(model, "bf16", -1)


def test_parallel_rules() -> None:
    model = ModelSpec.model_validate(BASE)  # 32 heads, 8 KV heads
    assert parallel_problem(model, 3, 1, 3) == "32 attention heads do not split evenly over TP 3"
    assert parallel_problem(model, 2, 1, 1) == "TP 2 x PP 1 needs 2 GPUs, but the set-up has 1"
    assert parallel_problem(model, 2, 2, 6) == "TP 2 x PP 2 = 4 does not divide 6 GPUs"
    assert parallel_problem(model, 16, 1, 16) is None  # 8 KV heads replicated, 2 ranks each
    qwen = ModelSpec.model_validate({**BASE, "num_attention_heads": 28, "num_key_value_heads": 4, "hidden_size": 3584})
    assert parallel_problem(qwen, 8, 1, 8) == "28 attention heads do not split evenly over TP 8"
    assert default_parallelism(qwen, 8) == (4, 1)  # TP 4 x 2 replicas
    with pytest.raises(PlannerError, match="tensor_parallel: 28 attention heads"):
        check_parallel(qwen, 8, 1, 8)
    with pytest.raises(PlannerError, match="tensor_parallel"):
        plan(PlanRequest(model=qwen, gpu_memory_bytes=10**11, gpu_count=8, tensor_parallel=8))


def test_pipeline_stage_layers_follow_vllm() -> None:
    """vLLM get_pp_indices: L // pp layers each; the remainder goes one by one to the stages before the last."""
    assert [len(r) for r in stage_layer_ranges(32, 2)] == [16, 16]
    assert [len(r) for r in stage_layer_ranges(32, 3)] == [11, 11, 10]
    assert [len(r) for r in stage_layer_ranges(61, 4)] == [15, 15, 16, 15]
    assert [len(r) for r in stage_layer_ranges(62, 4)] == [15, 16, 16, 15]
    ranges = stage_layer_ranges(126, 8)
    assert ranges[0].start == 0 and ranges[-1].stop == 126
    assert all(a.stop == b.start for a, b in itertools.pairwise(ranges))


def test_does_not_fit_is_a_result_not_an_error() -> None:
    model = ModelSpec.model_validate(BASE)
    result = plan(PlanRequest(model=model, gpu_memory_bytes=8 * 10**9))
    assert not result.fits
    assert result.fit_status == "weights-do-not-fit"
    assert result.headroom_bytes < 0
    assert result.per_gpu.kv_cache_bytes == 0
    assert result.max_concurrency == 0
    assert result.kv_budget_tokens == 0


def test_no_room_for_one_sequence() -> None:
    model = ModelSpec.model_validate(BASE)
    result = plan(PlanRequest(model=model, gpu_memory_bytes=24 * 10**9, context_tokens=131072))
    assert result.fit_status == "no-room-for-one-sequence"
    assert not result.fits and result.headroom_bytes > 0


def test_fp16_accumulate_is_never_below_the_fp32_accumulate_rate() -> None:
    from planner.core.gpu import ComputeSpec

    base = {"bf16": 165.2, "fp16": 165.2, "fp8": 330.3, "int8": 660.6, "fp4": "none", "source": "Ada whitepaper"}
    assert ComputeSpec.model_validate({**base, "fp16_accumulate": 330.3}).fp16_accumulate == 330.3
    with pytest.raises(ValidationError, match="fp16_accumulate is below fp16"):
        ComputeSpec.model_validate({**base, "fp16_accumulate": 100.0})
    with pytest.raises(ValidationError, match="needs a stated fp16"):
        ComputeSpec.model_validate({**base, "fp16": "unknown", "fp16_accumulate": 330.3})

"""Every number the two founding texts state (The Memory Math of Serving a Model; Memory Planning for LLMs),
reproduced through the `simple` overheads."""

from __future__ import annotations

import pytest

from planner.core.kv import kv_bytes_per_sequence, kv_bytes_per_token
from planner.core.model import ModelSpec
from planner.core.overhead import SimpleFixed, SimpleFraction
from planner.core.paging import reservation_waste
from planner.core.units import GB, KiB
from planner.planning.plan import PlanRequest, plan

# The seeds' models, known by size plus the KV fields ("8B, 32 layers, 8 KV heads, head dim 128").
M8 = ModelSpec(
    id="seed/8B",
    num_parameters=8 * 10**9,
    num_hidden_layers=32,
    num_key_value_heads=8,
    head_dim=128,
    native_dtype="fp16",
)
M70 = ModelSpec(
    id="seed/70B",
    num_parameters=70 * 10**9,
    num_hidden_layers=80,
    num_key_value_heads=8,
    head_dim=128,
    native_dtype="fp16",
)
LLAMA2_7B = ModelSpec(
    id="seed/Llama-2-7B",
    num_parameters=7 * 10**9,
    num_hidden_layers=32,
    num_attention_heads=32,
    num_key_value_heads=32,
    head_dim=128,
    native_dtype="fp16",
)
LLAMA3_8B = ModelSpec(
    id="seed/Llama-3-8B",
    num_parameters=8 * 10**9,
    num_hidden_layers=32,
    num_attention_heads=32,
    num_key_value_heads=8,
    head_dim=128,
    native_dtype="fp16",
)

# Memory Planning for LLMs' golden table: (model, weights, kv dtype, GB per GPU, GPUs, tokens, weights GB, KV KiB,
# sequences
# before rounding). None = "DOES NOT FIT".
GOLDEN = [
    (M8, "fp16", "fp16", 24, 1, 4096, 16.0, 128, 10.43),
    (M8, "int4", "fp16", 24, 1, 4096, 4.0, 128, 32.78),
    (M8, "fp16", "fp16", 80, 1, 4096, 16.0, 128, 104.31),
    (M8, "fp16", "fp16", 80, 1, 32768, 16.0, 128, 13.04),
    (M70, "fp16", "fp16", 80, 1, 4096, 140.0, 320, None),
    (M70, "fp16", "fp16", 80, 2, 4096, 140.0, 320, 2.98),
    (M70, "int8", "fp8", 80, 1, 4096, 70.0, 160, 2.98),
    (M70, "fp16", "fp16", 180, 1, 4096, 140.0, 320, 16.39),
]


def _seed_plan(model: ModelSpec, weights: str, kv: str, gb: float, gpus: int, tokens: int, **kw: object):
    return plan(
        PlanRequest(
            model=model,
            gpu_memory_bytes=round(gb * GB),
            gpu_count=gpus,
            weights=weights,  # type: ignore[arg-type]
            kv_dtype=kv,
            context_tokens=tokens,
            overhead=SimpleFraction(fraction=0.10),
            **kw,
        )  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(("model", "weights", "kv", "gb", "gpus", "tokens", "weights_gb", "kv_kib", "seqs"), GOLDEN)
def test_golden_table(model, weights, kv, gb, gpus, tokens, weights_gb, kv_kib, seqs) -> None:
    """The reference planner's eight lines, to the two decimals it computes before rounding."""
    result = _seed_plan(model, weights, kv, gb, gpus, tokens)
    assert result.weights_bytes_total / GB == pytest.approx(weights_gb, abs=0.05)
    assert result.kv_bytes_per_token / KiB == kv_kib
    if seqs is None:
        assert not result.fits
        assert result.fit_status == "weights-do-not-fit"
        assert result.headroom_bytes < 0
    else:
        assert result.fits
        assert result.capacity.sequences == pytest.approx(seqs, abs=0.005)
        assert round(result.capacity.sequences) == round(seqs)


def test_golden_printed_rounding() -> None:
    """As printed: 10, 33, 104, 13, -, 3, 3, 16."""
    printed = [round(_seed_plan(*row[:6]).capacity.sequences) if row[8] else None for row in GOLDEN]
    assert printed == [10, 33, 104, 13, None, 3, 3, 16]


def test_seed_000_llama2_7b_per_token() -> None:
    """2 x 32 x 32 x 128 x 2 bytes = 524,288 bytes (~0.5 MB) per token; ~2 GB for 4,096 tokens."""
    assert kv_bytes_per_token(LLAMA2_7B, "fp16") == 524_288
    one_user = kv_bytes_per_sequence(LLAMA2_7B, "fp16", 4096)
    assert one_user == 2 * 2**30  # 0.5 MiB x 4096 = exactly 2 GiB
    assert one_user / GB == pytest.approx(2.1, abs=0.05)


def test_seed_000_llama3_8b_gqa() -> None:
    """2 x 32 x 8 x 128 x 2 = 131,072 bytes (~0.125 MB): 4x smaller than Llama-2-7B."""
    assert kv_bytes_per_token(LLAMA3_8B, "fp16") == 131_072
    assert kv_bytes_per_token(LLAMA2_7B, "fp16") / kv_bytes_per_token(LLAMA3_8B, "fp16") == 4


def test_seed_001_per_token_and_conversation() -> None:
    """128 KiB per token; a 4,000-token conversation ~0.5 GB; a hundred of them ~50 GB."""
    assert kv_bytes_per_token(M8, "fp16") == 128 * KiB
    assert kv_bytes_per_sequence(M8, "fp16", 4000) / GB == pytest.approx(0.5, abs=0.03)
    assert 100 * kv_bytes_per_sequence(M8, "fp16", 4000) / GB == pytest.approx(50, rel=0.06)


def test_seed_000_24gb_card_accounting() -> None:
    """14 GB weights, ~1.5 GB framework, ~1 GB activations: ~16.5 GB fixed, ~7.5 GB KV, 3-4 users of 4,096."""
    result = plan(
        PlanRequest(
            model=LLAMA2_7B,
            gpu_memory_bytes=24 * GB,
            weights="fp16",
            kv_dtype="fp16",
            context_tokens=4096,
            overhead=SimpleFixed(),
        )
    )
    gpu = result.per_gpu
    assert gpu.weights_bytes == 14 * GB
    assert gpu.framework_bytes == 1.5 * GB
    assert gpu.activation_bytes == 1 * GB
    assert gpu.weights_bytes + gpu.framework_bytes + gpu.activation_bytes == 16.5 * GB
    assert gpu.kv_cache_bytes == 7.5 * GB
    assert 3 <= result.capacity.sequences <= 4
    assert result.capacity.sequences == pytest.approx(7.5e9 / (524_288 * 4096), rel=1e-9)


def test_seed_000_100_users_need_200gb() -> None:
    """The Memory Math of Serving a Model: "Serve 100 long-context users" would demand 100 x 2 GB = 200 GB of KV
    cache."""
    assert 100 * kv_bytes_per_sequence(LLAMA2_7B, "fp16", 4096) / GB == pytest.approx(200, rel=0.08)


def test_seed_000_weights_by_precision() -> None:
    """7B: fp16 14 GB, int8 ~7 GB, int4 ~3.5 GB, fp32 28 GB."""
    from planner.core.params import parameter_breakdown
    from planner.core.weights import weights_bytes

    params = parameter_breakdown(LLAMA2_7B)
    assert weights_bytes(params, "fp16") == 14 * GB
    assert weights_bytes(params, "fp32") == 28 * GB
    assert weights_bytes(params, "int8") == 7 * GB
    assert weights_bytes(params, "int4") == 3.5 * GB


def test_fp8_kv_halves_the_cache_and_doubles_capacity() -> None:
    """The Memory Math of Serving a Model: "Store the KV cache in fp8 or int8 instead of fp16 and you halve it."."""
    assert kv_bytes_per_token(LLAMA3_8B, "fp8") * 2 == kv_bytes_per_token(LLAMA3_8B, "fp16")
    fp16 = _seed_plan(M8, "fp16", "fp16", 80, 1, 4096).capacity.sequences
    fp8 = _seed_plan(M8, "fp16", "fp8", 80, 1, 4096).capacity.sequences
    assert fp8 == pytest.approx(2 * fp16, rel=1e-9)


def test_seed_001_context_where_one_sequence_equals_the_weights() -> None:
    """For the 8B model on 80 GB: one sequence's KV equals the 16 GB of weights at about 122k tokens."""
    result = _seed_plan(M8, "fp16", "fp16", 80, 1, 4096)
    tokens = result.weights_bytes_total / result.kv_bytes_per_token
    assert tokens == pytest.approx(122_070, abs=1)
    assert kv_bytes_per_sequence(M8, "fp16", 122_070) <= result.weights_bytes_total
    assert kv_bytes_per_sequence(M8, "fp16", 122_071) > result.weights_bytes_total


def test_seed_001_eight_times_context_is_one_eighth_concurrency() -> None:
    short = _seed_plan(M8, "fp16", "fp16", 80, 1, 4096).capacity.sequences
    long = _seed_plan(M8, "fp16", "fp16", 80, 1, 32768).capacity.sequences
    assert long == pytest.approx(short / 8, rel=1e-9)


def test_seed_001_pie_chart_80gb_8b() -> None:
    """The pie: 16 GB weights, 56 GB KV pool, 4 GB activations+overhead, 4 GB reserved on 80 GB."""
    result = plan(
        PlanRequest(
            model=M8,
            gpu_memory_bytes=80 * GB,
            weights="fp16",
            overhead=SimpleFixed(framework_bytes=2 * GB, activation_bytes=2 * GB),
        )
    )
    gpu = result.per_gpu
    assert gpu.weights_bytes == 16 * GB
    assert gpu.activation_bytes + gpu.framework_bytes == 4 * GB
    assert gpu.kv_cache_bytes == 60 * GB  # with no reserve; the pie keeps 4 GB of headroom besides
    reserved = plan(
        PlanRequest(model=M8, gpu_memory_bytes=80 * GB, weights="fp16", overhead=SimpleFraction(fraction=0.05))
    ).per_gpu
    assert reserved.reserved_bytes == 4 * GB
    assert gpu.kv_cache_bytes - reserved.reserved_bytes == 56 * GB


def test_seed_000_contiguous_reservation_waste() -> None:
    """Reserving 4,096 tokens for a 300-token reply wastes over 90 %; the vLLM paper measured 60-80 % on real
    workloads; paging wastes at most one partly filled block."""
    contiguous, paged = reservation_waste(300, 4096)
    assert contiguous == pytest.approx(1 - 300 / 4096)
    assert contiguous > 0.8
    assert paged == pytest.approx(1 - 300 / 304)
    assert 4096 / 300 > 10  # "you've reserved ten-plus times what you use"


def test_paged_block_rounding_and_contiguous_capacity() -> None:
    """Blocks of 16 tokens: a 4,100-token sequence takes 257 blocks (4,112 tokens); contiguous allocation
    reserves the maximum length for every sequence."""
    result = plan(
        PlanRequest(
            model=M8,
            gpu_memory_bytes=80 * GB,
            weights="fp16",
            kv_dtype="fp16",
            context_tokens=4100,
            max_model_len=32768,
            overhead=SimpleFraction(fraction=0.10),
        )
    )
    pool = result.per_gpu.kv_cache_bytes
    assert result.capacity.sequences_paged == pytest.approx(pool / (131_072 * 4112))
    assert result.capacity.sequences == pytest.approx(pool / (131_072 * 4100))
    assert result.capacity.sequences_contiguous == pool // (131_072 * 32768) == 13


def test_shared_prefix_is_stored_once() -> None:
    """A 2,048-token system prompt shared by every sequence: its blocks are stored once."""
    base = dict(
        model=M8,
        gpu_memory_bytes=80 * GB,
        weights="fp16",
        kv_dtype="fp16",
        context_tokens=4096,
        overhead=SimpleFraction(fraction=0.10),
    )
    plain = plan(PlanRequest(**base)).capacity  # type: ignore[arg-type]
    shared = plan(PlanRequest(**base, shared_prefix_tokens=2048)).capacity  # type: ignore[arg-type]
    pool = 56 * GB
    assert shared.sequences_with_shared_prefix == pytest.approx((pool - 2048 * 131_072) / (2048 * 131_072))
    assert shared.sequences_with_shared_prefix > 1.9 * plain.sequences_paged

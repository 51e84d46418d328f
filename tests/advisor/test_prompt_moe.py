"""A TensorRT-LLM prompt's routed experts take aiconfigurator's measured fused-MoE time, the time they add to the
decode step's MoE that they run in (planner/advisor/gemm_tables.py ``prompt_moe_seconds``; issue 21), not their
FLOPs at the dense NVFP4 GEMMs' share: the prompt-heavy Qwen3-30B-A3B NVFP4 cells of TensorRT-LLM's v1.0 perf
overview on one B200 were over-predicted by +101 % (2048/128) and +66 % (5000/500)."""

from __future__ import annotations

from pathlib import Path

from model_catalog import get_gpu, get_model
from planner.advisor.benchmarks import load_rows
from planner.advisor.engine_speed import prefill_in_serving
from planner.advisor.gemm_tables import prompt_moe_seconds, tables
from planner.advisor.kernel_grid import along
from planner.advisor.throughput import prefill_load, setup_for
from planner.advisor.validation import scored

UNSEEN = Path(__file__).parent / "benchmarks" / "unseen-2026-12.toml"
QWEN3_30B = get_model("Qwen/Qwen3-30B-A3B").spec


def test_the_prompt_adds_its_tokens_to_the_decode_steps_moe() -> None:
    """Qwen3-30B-A3B (48 MoE layers, 128 experts of width 768, 8 a token) in NVFP4 on one B200: a 2,048-token
    prompt in a step of TensorRT-LLM's 8,192-token chunk beside 1,024 decoding sequences adds a quarter of the
    measured MoE time at 9,216 tokens less that at 1,024, layer by layer, and replaces the experts' FLOPs and bytes
    of the rate model (an expert FLOP at 0.34 of the dense FP4 peak and a quarter of the experts' bytes: 2.9 ms
    for this prompt, where the measured kernel adds 9.8 ms)."""
    b200 = setup_for(get_gpu("b200-sxm"), "trtllm", "fp4", 1, "nvfp4")
    prompt = prefill_load(QWEN3_30B, "nvfp4", 2048)
    times = tables()[("b200-sxm", "fp4")]
    row = times.moe[(2048, 768, 8, 128, 1)]
    expected = 48 * (along(times.moe_tokens, row, 9216) - along(times.moe_tokens, row, 1024)) * 2048 / 8192
    assert abs(prompt_moe_seconds(b200, prompt, 8192, 1024) - expected) < 1e-12  # type: ignore[operator]
    assert round(expected * 1e3, 1) == 9.8
    measured = prefill_in_serving(b200, prompt, batch=1024) or 0.0
    unmeasured = prompt._replace(matmuls=None)  # no shapes: the rate model's experts
    no_experts = unmeasured._replace(flops=prompt.flops - prompt.expert_flops, expert_flops=0.0, experts_bytes=0.0)
    rest = prefill_in_serving(b200, no_experts) or 0.0
    assert abs(measured - rest - expected) < 1e-12
    assert round(((prefill_in_serving(b200, unmeasured) or 0.0) - rest) * 1e3, 1) == 2.9


def test_where_nothing_is_measured_the_rate_model_prices_the_prompt() -> None:
    """FP8 on H100 (aiconfigurator's FP8 tables are not used), a dense model, vLLM: no measured prompt MoE."""
    h100 = setup_for(get_gpu("h100-sxm-80gb"), "trtllm", "fp8", 1, "fp8")
    assert prompt_moe_seconds(h100, prefill_load(QWEN3_30B, "fp8", 2048), 8192) is None
    b200 = setup_for(get_gpu("b200-sxm"), "trtllm", "fp4", 1, "nvfp4")
    dense = prefill_load(get_model("meta-llama/Llama-3.3-70B-Instruct").spec, "nvfp4", 2048)
    assert prompt_moe_seconds(b200, dense, 8192) is None
    vllm = setup_for(get_gpu("b200-sxm"), "vllm", "fp4", 1, "nvfp4")
    assert prompt_moe_seconds(vllm, prefill_load(QWEN3_30B, "nvfp4", 2048), 8192) is None


def test_the_prompt_heavy_b200_cells_land_within_a_quarter() -> None:
    """TensorRT-LLM v1.0 perf overview (NVIDIA/TensorRT-LLM@00f37686aa85 perf-overview.md), Qwen3-30B-A3B NVFP4 on
    one B200: 6,251 tokens/s at 2048/128 and 6,142 at 5000/500, first +101.2 / +66.0 %, now +21.8 / +24.8 %."""
    rows = {r.id: r for r in load_rows((UNSEEN,))}
    ids = ("trtllm-b200-qwen3-30b-a3b-fp4-2048-128", "trtllm-b200-qwen3-30b-a3b-fp4-5000-500")
    errors = {s.id: s.error for s in scored(tuple(rows[i] for i in ids))}
    assert (rows[ids[0]].value, rows[ids[1]].value) == (6251.0, 6142.0)
    assert all(e is not None and 0.15 < e < 0.30 for e in errors.values()), errors


def test_an_options_prompt_is_priced_beside_its_batch() -> None:
    """The advisor prices an option's prompt as the benchmark rows are: a TensorRT-LLM Qwen3-30B-A3B NVFP4 option on
    one B200 at 64 users pays what the prompt's experts add beside the 64 decoding sequences, not the chunk's MoE
    alone that :meth:`Built.setup` keeps (priced before the batch is known)."""
    from planner.advisor.build import Built
    from planner.advisor.option_speed import speed_of
    from planner.advisor.options import Candidate
    from planner.advisor.serving_cycle import served
    from planner.advisor.support import runner
    from planner.advisor.workload import PRESETS, Workload
    from planner.core.params import parameter_breakdown

    b200 = get_gpu("b200-sxm")
    b = Built(
        QWEN3_30B, Workload(context=PRESETS["rag"].context, concurrent_conversations=64), parameter_breakdown(QWEN3_30B)
    )
    row = runner(b200, "nvfp4", "fp8", True, ("trtllm",))
    assert row is not None and row.engine == "trtllm"
    c = Candidate(b200, 1, 1, 1, "nvfp4", "fp8", None)
    setup, _, alone = b.setup(c, row)
    speed = speed_of(b, c, row, 64)
    prompt = b.prefill("nvfp4", b.new_tokens, None, row.other_bits)
    beside = prefill_in_serving(setup, prompt, batch=64) or 0.0
    assert 0.0 < beside < alone
    run = served(speed.decode, 64, beside, b.workload.mean_output_tokens)
    assert speed.per_user == run.per_user_tokens_per_s

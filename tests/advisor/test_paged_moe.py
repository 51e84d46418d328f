"""vLLM's and SGLang's fused MoE at aiconfigurator's measured times (planner.advisor.paged_moe)."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import Option, Workload, rank
from planner.advisor.engine_speed import step
from planner.advisor.kernel_grid import along
from planner.advisor.paged_moe import measured_beside, paged_moe_seconds, tables
from planner.advisor.throughput import decode_load, setup_for


def qwen3_235b(batch: int, weights: str = "bf16") -> tuple[object, object]:
    spec = get_model("Qwen/Qwen3-235B-A22B").spec
    return spec, decode_load(spec, weights, "bf16", batch, 1500)


def test_the_extract_is_aiconfigurators_figures() -> None:
    """ai-dynamo/aiconfigurator@095f58a51 .../b200_sxm/moe/sglang/0.5.9/moe_perf.parquet, sglang_fused_moe_triton,
    bfloat16, hidden 4,096, width 1,536, top-8 of 128, moe TP 8, EP 1, power_law_1.01: 0.033290 ms at 1 token,
    0.141103 ms at 96 (the extract keeps 4 significant digits)."""
    grid, by_setup = tables()
    row = by_setup[("sglang", "b200-sxm", "16-bit")][(4096, 1536, 8, 128, 8)]
    assert row[grid.index(1)] == pytest.approx(33.29e-6, rel=1e-9)
    assert row[grid.index(96)] == pytest.approx(141.1e-6, rel=1e-9)
    assert along(grid, row, 100) == pytest.approx(141.1e-6 + (152.8e-6 - 141.1e-6) * 4 / 32, rel=1e-9)


def test_a_sglang_step_takes_the_measured_experts_not_their_bytes() -> None:
    """Qwen3-235B-A22B BF16 on 8 x B200 under SGLang at 96 in flight: 94 MoE layers x 141.1 us, added to the step
    whose experts' bytes and FLOPs are taken out (the kernels run one after another)."""
    _, load = qwen3_235b(96)
    setup = setup_for(get_gpu("b200-sxm"), "sglang", "16-bit", 8, "bf16")
    assert load.moe_layers == 94
    assert paged_moe_seconds(setup, load) == pytest.approx(94 * 141.1e-6, rel=1e-9)
    without = load._replace(experts_bytes=0.0, flops=load.flops - load.expert_flops, expert_flops=0.0)
    assert step(setup, load).seconds == pytest.approx(step(setup, without).seconds + 94 * 141.1e-6, rel=1e-9)


def test_only_the_tables_formats_engines_and_gpus() -> None:
    """TensorRT-LLM (its own tables), llama.cpp, a GPU or a format the extract lacks keep the rate model."""
    _, load = qwen3_235b(32)
    b200 = get_gpu("b200-sxm")
    assert paged_moe_seconds(setup_for(b200, "trtllm", "16-bit", 8, "bf16"), load) is None
    assert paged_moe_seconds(setup_for(get_gpu("rtx-4090"), "vllm", "16-bit", 8, "bf16"), load) is None
    assert paged_moe_seconds(setup_for(b200, "vllm", "16-bit", 3, "bf16"), load) is None  # no moe TP 3
    ranks = setup_for(b200, "vllm", "16-bit", 8, "bf16")._replace(attention_dp=True, attention_tp=4)
    assert paged_moe_seconds(ranks, load) is None  # 2 data-parallel ranks, experts expert parallel: not extracted
    _, fp8 = qwen3_235b(32, "fp8")
    assert paged_moe_seconds(setup_for(b200, "vllm", "16-bit", 8, "bf16"), fp8) is None  # FP8 bytes, BF16 table
    assert paged_moe_seconds(setup_for(b200, "vllm", "fp8", 4, "fp8"), fp8) is not None
    # 1,536 / 8 = 192 is not a whole number of 128-wide FP8 blocks: not measured at moe TP 8
    assert paged_moe_seconds(setup_for(b200, "vllm", "fp8", 8, "fp8"), fp8) is None
    oss = decode_load(get_model("openai/gpt-oss-120b").spec, "mxfp4", "bf16", 32, 1500)
    assert paged_moe_seconds(setup_for(get_gpu("h100-sxm-80gb"), "vllm", "16-bit", 1, "mxfp4"), oss) is None


def test_int8_w8a8_experts_take_the_fp8_tables_time() -> None:
    """INT8 W8A8 and FP8 W8A8 experts run the same Triton grouped GEMM, one byte a weight: vLLM 0.11.0's
    ``fused_moe_kernel`` (model_executor/layers/fused_moe/fused_moe.py:271, the two formats' branches :317-318,
    :399-473), reached by INT8's compressed-tensors method (compressed_tensors_moe.py:1073-1094, :1212) and by
    aiconfigurator's FP8 rows (``fused_experts`` called without DeepGEMM or CUTLASS, fused_moe.py:1372-1460);
    SGLang 0.5.9's (layers/moe/fused_moe_triton/fused_moe_triton_kernels.py:324, :485-589), its INT8 method on the
    Triton runner (quantization/w8a8_int8.py:328-372). Qwen3-235B-A22B INT8 on 4 x H200 at 32 in flight: 94 MoE
    layers x the FP8 rows at moe TP 4, 32 tokens (vLLM 0.14.0 173.3 us, SGLang 0.5.9 170.2 us)."""
    _, load = qwen3_235b(32, "int8")
    h200 = get_gpu("h200-sxm-141gb")
    vllm, sglang = (paged_moe_seconds(setup_for(h200, e, "int8", 4, "int8"), load) for e in ("vllm", "sglang"))
    assert vllm == pytest.approx(94 * 173.3e-6, rel=1e-9)
    assert sglang == pytest.approx(94 * 170.2e-6, rel=1e-9)
    # an A100 has no FP8 tensor cores and aiconfigurator no FP8 rows for it: its INT8 experts keep the rate model
    assert paged_moe_seconds(setup_for(get_gpu("a100-sxm-80gb"), "vllm", "int8", 4, "int8"), load) is None
    # INT8 weights on the 16-bit path (W8A16: dequantised in the kernel, another branch) are not the table's
    assert paged_moe_seconds(setup_for(h200, "vllm", "16-bit", 4, "int8"), load) is None


def test_a_format_the_tables_do_not_time_takes_a_measured_kernels_efficiency() -> None:
    """aiconfigurator measures no NVFP4 experts on an H100 (and its B200 NVFP4 rows, a kernel called directly, are
    not read): NVFP4 experts of Qwen3-235B on 4 x H100 took their bytes at the bandwidth where BF16, FP8 and INT8
    W8A8 take the measured kernel, and said so (``measured_beside``). Since the Marlin INT4 rows' efficiency prices
    them (planner.advisor.moe_transfer), as it does data-parallel ranks holding the experts expert parallel, both
    carry a note where the measured kernel's ratio comes from, not the undermining caveat."""
    h200, b200 = get_gpu("h200-sxm-141gb"), get_gpu("b200-sxm")
    awq = decode_load(get_model("Qwen/Qwen3-235B-A22B").spec, "int4-awq", "bf16", 32, 1500)
    assert measured_beside(setup_for(h200, "vllm", "16-bit", 4, "int4-awq"), awq) == ()
    nvfp4 = decode_load(get_model("Qwen/Qwen3-235B-A22B").spec, "nvfp4", "bf16", 32, 1500)
    assert measured_beside(setup_for(b200, "vllm", "fp4", 4, "nvfp4"), nvfp4) == ("BF16", "FP8 / INT8 W8A8")
    h100 = get_gpu("h100-sxm-80gb")
    assert measured_beside(setup_for(h100, "vllm", "16-bit", 4, "nvfp4"), nvfp4) == (
        "BF16",
        "FP8 / INT8 W8A8",
        "AWQ / GPTQ INT4 (Marlin)",
    )
    _, int8 = qwen3_235b(32, "int8")
    assert measured_beside(setup_for(h200, "vllm", "int8", 4, "int8"), int8) == ()
    _, bf16 = qwen3_235b(32)
    ranks = setup_for(b200, "vllm", "16-bit", 8, "bf16")._replace(attention_dp=True, attention_tp=4)
    assert measured_beside(ranks, bf16) == ("BF16",)  # 1,536 / 8 is no whole FP8 block: BF16 rows only at TP 8
    assert measured_beside(setup_for(get_gpu("mi300x"), "vllm", "fp8", 4, "fp8"), int8) == ()  # nothing measured
    workload = Workload.fixed_length(
        4096, concurrent_conversations=10, gpu_ids=("h100-sxm-80gb",), engines=("vllm",), weights=("fp8", "nvfp4")
    )
    options = rank(get_model("Qwen/Qwen3-235B-A22B").spec, workload).options

    def caveat(o: Option) -> str:
        return next((u for u in o.undermining if u.startswith("experts' speed unmeasured")), "")

    def note(o: Option) -> str:
        return next((u for u in o.warnings if u.startswith("experts' time transferred from")), "")

    split = [o for o in options if "data-parallel" not in o.split_text and o.tensor_parallel == 4]
    ranks = [o for o in options if "data-parallel" in o.split_text]
    assert {o.weights for o in split} == {"fp8", "nvfp4"} and ranks
    assert not any(caveat(o) for o in options)
    assert all(bool(note(o)) == (o.weights == "nvfp4") for o in split)
    assert all(note(o).startswith("experts' time transferred from H100 SXM5 80GB's measured vLLM") for o in ranks)
    four = next(o for o in split if o.weights == "nvfp4")
    assert four.experts_priced == "transferred" and "H100 SXM5 80GB" in note(four)


def test_awq_and_gptq_experts_take_the_marlin_int4_rows() -> None:
    """aiconfigurator's ``int4_wo`` rows time Marlin INT4 (GPTQ uint4b8, group 128, ``gptq_marlin_moe_repack`` +
    ``fused_marlin_moe``: collector/vllm/collect_moe_v1.py at a4827ce20 :73-98, :413-465), the kernel of vLLM's AWQ /
    GPTQ-Marlin MoE methods. ai-dynamo/aiconfigurator@095f58a51 .../h200_sxm/moe/vllm/0.14.0/moe_perf.parquet,
    vllm_marlin_moe, hidden 4,096, width 1,536, top-8 of 128, moe TP 4, EP 1, power_law_1.01, 32 tokens: 0.117562 ms
    (the extract keeps 117.6 us). Qwen3-235B-A22B AWQ on 4 x H200 at 32 in flight: 94 MoE layers x 117.6 us, where
    the rate model's bytes at the bandwidth took 47.3 us a layer."""
    h200 = get_gpu("h200-sxm-141gb")
    for weights in ("int4-awq", "int4-gptq"):
        load = decode_load(get_model("Qwen/Qwen3-235B-A22B").spec, weights, "bf16", 32, 1500)
        assert paged_moe_seconds(setup_for(h200, "vllm", "16-bit", 4, weights), load) == pytest.approx(
            94 * 117.6e-6, rel=1e-9
        )
    # vLLM 0.19.0's B200 int4_wo rows run fused_experts' Triton W4A16 path (collect_moe_v2.py :228-258), not Marlin
    awq = decode_load(get_model("Qwen/Qwen3-235B-A22B").spec, "int4-awq", "bf16", 32, 1500)
    assert paged_moe_seconds(setup_for(get_gpu("b200-sxm"), "vllm", "16-bit", 4, "int4-awq"), awq) is None
    # SGLang's Marlin rows need (width / TP) % 256 == 0 (collect_moe.py :484-490): 1,536 / 2 is, 1,536 / 4 is not
    assert paged_moe_seconds(setup_for(h200, "sglang", "16-bit", 2, "int4-awq"), awq) is not None
    assert paged_moe_seconds(setup_for(h200, "sglang", "16-bit", 4, "int4-awq"), awq) is None


def test_nvfp4_and_b200_mxfp4_rows_are_not_read() -> None:
    """NVFP4 rows time a kernel called directly (vLLM: FlashInfer's TRT-LLM FP4, collect_moe_v2.py at a4827ce20
    :322-380) or the masked expert-parallel layout (SGLang, collect_moe.py :725-760), not the engines' served path.
    vLLM 0.19.0's B200 MXFP4 rows (.../b200_sxm/moe/vllm/0.19.0/moe_perf.parquet, vllm_mxfp4_moe, gpt-oss-120b's
    hidden 2,880, width 2,880, top-4 of 128, moe TP 1) take 0.3695 ms at 8 tokens: 36 layers, 13.3 ms a step for
    the experts alone, where vLLM PR 27523 measured a whole batch-8 gpt-oss-120b step on an H100 with Marlin at 9.1 ms
    (1.17 s over 128 steps): not the kernel a B200 serves it with. Both keep the roofline."""
    b200 = get_gpu("b200-sxm")
    oss = decode_load(get_model("openai/gpt-oss-120b").spec, "mxfp4", "bf16", 8, 1500)
    assert 36 * 369.5e-6 > 1.17 / 128  # the B200 rows' experts alone, against the H100's whole step
    assert paged_moe_seconds(setup_for(b200, "vllm", "fp4", 1, "mxfp4"), oss) is None
    nvfp4 = decode_load(get_model("Qwen/Qwen3-235B-A22B").spec, "nvfp4", "bf16", 32, 1500)
    assert paged_moe_seconds(setup_for(b200, "vllm", "fp4", 4, "nvfp4"), nvfp4) is None
    assert paged_moe_seconds(setup_for(b200, "sglang", "fp4", 4, "nvfp4"), nvfp4) is None

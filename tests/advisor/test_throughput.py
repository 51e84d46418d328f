"""Speed estimates against published measurements (planner/advisor/measurements.toml cites each source).

| measurement | source | role | tolerance |
| --- | --- | --- | --- |
| llama.cpp batch-1 decode, Llama 3 8B F16 / Q4_K_M, RTX 4090 | XiongjieDai/GPU-Benchmarks-on-LLM-Inference | fit | 5% |
| llama.cpp batch-1 decode, Llama 3 8B F16 / Q4_K_M, RTX 3090 | same | held out | 10 % |
| llama.cpp batch-1 decode, Llama 3 8B Q4_K_M, M2 Ultra | same | held out | +60 % (Apple runs high) |
| lmdeploy A100 Llama 2 7B batch 1 / 64, 70B TP 4 batch 1 | InternLM/lmdeploy a100_fp16.md | fit | 5 % |
| lmdeploy A100 Llama 2 13B batch 1, 70B TP 4 batch 64 | same | held out | 10 % |
| TensorRT-LLM Llama 2 7B A100 b60, H100 FP8 b112, L40S FP8 b64 | NVIDIA/TensorRT-LLM performance.md | held out | 10 % |
| TensorRT-LLM Llama 2 70B FP8 H100 TP 4 b480 | same | held out | +75 % (known outlier) |
| TensorRT-LLM TTFT 2,048 tokens, Llama 2 7B A100 / H100 | same | fit | 5 % |
| TensorRT-LLM TTFT 2,048 tokens, L40S 7B, H100 / A100 70B TP 4 | same | held out | 40 % |
"""

from __future__ import annotations

from pathlib import Path

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import decode_estimate, log_rms_error, measurements, prefill_seconds, validation_rows
from planner.errors import PlannerError

TOLERANCE = {
    "Llama 3 8B Q4_K_M, M2 Ultra 76-core, batch 1": (-0.10, 0.60),
    "LLaMA 70B FP8, 4 x H100 SXM TP 4, batch 480": (-0.10, 0.75),
}


def _tolerance(label: str, role: str, metric: str) -> tuple[float, float]:
    if label in TOLERANCE:
        return TOLERANCE[label]
    if role == "fit":
        return (-0.05, 0.05)
    if metric == "ttft_seconds":
        return (-0.40, 0.40)
    return (-0.10, 0.10)


ROWS = {row.label: row for row in validation_rows()}


def test_at_least_five_published_measurements() -> None:
    assert len(measurements()) >= 5
    assert len({m.source for m in measurements()}) >= 3
    assert sum(m.role == "held-out" for m in measurements()) >= 5
    assert all(m.source and m.engine for m in measurements())


@pytest.mark.parametrize("label", sorted(ROWS))
def test_estimate_within_stated_tolerance(label: str) -> None:
    row = ROWS[label]
    low, high = _tolerance(label, row.role, row.metric)
    assert row.error is not None
    assert low <= row.error <= high, (
        f"{label}: predicted {row.predicted:.3f}, measured {row.measured} ({row.error:+.1%})"
    )


def test_held_out_error_overall() -> None:
    held = [r for r in ROWS.values() if r.role == "held-out"]
    fitted = [r for r in ROWS.values() if r.role == "fit"]
    assert log_rms_error(fitted) < 0.05
    assert log_rms_error(held) < 0.30


def test_decode_shape() -> None:
    model = get_model("meta-llama/Llama-3.1-8B").spec
    gpu = get_gpu("h100-sxm-80gb")
    one = decode_estimate(model, gpu, "bf16", "bf16", 1, 1, 2_000)
    many = decode_estimate(model, gpu, "bf16", "bf16", 1, 64, 2_000)
    assert one is not None and many is not None
    assert many.tokens_per_s_per_user < one.tokens_per_s_per_user  # sharing the GPU slows each user
    assert many.tokens_per_s_replica > one.tokens_per_s_replica  # but the aggregate grows
    quantized = decode_estimate(model, gpu, "int4-awq", "bf16", 1, 1, 2_000)
    assert quantized is not None and quantized.tokens_per_s_per_user > one.tokens_per_s_per_user
    assert "GB/s" in one.assumption


def test_unknown_figures_do_not_crash() -> None:
    model = get_model("meta-llama/Llama-3.1-8B").spec
    no_bandwidth = get_gpu("h100-sxm-80gb").model_copy(update={"bandwidth_bytes_per_s": None})
    assert decode_estimate(model, no_bandwidth, "bf16", "bf16", 1, 1, 1_000) is None
    apple = get_gpu("apple-m4-max")  # no TFLOPS in the catalog
    seconds, note = prefill_seconds(model, apple, "bf16", 1, 1_000)
    assert seconds is None and "TFLOPS" in note
    assert decode_estimate(model, apple, "q4_k_m", "bf16", 1, 1, 1_000) is not None


def test_moe_reads_only_the_touched_experts() -> None:
    model = get_model("Qwen/Qwen3-30B-A3B").spec
    gpu = get_gpu("h100-sxm-80gb")
    one = decode_estimate(model, gpu, "bf16", "bf16", 1, 1, 1_000)
    big = decode_estimate(model, gpu, "bf16", "bf16", 1, 256, 1_000)
    assert one is not None and big is not None
    assert one.weights_read_bytes_per_gpu < 0.3 * big.weights_read_bytes_per_gpu


def test_a_bad_measurement_row_names_the_file_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "measurements.toml"
    path.write_text('[[measurement]]\nlabel = "x"\nvalue = 1.0\n', encoding="utf-8")
    with pytest.raises(PlannerError, match=r"measurements\.toml: .*measurement\.0\.source: Field required"):
        measurements(path)

"""llama.cpp's quantized prompt matmuls (MMQ) on CUDA: int8 ``mma.sync`` tiles whose rate follows an SM's clock at
the consumer line's per-SM rate, not a datacenter part's tensor peak (planner.advisor.kernels.llamacpp_mmq_share),
checked on llama.cpp's CUDA scoreboard (ggml-org/llama.cpp discussion 15013: Llama 2 7B Q4_0, pp512 per GPU with
its build; read as quoted by search-index file id 71248589943, section 1b)."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_catalog import get_gpu
from planner.advisor.benchmarks import load_rows
from planner.advisor.kernels import MMQ_INT8_OPS_PER_SM_CLOCK, llamacpp_mmq_share
from planner.advisor.validation import predict, scored

UNSEEN_B = Path(__file__).resolve().parent / "benchmarks" / "unseen-2026-12b.toml"
H100_ROW = "sb15013-h100-llama2-7b-q4_0-pp512-b5143fa8"


@pytest.mark.parametrize(
    ("gpu", "expected"),
    [
        ("rtx-3090", 1.0),  # GA102: 284 int8 TOPS = 82 SMs x 1.695 GHz x 2,048
        ("rtx-4090", 1.0),  # AD102: 660.6 = 128 x 2.52 x 2,048
        ("rtx-5090", 1.0),  # GB202
        ("l40s", 1.0),
        ("dgx-spark-gb10", 1.0),
        ("b200-sxm", 1.0),  # datacenter Blackwell: no MMQ row measures it, its peak is kept
        ("a100-sxm-80gb", 0.5),  # GA100: 624 = 108 x 1.41 x 4,096
        ("a100-pcie-80gb", 0.5),
        ("h100-sxm-80gb", 0.25),  # GH100: 1,979 = 132 x 1.83 x 8,192 (wgmma)
        ("h200-sxm-141gb", 0.25),
        ("apple-m2-ultra", 1.0),  # not a CUDA device
    ],
)
def test_mmq_reaches_an_sms_consumer_line_int8_rate(gpu: str, expected: float) -> None:
    assert MMQ_INT8_OPS_PER_SM_CLOCK == 2048
    assert llamacpp_mmq_share(get_gpu(gpu)) == expected


def test_scoreboard_q4_0_prompts_on_hopper_follow_its_sms() -> None:
    """The scoreboard's pp512 in tokens/s: H100 80GB 9,918.34 (build 5143fa8), RTX 4090 11,992.70 (2241453), RTX 3090
    5,174.69 (c76b420). The H100 is below the RTX 4090 though its dense int8 peak is 3.0x (1,979 against 660.6 TOPS).
    Modelled +143 % before (the H100 at 2/3 of its tensor peak); now within 10 %, and the Ada and Ampere cards, whose
    share is 1, keep their errors (+2.7 %, +5.6 %)."""
    results = {s.id: s for s in scored(load_rows((UNSEEN_B,)))}
    h100 = results[H100_ROW]
    assert h100.measured == 9918.34
    assert h100.error is not None and abs(h100.error) < 0.10
    for row, error in (
        ("sb15013-rtx4090-llama2-7b-q4_0-pp512-b2241453", 0.027),
        ("sb15013-rtx3090-llama2-7b-q4_0-pp512-bc76b420", 0.056),
    ):
        assert results[row].error == pytest.approx(error, abs=0.001)


@pytest.mark.parametrize("gpu", ["a100-sxm-80gb", "a100-pcie-80gb"])
def test_the_scoreboards_a100_prompt_held_out(gpu: str) -> None:
    """The same scoreboard's A100 80GB at the H100's build (5143fa8): 4,849.53 tokens/s, a row the package excludes
    (the variant, SXM or PCIe, is not stated; both have the same 312 / 624 TOPS, so a compute-bound prompt is the
    same on either). Not used to set the share: held out, +30.2 %, within 35 % (at its full peak +149 %)."""
    h100 = next(r for r in load_rows((UNSEEN_B,)) if r.id == H100_ROW)
    a100 = h100.model_copy(update={"id": f"sb15013-{gpu}-pp512", "gpu_id": gpu, "value": 4849.53})
    predicted = predict(a100)
    assert predicted is not None and abs(predicted / 4849.53 - 1) < 0.35

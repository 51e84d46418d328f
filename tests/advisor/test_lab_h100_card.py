"""Which card is GPUStack's single H100 (docs/advisor.md, 'the lab's single-H100 card sought in public sources')?

Every single-H100 page of the lab states "A single NVIDIA H100 SXM GPU" (gpustack/gpustack@47277d79, since
1f37f1b8 / PR 4164, 2026-01-06; before it "NVIDIA H100 GPUs"), and no page, issue or reference prints a power cap or
clocks. The rows stay on the SXM card. These tests pin why no other catalog H100 is the machine either, from the
lab's own runs, so that a re-pointing of the rows is not mistaken for a correction:

- its one-user Qwen3-8B decode reads the weights faster than an H100 PCIe's memory can (model-free), and the model
  meets that decode on the SXM card and under-predicts it on the PCIe card;
- its prompt-bound bursts are over-predicted on the SXM card and met far better on the PCIe card's compute.

So the machine decodes as an SXM card and computes as a PCIe card: a compute-only slowdown (a power or clock cap
would give one; no source states it). A third, earlier run on the lab's H100 and A100 (its vLLM 0.9.2 quantization
reference, Qwen3-8B BF16 on ShareGPT) shows the same gap against the A100 months before the 0.11.0 pages.
Every figure is the model's reading of a public run: a change of the speed model that moves them past the bounds
below must say why."""

from __future__ import annotations

import statistics
from pathlib import Path

from model_catalog import get_gpu, get_model
from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.validation import scored
from planner.core.params import parameter_breakdown

BURSTS = Path(__file__).parent / "benchmarks" / "unseen-2026-12b.toml"
DECODE = tuple(f"gpustack-h100-qwen3-8b-vllm-sharegpt-c{n}" for n in (1, 2, 4, 8))
# gpustack/gpustack@47277d79 docs/performance-lab/references/the-impact-of-quantization-on-vllm-inference-performance.md
# (added bf8f18c0, 2025-11-20): Qwen3-8B, vLLM v0.9.2, `vllm bench serve ... --dataset-name sharegpt --num-prompts
# 1000` on the chat endpoint, BF16 rows of the "A100 80GB" and "H100 80GB" tables, "Throughput (tok/s)". That figure is
# the total (input + output) rate: the A100's 10,338.25 over the 1,000 requests' ~419,000 tokens is a 40.5 s run, as
# its mean TTFT 3.41 s + mean TPOT 200.02 ms x ~201 tokens gives; as an output rate the run would be 19.5 s.
QUANT_REFERENCE_TOTAL = {"a100-sxm-80gb": 10338.25, "h100-sxm-80gb": 13305.38}


def _rows() -> dict[str, BenchmarkRow]:
    return {r.id: r for r in load_rows((BURSTS,))}


def _errors(ids: tuple[str, ...], gpu_id: str) -> list[float]:
    rows = _rows()
    results = scored(tuple(rows[i].model_copy(update={"gpu_id": gpu_id}) for i in ids))
    return [s.error for s in results if s.error is not None]


def _prompt_ids() -> tuple[str, ...]:
    return tuple(i for i, r in _rows().items() if i.startswith("gpustack-h100-") and r.regime == "prefill")


def test_the_lab_h100_decodes_faster_than_an_h100_pcie_can() -> None:
    """Model-free: one user's Qwen3-8B step (median TPOT 7.22 ms, the c1 row) reads every 16-bit weight but the
    input embedding, 7,568,405,504 parameters (15.14 GB), so at least 2.10 TB/s: above the H100 PCIe's 2.0 TB/s
    (product brief PB-11133-001_v02) and 0.63 of the SXM card's 3.35."""
    row = _rows()[DECODE[0]]
    p = parameter_breakdown(get_model(row.model_id).spec)
    read = 2 * (p.lm_head + p.attention + p.dense_mlp + p.small)
    rate = read / (1 / row.value)
    assert read == 15_136_811_008
    assert round(rate / 1e12, 2) == 2.10
    assert rate > get_gpu("h100-pcie-80gb").bandwidth_bytes_per_s
    assert round(rate / get_gpu("h100-sxm-80gb").bandwidth_bytes_per_s, 2) == 0.63


def test_no_catalog_h100_fits_both_the_lab_decode_and_its_prompts() -> None:
    """At 656031b: the 1-8-user Qwen3-8B decode rows +11.5..+11.9 % on the SXM card, -28.2..-29.2 % on the PCIe card;
    the 20 prompt-bound bursts (vLLM and SGLang, Qwen3-14B / -32B, gpt-oss-20b / -120b) 73.5 % median |error| and 15
    over 50 % on the SXM card, 29.0 % and 6 on the PCIe card (the H100 NVL, 84.3 % and 20, fits neither). Bounds: the
    decode within 20 % on SXM and more than 20 % under on PCIe; the prompts' median over 50 % on SXM and under 40 % on
    PCIe."""
    sxm, pcie = (_errors(DECODE, g) for g in ("h100-sxm-80gb", "h100-pcie-80gb"))
    assert len(sxm) == len(pcie) == 4
    assert all(abs(e) < 0.20 for e in sxm), sxm
    assert all(e < -0.20 for e in pcie), pcie
    prompts = _prompt_ids()
    assert len(prompts) == 20
    cards = ("h100-sxm-80gb", "h100-pcie-80gb")
    sxm_p, pcie_p = (statistics.median(abs(e) for e in _errors(prompts, g)) for g in cards)
    assert sxm_p > 0.50, sxm_p
    assert pcie_p < 0.40, pcie_p


def test_the_lab_h100_was_as_slow_at_vllm_0_9_2() -> None:
    """The quantization reference's BF16 runs, built as bursts like the 0.11.0 ShareGPT rows (same file, 1,000
    prompts, the same means: 217 prompt and 202 generated tokens; output = total x 202 / 419), not rows of any set.
    Model-free, the lab's H100 is 1.29x its A100 where the catalog's 16-bit peaks differ 3.17x and the bandwidths
    1.64x; the model at vLLM 0.9.2 gives 1.88x (A100 -19.2 %, H100 +18.2 % at 656031b). Bounds: the model's ratio
    above 1.6x."""
    like = _rows()["gpustack-h100-qwen314b-vllm-sharegpt-max"]
    built = tuple(
        like.model_copy(
            update={
                "id": f"gpustack-{gpu_id}-qwen3-8b-vllm092-sharegpt-max",
                "model_id": "Qwen/Qwen3-8B",
                "gpu_id": gpu_id,
                "engine_version": "0.9.2",
                "value": total * 202 / 419,
            }
        )
        for gpu_id, total in QUANT_REFERENCE_TOTAL.items()
    )
    a100, h100 = (s.predicted for s in scored(built))
    assert a100 is not None and h100 is not None
    measured = QUANT_REFERENCE_TOTAL["h100-sxm-80gb"] / QUANT_REFERENCE_TOTAL["a100-sxm-80gb"]
    assert round(measured, 2) == 1.29
    assert h100 / a100 > 1.6, h100 / a100

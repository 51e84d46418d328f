"""The reading behind tests/advisor/unseen_2026_12.py PAGED_PROMPT_RATE and docs/advisor.md, 'The drained bursts
read a sixth time' (not a model): GPUStack's single H100 (unseen-2026-12b) runs its prompt-bound bursts at half
the modelled prompt rate under vLLM in BF16 and SGLang in FP8 alike, a cost per prompt token and not per request,
outside attention, while the same lab's H100 decodes faster than an H100 PCIe's bandwidth allows.

Each burst's measured duration (its excerpt) is split with the drain (:func:`planner.advisor.validation.drained`):
the modelled decode steps and the API server's wait are taken off, and what is left is set against the modelled
prompt time. Every figure here is the model's reading of a public run, so a change of the speed model that moves
them must say why (as tests/advisor/test_drain.py's A100 gpt-oss reading)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.drain import NO_EAGER, Drained, Eager, Limits, drain
from planner.advisor.frontend import burst_wait_seconds
from planner.advisor.hardware import compute_tflops
from planner.advisor.validation import case, drained
from planner.core.params import parameter_breakdown

Lengths = list[tuple[int, int]]
Step = Callable[[int, int], float]
BURSTS = Path(__file__).parent / "benchmarks" / "unseen-2026-12b.toml"
LENGTHS = ("2000-100", "4000-200", "32000-100")
# Maximum Achievable Matmul FLOPS (torch matmul, best shape, mean of 100 iterations), stas00/ml-engineering@744d01e1
# compute/accelerator/README.md:351 (A100 SXM BF16 271.2 of 312), :354 (H100 SXM BF16 794.5 of 989), :376 (H100 SXM
# FP8 1402.6 of 1979): what a healthy card's GEMMs reach, the ceiling of a prompt's share of the peak.
MAMF_SHARE = {"a100-bf16": 271.2 / 312, "h100-bf16": 794.5 / 989, "h100-fp8": 1402.6 / 1979}


def _row(row_id: str) -> BenchmarkRow:
    return next(r for r in load_rows((BURSTS,)) if r.id == row_id)


def _excerpt(row: BenchmarkRow, label: str) -> float:
    return float(re.findall(rf"{re.escape(label)}:\s+([\d.]+)", row.excerpt)[0])


def _no_step(batch: int, context: int) -> float:
    return 0.0


def _prompts_alone(
    lengths: Lengths, limits: Limits, step: Step, per_token: float, start: float, eager: Eager = NO_EAGER
) -> Drained:
    """The drain with every decode step free and no wait: the modelled prompt time of the burst."""
    return drain(lengths, limits, _no_step, per_token)


def _decodes_alone(
    lengths: Lengths, limits: Limits, step: Step, per_token: float, start: float, eager: Eager = NO_EAGER
) -> Drained:
    """The drain with every prompt token free and no wait: the modelled decode steps of the burst."""
    return drain(lengths, limits, step, 0.0)


def _parts(row_id: str) -> tuple[float, float, float, float]:
    """A burst's measured duration, and the drain's prompt time alone, decode steps alone and API-server wait."""
    row = _row(row_id)
    prompts, decodes = drained(row, scheduler=_prompts_alone), drained(row, scheduler=_decodes_alone)
    return _excerpt(row, "Benchmark duration (s)"), prompts.seconds, decodes.seconds, burst_wait_seconds(row)


def test_the_excess_is_per_prompt_token_not_per_request() -> None:
    """Qwen3-14B BF16 under vLLM 0.11.0 on the lab's H100: the measured duration less the drained one, over the
    requests, grows 21-fold from 500 prompts of 2,000 tokens to 100 of 32,000 (the API server's per-request work,
    the chat-template parse and tokenization of each request, would be flat or shrink), while over the prompt
    tokens it stays within 41-52 us. The step budget is 8,192 tokens at both releases the lab's H100 vLLM rows ran
    (vllm 0.10.2 and 0.11.0 ``engine/arg_utils.py``, ``_set_default_args``: 0.10.2 :1665-1688 as 0.11.0)."""
    per_request, per_token = [], []
    for n in LENGTHS:
        row = _row(f"gpustack-h100-qwen314b-vllm-random-{n}")
        excess = _excerpt(row, "Benchmark duration (s)") - drained(row).seconds
        per_request.append(round(1e3 * excess / (row.requests or 1), 1))
        per_token.append(round(1e6 * excess / _excerpt(row, "Total input tokens"), 1))
        assert case(row).setup.prefill_chunk == 8192
    assert case(_row("gpustack-h100-gptoss120b-vllm-random-2000-100")).setup.prefill_chunk == 8192  # vLLM 0.10.2
    # 83.5 / 187.5 / 1,714.0 ms and 41.8 / 46.9 / 53.6 us before the shared constants' refit (2026-12-07); 81.2 / 179.0
    # / 1,677.4 ms and 40.7 / 44.8 / 52.4 us before a preempted request resumed from its cached prefix (2026-12-08)
    assert per_request == pytest.approx([82.0, 182.3, 1691.3], abs=0.1)
    assert per_token == pytest.approx([41.1, 45.6, 52.9], abs=0.1)


@pytest.mark.parametrize(
    ("model", "factors", "shares", "mamf"),
    [
        # 2.01 / 2.09 / 1.94, 1.89 / 2.03 / 2.07 and 1.16 / 1.23 / 1.14 before the shared constants' refit (2026-12-07);
        # vLLM's 1.98 / 2.04 / 1.92 and 1.14 / 1.20 / 1.13 before a preempted request resumed from its cached prefix
        ("h100-qwen314b-vllm", [2.0, 2.08, 1.93], [0.355, 0.34, 0.379], "h100-bf16"),
        ("h100-qwen314b-fp8-sglang", [1.86, 1.98, 2.05], [0.24, 0.223, 0.226], "h100-fp8"),
        ("a100-qwen314b-vllm", [1.14, 1.21, 1.13], [0.616, 0.574, 0.635], "a100-bf16"),
    ],
)
def test_the_lab_h100_prompts_run_at_half_the_modelled_rate(
    model: str, factors: list[float], shares: list[float], mamf: str
) -> None:
    """The measured prompt time (duration less the modelled decode steps and wait) over the modelled one, and the
    share of the dense peak the prompts' FLOPs (attention included) then ran at: on the H100 about 2.0x at every
    length in both engines and both arithmetics (vLLM's BF16 cuBLAS, SGLang's block FP8), 0.42-0.47 of what a
    healthy H100's GEMMs reach in BF16 and 0.31-0.34 in FP8 (:data:`MAMF_SHARE`); on the lab's A100 1.13-1.21x, 0.66-
    0.73 of its GEMMs' ceiling. Flat over lengths where the attention FLOPs per token grow 16-fold (0.82 to 13.1
    GFLOP, against 28 GFLOP of linear layers): the time is not the attention's."""
    got_factors, got_shares = [], []
    for n in LENGTHS:
        row = _row(f"gpustack-{model}-random-{n}")
        measured, prompts, decodes, wait = _parts(row.id)
        c = case(row)
        assert c.prefill is not None
        seconds_per_token = (measured - decodes - wait) / _excerpt(row, "Total input tokens")
        tflops, _ = compute_tflops(c.setup.gpu, c.setup.path)
        assert tflops is not None
        got_factors.append(round((measured - decodes - wait) / prompts, 2))
        got_shares.append(round(c.prefill.flops / c.prefill.tokens / seconds_per_token / (tflops * 1e12), 3))
    assert got_factors == pytest.approx(factors, abs=0.005)
    assert got_shares == pytest.approx(shares, abs=0.0005)
    assert max(got_shares) < MAMF_SHARE[mamf]


def test_the_lab_h100_decodes_faster_than_an_h100_pcie_can() -> None:
    """The same lab's 'single NVIDIA H100 SXM GPU' page for Qwen3-8B under vLLM 0.11.0: one user at a median 7.22 ms
    a token, every BF16 weight read once a step (16.38 GB): at least 2.27 TB/s, above an H100 PCIe's 2.0 TB/s, so
    the card decodes at SXM bandwidth while its prompts run at half the rate (a compute-only slowdown)."""
    row = _row("gpustack-h100-qwen3-8b-vllm-sharegpt-c1")
    weights = 2 * parameter_breakdown(get_model(row.model_id).spec).served
    bandwidth = weights / (_excerpt(row, "Median TPOT (ms)") / 1e3)
    assert round(bandwidth / 1e12, 2) == 2.27
    assert bandwidth > (get_gpu("h100-pcie-80gb").bandwidth_bytes_per_s or 0)


def test_no_single_hopper_factor_describes_the_paged_prompts() -> None:
    """The same reading on the lab's 8-GPU machines, Qwen3-235B-A22B under vLLM 0.11.0 at TP8: the prompts over
    8 x H100 take 0.66-1.13x the modelled time, over 8 x A100 more, 1.32-1.71x (0.64-1.12 on the H100s before a
    preempted request resumed from its cached prefix, 2026-12-08; 0.89-1.45 and 1.44-1.82 before the
    prompts' routed experts took vLLM's measured fused-MoE time at the chunk's tokens, planner.advisor.prompt_moe;
    1.28-1.55 and 1.64-1.91 before the decode steps' did and the shared constants were refitted, 2026-12-07). A
    prompt-rate mechanism of the paged engines on Hopper would have to spare the one and not the other
    (docs/advisor.md, 'read a sixth time')."""
    factors = {}
    for gpus in ("h100x8", "a100x8"):
        parts = [_parts(f"gpustack-{gpus}-qwen3235ba22b-vllm-random-{n}") for n in LENGTHS]
        factors[gpus] = [round((measured - decodes - wait) / prompts, 2) for measured, prompts, decodes, wait in parts]
    assert factors == {"h100x8": [0.8, 0.66, 1.13], "a100x8": [1.32, 1.54, 1.71]}

"""The sixteenth blind set (tests/fidelity/cases/vllm-blind-2026-12o.json): seven public vLLM 0.22-0.28 start-ups
found through the search index on 2026-12-06 by an outside reviewer and scored before anything changed (HEAD
d094ee6):

- Qwen2.5-0.5B in the offline LLM class on an RTX 4090 under WSL2 at util 0.92 (0.27.1);
- the syv-ai RTX 3090 image of Qwen3.8-27B W4A16 AutoRound at its default util 0.972, with the whole memory split
  printed (0.28.0);
- a Qwen2.5-7B fine-tune in BF16 on a rented RTX 5090 (0.24.0, card inferred from the printed estimate);
- Qwen2.5-7B-Instruct through AsyncLLMEngine on a 46,068 MiB Ada card (0.22.0, card class inferred);
- Qwen3.8-27B BF16 on a Ryzen AI Max+ 395 (Strix Halo, ROCm) with an 80 GiB GPU pool, with and without MTP 1
  (a source build with 0.28.0's lines);
- Qwen3-0.6B on an RTX 3050 6GB, a card the catalog lacks (out of scope: no catalog entry takes a 6 GiB total).

Three more found (Qwen3-32B BF16 on RTX PRO 6000 Server cards at util 0.426: TP 1 refused, TP 2, PP 2; search-index
file id 57905766703) were left out: the repository holds them as the fourteenth check (docs/blind-2026-12-06.json).

As first scored: the KV cache far off and most verdicts wrong, 2 of 6 in scope right: median |KV error| 1.84 GiB over
the six in scope, none within 0.5 GiB (the closest -0.502), worst 4.80 (Strix Halo with MTP). Three faults carry most
of it: on Strix Halo the planner takes vLLM's defaults for a card over 70 GiB where vLLM reads amdsmi's VRAM carve-out
(256 sequences and 2,048 tokens bring the two boots to +0.50 and -0.13 GiB); on headless rented GeForce cards the
fitted 1.18 GiB of desktop non-torch memory; under WSL2 the desktop's share charged inside vLLM's budget and a sampler
refusal the Windows driver's shared-memory fallback does not give. Each miss is named in ``bench.fidelity_unmatched``
with what would settle it."""

from __future__ import annotations

import pytest

from tests.fidelity.blind_sets import assert_as_scored, assert_sourced_and_held_out, first_scores, load_blind_set

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12o.json")
IN_SCOPE = [c for c in BLIND if "out_of_scope" not in c["setup"]]
# The Strix Halo boots under vLLM's batch defaults as ROCm reads the device from 0.24.0 (amdsmi's VRAM total, the
# APU's carve-out: rule rocm_vram_defaults, 2026-12-06, chosen after this set was read, so no longer blind for it)
NOW: dict[str, float] = {
    "vllm-0.28-strixhalo-qwen38-27b-bf16-262k-util092": 0.50,
    "vllm-0.28-strixhalo-qwen38-27b-bf16-262k-util092-mtp1": -0.13,
    # its cold compile ('Compiling a graph for compile range (1, 2048) takes 9.43 s') planned since 2026-12-07: the
    # random copy of the 1.015 GiB embedding table replaces the 0.30 GiB forward as the transient (+0.78 -> +0.07)
    # +0.07 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.22-48gb-ada-qwen25-7b-instruct-bf16-4k-util095-asyncengine": 0.01,
    # the image's lm_head and embed_tokens as it serves them, int8 group 128 (2026-12-07, read from its prepare/
    # scripts, planner.core.vocab_formats): weights 16.65 -> 14.32 GiB planned, 14.26 printed; KV -3.03 -> -0.70
    # (the rest: the fitted desktop non-torch share, 1.43 GiB planned where this headless card printed 0.47, less
    # the peak activation with the graph estimate, 0.78 planned where it printed 1.09), and it starts as it did
    # -0.70 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # -0.95 before the 4-bit body at 4.125 bits, symmetric with no zero point (2026-12-07,
    # planner.core.vocab_formats): 14.23 GiB of weights planned
    # -0.86 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    # -1.00 before the desktop share's refit on the merged tree (2026-12-07, graphics_extra 1.046 -> 1.032 GiB)
    "vllm-0.28-rtx3090-qwen38-27b-w4a16-autoround-syvai-131k-util0972": -0.99,
    # -1.26 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # -1.13 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-wsl2-qwen25-0.5b-llmclass-util092": -1.12,
    # -0.50 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # -0.37 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.24-rtx5090-vast-qwen25-7b-bf16-8k-util090": -0.41,
}
VERDICTS_NOW = dict.fromkeys(NOW, True)
# The WSL2 Qwen2.5-0.5B LLM-class boot starts as it did since 2026-12-07 (fifty-first session): the capture's base
# off Hopper is fitted on the other devices' lines (planner.engines.vllm.profile_graphs.hopper_capture_bytes), a
# 0.35 GiB capture where 0.62 was planned (it printed 0.00, the same machine's serve boot 0.28); its KV as scored.
VERDICTS_NOW["vllm-0.27-rtx4090-wsl2-qwen25-0.5b-llmclass-util092"] = True


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    assert_sourced_and_held_out(BLIND, RESULTS, 7)


# The mechanistic non-torch model (2026-12-07, fifty-third session; docs/fidelity.md 'The share candidate split
# by host'): no desktop share, the vision encoder's non-torch per item token, a per-process share under --host
# windows, the one-RTX-3090 document's boots cold; each value before it in the comment above it
NOW.update(
    {
        # -1.12 before
        # -1.26 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        "vllm-0.27-rtx4090-wsl2-qwen25-0.5b-llmclass-util092": -0.15,
        # -0.99 before
        "vllm-0.28-rtx3090-qwen38-27b-w4a16-autoround-syvai-131k-util0972": 0.04,
        # -0.41 before
        "vllm-0.24-rtx5090-vast-qwen25-7b-bf16-8k-util090": 0.62,
        # +0.50 before
        "vllm-0.28-strixhalo-qwen38-27b-bf16-262k-util092": -0.29,
        # -0.13 before
        "vllm-0.28-strixhalo-qwen38-27b-bf16-262k-util092-mtp1": -0.92,
    }
)
# --skip-mm-profiling read (2026-12-07, fifty-third session, helper skipmm): the Strix Halo boots plan no encoder
# profile (0.79 GiB of non-torch memory and 0.13 of encoder outputs fewer); each value before in the comment above it
NOW.update(
    {
        # -0.29 before
        "vllm-0.28-strixhalo-qwen38-27b-bf16-262k-util092": 0.63,
        # -0.92 before
        # -0.00 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.28-strixhalo-qwen38-27b-bf16-262k-util092-mtp1": -0.04,
    }
)


# FlashInfer's decode workspace inside FULL's first capture (2026-12-07, fifty-fourth session: vLLM's estimate
# takes the larger of the modes' first captures; the refit Windows share 0.0705 -> 0.0738 and encoder amount
# 42,337 -> 46,417 B a token); each value before it in the comment above it
NOW.update(
    {
        # +0.04 before
        "vllm-0.28-rtx3090-qwen38-27b-w4a16-autoround-syvai-131k-util0972": 0.11,
    }
)


# The Triton top-k / top-p kernel's cached buffer in the sampler warm-up, min(next_pow2(min(SMs, rows)), SMs)
# fp32 vocabulary rows (2026-12-07, fifty-sixth session, helper coder3; the refit Triton copies 3.7133 -> 3.5844);
# each value before it in the comment above it
NOW.update(
    {
        # +0.62 before
        "vllm-0.24-rtx5090-vast-qwen25-7b-bf16-8k-util090": 0.54,
        # +0.63 before
        "vllm-0.28-strixhalo-qwen38-27b-bf16-262k-util092": 0.66,
    }
)


@pytest.mark.parametrize("case", IN_SCOPE, ids=[c["id"] for c in IN_SCOPE])
def test_each_as_scored(case: dict[str, object]) -> None:
    assert_as_scored(case, RESULTS, NOW, VERDICTS_NOW)


def test_first_scores() -> None:
    median, worst, right = first_scores(IN_SCOPE)
    assert (median, worst, right) == (pytest.approx(1.84, abs=0.01), pytest.approx(4.80, abs=0.01), 2)


def test_the_card_the_catalog_lacks_is_reported_not_scored() -> None:
    """The RTX 3050 6GB start-up: its printed 2.14 GiB kept as a record, no error counted."""
    (case,) = [c for c in BLIND if "out_of_scope" in c["setup"]]
    result = RESULTS[str(case["id"])]
    assert result.reported_kv_gib == pytest.approx(2.14) and result.kv_error_gib is None


def test_strix_halo_is_planned_at_the_defaults_vllm_resolved() -> None:
    """The Strix Halo boots are planned at the 256 sequences and 2,048 batched tokens vLLM ran with ('max_num_scheduled
    _tokens is set to 2048' in the MTP boot's log): its batch defaults read amdsmi's VRAM total, the APU's carve-out,
    not the 80 GiB pool (0.28.0 platforms/rocm.py:192-196, :847-863). Planned at the >70 GiB defaults when found:
    1,024 sequences (a Mamba-block refusal) and 8,192 tokens (-2.41 and -4.80 GiB, both verdicts wrong). Both within
    0.51 GiB until the mechanistic non-torch model (2026-12-07, fifty-third session): the MTP 1 boot is -0.92 since
    (-0.13 before; bench.fidelity_unmatched_w), its verdict right. With --skip-mm-profiling read (no encoder profile,
    0.92 GiB fewer) the MTP 1 boot is -0.00 and the other +0.63 (-0.29 before): its plan's non-torch memory (0.25 GiB
    against 0.56 printed) and graph estimate (1.20 against 1.55) are both under, which the encoder amount hid."""
    for case in [c for c in BLIND if "strixhalo" in str(c["id"])]:
        result = RESULTS[str(case["id"])]
        assert result.report is not None and result.report.max_running == 256, result.id
        assert result.verdict_right, result.id
        # -0.92 and within 0.51 (-0.29) before; the MTP 1 boot -0.00 until its drafter's buffers (0.02 GiB, 2026-12-07)
        # the other 0.63 until the Triton copies were refit beside the sampler's cached buffer
        # (2026-12-07, fifty-sixth session, coder3: the Triton copies refit 3.7133 -> 3.5844)
        expected = -0.04 if str(case["id"]).endswith("-mtp1") else 0.66
        assert result.kv_error_gib == pytest.approx(expected, abs=0.01), result.id

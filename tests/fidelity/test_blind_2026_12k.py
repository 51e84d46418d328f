"""The eleventh blind set (tests/fidelity/cases/vllm-blind-2026-12k.json): thirteen public vLLM 0.25-0.29 start-ups
found through the search index on 2026-12-04 and scored before anything changed: Qwen3.8-27B in BF16 on an AutoDL
RTX PRO 6000 Server Edition (0.29.0, started at 256 sequences, refused by the Mamba-block check at 1,024); one L4
shared with an Ollama server holding 4.79 GiB (0.28.0: Qwen2.5-7B-AWQ refused at util 0.35, started at 0.45 and
0.60; Gemma 4 E4B QAT W4A16 at 0.62); Gemma 4 26B-A4B with four LoRA adapters on a GB10 (0.25.0); Qwen3-8B on a
RunPod RTX 4090 (0.27.1); unsloth's Qwen3.8-27B-NVFP4 on an RTX 5090 under WSL2 (0.27.1: without a drafter, with MTP
2 and 3, refused at util 0.98 by the free-memory check and with 16,384 batched tokens for its KV cache).

As first scored: median |KV error| 1.47 GiB over the eleven with a KV figure, worst 5.10 (the LoRA set-up on the
GB10); 11 of 13 verdicts right (the two WSL2 refusals planned as starts). Each miss is named in
``bench.fidelity_unmatched`` with what would settle it."""

from __future__ import annotations

import json

import pytest

from bench.fidelity import run_all
from tests.fidelity.blind_sets import assert_as_scored, assert_sourced_and_held_out, first_scores, load_blind_set

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12k.json")
# What the planner gives now where it differs from the first score: the Windows machine (planner.deploy.host, since
# 2026-12-04, chosen after this set was read, so no longer blind for it): the desktop's memory by default, so the util
# 0.98 refusal is predicted with vLLM's own figures (30.20/31.84 GiB), and no desktop-card share, so unsloth's NVFP4
# checkpoint is 1.17 GiB further over (its other gap, the weights' ~1.2 GiB and what the README does not split, is
# unchanged)
NOW: dict[str, float] = {
    # since 2026-12-06 the desktop share is planned under Windows too (ten of eleven WSL2 start-ups hold it): back to
    # their first scores (3.50 / 4.22 / 4.23 / 3.54 without it); and since 2026-12-06 the checkpoint is planned as
    # unsloth stores it (nvfp4-fp8tail: FP8 lm_head and last eight MLPs, 1.39 GiB more than NVIDIA's layout, read from
    # its README's group table and checked against its 22.5 GB, not against these figures): 2.32 / 3.05 / 3.05 / 2.36
    # before
    # +0.93 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +0.68 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8": 0.63,
    # +1.66 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +1.79 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8-mtp2": 1.74,
    # +1.66 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +1.79 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8-mtp3": 1.75,
    # +0.97 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    # +1.10 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-mtp3-mbt16384-kv-refusal": 1.05,  # 3.57 before the forward's refit
    # Model Runner V2's sampler derived from the source and no V2 graph estimate before 0.29 (2026-12-04, after
    # this set was read): Qwen2.5-7B-AWQ beside Ollama -0.22 -> +0.66 (the util 0.35 refusal now missed, above),
    # Gemma 4 E4B -1.47 -> +0.16, the RunPod RTX 4090 -1.40 -> -0.34, the AutoDL RTX PRO 6000 -1.13 -> -1.15
    # ... and since a cold compile's random copy of the embedding table is planned (2026-12-07, planner.engines.vllm.
    # compile_copy), the three planned cold as their printed 1.04 GiB peak (the 1.015 GiB table) shows: +0.66 -> -0.05
    "vllm-0.28-l4-ollama-qwen25-7b-awq-32k-util035-refusal": -0.05,
    "vllm-0.28-l4-ollama-qwen25-7b-awq-32k-util045": -0.05,
    "vllm-0.28-l4-ollama-qwen25-7b-awq-32k-util060": -0.06,
    # +0.16 until the shared-KV layers' k/v projections vLLM 0.28 builds were planned (2026-12-06)
    # +0.14 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.28-l4-ollama-gemma4-e4b-qat-w4a16-32k-util062": 0.09,
    # -0.34 until its cold boot's table copy was planned (2026-12-07: 'the cold boot (a fresh compile)'); the rest is
    # the desktop cards' fitted share this headless rented card does not hold
    # -1.26 before FlashInfer's decode workspace in the graph estimate and the desktop share's refit (2026-12-07)
    "vllm-0.27-rtx4090-runpod-qwen3-8b-bf16-8k-util092": -1.12,
    # the RTX PRO 6000 Server Edition as its own catalog card (2026-12-05): a passive datacenter card of the GB202
    # die, without the desktop cards' compile amount (as the L40S of AD102): -1.15 -> +0.03
    "vllm-0.29-rtxpro6000-server-qwen38-27b-bf16-8k-seqs256": 0.03,
    # vLLM's prefix-LM floor of 2,496 batched tokens for Gemma 4 26B-A4B (2026-12-05): +5.09 -> +5.04, its printed
    # tokens those of 2,496 (tests/engines/test_vllm_batch_resolution.py); +5.01 since the V slot of the k_eq_v
    # global layers is planned (2026-12-06); +4.97 since with LoRA the V1 runner captures (and estimates) each graph
    # size for both LoRA cases (2026-12-07, rule lora_graph_cases)
    # +4.97 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.25-gb10-gemma4-26b-a4b-bf16-lora4-util055-32k": 4.94,
}
VERDICTS_NOW: dict[str, bool] = {
    "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-util098-free-memory": True,
}


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    assert_sourced_and_held_out(BLIND, RESULTS, 13)


# The mechanistic non-torch model (2026-12-07, fifty-third session; docs/fidelity.md 'The share candidate split
# by host'): no desktop share, the vision encoder's non-torch per item token, a per-process share under --host
# windows, the one-RTX-3090 document's boots cold; each value before it in the comment above it
NOW.update(
    {
        # +0.03 before
        # -0.76 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # -0.62 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # -0.68 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.29-rtxpro6000-server-qwen38-27b-bf16-8k-seqs256": -0.60,
        # +0.09 before
        # -0.03 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # +0.00 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        "vllm-0.28-l4-ollama-gemma4-e4b-qat-w4a16-32k-util062": -0.01,
        # -1.12 before
        "vllm-0.27-rtx4090-runpod-qwen3-8b-bf16-8k-util092": -0.08,
        # +0.63 before
        # -0.31 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        # -0.62 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # -0.48 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # -0.54 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8": -0.47,
        # +1.74 before
        # +0.80 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        # +0.43 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # +0.58 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # +0.44 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8-mtp2": 0.48,
        # +1.75 before
        # +0.81 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        # +0.44 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # +0.58 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # +0.45 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8-mtp3": 0.49,
        # +1.05 before
        # +0.11 until the Windows term was a share of the weights loaded (2026-12-07, fifty-fourth session)
        # -0.26 until the encoder refit without #851's INT4 weights (2026-12-07, fifty-fourth session)
        # -0.11 until FlashInfer's workspace sat in FULL's first capture and the encoder refit to 46,417 B (2026-12-07)
        # -0.25 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-mtp3-mbt16384-kv-refusal": -0.48,
    }
)
VERDICTS_NOW.update(
    {
        # wrong before
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-mtp3-mbt16384-kv-refusal": True,
    }
)


# The Triton top-k / top-p kernel's cached buffer in the sampler warm-up, min(next_pow2(min(SMs, rows)), SMs)
# fp32 vocabulary rows (2026-12-07, fifty-sixth session, helper coder3; the refit Triton copies 3.7133 -> 3.5844);
# each value before it in the comment above it
NOW.update(
    {
        # +4.94 before
        "vllm-0.25-gb10-gemma4-26b-a4b-bf16-lora4-util055-32k": 4.95,
    }
)


@pytest.mark.parametrize("case", BLIND, ids=[c["id"] for c in BLIND])
def test_each_as_scored(case: dict[str, object]) -> None:
    assert_as_scored(case, RESULTS, NOW, VERDICTS_NOW)


def test_first_scores() -> None:
    median, worst, right = first_scores(BLIND)
    assert (median, worst, right) == (pytest.approx(1.47, abs=0.01), pytest.approx(5.10, abs=0.01), 11)


def test_other_processes_memory_is_planned_beside_the_engine() -> None:
    """The L4 start-ups beside Ollama's 4,902 MiB: every KV figure within 0.1 GiB and the refusal at util 0.35
    predicted with vLLM's own reason (1.75 GiB needed). While Model Runner V2's sampler term was fitted they were
    within 0.25 GiB; derived from the source (2026-12-04), Qwen2.5-7B-AWQ was 0.65-0.66 GiB over in all three and
    the refusal planned to start: the author's table prints 1.04 GiB of peak activation, the cold compile's copy of
    the 152,064 x 3,584 bf16 table (1.015 GiB; planner.engines.vllm.compile_copy, planned since 2026-12-07). The same
    author's Gemma 4 E4B boot prints 0.27 GiB: its runner takes images, so the lookup is outside the compiled graph."""
    l4 = {r.id: r for r in RESULTS.values() if "-l4-ollama-" in r.id}
    assert len(l4) == 4
    awq = [r for i, r in l4.items() if "qwen25-7b-awq" in i]
    assert all(r.kv_error_gib is not None and abs(r.kv_error_gib) < 0.1 for r in awq)
    assert all(r.verdict_right for r in awq)
    gemma = l4["vllm-0.28-l4-ollama-gemma4-e4b-qat-w4a16-32k-util062"]
    assert gemma.kv_error_gib is not None and abs(gemma.kv_error_gib) < 0.2 and gemma.verdict_right


HEADLESS = ("vllm-0.22-rtx3090ti-gemma4-e4b-it-32k-util09",)  # the RTX PRO 6000 Server Edition is its own card now
RUNPOD = "vllm-0.27-rtx4090-runpod-qwen3-8b-bf16-8k-util092"


def test_the_engine_note_on_desktop_dies_says_what_rented_and_vm_machines_held() -> None:
    """A VM start-up on a desktop die holds 1.31 GiB more KV than planned (1.21 until the shared-KV layers' k/v
    projections of its Gemma 4 E4B were planned, 2026-12-06; the 1.17 GiB fitted on desktop cards,
    which it does not hold; the AutoDL RTX PRO 6000 that did the same is a passive Server Edition, planned since
    2026-12-05 as the datacenter card it is, +0.03 GiB); a rule planning such machines without it failed on the two
    found after it (a Vast.ai RTX 3090, a Proxmox VM driving no display), and the RunPod RTX 4090 counted with those
    first was within 0.35 GiB once Model Runner V2's sampler was derived from the source (-1.40 before), and is
    -1.26 since its cold boot's table copy is planned (2026-12-07): with the copy, the budget it printed leaves the
    datacenter base and none of the desktop share (1.45 GiB left, 1.56 planned without the share). So two held none
    and two held it, and the engine note names both sides."""
    from planner.engines.vllm.caveats import HEADLESS_EVIDENCE

    errors = {r.id: r.kv_error_gib for r in run_all() if r.id in (*HEADLESS, RUNPOD)}
    # since the mechanistic non-torch model (2026-12-07, fifty-third session) no desktop share is planned on Linux
    # (fitted 0), so the note is not shown: the VM -0.29 GiB and the RunPod RTX 4090 -0.08 (-1.20 and -1.26 with the
    # share); the Server Edition -0.76 (+0.03 before: Qwen3.8-27B's vision encoder's amount, bench.fidelity_unmatched_w)
    # the VM -0.26 and the Server Edition -0.62 since make calibrate refitted the encoder amount without club-3090
    # #851's INT4 weights (2026-12-07, fifty-fourth session; -0.29 and -0.76 before); the VM -0.27 and the Server
    # Edition -0.68 since FlashInfer's workspace sat in FULL's first capture and make calibrate refit that amount to
    # 46,417 B a token (the same session; -0.26 and -0.62 before); the Server Edition -0.60 since make calibrate refit
    # it to 41,312 B beside the MTP drafter's buffers (2026-12-07, fifty-fifth session; -0.68 before)
    # -0.27 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    # -0.25 until coder3's Triton sampler buffer beside relout2's Gated DeltaNet layer peak (fifty-sixth session)
    assert errors[HEADLESS[0]] == pytest.approx(-0.30, abs=0.01)
    assert errors[RUNPOD] == pytest.approx(-0.08, abs=0.01)
    assert "two held none of it" in HEADLESS_EVIDENCE and "two held it" in HEADLESS_EVIDENCE
    server = next(r for r in run_all() if r.id == "vllm-0.29-rtxpro6000-server-qwen38-27b-bf16-8k-seqs256")
    assert server.setup.gpu == "rtx-pro-6000-blackwell-server"
    # -0.60 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert server.kv_error_gib == pytest.approx(-0.54, abs=0.01)


def test_the_windows_desktop_default_is_the_public_figures() -> None:
    """The Windows (WSL2) start-ups print the card's whole memory as the total and what was free at the worker's
    snapshot: 23.99 - 22.45 = 1.54 GiB on an RTX 4090, 31.84 - 30.2 = 1.64 on an RTX 5090, 1.64 'already
    resident' on another; the desktop's default is their median less the worker's own CUDA context (0.51 GiB)."""
    from bench.fidelity_cases import load_cases
    from planner.core.units import GiB
    from planner.deploy.host import WINDOWS_DESKTOP_BYTES, WINDOWS_HELD_AT_SNAPSHOT

    text = {c["id"]: json.dumps(c, ensure_ascii=False) for c in load_cases()}
    assert "30.2/31.84" in text["vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-util098-free-memory"]
    assert "22.45/23.99" in text["vllm-0.27-rtx4090-wsl2-qwen25-0.5b-2k-util085"]
    docker = text["vllm-0.29-rtx5090-wsl-qwen36-35b-a3b-nvfp4-util082"]
    assert "| Already resident when vLLM read the card | 1.64 |" in docker
    assert [round(gib, 2) for _, gib in WINDOWS_HELD_AT_SNAPSHOT] == [1.54, 1.64, 1.64]
    assert WINDOWS_DESKTOP_BYTES / GiB == pytest.approx(1.13, abs=0.005)


# Restated from the planner's output for a Gated DeltaNet layer's own peak in the profile run and make calibrate's
# encoder refit 41,312 -> 37,217 B a token (2026-12-07, fifty-sixth session, helper relout2); the value before in the
# comment.
NOW.update(
    {
        "vllm-0.29-rtxpro6000-server-qwen38-27b-bf16-8k-seqs256": -0.54,  # -0.60
        "vllm-0.28-l4-ollama-gemma4-e4b-qat-w4a16-32k-util062": 0.01,  # -0.00
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8": -0.40,  # -0.47
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8-mtp2": 0.55,  # +0.48
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-fp8kv-32k-seqs8-mtp3": 0.55,  # +0.49
        "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-mtp3-mbt16384-kv-refusal": -0.42,  # -0.48
    }
)

"""The twenty-first blind set (tests/fidelity/cases/vllm-blind-2026-12t.json): eight public vLLM start-ups found
through the search index on 2026-12-07, not in the repository, and scored before anything changed (HEAD 43be0aa);
seven in scope: six boots of Qwen3-4B with LoRA slots (1, 16, 64) at 8,192 tokens on RunPod RTX 4090s under vLLM
0.27.1 (a project's serverless probes, alexostapiuk11/coldstart-recon-worker fixtures/a5: util 0.80 and 0.85
started; at the default 0.92 a cold boot ran out of memory in the sampler warm-up and its warm restart in the CUDA
graph capture), each printing its 'Free memory on device ... Actual usage' line; and Qwen3.8-27B-FP8 in eager mode
at 32K on an H200 (0.29.0, tokens only, util not published); one record, its model not in the catalog
(gemma-4-12b-it NVFP4 with a fixed KV cache on an RTX PRO 6000, 0.30.0).

As first scored: verdicts 5 / 7 (both 0.92 refusals planned to start), median |KV error| 1.06 GiB, worst -1.22
(the 0.85 one-slot boot); the LoRA boots all under (-0.24 to -1.22). Each miss is named in
``bench.fidelity_unmatched`` (``bench.fidelity_unmatched_t``)."""

from __future__ import annotations

import pytest

from tests.fidelity.blind_sets import (
    assert_as_scored,
    assert_sourced_and_held_out,
    first_scores,
    load_blind_set,
)

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12t.json")
IN_SCOPE = [c for c in BLIND if "out_of_scope" not in c["setup"]]
LORA = [c for c in IN_SCOPE if "lora" in str(c["id"])]
RECORD = "vllm-0.30-rtxpro6000-gemma-4-12b-it-nvfp4-kvbytes-65k"
# Qwen3-4B's KV page a token: 36 layers x 8 KV heads x 128 x (K and V) x 2 bytes (config.json; 144 KiB)
PAGE = 36 * 8 * 128 * 2 * 2
# The KV errors since vLLM's vocabulary-sized LoRA slots were planned (2026-12-07, fifty-first session: 14.14 MiB a
# slot, tests/deploy/test_lora_vocab.py; the loads' weights errors -0.07 / -0.29 / -1.05 -> -0.05 / -0.07 / -0.17 GiB
# at 1 / 16 / 64 slots). The KV errors move the other way (64 slots -0.11 -> -0.99): the over-planned framework share
# (graphics_extra, 1.05 GiB) had cancelled the unplanned slots; not compensated. Before: -1.08 / -0.88 /
# -0.11 / -1.09 / -0.93 / -1.08, since FlashInfer's decode workspace was planned and the desktop share refitted
# 1.18 -> 1.05 GiB (the same session); each first score is kept in the case file and in test_first_scores.
NOW: dict[str, float] = {
    # +0.33 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.29-h200-qwen38-27b-fp8-eager-32k": 0.27,
    # -1.10 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util080": -1.14,
    # -1.10 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora16-8k-util080": -1.14,
    # -0.99 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora64-8k-util080": -1.03,
    # -1.10 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util085": -1.14,
    # -0.94 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util092-cold-sampler-oom": -0.98,
    # -1.09 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util092-capture-oom": -1.13,
}
# Right since the LoRA kernels of the graphs captured with adapters active are planned (2026-12-07, fifty-second
# session: the capture 0.88 -> 1.25 GiB, 1.28 printed; tests/engines/test_vllm_lora_kernels.py); the cold boot
# since Model Runner V2's post-capture warm-up is planned from the source (fifty-third session: 0.51 GiB where 0.36
# is planned free; planner/engines/vllm/warmup.py, tests/deploy/test_sysmem.py).
VERDICTS_NOW: dict[str, bool] = {
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util092-capture-oom": True,
    "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util092-cold-sampler-oom": True,
}


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    assert_sourced_and_held_out(BLIND, RESULTS, 8)
    assert len(IN_SCOPE) == 7 and len(LORA) == 6


# The mechanistic non-torch model (2026-12-07, fifty-third session; docs/fidelity.md 'The share candidate split
# by host'): no desktop share, the vision encoder's non-torch per item token, a per-process share under --host
# windows, the one-RTX-3090 document's boots cold; each value before it in the comment above it
NOW.update(
    {
        # -1.14 before
        "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util080": -0.10,
        # -1.14 before
        "vllm-0.27-rtx4090-runpod-qwen3-4b-lora16-8k-util080": -0.10,
        # -1.03 before
        "vllm-0.27-rtx4090-runpod-qwen3-4b-lora64-8k-util080": -0.00,
        # -1.14 before
        "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util085": -0.11,
        # -0.98 before
        "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util092-cold-sampler-oom": 0.05,
        # -1.13 before
        "vllm-0.27-rtx4090-runpod-qwen3-4b-lora1-8k-util092-capture-oom": -0.10,
    }
)


@pytest.mark.parametrize("case", IN_SCOPE, ids=[c["id"] for c in IN_SCOPE])
def test_each_as_scored(case: dict[str, object]) -> None:
    assert_as_scored(case, RESULTS, NOW, VERDICTS_NOW)


def test_first_scores() -> None:
    median, worst, right = first_scores(IN_SCOPE)
    assert (median, worst, right) == (pytest.approx(1.06, abs=0.01), pytest.approx(1.22, abs=0.01), 5)


def test_the_record_is_reported_not_scored() -> None:
    """The gemma-4-12b-it boot keeps no KV figure (a fixed 52.0 GiB pool, its tokens only) and counts no error."""
    assert [c["id"] for c in BLIND if "out_of_scope" in c["setup"]] == [RECORD]
    result = RESULTS[RECORD]
    assert result.report is None and result.reported_kv_gib is None and result.kv_error_gib is None
    assert result.reported_tokens == 1078887 and result.verdict_right is None


def test_the_printed_pools_are_whole_pages() -> None:
    """Each LoRA boot's printed GiB is its printed tokens x 144 KiB (to the printed 0.01 GiB): one KV group, so
    the scores are not a derivation's."""
    for case in LORA:
        reported = case["reported"]
        assert isinstance(reported, dict)
        assert reported["kv_cache_tokens"] * PAGE / 2**30 == pytest.approx(reported["kv_cache_gib"], abs=0.006)


def test_the_refusals_are_the_logs() -> None:
    """At util 0.92 the cold boot refused in the sampler warm-up, its warm restart in the capture; as first scored
    both planned to start (the misses bench.fidelity_unmatched_t names). Since each graph size is captured for both
    LoRA cases (102 + 70 graphs, 1.15 GiB planned; tests/engines/test_vllm_lora_graphs.py) the warm restart is
    planned to refuse after its KV pool, 0.09 GiB short before the sampler, named 'sampler-oom' (then the planner's
    one kind for the headroom after the pool; 'graph-capture-oom' since, tests/engines/test_vllm_capture_oom.py):
    still a miss by its kind; the cold boot keeps 0.46 GiB free. With the capture's base off Hopper (0.088 GiB
    where 0.358 was every card's, the same session) the capture is planned at 0.88 GiB (1.28 printed) and both are
    planned to start again; with the LoRA kernels the warm restart refuses in the capture (fifty-second session), and
    with Model Runner V2's warm-up read from the source (0.51 GiB, fifty-third) the cold boot in the sampler warm-up:
    both right."""
    kinds = {str(c["id"]).rsplit("-", 2)[-2]: RESULTS[str(c["id"])] for c in LORA if "util092" in str(c["id"])}
    assert kinds["sampler"].reported_failure == "sampler-oom"
    assert kinds["capture"].reported_failure == "graph-capture-oom"
    assert kinds["sampler"].predicted_failure == "sampler-oom"
    assert kinds["capture"].predicted_failure == "graph-capture-oom"
    assert kinds["sampler"].verdict_right is True and kinds["capture"].verdict_right is True


def test_the_restarts_state_their_warm_compile_cache() -> None:
    """Each restart states its compile cache warm from its own log (issue 20, 2026-12-07, helper share3): the
    fixture's log_lines load the AOT artifact and print the compile time, quoted in the case's mapping note; the
    cold first probe of 'oom-attempt-1' stays stated cold. Stating warm plans what the default planned."""
    restarts = [c for c in LORA if "cold-sampler" not in str(c["id"])]
    assert len(restarts) == 5
    for case in restarts:
        setup = case["setup"]
        assert isinstance(setup, dict)
        assert setup["profile"]["compile_cache"] == "warm"
        note = str(setup["mapping_note"])
        assert "[decorators.py:311] Directly load AOT compilation from path /runpod-volume/a5/vllm-cache" in note
        assert "torch.compile took 0." in note
    cold = [c for c in LORA if "cold-sampler" in str(c["id"])]
    assert [c["setup"]["profile"]["compile_cache"] for c in cold] == ["cold"]

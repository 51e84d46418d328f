"""The twenty-fourth blind set (tests/fidelity/cases/vllm-blind-2026-12w.json): seven public vLLM start-ups found
through the search index on 2026-12-07, not in the repository, and scored before anything changed (HEAD 366efd3);
two in scope: Qwen3.8-27B BF16 through the offline LLM class at 262,144 tokens on one A100 80GB PCIe (0.28.0, a
learning repository's week-one report, Lebhoryi/vllm-sglang-learning) and nvidia/Qwen3.6-35B-A3B-NVFP4 with MTP 3
on a DGX Spark whose boot prints a negative CUDA-graph estimate (0.26.0, vllm issue #44740); five records: the same
A100's two Qwen3.5-0.8B boots (the model not in the catalog), a GPUStack TP 2 boot of Qwen3.6-27B AWQ on cards the
log does not name (gpustack/runner pull request #251), Qwen2.5-0.5B on a 15.55 GiB card no catalog entry has,
Qwen2.5-1.5B-Instruct on an RTX A4000 (neither catalogued). A second #44740 data point (Qwen3.5-122B-A10B NVFP4 with
MTP 1 on a DGX Spark, -10.33 GiB estimate, 32.09 GiB) states no release or context and is not kept.

As first scored: verdicts 2 / 2, median |KV error| 11.53 GiB, worst -22.83 (the DGX Spark: vLLM's own -20.50 GiB
graph estimate, an engine defect named in ``bench.fidelity_unmatched``); the A100 +0.24 (release out +0.32,
family out +0.15), tokens +1.3 %."""

from __future__ import annotations

import pytest

from bench.fidelity import misses
from bench.fidelity_unmatched import UNMATCHED
from planner.core.units import GiB
from tests.fidelity.blind_sets import (
    assert_as_scored,
    assert_records_unscored,
    assert_sourced_and_held_out,
    first_scores,
    load_blind_set,
)

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12w.json")
IN_SCOPE = [c for c in BLIND if "out_of_scope" not in c["setup"]]
A100 = "vllm-0.28-a100-80gb-pcie-qwen38-27b-bf16-262k-llm-class"
GB10 = "vllm-0.26-gb10-qwen36-35b-a3b-nvfp4-mtp3-bf16kv-262k-util080-negative-graph-estimate-44740"
RECORDS = {
    "vllm-0.28-a100-80gb-pcie-qwen35-08b-bf16-262k-llm-class": 67.08,
    "vllm-0.28-a100-80gb-pcie-qwen35-08b-bf16-8k-util085-seqs32": 61.82,
    "vllm-0.27-2x24gb-qwen36-27b-awq-mtp3-262k-util082-seqs6-gpustack251": 6.87,
    "vllm-0.26-15gib-card-qwen25-05b-fp16-32k-util090-asyncllm": 11.94,
    "vllm-0.26-rtxa4000-qwen25-15b-instruct-8k-util090-llm-warden": 10.55,
}


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    """Every case cites its public source (a search-index file id, or the issue or pull request the 'issues' corpus
    returned, with its address), is scored, and is kept out of ``make calibrate``."""
    assert_sourced_and_held_out(BLIND, RESULTS, 7, cites=("file id", "https://github.com/"))
    assert [str(c["id"]) for c in IN_SCOPE] == [A100, GB10]


# Moved since first scored (GiB): make calibrate's refit of the vision encoder's non-torch per item token without
# club-3090 #851's under-counted INT4 weights (51,796 -> 42,337 bytes, 6f541ba, 2026-12-07, fifty-fourth session)
NOW: dict[str, float] = {
    # +0.24 as first scored, until the encoder refit (2026-12-07, fifty-fourth session)
    # +0.38 until FlashInfer's workspace sat in FULL's first capture and make calibrate refit the encoder amount to
    # 46,417 B a token (2026-12-07, fifty-fourth session)
    # +0.32 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
    A100: 0.40,
}


@pytest.mark.parametrize("case", IN_SCOPE, ids=[c["id"] for c in IN_SCOPE])
def test_each_as_scored(case: dict[str, object]) -> None:
    assert_as_scored(case, RESULTS, NOW)


def test_first_scores() -> None:
    median, worst, right = first_scores(IN_SCOPE)
    assert (median, worst, right) == (pytest.approx(11.535, abs=0.001), pytest.approx(22.83, abs=0.001), 2)


def test_the_a100_llm_class_boot_within_target() -> None:
    """The A100 boot: KV +0.32 GiB (0.35 leaving its release out, 0.01 its family), tokens +1.8 % of the printed
    298,275, the printed 51.1 GiB 'Model loading took' planned as 51.08; under the LLM class's A100 defaults (0.28.0
    engine/arg_utils.py:2601-2610: 8,192 batched tokens, 256 sequences) at util 0.92 (config/cache.py:69). As first
    scored: +0.24 (0.32 / 0.15), tokens +1.3 %, until the int4-mixed remap (4c96c4a: the folds' encoder amounts no
    longer hold club-3090 #851's under-counted INT4 weights) and make calibrate's refit of it (6f541ba, 2026-12-07,
    fifty-fourth session); +0.38 (0.45 / 0.21), tokens +2.1 %, until FlashInfer's workspace sat in FULL's first capture
    and make calibrate refit the encoder amount to 46,417 B a token (the same session); +0.32 (0.35 / 0.01), tokens
    +1.8 %, until make calibrate refit it to 41,312 B beside the MTP drafter's buffers (fifty-fifth session): +0.40
    (0.45 / 0.01), tokens +2.3 %."""
    result = RESULTS[A100]
    assert misses(result) == []
    # 0.32 until the remap, 0.45 until the refit, 0.35 until the refit beside the drafter's buffers
    # 0.45 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert result.loro_error_gib == pytest.approx(0.48, abs=0.01)
    # 0.01 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert result.cv_error_gib == pytest.approx(0.22, abs=0.01)  # 0.15 until the remap, 0.21 until the refit
    # 0.023 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert result.token_error == pytest.approx(0.026, abs=0.001)  # 0.013, 0.021, 0.018 until the refits
    assert result.report is not None and result.report.weights_bytes / GiB == pytest.approx(51.1, abs=0.03)


def test_the_negative_graph_estimate_places_the_gb10_miss() -> None:
    """The DGX Spark boot prints 'Estimated CUDA graph memory: -20.50 GiB total', which vLLM subtracts from the KV
    budget (0.26.0 v1/worker/gpu_worker.py:518-523, :541-545), so the pool grows by 20.50 GiB; the planner's
    +0.15 GiB estimate in its place leaves -2.18 GiB of the -22.83 (the planner names a unified-memory band of about
    1.4 GiB around its read-ahead share). Named in ``bench.fidelity_unmatched`` with the issue."""
    result = RESULTS[GB10]
    # -22.83 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert result.kv_error_gib == pytest.approx(-23.04, abs=0.01)
    printed = next(c["reported"] for c in BLIND if c["id"] == GB10)
    assert result.report is not None
    planned_graphs = result.report.cuda_graph_bytes / GiB
    assert planned_graphs == pytest.approx(0.15, abs=0.01)
    residual = result.kv_error_gib + planned_graphs - printed["cuda_graph_estimate_gib"]
    # -2.18 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert residual == pytest.approx(-2.39, abs=0.01)
    assert GB10 in UNMATCHED and "#44740" in UNMATCHED[GB10]


def test_the_records_are_reported_not_scored() -> None:
    """The records keep their printed KV and count no error: the Qwen3.5-0.8B boots (the model not catalogued), the
    GPUStack boot (its cards unnamed: 0.36 / (0.8200 - 0.8048) puts them at 23.4-24.0 GiB), the 15.55 GiB card and
    the RTX A4000."""
    assert_records_unscored(BLIND, RESULTS, RECORDS)


# Restated from the planner's output for a Gated DeltaNet layer's own peak in the profile run and make calibrate's
# encoder refit 41,312 -> 37,217 B a token (2026-12-07, fifty-sixth session, helper relout2); the value before in the
# comment.
NOW.update(
    {
        "vllm-0.28-a100-80gb-pcie-qwen38-27b-bf16-262k-llm-class": 0.46,  # +0.40
        "vllm-0.26-gb10-qwen36-35b-a3b-nvfp4-mtp3-bf16kv-262k-util080-negative-graph-estimate-44740": -23.04,  # -22.83
    }
)

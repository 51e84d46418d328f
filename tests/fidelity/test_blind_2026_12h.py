"""The eighth blind set (tests/fidelity/cases/vllm-blind-2026-12h.json): five vLLM 0.30.0 start-ups on one DGX Spark
at util 0.55 and 32,768 tokens (gpt-oss-20b, Qwen3.8-27B-FP8, Qwen3.6-35B-A3B-FP8, Qwen3-30B-A3B-Thinking-FP8,
Hermes-4-14B-FP8; search-index file id 70267910602) and a GKE guide's Gemma 4 31B on one H100 at 0.26.0 (file id
68938115161), found on 2026-12-03 and scored before anything changed. Every verdict is right; every KV budget is
under the log's, by 1.0 to 13.7 GiB: on the Sparks the unified-memory share the planner adds (0.28 of the loaded
weights, fitted on a prefetch and a fastsafetensors load) is what the plain-attention Qwen3-30B-A3B start-up shows
vLLM did not hold with the default loader (docs/fidelity.md, 'Unified memory'). Nothing was changed for them.

Since 2026-12-04 the share is fitted per loader class (planner/engines/vllm/unified.py) on the GB10 start-ups found
before this set, which stays held out: its five Sparks ran vLLM's default loader, now planned with that class's
share (0.12 of the weights): median |KV error| 3.52 -> 1.35 GiB, worst 13.72 -> 8.02; gpt-oss-20b moves from
1.01 under to 1.35 over."""

from __future__ import annotations

import statistics

import pytest

from planner.core.units import GiB
from tests.fidelity.blind_sets import load_blind_set

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12h.json")


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    assert len(BLIND) == len(RESULTS) == 6
    for case in BLIND:
        assert "file id" in case["source"] and "unseen" in case["setup"]["not_fitted"]


# The held-out KV error of each Spark start-up with the loader classes' shares (GiB; 0.01: the printed precision):
# +1.35 / +1.21 / -8.02 / -3.57 / -0.55 then; since Model Runner V2's sampler is derived from the source (one bf16
# copy of the logits where the fitted term took 3.82 fp32 copies, 2026-12-04) the values below; gpt-oss-20b +1.98
# until its experts were padded as Marlin pads them on a 12.x device (2026-12-07, planner.engines.loading: 14.14 ->
# 13.69 GiB of weights planned, 13.80 printed), which leaves 0.45 GiB more for its KV; the two hybrids +1.82 and
# -7.23 until mapped without the vision tower their printed weights leave out (2026-12-07); gpt-oss-20b +2.48 until
# its budget was derived from its tokens over every batch in flight, as its sliding-window layers reserve them
# (2026-12-07, tests/fidelity/test_derived_budget.py: 48.07 -> 50.89 GiB derived, 50.55 planned); Qwen3.8-27B +2.90
# and Hermes-4-14B -0.31 until the allocator's segment tails were counted with the weights (2026-12-07,
# planner.engines.vllm.allocator: 0.06 and 0.12 GiB more)
SPLIT_SCORE = {
    "vllm-0.30.0-gb10-gpt-oss-20b-mxfp4-32k": -0.34,
    "vllm-0.30.0-gb10-qwen3.8-27b-fp8-32k": 2.83,
    # -6.18 until the Triton sampler's cached buffer (2026-12-07, fifty-sixth session, coder3)
    "vllm-0.30.0-gb10-qwen3.6-35b-a3b-fp8-32k": -6.17,
    "vllm-0.30.0-gb10-qwen3-30b-a3b-thinking-2507-fp8-32k": -3.09,
    "vllm-0.30.0-gb10-hermes-4-14b-fp8-32k": -0.44,
    # Gemma 4 31B on an H100 (GKE): -4.09 as first scored, -0.35 with the derived sampler (Gemma's 262,144-token
    # vocabulary: 0.94 GiB of fitted sampler term against 0.13 GiB of bf16 logits), -0.56 since the V slot of the ten
    # k_eq_v global layers is planned (2026-12-06: 0.21 GiB more weights; 58.83 planned, 58.99 printed on a B300),
    # +0.36 since its budget is derived over every batch in flight (2026-12-07: 11.11 -> 10.19 GiB derived), +0.31
    # since the allocator's segment tails are counted with the weights (2026-12-07: 58.89 planned), +0.19 since
    # the mechanistic non-torch model (2026-12-07, fifty-third session): its vision encoder's non-torch amount, +0.21
    # since make calibrate refitted that amount without club-3090 #851's INT4 weights (2026-12-07, fifty-fourth), +0.20
    # since FlashInfer's workspace sat in FULL's first capture and make calibrate refit it to 46,417 B (the same day)
    # +0.20 until the MTP drafter's buffers and the encoder refit to 41,312 B (2026-12-07, fifty-fifth session)
    "vllm-0.26.0-h100-gemma-4-31b-it-bf16-8k-gke": 0.21,
}
SPARKS = [case_id for case_id in SPLIT_SCORE if "-gb10-" in case_id]


@pytest.mark.parametrize("case", BLIND, ids=[c["id"] for c in BLIND])
def test_each_as_first_scored(case: dict[str, object]) -> None:
    """The verdict recorded when found still holds; the KV error too (tolerance 0.01 GiB: the printed precision),
    but for the Sparks, scored again with the loader classes' shares."""
    result, score = RESULTS[case["id"]], case["unseen_score"]  # type: ignore[index]
    assert result.verdict_right and score["verdict_right"]  # type: ignore[index]
    expected = SPLIT_SCORE.get(str(case["id"]), score["kv_error_gib"])  # type: ignore[index]
    assert result.kv_error_gib == pytest.approx(expected, abs=0.01)


def test_the_default_loader_share_cuts_the_held_out_spark_error() -> None:
    """Held out, the five Sparks: median 3.52 GiB as first scored, 1.35 with the loader classes' shares, 1.98 since
    the sampler's derivation (the shares were fitted beside the fitted sampler term), 2.48 since gpt-oss-20b's
    weights are padded as Marlin pads them on the GB10 and 2.90 since the two hybrids load no vision tower (both
    2026-12-07: the weights as printed, which leave more for the KV the planner already overstates on two of
    them); the worst 7.23 -> 6.18. gpt-oss-20b's budget derived over every batch in flight (2026-12-07: +2.48 ->
    -0.34) leaves the median at 2.90, now Qwen3.8-27B's; 2.83 since the allocator's segment tails are counted with
    the weights (2026-12-07: 0.06 GiB more weights planned for it)."""
    firsts = [abs(c["unseen_score"]["kv_error_gib"]) for c in BLIND if c["id"] in SPARKS]  # type: ignore[index]
    now = [abs(RESULTS[i].kv_error_gib or 0.0) for i in SPARKS]
    assert statistics.median(firsts) == pytest.approx(3.52, abs=0.01)
    assert statistics.median(now) == pytest.approx(2.83, abs=0.01)
    # the worst 6.18 until the Triton sampler's cached buffer (2026-12-07, fifty-sixth session)
    assert max(now) == pytest.approx(6.17, abs=0.01) and max(firsts) == pytest.approx(13.72, abs=0.01)


def test_the_plain_attention_spark_start_up_leaves_little_room_for_the_unified_memory_share() -> None:
    """Qwen3-30B-A3B-Thinking-FP8: 394,016 tokens of 98,304 bytes (48 layers x 4 KV heads x 128 x 2 x bf16) are
    36.07 GiB; 0.55 x 121.69 - 29.10 (weights) - 36.07 leaves 1.76 GiB for activations, non-torch memory and the
    1.10 GiB graph estimate its notice implies ((0.55 - 0.5410) x 121.69), where the planner's non-torch memory, the
    default loader's share of the weights with it, is 3.75; 3.88 with the fused-MoE workspace, which vLLM 0.27 and
    later count in the consumed memory, not in the peak (tests/engines/test_vllm_consumed_workspace.py: the KV
    budget does not move)."""
    case = next(c for c in BLIND if "30b-a3b" in c["id"])
    kv = case["reported"]["kv_cache_tokens"] * 98_304 / GiB
    assert kv == pytest.approx(36.07, abs=0.01)
    assert 0.55 * 121.69 - case["reported"]["weights_gib"] - kv == pytest.approx(1.76, abs=0.01)
    report = RESULTS[case["id"]].report
    assert report is not None and report.non_torch_bytes / GiB == pytest.approx(3.88, abs=0.01)


def test_the_hybrid_moe_spark_start_up_holds_more_kv_than_its_budget_leaves_beside_its_weights() -> None:
    """Qwen3.6-35B-A3B-FP8 (issue 20, 2026-12-06): its printed 1,468,523 tokens are exactly ``int(1,703 / 38 x
    32,768)`` (38 pages a request: 32 of 1,056-token attention blocks and two per Gated-DeltaNet group in 'align'
    mode), 1,703 blocks of 10 layers x 2,162,688 bytes = 34.30 GiB; 0.55 x 121.69 less the printed 33.38 GiB of
    weights and the 1.06 GiB graph estimate its notice implies ((0.55 - 0.5413) x 121.69) leaves 32.49. vLLM's
    budget is ``util x total`` less the drop of MemAvailable since its first snapshot (0.30.0
    ``utils/mem_utils.py:143-150``, :312-321), so that drop was smaller than the weights loaded: the shared host
    gave memory back while vLLM measured, which no input of the planner carries (docs/fidelity.md, 'What 0.29 ->
    0.30 changed')."""
    case = next(c for c in BLIND if "35b-a3b" in c["id"])
    reported = case["reported"]
    assert int(1703 / 38 * 32_768) == reported["kv_cache_tokens"]
    kv = 1703 * 10 * 2_162_688 / GiB
    notice = next(line for line in case["verbatim"] if "is equivalent to" in line)
    assert "--gpu-memory-utilization=0.5413 without" in notice
    left = 0.55 * 121.69 - reported["weights_gib"] - (0.55 - 0.5413) * 121.69
    assert (round(kv, 2), round(left, 2)) == (34.30, 32.49)


@pytest.mark.parametrize(
    ("case_id", "printed", "with_tower"),
    [("vllm-0.30.0-gb10-qwen3.8-27b-fp8-32k", 27.64, 28.51), ("vllm-0.30.0-gb10-qwen3.6-35b-a3b-fp8-32k", 33.38, None)],
)
def test_the_hybrid_sparks_load_no_vision_tower(case_id: str, printed: float, with_tower: float | None) -> None:
    """'Model loading took' is torch's allocation (0.30.0 v1/worker/gpu/model_runner.py:394-428,
    ``DeviceMemoryProfiler``, ``platforms/cuda.py:379-384``), so unified memory does not move it: the two hybrid
    Sparks print the language model alone. The vision towers are 460.7 M and 446.6 M bf16 parameters (0.86 and 0.83
    GiB); the same Qwen3.8-27B-FP8 checkpoint with its tower prints 28.51 GiB on an L40S under 0.26 (the planner
    28.47). Mapped as --language-model-only (--limit-mm-per-prompt at 0 for every modality loads the same), the
    planned weights are within 0.1 GiB of the printed (0.77 and 0.83 over with the tower)."""
    result = RESULTS[case_id]
    assert result.report is not None and result.setup.profile["language_model_only"]
    assert result.report.weights_bytes / GiB == pytest.approx(printed, abs=0.1)
    if with_tower is not None:
        assert with_tower - printed == pytest.approx(0.86, abs=0.02)


# (case, KV error split as printed-figure terms: weights, graph estimate, the rest; what the budget leaves for
# activation and non-torch memory beside the printed weights, the derived KV and the notice's graph estimate)
# (the weights' terms 0.09 and 0.12 for Qwen3.8-27B and Hermes-4-14B until the allocator's segment tails were
# counted with the weights, 2026-12-07; Hermes-4-14B's rest -0.83 then)
SPLIT_BY_TERM = [
    ("vllm-0.30.0-gb10-qwen3.8-27b-fp8-32k", (0.03, 0.25, 2.56), 6.57),
    ("vllm-0.30.0-gb10-qwen3.6-35b-a3b-fp8-32k", (0.00, 0.25, -6.43), -1.82),
    ("vllm-0.30.0-gb10-qwen3-30b-a3b-thinking-2507-fp8-32k", (0.06, 0.16, -3.30), 0.66),
    ("vllm-0.30.0-gb10-hermes-4-14b-fp8-32k", (0.01, 0.41, -0.85), 1.65),
]


@pytest.mark.parametrize(("case_id", "terms", "left"), SPLIT_BY_TERM)
def test_each_spark_error_is_in_the_term_no_line_prints(
    case_id: str, terms: tuple[float, float, float], left: float
) -> None:
    """Issue 20, 2026-12-07: vLLM 0.30.0's budget is ``ceil(util x total)`` of cudaMemGetInfo's total
    (``v1/worker/utils.py`` :534-554, as 0.27.1 :409-430), less the non-KV memory measured as MemAvailable's drop
    (``utils/mem_utils.py`` :143-150, unchanged from 0.27.1) and the applied graph estimate (``gpu_worker.py``
    :621-625). On the catalog's 121.69 GiB each KV error is the sum of the printed weights less the planned, the
    graph estimate the notice implies less the planned, and what the budget leaves for activation and non-torch
    memory less the planned. The first two are at most 0.06 and 0.41 GiB (the planner's estimate is under every
    notice); the third, 2.56 to -6.43 GiB, is the term no line prints: on one machine, release and loader in one
    afternoon the budgets leave -1.82 to 6.57 GiB for it, in no order of the weights (27.64, 33.38, 29.10, 15.34)."""
    case = next(c for c in BLIND if c["id"] == case_id)
    report = RESULTS[case_id].report
    assert report is not None and report.total_memory_bytes / GiB == pytest.approx(121.69, abs=0.005)
    notice = next(line for line in case["verbatim"] if "is equivalent to" in line)
    equivalent = float(notice.split("equivalent to --gpu-memory-utilization=")[1].split()[0])
    graph = (0.55 - equivalent) * 121.69
    weights = case["reported"]["weights_gib"]
    kv = RESULTS[case_id].reported_kv_gib
    assert kv is not None
    budget_left = report.budget_bytes / GiB - weights - kv - graph
    split = (
        weights - report.weights_bytes / GiB,
        graph - report.cuda_graph_bytes / GiB,
        budget_left - (report.activation_bytes + report.non_torch_bytes) / GiB,
    )
    assert [round(t, 2) for t in split] == pytest.approx(terms, abs=0.011)
    assert round(budget_left, 2) == pytest.approx(left, abs=0.011)
    assert sum(split) == pytest.approx(RESULTS[case_id].kv_error_gib, abs=0.001)

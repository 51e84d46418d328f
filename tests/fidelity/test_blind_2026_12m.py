"""The thirteenth blind set (tests/fidelity/cases/vllm-blind-2026-12m.json): three public vLLM 0.31.0 start-ups on
datacenter Blackwell, found through the search index on 2026-12-05 and scored before anything changed. A search for
0.32-0.34 start-ups found none: the index's logs stop at 0.31 (mid-October 2026), so these are the newest release
with public logs, the planner's default.

- Qwen3-32B as a compressed-tensors NVFP4 W4A4 checkpoint on one B200 (cezarc1/decodebench), 512 sequences and
  16,384 batched tokens, at util 0.90 with a BF16 KV cache and at 0.95 with FP8;
- Qwen3-8B in BF16 on one GB300 at util 0.4 and 40,960 tokens (a fleet's timing note; figures quoted, not the log).

As first scored: every verdict right, tokens within 0.6 % on all three; KV -0.84 / -0.86 GiB on the B200 pair (the
planner holds 1.1 GiB more working memory than the printed weights and KV leave, on the safe side) and -0.27 GiB
on the GB300: median 0.84, worst 0.86 GiB. Since 2026-12-07 (fifty-second session) the graph estimate's cost per graph
on compute capability 10.x is fitted on the B300 Gemma 4 start-up's printed estimate, these three held out: -0.02 /
-0.05 / -0.09 GiB (tests/fidelity/test_blackwell_graph_estimate.py)."""

from __future__ import annotations

import pytest

from tests.fidelity.blind_sets import assert_as_scored, assert_sourced_and_held_out, first_scores, load_blind_set

BLIND, RESULTS = load_blind_set("vllm-blind-2026-12m.json")
# KV errors since compute capability 10.x's per-graph estimate is fitted (2026-12-07)
NOW = {
    # -0.02 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.31-b200-qwen3-32b-nvfp4-w4a4-4k-util090-bf16kv": -0.15,
    # -0.05 before the allocator's segment tails counted with the loaded weights (2026-12-07)
    "vllm-0.31-b200-qwen3-32b-nvfp4-w4a4-4k-util095-fp8kv": -0.17,
    "vllm-0.31-gb300-qwen3-8b-40k-util04-grpc": -0.09,
}


def test_the_set_is_sourced_and_kept_out_of_the_fit() -> None:
    assert_sourced_and_held_out(BLIND, RESULTS, 3)


@pytest.mark.parametrize("case", BLIND, ids=[c["id"] for c in BLIND])
def test_each_as_scored(case: dict[str, object]) -> None:
    assert_as_scored(case, RESULTS, NOW)


def test_first_scores() -> None:
    median, worst, right = first_scores(BLIND)
    assert (median, worst, right) == (pytest.approx(0.84, abs=0.01), pytest.approx(0.86, abs=0.01), 3)


def test_the_tokens_follow_the_pool() -> None:
    """Each printed token count is within 1 % of the planner's (the pool's error, not its page arithmetic)."""
    for case in BLIND:
        assert abs(RESULTS[str(case["id"])].token_error or 1.0) < 0.01

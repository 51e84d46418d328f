"""The chart shows a cheaper set-up beside the recommendation, often holding more; the recommendation says which one
and what ranks it after (its undermining caveats), on every surface (the paragraph the page, the CLI, the report
and ``advise --json`` share) and under the page's chart."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, passed_over, passed_over_text, rank, recommendation

LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec


def test_the_cheaper_set_up_and_why_it_ranks_after() -> None:
    # 44 users: 4 RTX PRO 6000 (FP8) hold 53 for $78,777, under the 8 the pick takes ($125,544); 40 users until
    # Model Runner V2's sampler was derived from the source (2026-12-04) moved the A100's and PRO 6000's pools
    ranking = rank(LLAMA_70B, Workload.fixed_length(32768, concurrent_conversations=44))
    best, cheaper = ranking.best, passed_over(ranking)
    assert best is not None and cheaper is not None and best.cost is not None and cheaper.cost is not None
    assert cheaper.cost < best.cost and cheaper.conversations >= 44  # cheaper and meets the target itself
    assert cheaper.gpu_count == 4 and cheaper.gpu_id.startswith("rtx-pro-6000")
    assert cheaper.undermining and not best.undermining
    text = passed_over_text(ranking)
    assert text.startswith(f"A cheaper set-up, {cheaper.label} (") and cheaper.undermining[0] in text
    assert text in recommendation(ranking)
    # every cheaper option is ranked after for a reason the sentence can name
    for o in ranking.options:
        if o.cost is not None and o.cost < best.cost:
            assert o.undermining or not o.compute_known


def test_nothing_cheaper_nothing_said() -> None:
    """Llama-3.1-8B for 20 users at 32,768 tokens: the recommendation (one RTX PRO 6000 under vLLM, FP8) is the
    cheapest set-up that serves it, so nothing is passed over and the paragraph says nothing of it. (Llama-3.1-70B
    for one user at 2,048 tokens was the example until the eleventh blind set widened the desktop cards' error bar:
    four RTX 3090 at TP 4 are now cheaper but hold one conversation only inside the planner's error, and are passed
    over for it.)"""
    ranking = rank(get_model("meta-llama/Llama-3.1-8B").spec, Workload.fixed_length(32768, concurrent_conversations=20))
    best = ranking.best
    assert best is not None and best.cost is not None
    assert all(o.cost is None or o.cost >= best.cost for o in ranking.options)
    assert passed_over(ranking) is None and passed_over_text(ranking) == ""
    assert "A cheaper set-up" not in recommendation(ranking)


def test_of_the_cheaper_set_ups_at_one_price_the_best_ranked_is_named() -> None:
    """Llama-3.3-70B for 10 users at 32,768 tokens: two RTX PRO 6000 Max-Q in FP8 were passed over at one price both
    with a BF16 KV cache (vLLM does not serve it, 12 tokens/s) and with an FP8 one (19 conversations, 17
    tokens/s); the sentence named the BF16 one, the first by its label, where the FP8 one ranks far before it
    (an outside review, 2026-12-06). Since a first token is held to MLPerf's bound scaled to the prompt's length (a
    buyer's review, 2026-12-06: tests/advisor/test_buyer_review_45b.py), those two are no longer passed over (the
    FP8 one is the pick); the case was then Qwen3-32B for 5 users at 12,288 tokens (one RTX A6000 at $19,071 in INT8
    and in FP8), until the shared constants' refit (2026-12-07) put the INT8 one's speed near the floor too: the two
    carry the same caveats and the FP8 one ranks first, so that case no longer tells the best ranked from the first
    by label. The case is Qwen3-32B for 4 users: two RTX 3090s at $6,909 in INT8 (a thin memory margin), under
    llama.cpp in Q8_0 and in FP8 (each a first token slower than MLPerf's bound), the INT8 one ranked first and
    last by its label (and, since llama.cpp's q8_0 cache is offered, issue 21, under llama.cpp in Q8_0 with it: three
    at that price besides the named one). It was 3 users until the desktop cards' measured error narrowed (90th
    percentile 1.18 -> 1.00 GiB, planner/engines/accuracy.toml, 2026-12-07, fifty-fourth session: five first boots
    planned cold), which left the INT8 pair for 3 users no thin margin, the pick."""
    ranking = rank(get_model("Qwen/Qwen3-32B").spec, Workload.fixed_length(12_288, concurrent_conversations=4))
    named = passed_over(ranking)
    assert named is not None and named.cost is not None and round(named.cost) == 6_909
    same_price = [o for o in ranking.options if o.cost == named.cost and o.undermining and o is not named]
    assert same_price, "the case has more than one set-up at the passed-over price"
    position = {id(o): i for i, o in enumerate(ranking.options)}
    assert all(position[id(named)] < position[id(o)] for o in same_price)
    assert named.label == "2 x GeForce RTX 3090 (TP 2), int8 weights, fp8 KV" and len(same_price) == 3
    assert any(o.label < named.label for o in same_price)  # the first by its label is not the one named

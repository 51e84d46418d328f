"""With nothing that serves the workload, the advice names the binding fact where the target's KV cache alone is
beyond every set-up ranked, not the first rejection (a single 24 GB card in BF16 for Llama-3.1-405B and 5,000
conversations of 32,768 tokens: "weights and working memory exceed 22.1 GiB per GPU by 739.31 GiB"; an outside
review, 2026-12-05). 258,048 bytes a token in FP8 (126 layers x 8 KV heads x 128 x 2 x 1 byte) x 32,768 x 5,000 =
42.3 TB; the largest set-up ranked, 8 x MI350X (288 GB each), 2.3 TB."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, headline, rank, recommendation

LLAMA_405B = get_model("meta-llama/Llama-3.1-405B").spec


def test_the_kv_cache_beyond_every_set_up_is_the_reason_given() -> None:
    ranking = rank(LLAMA_405B, Workload.fixed_length(32_768, concurrent_conversations=5_000))
    assert not ranking.options and ranking.beyond_reach is not None
    assert ranking.beyond_reach.startswith("their KV cache alone needs 42.3 TB in FP8 (258,048 bytes a token)")
    assert ranking.beyond_reach.endswith("split the users over at least 18 such servers")
    text = recommendation(ranking)
    assert ranking.beyond_reach in text and "The first" not in text
    assert headline(ranking).startswith("No set-up in the catalog serves 5,000 conversations")


def test_a_workload_within_reach_keeps_the_rejections_reasons() -> None:
    ranking = rank(
        LLAMA_405B, Workload.fixed_length(32_768, concurrent_conversations=5, weights=("bf16",)), counts=(1,)
    )
    assert not ranking.options and ranking.beyond_reach is None
    assert "The first does not fit" in recommendation(ranking)


GPT_OSS_120B = get_model("openai/gpt-oss-120b").spec


def test_the_bytes_a_token_given_make_the_total_given_for_a_windowed_model() -> None:
    """gpt-oss-120b (18 full-attention layers, 18 of a 128-token window; 8 KV heads x 64) for 100,000 conversations
    of 32,768 tokens in FP8: 18 x 2 x 8 x 64 = 18,432 bytes a token over 32,768 in the full layers and over 128 in
    the windowed ones, 606,339,072 bytes a conversation, 60.6 TB. The text had put 36,864 bytes a token (every layer
    at its first token) beside that total, which 36,864 x 32,768 x 100,000 = 120.8 TB contradicts (a review of
    ``advise --users 100000``, 2026-12-07): the figure given is now the mean over the conversation, 18,504."""
    ranking = rank(GPT_OSS_120B, Workload.fixed_length(32_768, concurrent_conversations=100_000))
    assert not ranking.options and ranking.beyond_reach is not None
    assert ranking.beyond_reach.startswith(
        "their KV cache alone needs 60.6 TB in FP8 (18,504 bytes a token on average over 32,768 tokens, its "
        "sliding-window and state layers capped)"
    )
    assert round(18_504 * 32_768 * 100_000 / 1e12, 1) == 60.6

"""A gpt-oss chat request under vLLM 0.10.2 / 0.11.0 is rendered with Harmony, which puts a system and a developer
message before the user's: the engine prefills 69 tokens besides the prompt the client counts
(planner.engines.frontend.HARMONY_CHAT_TOKENS, its sources there), so a burst of 128-token prompts is a burst of
197-token prefills."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.frontend import chat_prompt_tokens
from planner.advisor.validation import burst_lengths, drained
from planner.engines.frontend import HARMONY_CHAT_TOKENS, chat_format_tokens

BLIND = Path(__file__).parent / "benchmarks" / "unseen-2026-12b.toml"


def _row(row_id: str) -> BenchmarkRow:
    return next(r for r in load_rows((BLIND,)) if r.id == row_id)


@pytest.mark.parametrize(
    ("row_id", "added"),
    [
        ("gpustack-a100-gptoss120b-vllm-random-128-4", HARMONY_CHAT_TOKENS),  # vLLM 0.11.0, openai-chat
        ("gpustack-h100-gptoss120b-vllm-random-128-4", HARMONY_CHAT_TOKENS),  # vLLM 0.10.2
        ("gpustack-h100-gptoss20b-sglang-sharegpt-max", 0),  # SGLang renders the HF template: not read, not counted
        ("gpustack-h100-qwen314b-vllm-random-128-4", 0),  # Qwen3: a jinja template, not counted
    ],
)
def test_which_chat_rows_prefill_more_than_their_prompt(row_id: str, added: int) -> None:
    row = _row(row_id)
    assert chat_prompt_tokens(row) == added
    plain = burst_lengths(row.model_copy(update={"endpoint": None}))  # no endpoint stated: the client's prompts
    assert burst_lengths(row) == [(prompt + added, answer) for prompt, answer in plain]


def test_harmony_is_counted_only_where_it_was_read() -> None:
    assert chat_format_tokens("vllm", "0.11.0", "gpt_oss") == 69
    assert chat_format_tokens("vllm", "0.11.0", "qwen3") == 0
    assert chat_format_tokens("vllm", None, "gpt_oss") == 0
    assert chat_format_tokens("sglang", "0.5.4.post2", "gpt_oss") == 0


def test_the_a100_gpt_oss_120b_short_burst_is_its_prefills() -> None:
    """GPUStack's gpt-oss-120b on one A100 (docs/performance-lab/gpt-oss-120b/a100.md at 47277d79, vLLM 0.11.0): 1,000
    random 128-token prompts, 4 tokens each, 14.09 s, 283.95 output tokens/s. Priced as 128-token prefills the
    drain gave 450 (+58.6 %); as the 197 tokens Harmony renders, within 10 %."""
    row = _row("gpustack-a100-gptoss120b-vllm-random-128-4")
    assert row.value == pytest.approx(283.95)
    assert drained(row).output_tokens_per_s == pytest.approx(283.95, rel=0.10)

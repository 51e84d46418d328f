"""An option of data-parallel ranks that share the experts says so wherever it is named, and its Memory-page link
plans the same ranks under any engine it is switched to (an outside review in Chromium, 2026-12-05: the headline
read "Buy 1 x 8-GPU Instinct MI300X baseboard ... on vLLM" for eight ranks of TP 1, the speed "at that load" after
the 512 conversations held, and the row's link left ``enable_dp_attention`` out)."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, rank
from planner.advisor.recommend import headline, summary_lines
from ui.advisor_rows import option_selection
from ui.state import Selection


def test_the_ranks_are_named_and_the_link_keeps_them() -> None:
    ranking = rank(
        get_model("deepseek-ai/DeepSeek-V3").spec, Workload.fixed_length(32_768, concurrent_conversations=50)
    )
    best = ranking.best
    assert best is not None and best.experts_shared
    assert "on vLLM as 8 data-parallel ranks of TP 1 sharing the experts" in headline(ranking)
    lines = summary_lines(ranking)
    assert "served with vLLM as 8 data-parallel ranks of TP 1 sharing the experts" in lines[0]
    assert next(line for line in lines if line.startswith("Speed:")).count("at the target's 50 conversations at once")
    chosen = option_selection(Selection(model_id="deepseek-ai/DeepSeek-V3"), best)
    assert chosen.enable_dp_attention is True and chosen.tensor_parallel == 1 and chosen.gpu_count == 8
    plain = next(o for o in ranking.options if not o.experts_shared)
    assert option_selection(chosen, plain).enable_dp_attention is None  # an option without ranks clears it

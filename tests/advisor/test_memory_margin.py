"""An option whose margin over the target is within the planner's own KV error (the miss public start-ups like it
have shown: planner.engines.accuracy) carries that as an undermining caveat, as one within the speed model's error
of the speed floor does, so it is not green and ranks after options with room to spare."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, rank


def test_a_margin_inside_the_memory_error_undermines_the_option() -> None:
    """gpt-oss-120b for 50 users at 32k: 4 x RTX 5090 (TP 4) holds 58, but the graphics dies' 90th-percentile miss
    (over 1.8 GiB of an ~11 GiB pool per GPU) would leave fewer than 50; 2 x RTX PRO 6000 holds 112 and keeps its
    margin. The 5090 box was the second pick before the caveat existed."""
    ranking = rank(get_model("openai/gpt-oss-120b").spec, Workload.fixed_length(32768, concurrent_conversations=50))
    box = [o for o in ranking.options if o.key == ("rtx-5090", 4, 4, "mxfp4", "fp8")]
    assert len(box) == 1 and box[0].conversations == 58
    (thin,) = [u for u in box[0].undermining if "margin is thinner than the planner's error" in u]
    assert "public start-ups like this one" in thin and "less would hold" in thin
    best = ranking.best
    assert best is not None and best.gpu_id == "rtx-pro-6000-blackwell" and best.conversations == 112
    assert not best.undermining
    top = ranking.options[:3]
    assert box[0] not in top

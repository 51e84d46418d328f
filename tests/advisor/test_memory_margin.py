"""An option whose margin over the target is within the planner's own KV error (the miss public start-ups like it
have shown: planner.engines.accuracy) carries that as an undermining caveat, as one within the speed model's error
of the speed floor does, so it is not green and ranks after options with room to spare."""

from __future__ import annotations

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank
from planner.assessment.assess import assess
from tests.engines.tight_set_up import qwen3_8b_on_an_rtx_3090

THIN = "the margin is thinner than the planner's error"  # a clause (lower case, no full stop)


def test_a_margin_inside_the_memory_error_undermines_the_option() -> None:
    """Qwen3-8B for 3 users at 8k on RTX 3090 cards: one card in BF16 holds exactly 3 under vLLM, and the graphics dies'
    90th-percentile miss would leave fewer, so that option carries the caveat; one card with INT8 weights and an FP8
    cache holds 17 (18 from Model Runner V2's sampler derived from the source until FlashInfer's decode workspace was
    planned in the graph estimate, 2026-12-07; 17 before), carries none and is the pick. Its two-card twin (two replicas
    of the same) carries it exactly when two cards after the miss hold fewer than 3: they did while that miss was 1.62
    GiB (one card then holding 1), and do not since unsloth's NVFP4 layout (1.54) and the RTX 5090 AWQ first boots
    planned cold (1.35, planner.engines.vllm.compile_copy; planner/engines/accuracy.toml) took it lower (2026-12-06/07).
    The one-card option's figure is the miss's, not a first boot's: 0.92 GiB here (the 1.16 GiB table less the 0.24 GiB
    forward), under it. Since the mechanistic non-torch model (2026-12-07, fifty-third session: no desktop share) one
    BF16 card holds 4, so the workload is 4 users (3 before); the INT8 / FP8 pick 19 (17 before), the twin 8 (6)."""
    model, gpu = get_model("Qwen/Qwen3-8B").spec, get_gpu("rtx-3090")
    ranking = rank(model, Workload.fixed_length(8192, concurrent_conversations=4), gpus=[gpu])
    by_key = {o.key: o for o in ranking.options}
    tight = by_key[("rtx-3090", 1, 1, "bf16", "bf16")]
    assert tight.engine == "vllm" and tight.conversations == 4
    (thin,) = [u for u in tight.undermining if u.startswith(THIN)]
    a = assess(qwen3_8b_on_an_rtx_3090(8192), 4)
    assert a.conversations_after_miss is not None and a.conversations_after_miss < 4
    assert f"would hold {a.conversations_after_miss} conversation" in thin  # the Memory page's own figure
    twin = by_key[("rtx-3090", 2, 1, "bf16", "bf16")]
    assert twin.conversations == 8
    assert any(u.startswith(THIN) for u in twin.undermining) == (2 * a.conversations_after_miss < 4)
    best = ranking.best
    assert best is not None and best.key == ("rtx-3090", 1, 1, "int8", "fp8") and best.conversations == 19
    assert not any(u.startswith(THIN) for u in best.undermining)

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
    """On MI300X alone (2026-12-07: beside a B200 or H200, whose experts aiconfigurator measures, the MI300X options
    carry an "experts' speed unmeasured" caveat and the B200 leads: planner.advisor.moe_priced)."""
    ranking = rank(
        get_model("deepseek-ai/DeepSeek-V3").spec,
        Workload.fixed_length(32_768, concurrent_conversations=50, gpu_ids=("mi300x",)),
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


def test_ranks_sharing_the_experts_are_priced_in_one_host() -> None:
    """Qwen3-235B-A22B for 50 users at 32,768 tokens: eight RTX PRO 6000 Max-Q as two data-parallel ranks of TP 4
    sharing the experts were priced in two 4-GPU Threadripper hosts ($88,800), though the ranks exchange every MoE
    layer's tokens and the engine runs them as one server; TP 8 on the same cards was priced in one 8-slot server
    ($100,810) (an outside review, 2026-12-06). On those cards alone: beside the H200s, whose experts aiconfigurator
    measures, they carried an "experts' speed unmeasured" caveat and ranked after them (2026-12-07, moe_priced); their
    experts now take H100's measured fused-MoE efficiency (moe_transfer), and TP 8 on the cards (9.4 tokens/s) misses
    the default 10-token floor: the ranks are priced as that 8-slot server was."""
    workload = Workload.fixed_length(32_768, concurrent_conversations=50, gpu_ids=("rtx-pro-6000-blackwell-max-q",))
    ranking = rank(get_model("Qwen/Qwen3-235B-A22B").spec, workload)
    shared = [o for o in ranking.options if o.experts_shared and o.host_id is not None]
    assert shared, "the case has ranks sharing the experts"
    assert all(o.hosts == 1 for o in shared), [(o.label, o.hosts) for o in shared if o.hosts != 1]
    best = ranking.best
    assert best is not None and best.experts_shared and best.gpu_count == 8 and best.hosts == 1
    assert best.purchase_usd == 100_810  # one host, as TP 8 on the same cards was priced


def test_machines_are_whole_copies_not_ranks_over_the_network() -> None:
    """Several DGX Sparks (one GPU a machine) were planned as data-parallel ranks sharing gpt-oss-120b's experts,
    over a network the speed model does not cover; each machine is a server of its own, as tensor parallelism across
    them is refused."""
    ranking = rank(
        get_model("openai/gpt-oss-120b").spec,
        Workload.fixed_length(32_768, concurrent_conversations=50, include_personal=True),
    )
    sparks = [o for o in ranking.options if o.gpu_id == "dgx-spark-gb10"]
    assert any(o.replicas > 1 for o in sparks), "the case has several Sparks"
    assert not any(o.experts_shared for o in sparks)

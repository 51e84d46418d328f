"""What a buyer can buy today (planner.core.sale.Discontinued, planner.advisor.options.purchase_problem).

Found by outside reviews (2026-12-05): for Qwen3-8B, 4 users, on a Mac the advisor's first pick was an M2 Ultra Mac
Studio at $7,000, a machine Apple replaced in March 2025, priced as new; the M3 Max (replaced October 2024) ranked
above the M4 Max; then, once those carried a caveat, a count of caveats still put the discontinued M2 Ultra and
eight-Mac set-ups for four users above the $3,999 96 GB M3 Ultra, the M3 Ultra still sold. A part no longer sold new
whose catalog price is a new machine's is not for sale; one priced used (the RTX 4090) is noted as such; a set-up
with more replicas than users is not offered; a budget is checked against the purchase, as its help says."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, rank

QWEN3_8B = get_model("Qwen/Qwen3-8B").spec


def _ranking(counts: tuple[int, ...] = (1,), **constraints: object):  # type: ignore[no-untyped-def]
    workload = Workload.fixed_length(8192, concurrent_conversations=4, **constraints)  # type: ignore[arg-type]
    return rank(QWEN3_8B, workload, counts=list(counts))


def test_a_discontinued_mac_priced_new_is_not_for_sale_and_the_m3_ultra_still_sold_leads() -> None:
    ranking = _ranking((1, 2, 4, 8), vendors=("Apple",))
    offered = {o.gpu_id for o in ranking.options}
    assert not offered & {"apple-m2-ultra", "apple-m3-max", "apple-m3-ultra"}
    gone = {r.gpu_id: r.detail for r in ranking.rejected if r.reason == "not-for-sale"}
    assert gone["apple-m2-ultra"].startswith("Apple M2 Ultra is no longer sold new (since 2025-03)")
    assert gone["apple-m3-max"].startswith("Apple M3 Max is no longer sold new (since 2024-10)")
    first = ranking.options[0]
    assert (first.gpu_id, first.gpu_count, first.purchase_usd) == ("apple-m3-ultra-96gb", 1, 3999.0)


def test_no_set_up_has_more_replicas_than_users() -> None:
    ranking = _ranking((1, 2, 4, 8), vendors=("Apple",))
    assert all(o.replicas <= 4 for o in ranking.options)
    idle = [r for r in ranking.rejected if r.reason == "idle-replicas"]
    assert idle and all(r.gpu_count == 8 and "8 replicas for 4 users: 4 would serve nobody" in r.detail for r in idle)


def test_a_used_price_is_a_note_and_renting_says_nothing() -> None:
    (card, *_) = _ranking(gpu_ids=("rtx-4090",)).options
    assert "GeForce RTX 4090 is no longer made (since 2024-10): priced used (2026-09)" in card.warnings
    assert not any("no longer" in u for u in card.undermining)
    rented = _ranking(gpu_ids=("apple-m2-ultra", "rtx-4090"), pricing="cloud").options
    assert not any("no longer" in w for o in rented for w in o.warnings)


def test_a_budget_is_the_purchase() -> None:
    """A $4,000 budget keeps the $2,657 RTX 3090 build (its TCO with three years of power is $4,190)."""
    ranking = _ranking((1, 2, 4, 8), budget_usd=4000)
    first = ranking.options[0]
    assert first.gpu_id == "rtx-3090" and first.purchase_usd == 2657 and (first.tco_usd or 0) > 4000


def test_a_part_sold_in_one_market_says_where() -> None:
    """Found by an outside review (2026-12-05): an H20 named by the buyer was offered with no word of China."""
    ranking = _ranking((8,), gpu_ids=("h20-141gb",))  # sold on 8-GPU baseboards
    assert ranking.options and all(
        "H20 141GB (H20-3e) is sold in China only (an export-compliance part)" in o.warnings for o in ranking.options
    )


def test_vllm_on_a_dgx_spark_is_planned_at_a_fraction_that_starts() -> None:
    """Found by an outside review (2026-12-05): every vLLM set-up on a DGX Spark was rejected (its host holds ~11 GiB
    of the 121.69 GiB pool, so 0.92 of it is not free) and gpt-oss-120b fell back to Q4_K_M with a false 'nothing
    serves this at 8 bits or more'. A buyer launches vLLM there with a lower --gpu-memory-utilization: so does the
    option, in its label and its link."""
    from model_catalog import get_gpu

    gpt_oss = get_model("openai/gpt-oss-120b").spec
    workload = Workload.fixed_length(32768, concurrent_conversations=4, include_personal=True)
    ranking = rank(gpt_oss, workload, gpus=[get_gpu("dgx-spark-gb10")], counts=[1])
    best = ranking.best
    assert best is not None and (best.engine, best.weights) == ("vllm", "mxfp4") and not ranking.four_bit_fallback
    assert best.engine_fraction_lowered and best.engine_fraction == 0.91
    assert ", --gpu-memory-utilization 0.91" in best.label

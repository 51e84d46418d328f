"""A purchase of a part no longer sold new (planner.core.sale.Discontinued, planner.advisor.option_notes.sale_note).

Found by an outside review (2026-12-05): for Qwen3-8B, 4 users, on a Mac the advisor's first pick was an M2 Ultra
Mac Studio at $7,000, a machine Apple replaced in March 2025, priced as new; the M3 Max (replaced October 2024)
ranked above the M4 Max. A new machine's price for a part no one sells new is not an offer: the option keeps a
caveat that keeps it from green and ranks it after the parts on sale; a part priced used (the RTX 4090) is noted
as such; renting says nothing."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, rank

QWEN3_8B = get_model("Qwen/Qwen3-8B").spec


def _options(**constraints: object) -> list:  # type: ignore[type-arg]
    workload = Workload.fixed_length(8192, concurrent_conversations=4, **constraints)  # type: ignore[arg-type]
    return list(rank(QWEN3_8B, workload, counts=[1]).options)


def test_a_discontinued_mac_priced_new_is_a_caveat_and_ranks_after_those_on_sale() -> None:
    options = _options(vendors=("Apple",))
    by_gpu = {o.gpu_id: o for o in reversed(options)}  # each GPU's best option
    m2 = by_gpu["apple-m2-ultra"]
    assert any(
        "Apple M2 Ultra is no longer sold new (since 2025-03; replaced by Apple M3 Ultra" in u and "$7,000" in u
        for u in m2.undermining
    ), m2.undermining
    assert any(
        "Apple M3 Max is no longer sold new (since 2024-10; replaced by Apple M4 Max)" in u
        for u in by_gpu["apple-m3-max"].undermining
    )
    assert options[0].gpu_id == "apple-m4-max"
    order = [o.gpu_id for o in options]
    assert order.index("apple-m4-max") < order.index("apple-m3-max")
    assert not any("no longer" in u for u in by_gpu["apple-m4-max"].warnings)


def test_a_used_price_is_a_note_and_renting_says_nothing() -> None:
    (card, *_) = _options(gpu_ids=("rtx-4090",))
    assert "GeForce RTX 4090 is no longer made (since 2024-10): priced used (2026-09)" in card.warnings
    assert not any("no longer" in u for u in card.undermining)
    rented = _options(gpu_ids=("apple-m2-ultra", "rtx-4090"), pricing="cloud")
    assert not any("no longer" in w for o in rented for w in o.warnings)


def test_the_m3_ultra_still_sold_is_offered_at_its_price() -> None:
    """The 96 GB M3 Ultra Mac Studio, the M3 Ultra still on sale (the 512 GB one is rent-only in the catalog), is
    offered at Apple's $3,999 (Macworld and Six Colors, March 2025)."""
    options = _options(vendors=("Apple",))
    ultra = [o for o in options if o.gpu_id == "apple-m3-ultra-96gb"]
    assert ultra and {o.purchase_usd for o in ultra} == {3999.0}
    assert not any("no longer" in w for o in ultra for w in o.warnings)

"""Whole-system cost: the hosts that hold the GPUs, power over the life, cloud instances, and the catalog data
behind them (sourced, dated, validated)."""

from __future__ import annotations

import math

import pytest

from model_catalog import get_gpu, get_model, load_gpus, load_hosts, running_costs
from planner.advisor import ContextDistribution, Workload, rank
from planner.advisor.costs import HOURS_PER_YEAR, Assumptions, choose_host, cloud_cost, purchase_cost
from planner.advisor.options import purchase_text
from planner.core.host import HostSpec

LLAMA_8B = get_model("meta-llama/Llama-3.1-8B").spec
HOSTS = list(load_hosts().values())
DEFAULTS = Assumptions.from_catalog(running_costs())


def workload(users: int, context: int, **fields: object) -> Workload:
    dist = ContextDistribution(mean_tokens=context, p95_tokens=context, max_tokens=context)
    return Workload.model_validate({"concurrent_conversations": users, "context": dist, **fields})


def test_every_host_is_sourced_and_dated() -> None:
    assert len(HOSTS) >= 7
    for host in HOSTS:
        assert host.sources and host.price.source and host.price.date and host.read_on
        assert host.power_watts is not None and host.power_source, f"{host.id}: the host's own draw is unsourced"
    costs = running_costs()
    assert costs.usd_per_kwh.value == 0.1241 and costs.pue_datacenter.value == 1.58  # EIA 2022, Uptime 2023


def test_every_buyable_gpu_has_a_host() -> None:
    for gpu in load_gpus().values():
        if gpu.price is None or gpu.purchase.kind in ("machine", "cloud-only"):
            continue
        assert choose_host(gpu, gpu.purchase.gpus_per_unit, 1, HOSTS) is not None, gpu.id


def test_the_host_feeds_the_cards() -> None:
    """Four 600 W RTX PRO 6000s overload the 4-slot servers' 2,000 W supply: an 8-slot server holds four passive
    Server Editions (the flow-through Workstation Edition goes at most two to a host, its cooler built for one or
    two in a tower: test_buyer_review_45b_costs_rent); two fit the 4U Threadripper, as do four 300 W Max-Q
    editions; 350 W RTX 3090s (3-slot) fit the open-frame build only, allowed for a few users or when asked for."""
    pro = get_gpu("rtx-pro-6000-blackwell")
    four = choose_host(get_gpu("rtx-pro-6000-blackwell-server"), 4, 4, HOSTS, rack_only=True)
    two = choose_host(pro, 2, 2, HOSTS, rack_only=True)
    assert four is not None and four.host is not None and four.host.gpu_slots == 8
    assert choose_host(pro, 4, 4, HOSTS, rack_only=True) is None
    assert two is not None and two.host is not None and two.host.id == "threadripper-pro-4u-4-gpu"
    max_q = choose_host(get_gpu("rtx-pro-6000-blackwell-max-q"), 4, 4, HOSTS, rack_only=True)  # 4 x 300 W + 350 W
    assert max_q is not None and max_q.host is not None and max_q.host.id == "threadripper-pro-4u-4-gpu"
    rtx3090 = get_gpu("rtx-3090")
    home = choose_host(rtx3090, 4, 4, HOSTS)
    rack = choose_host(rtx3090, 4, 4, HOSTS, rack_only=True)
    assert home is not None and home.host is not None and home.host.id == "epyc-open-frame-4-gpu"
    assert rack is None  # its 3-slot cooler fits no rack server's dual-slot bays (test_a_card_goes_only_in_bays...)
    eight = choose_host(rtx3090, 8, 4, HOSTS)  # two TP-4 replicas: two open frames
    assert eight is not None and eight.host is not None and eight.units * eight.host.gpu_slots >= 8
    assert choose_host(get_gpu("apple-m4-max"), 1, 1, HOSTS) == (None, 1)  # a Mac is its own machine
    h100 = choose_host(get_gpu("h100-sxm-80gb"), 8, 8, HOSTS)
    assert h100 is not None and h100.host is not None and h100.host.id == "hgx-8-gpu-hopper"
    assert choose_host(get_gpu("mi300x"), 8, 8, HOSTS) is not None


def test_replicas_go_in_as_many_hosts_as_their_power_needs() -> None:
    """Found by an outside review (2026-12-05): four RTX 5090s as two TP-2 replicas were priced in one $32,010
    8-slot server (a 4-GPU open frame's 1,600 W supply cannot feed four 575 W cards) where two open frames, two
    cards each, cost $22,224 with the cards: a host now takes the whole groups its supply feeds."""
    rtx5090 = get_gpu("rtx-5090")
    pair_each = choose_host(rtx5090, 4, 2, HOSTS)
    assert pair_each is not None and pair_each.host is not None
    assert (pair_each.host.id, pair_each.units) == ("epyc-open-frame-4-gpu", 2)
    cost = purchase_cost(rtx5090, 4, pair_each, DEFAULTS)
    assert cost.purchase_usd == pytest.approx(22_224)
    one_group = choose_host(rtx5090, 4, 4, HOSTS)  # TP 4 cannot be split over hosts: one that feeds all four
    assert one_group is not None and one_group.host is not None and one_group.units == 1
    assert 4 * (rtx5090.tdp_watts or 0) + (one_group.host.power_watts or 0) <= (one_group.host.psu_watts or 0)


def test_a_pcie_host_draws_its_cpus_and_feeds_them_too() -> None:
    """Two 600 W cards in the 4U Threadripper draw 1,200 W plus the host's parts at their maximum, 558 W (the
    7975WX's 350 W TDP, memory, drives and a NIC, and 20 % for cooling: ServeTheHome's rule, the basis of every
    host's power since 2026-12-06, where the CPU's 350 W alone had been counted); the supply feeds the host as well
    as the cards, so a host whose spare watts its own parts take is not chosen."""
    pro = get_gpu("rtx-pro-6000-blackwell")
    two = choose_host(pro, 2, 2, HOSTS, rack_only=True)
    assert two is not None and two.host is not None
    cost = purchase_cost(pro, 2, two, DEFAULTS)
    assert cost.power_watts == 2 * 600 + 558
    assert "GPUs only" not in cost.basis and "hosts 558 W at their maximum" in cost.basis
    assert cost.unverified == ("host price", "host power")  # a bill of materials read in part; parts estimated
    assert cost.energy_usd == pytest.approx(1.758 * 1.58 * 3 * HOURS_PER_YEAR * 0.1241)
    tight = load_hosts()["epyc-open-frame-4-gpu"].model_copy(update={"psu_watts": 4 * 350 + 191})
    assert choose_host(get_gpu("rtx-3090"), 4, 4, [tight]) is None  # 1,400 W of cards + the open frame's 192 W


def test_power_over_the_life_is_the_arithmetic() -> None:
    h100 = get_gpu("h100-sxm-80gb")
    host = load_hosts()["hgx-8-gpu-hopper"]
    cost = purchase_cost(h100, 8, choose_host(h100, 8, 8, HOSTS), DEFAULTS)
    watts = 8 * 700 + 4_600
    energy = watts / 1000 * 1.58 * 3 * HOURS_PER_YEAR * 0.1241
    assert cost.power_watts == watts and cost.energy_usd == pytest.approx(energy)
    assert cost.purchase_usd == 8 * 30_000 + host.price.usd and cost.rack_units == 8
    assert cost.tco_usd == pytest.approx(cost.purchase_usd + energy)
    assert cost.usd_per_hour == pytest.approx(cost.tco_usd / (3 * HOURS_PER_YEAR))
    cheaper = purchase_cost(h100, 8, choose_host(h100, 8, 8, HOSTS), Assumptions.from_catalog(
        running_costs(), usd_per_kwh=0.05, pue=1.2, life_years=5))  # fmt: skip
    assert cheaper.energy_usd == pytest.approx(watts / 1000 * 1.2 * 5 * HOURS_PER_YEAR * 0.05)
    mac = get_gpu("apple-m4-max")  # under a desk: the office PUE
    desk = purchase_cost(mac, 1, choose_host(mac, 1, 1, HOSTS), DEFAULTS)
    assert desk.energy_usd == pytest.approx((mac.tdp_watts or 0) / 1000 * 3 * HOURS_PER_YEAR * 0.1241)


def test_cloud_rents_whole_instances() -> None:
    h100 = get_gpu("h100-sxm-80gb")
    one = cloud_cost(h100, 1)
    eight = cloud_cost(h100, 8)
    on_demand = [
        c
        for c in h100.cloud_prices
        if c.gpus_per_instance == 1 and c.tier == "on-demand" and not c.usd_per_gpu_hour_high
    ]
    assert one.usd_per_hour == pytest.approx(min(c.usd_per_gpu_hour for c in on_demand))  # like with like
    a100 = get_gpu("a100-sxm-40gb")  # only 8-GPU AWS instances: two GPUs rent a whole instance
    reserved = cloud_cost(a100, 2, "reserved")  # AWS Capacity Blocks, reserved: compared only when asked
    assert reserved.usd_per_hour == pytest.approx(8 * 1.844) and cloud_cost(a100, 2).usd_per_hour is None
    assert "8-GPU instance" in reserved.basis and eight.usd_per_hour is not None


def test_the_workload_edits_the_assumptions() -> None:
    base = rank(LLAMA_8B, workload(20, 4_096), gpus=[get_gpu("l40s")], counts=(1,))
    edited = rank(LLAMA_8B, workload(20, 4_096, usd_per_kwh=0.3, life_years=5), gpus=[get_gpu("l40s")], counts=(1,))
    a, b = base.options[0], edited.options[0]
    assert a.purchase_usd == b.purchase_usd and (b.energy_usd or 0) > (a.energy_usd or 0)
    assert "$0.3/kWh" in edited.assumptions["prices"] and "5 years" in edited.assumptions["prices"]
    assert math.isclose((b.energy_usd or 0) / (a.energy_usd or 1), 0.3 / 0.1241 * 5 / 3, rel_tol=1e-9)


def test_restricted_and_personal_parts_only_when_asked() -> None:
    w = workload(10, 4_096)
    ranking = rank(LLAMA_8B, w, counts=(1,))
    assert not any(get_gpu(o.gpu_id).restricted_market for o in ranking.options)
    assert not any(o.purchase_kind == "machine" for o in ranking.options)
    asked = rank(LLAMA_8B, workload(10, 4_096, include_restricted=True, include_personal=True), counts=(1,))
    assert any(get_gpu(o.gpu_id).restricted_market for o in asked.options)
    named = rank(LLAMA_8B, workload(4, 4_096, gpu_ids=("apple-m4-max",)), counts=(1,))
    assert named.options and not named.left_out


def test_host_schema_refuses_a_baseboard_in_a_pcie_server() -> None:
    data = load_hosts()["pcie-server-8-gpu"].model_dump() | {"takes": ("baseboard",)}
    with pytest.raises(ValueError, match="baseboard-server"):
        HostSpec.model_validate(data)


PASSIVE = (
    "a10",
    "a100-pcie-40gb",
    "a100-pcie-80gb",
    "h100-nvl-94gb",
    "h100-pcie-80gb",
    "l20",
    "l4",
    "l40",
    "l40s",
    "rtx-pro-6000-blackwell-server",
    "t4",
)


def test_every_card_states_its_cooler_and_the_passive_ones_are_the_datasheets() -> None:
    """A card's cooler decides which machine it can go in (the catalog's sources per card); the schema refuses a
    card without it."""
    cards = {g.id: g.purchase for g in load_gpus().values() if g.purchase.kind in ("card", "pair")}
    assert all(p.cooling and p.cooling_source for p in cards.values())
    assert {i for i, p in cards.items() if p.cooling == "passive"} == set(PASSIVE)
    data = get_gpu("l4").purchase.model_dump() | {"cooling": None}
    with pytest.raises(ValueError, match="cooling"):
        type(get_gpu("l4").purchase).model_validate(data)


@pytest.mark.parametrize("gpu_id", PASSIVE)
def test_a_passive_card_goes_only_in_a_server_whose_fans_cool_it(gpu_id: str) -> None:
    """A bare heat sink in a desktop or an open frame overheats: the cheapest-host rule put an L40S ($8,500) in
    the $1,314 open-frame build and two L4s beside it. An active card still takes the cheapest host."""
    gpu = get_gpu(gpu_id)
    for count in (gpu.purchase.gpus_per_unit, 2 * gpu.purchase.gpus_per_unit):
        choice = choose_host(gpu, count, 1, HOSTS)
        assert choice is not None and choice.host is not None, (gpu_id, count)
        assert choice.host.cools_passive_cards and choice.host.rack_mounted, (gpu_id, choice.host.id)
    home = choose_host(get_gpu("rtx-3090"), 2, 2, HOSTS)
    assert home is not None and home.host is not None and home.host.id == "epyc-open-frame-4-gpu"


def test_no_ranked_option_puts_a_passive_card_where_nothing_cools_it() -> None:
    hosts = load_hosts()
    for users, context in ((1, 16_384), (4, 8_192), (32, 32_768)):
        for option in rank(LLAMA_8B, workload(users, context), counts=(1, 2, 4)).options:
            if get_gpu(option.gpu_id).purchase.cooling == "passive":
                assert option.host_id is not None and hosts[option.host_id].cools_passive_cards, option.gpu_id


def test_the_purchase_says_why_a_passive_card_comes_with_a_server() -> None:
    l4, rtx = get_gpu("l4"), get_gpu("rtx-4090")
    text = purchase_text(l4, 1, "8-slot PCIe GPU server (4U, dual socket)", 1, True)
    assert text == (
        "1 x L4 PCIe card (passive: the server's fans cool it) in 1 x 8-slot PCIe GPU server (4U, dual socket)"
    )
    assert "cool them) in" in purchase_text(l4, 2, "8-slot PCIe GPU server (4U, dual socket)", 1, True)
    assert "passive" not in purchase_text(rtx, 2, "Desktop workstation (one GPU)", 2, True)


def test_a_card_priced_second_hand_is_bought_used() -> None:
    """The RTX 3090 and 4090 are priced at used street prices (discontinued): the purchase says so, where it said
    only "1 x GeForce RTX 3090 PCIe card" and the price's kind was in the option's price basis alone (an outside
    review, 2026-12-06); a card priced new is not."""
    for gpu_id in ("rtx-3090", "rtx-4090"):
        gpu = get_gpu(gpu_id)
        assert gpu.price is not None and gpu.price.used
        assert purchase_text(gpu, 2, None, 1, True).startswith(f"2 x used {gpu.name} PCIe cards")
    l40s = get_gpu("l40s")
    assert l40s.price is not None and not l40s.price.used and "used" not in purchase_text(l40s, 1, None, 1, True)


def test_a_card_goes_only_in_bays_as_wide_as_its_cooler() -> None:
    """The RTX 3090 and 4090 Founders Editions take three slots: the Threadripper server's four dual-slot bays and
    the 8-slot server's dual-slot positions do not hold them, an open frame on risers and a desktop tower do.
    Eight 3090s had been priced in two Threadripper servers for Gemma 4 31B at 20 users (a buyer's review,
    2026-12-06)."""
    hosts = load_hosts()
    assert hosts["threadripper-pro-4u-4-gpu"].max_card_slot_width == hosts["pcie-server-8-gpu"].max_card_slot_width == 2
    for gpu_id in ("rtx-3090", "rtx-4090"):
        gpu = get_gpu(gpu_id)
        assert gpu.purchase.slot_width == 3
        assert choose_host(gpu, 4, 1, HOSTS, rack_only=True) is None, gpu_id
        frame = choose_host(gpu, 4, 1, HOSTS)
        assert frame is not None and frame.host is not None and frame.host.id == "epyc-open-frame-4-gpu"
    dual = choose_host(get_gpu("rtx-5090"), 4, 1, HOSTS, rack_only=True)  # the 5090 Founders Edition: two slots
    assert dual is not None and dual.host is not None and dual.host.rack_mounted
    ranking = rank(get_model("google/gemma-4-31B-it").spec, workload(20, 32_768))
    assert not [o.label for o in ranking.options if o.gpu_id in ("rtx-3090", "rtx-4090")]

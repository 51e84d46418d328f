"""What a set-up costs as a buyer orders it: the GPUs, the machines that hold them, their power over the years
they are used (the total cost of ownership), their rack space; or what renting it costs per hour.

- **Purchase**: whole purchase units of GPUs at the catalog's dated price, plus the hosts that hold them
  (:class:`planner.core.host.HostSpec`, ``model_catalog/hosts/``): the cheapest host that takes the GPUs' form
  (PCIe cards, NVLink pairs, an HGX / OAM baseboard), cools them (a passive card only in a server whose fans blow
  through it), has the slots for one tensor-parallel group and whose power supplies feed the cards' TDP; as many
  hosts as the GPUs need (a tensor-parallel group never spans two). A Mac, a DGX Spark or a Strix Halo desktop is
  its own machine: no host. Power: the GPUs' TDP and the hosts' own draw, both at their maximum, around the clock,
  times the PUE (the data centre's for a rack-mounted host, the office's otherwise), at the electricity price, over
  the life; per hour = (purchase + power over the life) / the life's hours.
- **Cloud**: whole instances of the cheapest dated offer in one tier, on-demand (an 8-GPU instance rents 8 GPUs
  however few are used; a community marketplace's or a reserved block's rate is not compared with on-demand ones).

The assumptions (:class:`Assumptions`: $/kWh, PUE, life) default to ``model_catalog/running_costs.toml`` and are
editable on the page and the CLI; every option states them (:attr:`SystemCost.basis`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from pydantic import BaseModel, Field

from planner.core.gpu import GpuSpec
from planner.core.host import HostSpec, RunningCosts
from planner.core.sale import DEFAULT_CLOUD_TIER, CloudPrice, CloudTier

HOURS_PER_YEAR = 8760
HOURS_PER_MONTH = 730


class Assumptions(BaseModel, frozen=True, extra="forbid"):
    """The running-cost assumptions an option is priced with (each shown with the option)."""

    usd_per_kwh: float = Field(gt=0)
    pue_datacenter: float = Field(ge=1)
    pue_office: float = Field(ge=1)
    life_years: float = Field(gt=0)
    sources: str = ""

    @classmethod
    def from_catalog(
        cls,
        running: RunningCosts,
        usd_per_kwh: float | None = None,
        pue: float | None = None,
        life_years: float | None = None,
    ) -> Assumptions:
        """The catalog's defaults, each overridden when given."""
        return cls(
            usd_per_kwh=usd_per_kwh if usd_per_kwh is not None else running.usd_per_kwh.value,
            pue_datacenter=pue if pue is not None else running.pue_datacenter.value,
            pue_office=running.pue_office.value,
            life_years=life_years if life_years is not None else running.life_years.value,
            sources=(
                f"electricity {running.usd_per_kwh.source} ({running.usd_per_kwh.date}); PUE "
                f"{running.pue_datacenter.source} ({running.pue_datacenter.date})"
            ),
        )

    def describe(self) -> str:
        return (
            f"${self.usd_per_kwh:g}/kWh, PUE {self.pue_datacenter:g} in a data centre ({self.pue_office:g} under a "
            f"desk), {self.life_years:g} years of use around the clock"
        )


class HostChoice(NamedTuple):
    """The hosts a purchase needs: which, how many, what they add."""

    host: HostSpec | None  # None: the GPU is its own machine (Mac, DGX Spark, Strix Halo)
    units: int  # hosts (or machines)


def choose_host(
    gpu: GpuSpec, count: int, group: int, hosts: Sequence[HostSpec], rack_only: bool = False
) -> HostChoice | None:
    """The cheapest host that takes ``gpu``'s form and cools it, holds one tensor-parallel ``group`` and feeds its
    cards' TDP beside its own draw (``rack_only``: a rack-mounted one), with as many as ``count`` GPUs need, each
    holding the whole groups its slots, the card's own limit (:attr:`PurchaseUnit.max_per_host`) and power supply
    take (replicas need not share a host); ``None`` when no catalog host does."""
    unit = gpu.purchase
    kind = unit.kind
    if kind == "machine":
        return HostChoice(None, count)
    best: HostChoice | None = None
    best_cost = math.inf
    for host in hosts:
        if not host.holds(kind, gpu.vendor, gpu.architecture, unit.cooling, unit.slot_width) or host.gpu_slots < group:
            continue
        if rack_only and not host.rack_mounted:
            continue
        slots = min(host.gpu_slots, unit.max_per_host or host.gpu_slots)  # a cooler built for few to a host
        per_host = min(count, slots // group * group)
        per_host = min(per_host, fed_by_supply(host, gpu, per_host) // group * group)  # whole groups it feeds
        if not per_host:
            continue
        n = math.ceil(count / per_host)
        cost = n * host.price.usd
        if cost < best_cost:
            best, best_cost = HostChoice(host, n), cost
    return best


def fed_by_supply(host: HostSpec, gpu: GpuSpec, per_host: int) -> int:
    """How many of ``gpu``'s cards the host's power supplies feed beside its own draw at its maximum:
    (rated supply - own draw) / (TDP x (1 + the fans' share)); ``per_host`` for a host whose supplies are sized for
    any GPUs it takes (no ``psu_watts``)."""
    if host.psu_watts is None:
        return per_host
    spare = host.psu_watts - (host.own_watts(gpu.architecture, per_host) or 0)
    if not gpu.tdp_watts:
        return per_host if spare >= 0 else 0
    return max(0, int(spare // (gpu.tdp_watts * (1 + host.fan_share))))


def hosts_watts(host: HostSpec, gpu: GpuSpec, count: int, hosts: int) -> float:
    """The hosts' own draw at their maximum around ``count`` GPUs: each host's parts for the GPUs it holds
    (:meth:`HostSpec.own_watts`: a DGX system's rated maximum minus its GPUs' TDP; a PCIe host's parts at full
    load) plus, where its fans cool the cards, their share of the cards' TDP (ServeTheHome's rule for an 8-GPU PCIe
    server: 'add another 10-20% for cooling'); 0 for a host with no sourced figure."""
    own = host.own_watts(gpu.architecture, math.ceil(count / hosts)) or 0
    return own * hosts + host.fan_share * (gpu.tdp_watts or 0) * count


class SystemCost(BaseModel, frozen=True, extra="forbid"):
    """What a set-up costs, every part apart (``None``: unknown)."""

    gpus_usd: float | None  # the GPUs (or the machines, for a Mac or a DGX Spark)
    hosts_usd: float  # the machines around the GPUs
    purchase_usd: float | None  # gpus + hosts
    power_watts: float | None  # GPUs at TDP + hosts' own draw at their maximum (no PUE); None: a rental's
    energy_usd: float | None  # power x PUE x hours of the life x $/kWh
    tco_usd: float | None  # purchase + energy over the life
    usd_per_hour: float | None  # purchase: TCO / hours of the life; cloud: the rent
    rack_units: int | None  # None: not rack-mounted (desktops, workstations, open frames)
    host_id: str | None
    host_name: str | None
    hosts: int
    basis: str  # what the figures are, with their sources and dates
    unverified: tuple[str, ...] = ()  # cost figures that rest on an assumption
    rented: str = ""  # a rental: what is rented, whose GPUs at what rate ("": a purchase)


def _hosts_text(choice: HostChoice) -> str:
    if choice.host is None:
        return "no host (the machine is the purchase)"
    h = choice.host
    price = h.price
    return f"{choice.units} x {h.name} at ${price.usd:,.0f} each ({price.kind}, as listed {price.date}; {price.source})"


def _assumed(gpu: GpuSpec, host: HostSpec | None, count: int, hosts: int) -> tuple[str, ...]:
    """The cost figures of a purchase that rest on an assumption: the host's unverified fields, its board's power
    where that is derived or borrowed (:attr:`planner.core.host.BoardPower.assumed`), the GPU's price."""
    fields = tuple(
        f"host {f.removesuffix('_watts').replace('_', ' ')}" for f in (host.unverified_fields if host else ())
    )
    board = host.board_for(gpu.architecture, math.ceil(count / hosts)) if host and hosts else None
    fields += ("host power",) if board is not None and board.assumed and "host power" not in fields else ()
    return fields + (("GPU price",) if "price" in gpu.unverified_fields else ())


def purchase_cost(gpu: GpuSpec, count: int, choice: HostChoice | None, a: Assumptions) -> SystemCost:
    """The purchase (GPUs + hosts), its power and its total cost of ownership over ``a.life_years``."""
    host = choice.host if choice else None
    hosts = choice.units if choice and host else 0
    hosts_usd = hosts * host.price.usd if host else 0.0
    gpus_usd = gpu.price.usd * count if gpu.price is not None else None
    gpu_watts = (gpu.tdp_watts or 0) * count
    host_watts = hosts_watts(host, gpu, count, hosts) if host else 0.0
    rack = host.rack_units * hosts if host and host.rack_units else None
    racked = host is not None and host.rack_mounted
    pue, where = (a.pue_datacenter, "in a data centre") if racked else (a.pue_office, "under a desk")
    hours = a.life_years * HOURS_PER_YEAR
    energy = (gpu_watts + host_watts) / 1000 * pue * hours * a.usd_per_kwh
    purchase = None if gpus_usd is None or choice is None else gpus_usd + hosts_usd
    tco = None if purchase is None else purchase + energy
    unverified = _assumed(gpu, host, count, hosts)
    gpu_text = (
        f"{count} x {gpu.name} at ${gpu.price.usd:,.0f} ({gpu.price.kind}, as listed {gpu.price.date}; "
        f"{gpu.price.source})"
        if gpu.price is not None
        else f"{gpu.name}: no sourced price"
    )
    host_power = (
        f" + hosts {host_watts:,.0f} W at their maximum"
        if host_watts
        else (" (host power not sourced: GPUs only)" if host is not None else "")
    )
    basis = (
        f"purchase: {gpu_text}; {_hosts_text(choice) if choice else 'no catalog host holds them'}. Power: GPUs "
        f"{gpu_watts:,} W at TDP{host_power}, PUE {pue:g} ({where}), ${a.usd_per_kwh:g}/kWh, {a.life_years:g} years "
        f"around the clock: ${energy:,.0f} over the life"
    )
    return SystemCost(
        gpus_usd=gpus_usd,
        hosts_usd=hosts_usd,
        purchase_usd=purchase,
        power_watts=float(gpu_watts + host_watts),
        energy_usd=energy,
        tco_usd=tco,
        usd_per_hour=None if tco is None else tco / hours,
        rack_units=rack,
        host_id=host.id if host else None,
        host_name=host.name if host else None,
        hosts=hosts,
        basis=basis,
        unverified=unverified,
    )


def _hourly(offer: CloudPrice, count: int) -> float:
    """What ``count`` GPUs cost an hour in ``offer``'s whole instances: instances x GPUs each x the GPU-hour rate."""
    return math.ceil(count / offer.gpus_per_instance) * offer.gpus_per_instance * offer.usd_per_gpu_hour


def cloud_cost(gpu: GpuSpec, count: int, tier: CloudTier = DEFAULT_CLOUD_TIER) -> SystemCost:
    """Whole instances of the cheapest dated offer in ``tier`` (by what ``count`` GPUs cost in its instances):
    rentals are compared like with like, on-demand with on-demand by default (an H100 at a community marketplace's
    $1.99 had been ranked beside an A100 at RunPod's on-demand $2.45, an inversion the market does not have). A
    published range's low end is what the cheapest provider a survey found asked, not an offer: it prices a GPU only
    when the catalog has no dated offer of a provider for it in the tier (an A100 SXM had been rented at a range's
    $0.80 beside RunPod's $2.45)."""
    in_tier = [o for o in gpu.cloud_prices if o.tier == tier]
    offers = [o for o in in_tier if o.usd_per_gpu_hour_high is None] or in_tier
    best = min(offers, key=lambda o: _hourly(o, count), default=None)
    if best is None:
        others = "; ".join(o.label for o in gpu.cloud_prices)
        other = f"; not compared with {tier} rates: {others}" if others else ""
        nothing = f"{count} x {gpu.name}: no dated {tier} offer to rent"
        return _rented(None, f"cloud: no dated {tier} offer in the catalog (unknown){other}", nothing)
    instances = math.ceil(count / best.gpus_per_instance)
    if best.gpus_per_instance == 1:  # priced per GPU: one instance holds them, not separate ones
        rented = f"{count} GPUs of {best.label}, priced per GPU" if count > 1 else f"1 GPU of {best.label}"
    else:
        rented = f"{instances} x {best.gpus_per_instance}-GPU instance{'s' if instances > 1 else ''} of {best.label}"
    basis = (
        f"cloud: {rented}"
        + (
            " (the low end of a published range: no provider's dated offer in the catalog)"
            if best.usd_per_gpu_hour_high
            else ""
        )
        + (
            f" (cheapest of {len(offers)} dated {tier} offers; "
            if len(offers) > 1
            else f" (the one dated {tier} offer; "
        )
        + f"{best.source})"
    )
    return _rented(_hourly(best, count), basis, rented)


def _rented(usd_per_hour: float | None, basis: str, rented: str) -> SystemCost:
    """What a rental costs: an hourly rate (``None``: no dated offer); nothing bought, so no host, no rack space and
    no power of the buyer's (the provider's rate includes them); ``rented``: what is rented, in words."""
    return SystemCost(
        gpus_usd=None,
        hosts_usd=0.0,
        purchase_usd=None,
        power_watts=None,
        energy_usd=None,
        tco_usd=None,
        usd_per_hour=usd_per_hour,
        rack_units=None,
        host_id=None,
        host_name=None,
        hosts=0,
        basis=basis,
        rented=rented,
    )

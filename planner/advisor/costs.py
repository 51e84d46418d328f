"""What a set-up costs as a buyer orders it: the GPUs, the machines that hold them, their power over the years
they are used (the total cost of ownership), their rack space; or what renting it costs per hour.

- **Purchase**: whole purchase units of GPUs at the catalog's dated price, plus the hosts that hold them
  (:class:`planner.core.host.HostSpec`, ``model_catalog/hosts/``): the cheapest host that takes the GPUs' form
  (PCIe cards, NVLink pairs, an HGX / OAM baseboard), cools them (a passive card only in a server whose fans blow
  through it), has the slots for one tensor-parallel group and whose power supplies feed the cards' TDP; as many
  hosts as the GPUs need (a tensor-parallel group never spans two). A Mac, a DGX Spark or a Strix Halo desktop is
  its own machine: no host. Power: the GPUs' TDP and the hosts' own draw around the clock, times the PUE (the
  data centre's for a rack-mounted host, the office's otherwise), at the electricity price, over the life; per
  hour = (purchase + power over the life) / the life's hours.
- **Cloud**: whole instances of the cheapest dated offer (an 8-GPU instance rents 8 GPUs however few are used).

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
    holding the whole groups its slots and power supply take (replicas need not share a host); ``None`` when no
    catalog host does."""
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
        per_host = min(count, host.gpu_slots // group * group)
        if host.psu_watts is not None:  # the whole groups its power supply feeds beside its own draw
            spare = host.psu_watts - (host.power_watts or 0)
            fed = spare // gpu.tdp_watts if gpu.tdp_watts else (per_host if spare >= 0 else 0)
            per_host = min(per_host, max(0, fed) // group * group)
        if not per_host:
            continue
        n = math.ceil(count / per_host)
        cost = n * host.price.usd
        if cost < best_cost:
            best, best_cost = HostChoice(host, n), cost
    return best


class SystemCost(BaseModel, frozen=True, extra="forbid"):
    """What a set-up costs, every part apart (``None``: unknown)."""

    gpus_usd: float | None  # the GPUs (or the machines, for a Mac or a DGX Spark)
    hosts_usd: float  # the machines around the GPUs
    purchase_usd: float | None  # gpus + hosts
    power_watts: float  # GPUs at TDP + hosts' own draw (without the PUE)
    energy_usd: float | None  # power x PUE x hours of the life x $/kWh
    tco_usd: float | None  # purchase + energy over the life
    usd_per_hour: float | None  # purchase: TCO / hours of the life; cloud: the rent
    rack_units: int | None  # None: not rack-mounted (desktops, workstations, open frames)
    host_id: str | None
    host_name: str | None
    hosts: int
    basis: str  # what the figures are, with their sources and dates
    unverified: tuple[str, ...] = ()  # cost figures that rest on an assumption


def _hosts_text(choice: HostChoice) -> str:
    if choice.host is None:
        return "no host (the machine is the purchase)"
    h = choice.host
    price = h.price
    return f"{choice.units} x {h.name} at ${price.usd:,.0f} each ({price.kind}, as listed {price.date}; {price.source})"


def purchase_cost(gpu: GpuSpec, count: int, choice: HostChoice | None, a: Assumptions) -> SystemCost:
    """The purchase (GPUs + hosts), its power and its total cost of ownership over ``a.life_years``."""
    host = choice.host if choice else None
    hosts = choice.units if choice and host else 0
    hosts_usd = hosts * host.price.usd if host else 0.0
    gpus_usd = gpu.price.usd * count if gpu.price is not None else None
    gpu_watts = (gpu.tdp_watts or 0) * count
    host_watts = (host.power_watts or 0) * hosts if host else 0
    rack = host.rack_units * hosts if host and host.rack_units else None
    racked = host is not None and host.rack_mounted
    pue, where = (a.pue_datacenter, "in a data centre") if racked else (a.pue_office, "under a desk")
    hours = a.life_years * HOURS_PER_YEAR
    energy = (gpu_watts + host_watts) / 1000 * pue * hours * a.usd_per_kwh
    purchase = None if gpus_usd is None or choice is None else gpus_usd + hosts_usd
    tco = None if purchase is None else purchase + energy
    unverified = tuple(
        f"host {f.removesuffix('_watts').replace('_', ' ')}" for f in (host.unverified_fields if host else ())
    )
    unverified += ("GPU price",) if "price" in gpu.unverified_fields else ()
    gpu_text = (
        f"{count} x {gpu.name} at ${gpu.price.usd:,.0f} ({gpu.price.kind}, as listed {gpu.price.date}; "
        f"{gpu.price.source})"
        if gpu.price is not None
        else f"{gpu.name}: no sourced price (rent-only)"
    )
    host_power = (
        f" + hosts {host_watts:,} W"
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


def cloud_cost(gpu: GpuSpec, count: int) -> SystemCost:
    """Whole instances of the cheapest dated offer (by what ``count`` GPUs cost in its instances). A published
    range's low end is what the cheapest provider a survey found asked, not an offer: it prices a GPU only when the
    catalog has no dated offer of a provider for it (an A100 SXM had been rented at a range's $0.80 beside RunPod's
    $2.45)."""
    best, best_hourly = None, math.inf
    offers = [o for o in gpu.cloud_prices if o.usd_per_gpu_hour_high is None] or list(gpu.cloud_prices)
    for offer in offers:
        instances = math.ceil(count / offer.gpus_per_instance)
        hourly = instances * offer.gpus_per_instance * offer.usd_per_gpu_hour
        if hourly < best_hourly:
            best, best_hourly = offer, hourly
    if best is None:
        return _rented(gpu, count, None, "cloud: no dated cloud price in the catalog (unknown)")
    instances = math.ceil(count / best.gpus_per_instance)
    if best.gpus_per_instance == 1 and count > 1:  # priced per GPU: one instance holds them, not separate ones
        rented = f"{count} GPUs of {best.label}, priced per GPU"
    else:
        rented = f"{instances} x {best.gpus_per_instance}-GPU instance{'s' if instances > 1 else ''} of {best.label}"
    basis = (
        f"cloud: {rented}"
        + (
            " (the low end of a published range: no provider's dated offer in the catalog)"
            if best.usd_per_gpu_hour_high
            else ""
        )
        + (f" (cheapest of {len(offers)} dated offers; " if len(offers) > 1 else " (the one dated offer; ")
        + f"{best.source})"
    )
    return _rented(gpu, count, best_hourly, basis)


def _rented(gpu: GpuSpec, count: int, usd_per_hour: float | None, basis: str) -> SystemCost:
    """What renting ``count`` GPUs costs: an hourly rate (``None``: no dated offer), nothing bought, no host."""
    return SystemCost(
        gpus_usd=None,
        hosts_usd=0.0,
        purchase_usd=None,
        power_watts=float((gpu.tdp_watts or 0) * count),
        energy_usd=None,
        tco_usd=None,
        usd_per_hour=usd_per_hour,
        rack_units=None,
        host_id=None,
        host_name=None,
        hosts=0,
        basis=basis,
    )

"""What a set-up costs: a purchase (amortised per hour, with power) or the cheapest dated cloud price.

- ``purchase``: whole purchase units (:class:`planner.core.gpu.PurchaseUnit`: a card, an NVLink pair, a 4- or 8-GPU
  baseboard, a machine) at the catalog's price (a launch MSRP or a widely reported street price, dated) x GPUs
  per unit. GPUs only (a Mac is the machine): servers, networking, power and staff are not counted. The hourly figure
  amortises the purchase over ``AMORTISATION_YEARS`` of continuous use and adds power at the GPU's TDP and
  ``POWER_USD_PER_KWH`` (when the TDP is known).
- ``cloud``: the cheapest on-demand price per GPU-hour in the catalog (provider and date named) x GPUs; the
  budget is then per month of ``HOURS_PER_MONTH`` hours.
- Unknown prices (``None`` in the catalog) are ``None`` here: the ranking keeps such options without a
  budget (sorted last) and rejects them as ``unknown-price`` with one.
"""

from __future__ import annotations

from typing import NamedTuple

from planner.advisor.workload import Pricing
from planner.core.gpu import GpuSpec

AMORTISATION_YEARS = 3
HOURS_PER_YEAR = 8760
HOURS_PER_MONTH = 730
POWER_USD_PER_KWH = 0.15


class Costs(NamedTuple):
    """Purchase dollars, dollars per hour, and what they are (``None``: unknown)."""

    purchase_usd: float | None
    usd_per_hour: float | None
    basis: str


def cloud_costs(gpu: GpuSpec, count: int) -> Costs:
    """``count`` GPUs at the cheapest dated on-demand price per GPU-hour in the catalog."""
    purchase = gpu.price.usd * count if gpu.price is not None else None
    if not gpu.cloud_prices:
        return Costs(purchase, None, "cloud: no dated cloud price in the catalog (unknown)")
    cheapest = min(gpu.cloud_prices, key=lambda c: c.usd_per_gpu_hour)
    return Costs(
        purchase,
        cheapest.usd_per_gpu_hour * count,
        f"cloud: {cheapest.label} on demand"
        + (" (the low end of a published range)" if cheapest.usd_per_gpu_hour_high else "")
        + f" (cheapest of {len(gpu.cloud_prices)} dated prices; {cheapest.source})",
    )


def purchase_costs(gpu: GpuSpec, count: int) -> Costs:
    """``count`` GPUs at the catalog price; per hour: amortised over ``AMORTISATION_YEARS`` plus power at TDP."""
    if gpu.price is None:
        return Costs(None, None, f"purchase: rent-only (no sourced price for {gpu.purchase.description})")
    purchase = gpu.price.usd * count
    units = count // gpu.purchase.gpus_per_unit
    hourly = purchase / (AMORTISATION_YEARS * HOURS_PER_YEAR)
    power = ""
    if gpu.tdp_watts:
        hourly += gpu.tdp_watts / 1000 * count * POWER_USD_PER_KWH
        power = f" + power at {gpu.tdp_watts} W TDP and ${POWER_USD_PER_KWH}/kWh"
    return Costs(
        purchase,
        hourly,
        f"purchase: {units} x {gpu.purchase.description} at ${gpu.price.usd:,.0f} per GPU ({gpu.price.kind}, "
        f"{gpu.price.date}; {gpu.price.source}); GPUs only; per hour = amortised over {AMORTISATION_YEARS} years "
        f"of continuous use{power}",
    )


def costs(gpu: GpuSpec, count: int, pricing: Pricing) -> Costs:
    """The costs of ``count`` GPUs under ``pricing``."""
    return cloud_costs(gpu, count) if pricing == "cloud" else purchase_costs(gpu, count)

"""What a catalog part costs and whether it is still sold: a dated purchase price, cloud rates per GPU-hour, and
when it stopped being sold new (:class:`planner.core.gpu.GpuSpec` fields ``price``, ``cloud_prices``,
``discontinued``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

PositiveFloat = Annotated[float, Field(gt=0)]
PositiveInt = Annotated[int, Field(gt=0)]
Source = Annotated[str, Field(min_length=1)]
# How an offer is rented: a provider's own fixed hourly rate (on-demand), a marketplace of third-party hosts at a
# lower price without a datacentre SLA (community: RunPod's Community Cloud, Vast.ai), interruptible capacity (spot),
# or capacity booked ahead (reserved: AWS EC2 Capacity Blocks). Rentals are compared within one tier.
CloudTier = Literal["on-demand", "community", "spot", "reserved"]
DEFAULT_CLOUD_TIER: CloudTier = "on-demand"


class Price(BaseModel, frozen=True, extra="forbid"):
    """A purchase price in US dollars, with what kind of figure it is, when, and from where."""

    usd: PositiveFloat
    kind: str  # "launch MSRP", "widely reported street price", …
    date: str  # ISO year or year-month of the figure
    source: Annotated[str, Field(min_length=1)]

    @property
    def used(self) -> bool:
        """Whether the figure is a used part's (a discontinued card bought second-hand): said where it is bought."""
        return self.kind.startswith("used")


class CloudPrice(BaseModel, frozen=True, extra="forbid"):
    """A cloud price per GPU-hour in its ``tier`` (:data:`CloudTier`, as its source states it); a published range
    keeps its low end in ``usd_per_gpu_hour``. ``gpus_per_instance``: the GPUs of the smallest instance the price is
    for (AWS p5.48xlarge: 8 H100s), so a plan rents whole instances."""

    provider: str
    tier: CloudTier
    usd_per_gpu_hour: PositiveFloat
    usd_per_gpu_hour_high: PositiveFloat | None = None  # the top of a published range
    gpus_per_instance: PositiveInt = 1
    date: str
    source: Annotated[str, Field(min_length=1)]

    @model_validator(mode="after")
    def _check(self) -> CloudPrice:
        if self.usd_per_gpu_hour_high is not None and self.usd_per_gpu_hour_high < self.usd_per_gpu_hour:
            raise ValueError("cloud_prices: usd_per_gpu_hour_high is below usd_per_gpu_hour")
        return self

    @property
    def label(self) -> str:
        high = f"-{self.usd_per_gpu_hour_high:g}" if self.usd_per_gpu_hour_high else ""
        instance = f" ({self.gpus_per_instance}-GPU instances)" if self.gpus_per_instance > 1 else ""
        tier = "" if self.tier in self.provider.lower() else f" ({self.tier})"
        return f"{self.provider}{tier} ${self.usd_per_gpu_hour:g}{high}/GPU-hour{instance}, {self.date}"


class Discontinued(BaseModel, frozen=True, extra="forbid"):
    """A part its maker no longer sells new: since when (ISO year or year-month), the catalog part that replaced it
    (its id, when catalogued) and where that is read. A buyer gets one used or from remaining stock; a price that is
    not a used street price is then not a current offer (:func:`planner.advisor.option_notes.sale_note`)."""

    since: Annotated[str, Field(pattern=r"^\d{4}(-\d{2})?$")]
    replaced_by: str | None = None
    source: Source

    def used_price(self, price: Price | None) -> bool:
        """Whether ``price`` is a used street price (what a discontinued part costs now).

        >>> d = Discontinued(since="2024-10", source="s")
        >>> d.used_price(Price(usd=1343, kind="used street price, September 2026", date="2026-09", source="s"))
        True
        >>> d.used_price(Price(usd=5000, kind="price of a Mac with max memory", date="2026-08", source="s"))
        False
        """
        return price is not None and price.kind.lower().startswith("used")

"""GpuSpec: one accelerator as the catalog describes it, every figure with its source and date.

A figure without a source stays ``None`` and is shown as unknown; nothing is invented. Memory is stored in
bytes three ways, because they differ and each matters:
- ``memory_marketed_gb``: the label ("80GB"), in the vendor's GB;
- ``memory_reported_bytes``: what the device reports (``nvidia-smi`` MiB x 2**20; an H100 80GB reports
  81,559 MiB = 85,520,809,984 bytes = 79.65 GiB);
- ``engine_visible_bytes``: the total an engine prints at start-up (vLLM V1 on an H100 80GB: 79.19 GiB).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from planner.units import GB

PositiveFloat = Annotated[float, Field(gt=0)]


class Price(BaseModel, frozen=True, extra="forbid"):
    """A purchase price in US dollars, with what kind of figure it is, when, and from where."""

    usd: PositiveFloat
    kind: str  # "launch MSRP", "widely reported street price", …
    date: str  # ISO year or year-month of the figure
    source: Annotated[str, Field(min_length=1)]


class CloudPrice(BaseModel, frozen=True, extra="forbid"):
    """An on-demand cloud price per GPU-hour; a published range keeps its low end in ``usd_per_gpu_hour``."""

    provider: str
    usd_per_gpu_hour: PositiveFloat
    usd_per_gpu_hour_high: PositiveFloat | None = None  # the top of a published range
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
        return f"{self.provider} ${self.usd_per_gpu_hour:g}{high}/GPU-hour, {self.date}"


class GpuSpec(BaseModel, frozen=True, extra="forbid"):
    """One accelerator."""

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")]
    name: str
    vendor: Literal["NVIDIA", "AMD", "Intel", "Apple"]
    architecture: str | None = None
    form_factor: str | None = None
    launch_year: int | None = None
    memory_marketed_gb: PositiveFloat
    memory_type: str | None = None
    memory_reported_bytes: Annotated[int, Field(gt=0)] | None = None
    memory_reported_source: str | None = None
    engine_visible_bytes: Annotated[int, Field(gt=0)] | None = None
    engine_visible_source: str | None = None
    bandwidth_bytes_per_s: Annotated[int, Field(gt=0)] | None = None
    bf16_dense_tflops: PositiveFloat | None = None
    fp8_dense_tflops: PositiveFloat | None = None
    fp4_dense_tflops: PositiveFloat | None = None
    int8_dense_tops: PositiveFloat | None = None
    tdp_watts: Annotated[int, Field(gt=0)] | None = None
    interconnect: str | None = None
    interconnect_bandwidth_bytes_per_s: Annotated[int, Field(gt=0)] | None = None
    price: Price | None = None
    cloud_prices: tuple[CloudPrice, ...] = ()
    sources: Annotated[tuple[str, ...], Field(min_length=1)]
    notes: tuple[str, ...] = ()
    unverified_fields: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> GpuSpec:
        marketed = self.memory_marketed_gb * GB
        for field in ("memory_reported_bytes", "engine_visible_bytes"):
            value = getattr(self, field)
            # Devices report between ~85 % (ECC, reserved regions) and ~110 % (GiB-sized HBM) of the label.
            if value is not None and not 0.8 * marketed <= value <= 1.15 * marketed:
                raise ValueError(
                    f"{field} ({value:,} bytes) is implausible for a {self.memory_marketed_gb:g} GB device"
                )
        if self.memory_reported_bytes is not None and self.memory_reported_source is None:
            raise ValueError("memory_reported_source: required when memory_reported_bytes is given")
        if self.engine_visible_bytes is not None and self.engine_visible_source is None:
            raise ValueError("engine_visible_source: required when engine_visible_bytes is given")
        if (
            self.engine_visible_bytes is not None
            and self.memory_reported_bytes is not None
            and self.engine_visible_bytes > self.memory_reported_bytes
        ):
            raise ValueError("engine_visible_bytes cannot exceed memory_reported_bytes")
        return self

    @property
    def memory_bytes(self) -> int:
        """The memory a plan counts on: what the device reports, else the marketed size in GB (10**9)."""
        if self.memory_reported_bytes is not None:
            return self.memory_reported_bytes
        return round(self.memory_marketed_gb * GB)

    def memory_bytes_for(self, engine: bool) -> int:
        """The memory to plan with: for an engine profile the total that engine prints at start-up when
        known (vLLM on an H100 80GB: 79.19 GiB), else :attr:`memory_bytes`."""
        if engine and self.engine_visible_bytes is not None:
            return self.engine_visible_bytes
        return self.memory_bytes

    @property
    def cheapest_cloud_usd_per_hour(self) -> float | None:
        return min((c.usd_per_gpu_hour for c in self.cloud_prices), default=None)

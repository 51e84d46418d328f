"""GpuSpec: one accelerator as the catalog describes it, every figure with its source and date.

A figure without a source stays ``None`` (or ``"unknown"``) and is shown as unknown; nothing is invented.
Memory is stored in bytes three ways, because they differ and each matters:
- ``memory_marketed_gb``: the label ("80GB"), in the vendor's GB;
- ``memory_reported_bytes``: what the device reports (``nvidia-smi`` MiB x 2**20; an H100 80GB reports
  81,559 MiB = 85,520,809,984 bytes = 79.65 GiB);
- ``engine_visible_bytes``: the total an engine prints at start-up (vLLM V1 on an H100 80GB: 79.19 GiB).

Three tables every GPU file carries (see :class:`GpuSpec` for the whole schema): ``[compute]`` (dense TFLOPS per
number format, or ``"none"`` / ``"unknown"``), ``[purchase]`` (what a buyer can actually buy: a card, an
NVLink pair, a 4- or 8-GPU baseboard, a machine, a rack; or cloud only) and, for unified-memory machines,
``[unified_memory]`` (the share of memory the OS lets the GPU use by default, and how to raise it).
"""

from __future__ import annotations

import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from planner.bounds.hashing import HashedOnce
from planner.core.platform import DevicePlatform, device_platform
from planner.core.sale import DEFAULT_CLOUD_TIER, CloudPrice, Discontinued, Price
from planner.core.units import GB, GiB

PositiveFloat = Annotated[float, Field(gt=0)]
PositiveInt = Annotated[int, Field(gt=0)]
Source = Annotated[str, Field(min_length=1)]

# A dense peak figure (TFLOPS; TOPS for INT8), "none" (the GPU has no matrix unit for the format) or "unknown"
# (it has one, but no figure could be sourced).
TensorFigure = PositiveFloat | Literal["none", "unknown"]
ComputeFormat = Literal["bf16", "fp16", "fp8", "int8", "fp4", "fp32"]
COMPUTE_FORMATS: tuple[ComputeFormat, ...] = ("bf16", "fp16", "fp8", "int8", "fp4", "fp32")
PurchaseKind = Literal["card", "pair", "baseboard", "machine", "rack", "cloud-only"]
# A PCIe card's cooler: its own fans ("active") or a bare heat sink that the server's fans blow through
# ("passive"), which only a chassis built for it cools (:attr:`planner.core.host.HostSpec.cools_passive_cards`).
Cooling = Literal["active", "passive"]
SlotWidth = Annotated[int, Field(ge=1, le=5)]  # expansion slots a card's cooler takes (1: single-slot, 2: dual-slot)


class ComputeSpec(BaseModel, frozen=True, extra="forbid"):
    """Dense peak matrix throughput per number format (no 2:4 sparsity: NVIDIA datasheets print the sparse
    figure, dense is half), in TFLOPS (INT8 in TOPS).

    Every tensor format must be stated: a number, ``"none"`` (no hardware path for it: FP8 before Ada/Hopper
    or CDNA 3, FP4 before Blackwell or CDNA 4, BF16 before Ampere) or ``"unknown"`` (no sourced figure). The
    speed estimates treat ``"unknown"`` as unknown, never as free: such a GPU is ranked last with that reason.
    ``fp32`` is the non-tensor FP32 rate, given only where it is the one figure published (Apple GPUs).
    ``bf16`` and ``fp16`` are the rates with FP32 accumulation, which serving engines use; ``fp16_accumulate`` is
    the FP16 rate with FP16 accumulation where it is higher (GeForce parts and the L40 halve FP32 accumulation;
    llama.cpp's cuBLAS matmuls accumulate in FP16), ``None`` where the two are the same.
    """

    bf16: TensorFigure
    fp16: TensorFigure
    fp8: TensorFigure
    int8: TensorFigure
    fp4: TensorFigure
    fp32: TensorFigure = "unknown"
    fp16_accumulate: PositiveFloat | None = None
    source: Source
    note: str = ""

    @model_validator(mode="after")
    def _accumulate_is_not_slower(self) -> ComputeSpec:
        if self.fp16_accumulate is not None:
            if not isinstance(self.fp16, float | int):
                raise ValueError("fp16_accumulate needs a stated fp16 (FP32-accumulate) figure")
            if self.fp16_accumulate < self.fp16:
                raise ValueError("fp16_accumulate is below fp16: FP16 accumulation is never the slower")
        return self

    def tflops(self, fmt: ComputeFormat) -> float | None:
        """The figure for ``fmt`` as a number, ``None`` when it is ``"none"`` or ``"unknown"``."""
        value = getattr(self, fmt)
        return value if isinstance(value, float | int) else None

    def status(self, fmt: ComputeFormat) -> Literal["known", "none", "unknown"]:
        value = getattr(self, fmt)
        if value == "none":
            return "none"
        return "unknown" if value == "unknown" else "known"


class PurchaseUnit(BaseModel, frozen=True, extra="forbid"):
    """What a buyer can actually buy, and how many GPUs come in one.

    ``kind``: ``card`` (a PCIe card, one at a time), ``pair`` (NVLink-bridged pairs, e.g. H100 NVL),
    ``baseboard`` (SXM / OAM modules come only on 4- or 8-GPU baseboards inside servers), ``machine`` (a Mac:
    the GPU is the machine), ``rack`` (e.g. GB200 NVL72), ``cloud-only`` (no retail sale, e.g. AWS's A10G).
    A purchase plan buys whole units: the GPU count must be a multiple of ``gpus_per_unit``, and a unit costs
    ``gpus_per_unit`` x the catalog price (``price`` is per GPU, or per machine for a Mac); without a price the
    unit is rent-only. A card or a pair states its ``cooling`` and where that is read (``cooling_source``): a
    passive card goes only in a host built to blow air through it; ``max_per_host``: the most cards one host takes
    where the cooler sets it (the 600 W flow-through Workstation Edition of the RTX PRO 6000: two, in a tower), with
    why and its source.
    """

    kind: PurchaseKind
    gpus_per_unit: PositiveInt
    description: Source  # e.g. "HGX H100 4- or 8-GPU baseboard, in a server"
    source: Source
    cooling: Cooling | None = None
    cooling_source: str = ""
    slot_width: SlotWidth | None = None  # expansion slots one card's cooler takes (a card or a pair)
    slot_width_source: str = ""
    max_per_host: PositiveInt | None = None  # the most cards one host takes, where the cooler sets it
    max_per_host_why: str = ""  # in a few words, for the option that is rejected
    max_per_host_source: str = ""

    @model_validator(mode="after")
    def _check(self) -> PurchaseUnit:
        if self.kind in ("card", "pair") and (self.cooling is None or not self.cooling_source):
            raise ValueError("cooling and cooling_source: required for a card or a pair (active or passive)")
        if self.kind in ("card", "pair") and (self.slot_width is None or not self.slot_width_source):
            raise ValueError("slot_width and slot_width_source: required for a card or a pair (slots one card takes)")
        if self.kind not in ("card", "pair") and (self.cooling is not None or self.slot_width is not None):
            raise ValueError("cooling, slot_width: only a card or a pair states its cooler (a host cools the rest)")
        if self.max_per_host is not None and not (self.max_per_host_why and self.max_per_host_source):
            raise ValueError("max_per_host_why and max_per_host_source: required with max_per_host")
        return self

    @property
    def buyable(self) -> bool:
        return self.kind != "cloud-only"

    @property
    def sold_as(self) -> str:
        """What is bought, in a few words, with a card's cooler (a passive one needs a GPU server around it).

        >>> PurchaseUnit(kind="card", gpus_per_unit=1, description="d", source="s", cooling="passive",
        ...              cooling_source="s", slot_width=2, slot_width_source="s").sold_as
        'card, dual-slot, passive (needs a GPU server)'
        >>> PurchaseUnit(kind="baseboard", gpus_per_unit=8, description="d", source="s").sold_as
        '8-GPU baseboard'
        """
        cooler = {"passive": ", passive (needs a GPU server)", "active": ", active"}.get(self.cooling or "", "")
        width = {1: "single-slot", 2: "dual-slot"}.get(self.slot_width or 0, f"{self.slot_width}-slot")
        cooler = f", {width}{cooler}" if self.slot_width else cooler
        return {
            "card": f"card{cooler}",
            "pair": f"NVLink pair{cooler}",
            "baseboard": f"{self.gpus_per_unit}-GPU baseboard",
            "machine": "machine",
            "rack": f"{self.gpus_per_unit}-GPU rack",
            "cloud-only": "cloud only",
        }[self.kind]


class UnifiedMemory(BaseModel, frozen=True, extra="forbid"):
    """A machine whose GPU shares the system memory: the share the OS lets the GPU wire by default, and the
    command that raises it (planning uses the default unless told otherwise)."""

    default_gpu_share: Annotated[float, Field(gt=0, le=1)]
    source: Source
    raise_command: Source  # e.g. "sudo sysctl iogpu.wired_limit_mb=<MB>"


class GpuSpec(HashedOnce, frozen=True, extra="forbid"):
    """One accelerator, as one TOML file in ``model_catalog/gpus/`` (file name = ``id``).

    Required: ``id``, ``name``, ``vendor``, ``memory_marketed_gb``, ``sources`` and the tables ``[compute]``
    (:class:`ComputeSpec`: bf16, fp16, fp8, int8 and fp4, each a dense figure, ``"none"`` or ``"unknown"``, and
    a ``source``) and ``[purchase]`` (:class:`PurchaseUnit`: ``kind``, ``gpus_per_unit``, ``description``,
    ``source``). Apple machines also need ``[unified_memory]`` (:class:`UnifiedMemory`). Optional figures
    (bandwidth, TDP, memory as reported, prices) stay absent when no source gives them; a figure taken from a
    single or unofficial source is listed in ``unverified_fields`` by its name (``"compute.fp8"`` for a
    field of a table). ``read_on`` is the day the sources were read. ``tests/catalog/test_gpus.py`` checks
    every file against this.
    """

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
    multiprocessors: Annotated[int, Field(gt=0, le=1024)] | None = None  # torch's multi_processor_count
    multiprocessors_source: str | None = None
    compute: ComputeSpec
    purchase: PurchaseUnit
    unified_memory: UnifiedMemory | None = None  # required for unified-memory machines (Apple)
    tdp_watts: Annotated[int, Field(gt=0)] | None = None
    interconnect: str | None = None
    interconnect_bandwidth_bytes_per_s: Annotated[int, Field(gt=0)] | None = None
    price: Price | None = None
    cloud_prices: tuple[CloudPrice, ...] = ()
    discontinued: Discontinued | None = None  # no longer sold new: since when, by what replaced, where read
    # The liquid cooling its systems are built for, which a data centre must provide and the purchase's price and
    # power do not count, with its sources ("": air-cooled systems); said with every option that buys it.
    liquid_cooling: str = ""
    sources: Annotated[tuple[str, ...], Field(min_length=1)]
    # The day the sources above were read (or last re-checked). Entries written before the field existed have
    # none: their reading date was not recorded, and it is shown as such rather than guessed.
    read_on: datetime.date | None = None
    notes: tuple[str, ...] = ()
    unverified_fields: tuple[str, ...] = ()
    # The one market a part is sold in when it is not sold everywhere (an export-compliance SKU: "China"); the
    # advisor offers such parts only when asked for.
    restricted_market: str | None = None
    # Another edition of the catalog card ``variant_of`` (the same die, memory and bandwidth; another cooling or
    # clock): the advisor offers the two as one pick (tests/catalog checks that it names a catalog card)
    variant_of: str | None = None

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
        if self.vendor == "Apple" and self.unified_memory is None:
            raise ValueError("unified_memory: required for Apple machines (the GPU's default share of memory)")
        return self

    @property
    def platform(self) -> DevicePlatform:
        """The device facts software reads (:class:`DevicePlatform`): compute capability from the architecture,
        integrated from it, no peer access between GeForce ("consumer") cards."""
        return device_platform(
            self.vendor, self.architecture, f"{self.id} {self.name}", self.form_factor, self.multiprocessors
        )

    @property
    def bf16_dense_tflops(self) -> float | None:
        return self.compute.tflops("bf16")

    @property
    def fp8_dense_tflops(self) -> float | None:
        return self.compute.tflops("fp8")

    @property
    def fp4_dense_tflops(self) -> float | None:
        return self.compute.tflops("fp4")

    @property
    def int8_dense_tops(self) -> float | None:
        return self.compute.tflops("int8")

    def usable_memory_bytes(self, unified_share: float | None = None) -> int:
        """The memory a serving plan can count on: :attr:`memory_bytes`, or for a unified-memory machine the
        GPU's share of it (``unified_share``, default the OS default of :class:`UnifiedMemory`)."""
        if self.unified_memory is None:
            return self.memory_bytes
        share = unified_share if unified_share is not None else self.unified_memory.default_gpu_share
        return round(self.memory_bytes * share)

    @property
    def memory_bytes(self) -> int:
        """The memory a plan counts on: what the device reports, else the marketed size in GB (10**9) or the total
        an engine prints where that is more (a device never holds less than an engine sees: MI300X's "192 GB" is
        191.69 GiB to vLLM, not 192 x 10^9 bytes); a unified-memory machine's size is its DRAM's, in GiB."""
        if self.memory_reported_bytes is not None:
            return self.memory_reported_bytes
        if self.unified_memory is not None:  # its DRAM, sold in binary sizes: a "96 GB" Mac wires 0.75 x 96 GiB
            return round(self.memory_marketed_gb * GiB)  # (recommendedMaxWorkingSetSize 73,728 MiB, llama.cpp#3213)
        return max(round(self.memory_marketed_gb * GB), self.engine_visible_bytes or 0)

    def memory_bytes_for(self, engine: bool, unified_share: float | None = None) -> int:
        """The memory to plan with, the same on every page and in the advice: for an engine profile the total
        that engine prints at start-up when known (vLLM on an H100 80GB: 79.19 GiB), else
        :meth:`usable_memory_bytes` (a unified-memory machine: the GPU's share, by default the OS default)."""
        if engine and self.engine_visible_bytes is not None:
            return self.engine_visible_bytes
        return self.usable_memory_bytes(unified_share)

    @property
    def cheapest_cloud_usd_per_hour(self) -> float | None:
        """The cheapest on-demand rate per GPU-hour (other tiers are not compared with it: :data:`CloudTier`)."""
        return min((c.usd_per_gpu_hour for c in self.cloud_prices if c.tier == DEFAULT_CLOUD_TIER), default=None)

    @property
    def one_per_machine(self) -> bool:
        """Whether the GPU is a machine's only one (a Mac, DGX Spark, Strix Halo box): several are several
        machines, which a single process splitting layers over its devices (llama.cpp) cannot span."""
        return self.vendor == "Apple" or self.purchase.kind == "machine"

"""What holds the GPUs a buyer orders, and what running them costs: :class:`HostSpec` and :class:`RunningCosts`.

A PCIe card needs a machine around it, an SXM or OAM baseboard a server built for it: ``model_catalog/hosts/*.toml``
holds one such host each (a workstation for one or two cards, a 4- or 8-slot PCIe server, an HGX or OAM
8-GPU server) with its price WITHOUT the GPUs, the power its own parts draw, its rack space and what it takes.

Every host's power is on one basis, its MAXIMUM, as the GPUs' TDP is: a baseboard server's is its vendor system's
rated maximum minus the GPUs' TDP, per GPU generation and board size (:class:`BoardPower`: DGX A100 6.5 kW,
DGX H100 10.2 kW, DGX B200 14.3 kW); a PCIe host's is its parts at full load (CPUs at TDP, memory and drives,
NICs, and the fans: ServeTheHome's rule for an 8-GPU PCIe server), plus, where its fans cool the cards, a share of
the cards' TDP (``fan_share``).
A Mac, a DGX Spark or a Strix Halo desktop is its own machine (the GPU catalog prices the machine): no host.

``model_catalog/running_costs.toml`` holds the running-cost assumptions (:class:`RunningCosts`): the price of a
kWh, the data centre's power usage effectiveness, the years a purchase is planned over. Every figure names its
source and date; an arithmetic step on sourced figures says so (``derivation``); a figure that rests on an
assumption rather than a measurement is listed in ``unverified_fields``.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

from planner.bounds.hashing import HashedOnce
from planner.core.gpu import Cooling, PurchaseKind, SlotWidth

PositiveFloat = Annotated[float, Field(gt=0)]
PositiveInt = Annotated[int, Field(gt=0)]
Source = Annotated[str, Field(min_length=1)]
HostKind = Literal["workstation", "pcie-server", "baseboard-server"]
Date = Annotated[str, Field(pattern=r"^\d{4}(-\d{2})?(-\d{2})?$")]


class HostPrice(BaseModel, frozen=True, extra="forbid"):
    """The host's price without GPUs: a list price, a bill of materials, or a system price minus its GPUs."""

    usd: PositiveFloat
    kind: Source  # "derived: build price minus its GPUs", "bill of materials", …
    date: Date
    source: Source
    derivation: str = ""  # the arithmetic, when the figure is derived from sourced ones


class BoardPower(BaseModel, frozen=True, extra="forbid"):
    """A baseboard server's own draw at its maximum with a board of ``gpus`` GPUs of ``architectures``: the vendor
    system's rated maximum minus its GPUs' TDP, or derived from such a figure (``derivation``, the arithmetic)."""

    architectures: Annotated[tuple[str, ...], Field(min_length=1)]
    gpus: PositiveInt  # the GPUs on the board
    watts: PositiveInt
    source: Source
    derivation: str = ""
    assumed: bool = False  # rests on an assumption (a derived board size, a generation without its own figure)


class HostSpec(HashedOnce, frozen=True, extra="forbid"):
    """One machine that holds GPUs (a TOML file in ``model_catalog/hosts/``; file name = ``id``).

    ``takes``: the purchase kinds it holds (``card``, ``pair``, ``baseboard``); ``gpu_slots``: how many GPUs;
    ``vendors`` / ``architectures``: the GPUs a baseboard server is built for (empty: any). ``psu_watts``: the
    power supplies' rating, which the GPUs' TDP must stay under (``None``: not limiting, a server sized for its
    GPUs). ``power_watts``: what the host's own parts draw at their maximum, GPUs excluded (``None``: no sourced
    figure; the running cost then counts the GPUs only and says so); ``board_power``: a baseboard server's draw by
    GPU generation and board size, where it differs from ``power_watts``; ``fan_share``: the share of the cards'
    TDP its fans add, in a server whose fans cool the cards (with ``fan_source``). ``rack_units``: ``None`` when it
    is not rack-mounted (a desktop, a tower, an open frame). ``cools_passive_cards``: its fans are built to push air
    through cards that have none of their own (a GPU server), with the source that says so (``cooling_source``).
    ``max_card_slot_width``: the widest card (in expansion slots) one GPU position takes, with its source
    (``None``: any width, as on risers or in a desktop tower).
    """

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")]
    name: Source
    kind: HostKind
    takes: Annotated[tuple[PurchaseKind, ...], Field(min_length=1)]
    gpu_slots: PositiveInt
    vendors: tuple[Literal["NVIDIA", "AMD", "Intel"], ...] = ()
    architectures: tuple[str, ...] = ()
    psu_watts: PositiveInt | None = None
    power_watts: PositiveInt | None = None
    power_source: str = ""
    power_derivation: str = ""  # the arithmetic, when power_watts is derived from sourced figures
    board_power: tuple[BoardPower, ...] = ()
    fan_share: Annotated[float, Field(ge=0, lt=1)] = 0.0
    fan_source: str = ""
    rack_units: PositiveInt | None = None
    cools_passive_cards: bool = False
    cooling_source: str = ""
    max_card_slot_width: SlotWidth | None = None  # the widest card a GPU position takes (None: any, on risers)
    slot_width_source: str = ""
    price: HostPrice
    description: Source  # what it is, in a line a buyer recognises
    sources: Annotated[tuple[Source, ...], Field(min_length=1)]
    read_on: datetime.date
    notes: tuple[str, ...] = ()
    unverified_fields: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _check(self) -> HostSpec:
        if self.power_watts is not None and not self.power_source:
            raise ValueError("power_source: required when power_watts is given")
        if self.fan_share and not self.fan_source:
            raise ValueError("fan_source: required when fan_share is given")
        if self.board_power and self.kind != "baseboard-server":
            raise ValueError("board_power: only a baseboard server's draw depends on the board it holds")
        if self.board_power and self.power_watts is None:
            raise ValueError("power_watts: required beside board_power (the draw of a board no entry names)")
        if self.cools_passive_cards and not self.cooling_source:
            raise ValueError("cooling_source: required when cools_passive_cards is true")
        if self.max_card_slot_width is not None and not self.slot_width_source:
            raise ValueError("slot_width_source: required when max_card_slot_width is given")
        if "baseboard" in self.takes and self.kind != "baseboard-server":
            raise ValueError("takes: only a baseboard-server holds SXM / OAM baseboards")
        for name in self.unverified_fields:
            if name.split(".")[0] not in HostSpec.model_fields:
                raise ValueError(f"unverified_fields: {name!r} is not a field")
        return self

    @property
    def rack_mounted(self) -> bool:
        return self.rack_units is not None

    def board_for(self, architecture: str | None, gpus: int) -> BoardPower | None:
        """The smallest board of ``architecture``'s generation that holds ``gpus`` (``None``: none is listed)."""
        boards = [b for b in self.board_power if (architecture or "") in b.architectures and b.gpus >= gpus]
        return min(boards, key=lambda b: b.gpus) if boards else None

    def own_watts(self, architecture: str | None, gpus: int) -> int | None:
        """What the host's own parts draw at their maximum holding ``gpus`` GPUs of ``architecture``: its board's
        figure (:meth:`board_for`: a DGX system's rated maximum minus its GPUs' TDP), else ``power_watts``
        (``None``: no sourced figure)."""
        board = self.board_for(architecture, gpus)
        return board.watts if board is not None else self.power_watts

    def holds(
        self, kind: str, vendor: str, architecture: str | None, cooling: Cooling | None = None, width: int | None = None
    ) -> bool:
        """Whether GPUs sold as ``kind`` by ``vendor`` (of ``architecture``, with a ``cooling`` cooler ``width``
        slots wide) go in this host: a passive card only in one that cools it, a card no wider than its bays."""
        wide = width is not None and self.max_card_slot_width is not None and width > self.max_card_slot_width
        return (
            kind in self.takes
            and not wide
            and (cooling != "passive" or self.cools_passive_cards)
            and (not self.vendors or vendor in self.vendors)
            and (not self.architectures or (architecture or "") in self.architectures)
        )


class SourcedFigure(BaseModel, frozen=True, extra="forbid"):
    """A number with its date and source."""

    value: PositiveFloat
    date: Date
    source: Source
    note: str = ""


class RunningCosts(BaseModel, frozen=True, extra="forbid"):
    """The running-cost assumptions (``model_catalog/running_costs.toml``), each editable on the page and CLI.

    ``usd_per_kwh``: the electricity price; ``pue_datacenter``: the data centre's power usage effectiveness
    (facility power / IT power), applied to rack-mounted hosts; ``pue_office``: the same for a desktop or a
    workstation under a desk; ``life_years``: the years a purchase is planned over (its power counted for them,
    the purchase spread over them per hour). GPUs and hosts are counted at their rated power around the clock,
    an upper bound for a server that is busy all day.
    """

    usd_per_kwh: SourcedFigure
    pue_datacenter: SourcedFigure
    pue_office: SourcedFigure
    life_years: SourcedFigure
    read_on: datetime.date

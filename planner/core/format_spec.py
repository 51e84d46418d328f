"""The model of a weight storage format (:class:`WeightFormat`) and the bits of a group-quantized one; the formats
themselves are in :mod:`planner.core.precision` (and the requantized-vocabulary ones in
:mod:`planner.core.vocab_formats`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

QuantScope = Literal["none", "linear", "experts", "mlp", "all"]


class WeightFormat(BaseModel, frozen=True, extra="forbid"):
    """A weight storage format: bits per quantized weight (scales and zero points included)."""

    name: str
    label: str
    bits_per_weight: Annotated[float, Field(gt=0, le=32)]
    scope: QuantScope
    # Bits of what the format leaves unquantized (embeddings, lm_head, norms, routers).
    unquantized_bits: Annotated[int, Field(gt=0, le=32)] = 16
    # Mixed checkpoints: attention projections / lm_head in another format than the rest (None: as the scope says).
    attention_bits: Annotated[float, Field(gt=0, le=32)] | None = None
    lm_head_bits: Annotated[float, Field(gt=0, le=32)] | None = None
    # A checkpoint whose input embedding is requantized too (None: 16 bits, as the scope says)
    embedding_bits: Annotated[float, Field(gt=0, le=32)] | None = None
    # The MTP module's bits when the checkpoint keeps it out of the quantization (None: the format's own bits).
    mtp_bits: Annotated[float, Field(gt=0, le=32)] | None = None
    # An experts-scoped checkpoint that quantizes the other decoder linear layers too (attention, shared experts,
    # dense MLPs), at these bits (None: 16 bits, as the scope says): planner.core.mixed_formats
    non_expert_bits: Annotated[float, Field(gt=0, le=32)] | None = None
    # A mixture-of-experts checkpoint's layout (its routed experts quantized): a dense model has no such checkpoint
    moe_only: bool = False
    # The dense MLPs of the last ``tail_layers`` decoder layers stored at ``tail_bits`` instead (a layout read from a
    # dense checkpoint, so refused on a mixture-of-experts model: ``dense_only``); planner.core.weights counts it, the
    # advisor's decode-speed reads (planner.advisor.throughput, by category) take it at the MLP bits
    tail_layers: Annotated[int, Field(ge=0)] = 0
    tail_bits: Annotated[float, Field(gt=0, le=32)] | None = None
    dense_only: bool = False
    quality_note: str
    source: str


def group_bits(value_bits: int, group_size: int, scale_bits: int, zero_bits: int = 0) -> float:
    """Effective bits per weight of a group-quantized format: value bits plus shared scale/zero per group.

    Source: GPTQ/AWQ checkpoints store ``qweight`` (4 bit), one fp16 ``scales`` and one packed 4-bit
    ``qzeros`` per group of ``group_size`` input channels (AutoGPTQ ``QuantLinear``, AutoAWQ ``WQLinear``).

    >>> group_bits(4, 128, 16, 4)
    4.15625
    """
    return value_bits + (scale_bits + zero_bits) / group_size

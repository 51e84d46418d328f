"""What an import returns: :class:`HubModel` and the small models it is made of (pure data, picklable).

The dashboard caches a :class:`HubModel` with ``st.cache_data``, which pickles it: every model here is a
frozen pydantic model without a token in any field.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from planner.core.blocks import AttachedModule
from planner.core.model import ModelSpec
from planner.core.precision import WeightPrecision

__all__ = ["UNPLANNABLE", "HubModel", "MissingField", "QuantizationInfo", "SourcedCount"]


class SourcedCount(BaseModel, frozen=True, extra="forbid"):
    """A number and where it came from (``"safetensors index total_size"``, ``"API safetensors.total"``, …)."""

    value: int = Field(ge=0)
    source: str


# The ``field`` of a :class:`MissingField` when every field is there but the config cannot be planned as written.
UNPLANNABLE = "config"


class MissingField(BaseModel, frozen=True, extra="forbid"):
    """A ModelSpec field config.json does not give: ask for it in a custom form (``field`` :data:`UNPLANNABLE`:
    none is missing, ``reason`` says what cannot be planned)."""

    field: str
    reason: str


class QuantizationInfo(BaseModel, frozen=True, extra="forbid"):
    """The checkpoint's quantization, from ``quantization_config`` (or an old GPTQ ``quantize_config.json``)."""

    method: str  # quant_method as written: awq, gptq, fp8, compressed-tensors, mxfp4, bitsandbytes, …
    precision: WeightPrecision | None  # the planner's weight precision name; None when not recognised
    bits: int | None = None
    group_size: int | None = None
    source: str


class HubModel(BaseModel, frozen=True, extra="forbid"):
    """What the Hub says about one model at one commit, ready to plan (``spec``) or to complete by hand."""

    repo_id: str
    revision: str | None  # as requested (None: the default branch)
    sha: str | None  # the commit every file was read at
    endpoint: str
    url: str  # the repository page
    gated: str | None = None  # "auto" / "manual" when access must be requested
    private: bool = False
    model_type: str | None = None
    architectures: tuple[str, ...] = ()
    multimodal: bool = False
    spec: ModelSpec | None  # None when config.json lacks what a plan needs: see `missing` and `prefill`
    missing: tuple[MissingField, ...] = ()
    prefill: dict[str, int | float | str | bool] = Field(default_factory=dict)
    parameters: SourcedCount | None = None  # the count the plan uses (see `notes` when sources disagree)
    checkpoint_parameters: SourcedCount | None = None  # stored elements: packed ints and scales count too
    computed_parameters: SourcedCount | None = None  # from config.json (+ attached vision tower)
    parameters_by_dtype: dict[str, int] = Field(default_factory=dict)
    stored_bytes: SourcedCount | None = None  # the checkpoint's tensor bytes (the weights' download size)
    stored_bytes_by_dtype: dict[str, int] = Field(default_factory=dict)
    quantization: QuantizationInfo | None = None
    weight_precision: WeightPrecision | None = None  # what the UI should pre-select
    vision: AttachedModule | None = None
    notes: tuple[str, ...] = ()

    @property
    def plannable(self) -> bool:
        return self.spec is not None

    @property
    def unplannable_reason(self) -> str:
        """Why ``spec`` is None, as one sentence: the fields config.json lacks, or why the config as written cannot
        be planned (every field there, but a value no planner rule reads, such as an unknown layer type).

        >>> HubModel(repo_id="a/b", revision=None, sha=None, endpoint="", url="", spec=None,
        ...          missing=(MissingField(field="config", reason="layer_types: unknown layer type 'x'"),)
        ...          ).unplannable_reason
        "config.json cannot be planned as written: layer_types: unknown layer type 'x'"
        """
        fields = [m.field for m in self.missing if m.field != UNPLANNABLE]
        if fields:
            return f"config.json lacks {', '.join(fields)}"
        reasons = "; ".join(m.reason for m in self.missing) or "no config.json"
        return f"config.json cannot be planned as written: {reasons}"

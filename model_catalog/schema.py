"""Schemas of the catalog's data files: a model entry wraps a :class:`planner.core.model.ModelSpec` with its
sources and the official figures the tests check the computed ones against."""

from __future__ import annotations

import datetime
from typing import Annotated

from pydantic import BaseModel, Field, model_validator

from planner.core.model import ModelSpec
from planner.core.precision import WeightPrecision

Source = Annotated[str, Field(min_length=8)]
# A Hugging Face repository id: owner/name, plain text.
HubId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")]


class ModelAlias(BaseModel, frozen=True, extra="forbid"):
    """Another checkpoint planned as this entry: an instruct, chat or base checkpoint (a fine-tune) whose config has
    the entry's shapes (layers, heads, KV heads, head dim, hidden, intermediate, vocabulary, experts, context), with
    where that is shown."""

    id: HubId
    source: Source


class ParameterReference(BaseModel, frozen=True, extra="forbid"):
    """Official parameter figures for a model, to check the computed counts against."""

    # The Hub's safetensors total (GET /api/models/{id} -> safetensors.total), exact.
    hub_safetensors_total: Annotated[int, Field(gt=0)] | None = None
    # Entries of that total which are not model parameters (FP8 scale_inv tensors, rotary inv_freq
    # buffers): hub total = computed total + this. Explained in `note`.
    hub_total_non_parameters: int = 0
    # The card's figure when no exact Hub total is known ("35B"), in parameters.
    card_total: Annotated[int, Field(gt=0)] | None = None
    card_active: Annotated[int, Field(gt=0)] | None = None
    card_active_excludes_embedding: bool = False
    # An exact count published outside the Hub API (keras-hub preset "params", GGUF general.parameter_count, a
    # model.safetensors.index.json metadata total), when no Hub total was found; checked as exactly.
    published_total: Annotated[int, Field(gt=0)] | None = None
    # A published checkpoint size (model.safetensors.index.json metadata total_size, in bytes) and the weight
    # format the checkpoint stores: the planner's bytes for every stored parameter must agree within 0.1 %.
    checkpoint_bytes: Annotated[int, Field(gt=0)] | None = None
    checkpoint_precision: WeightPrecision | None = None
    source: Source
    # When the figure was read: the date its source says it was taken (an API fetch date), else the day it was
    # read from the source.
    read_on: datetime.date
    note: str | None = None

    @model_validator(mode="after")
    def _check(self) -> ParameterReference:
        if self.hub_safetensors_total is None and self.card_total is None and self.published_total is None:
            raise ValueError("reference: give hub_safetensors_total, published_total or card_total")
        if self.hub_total_non_parameters and not self.note:
            raise ValueError("reference.note: explain what hub_total_non_parameters counts")
        if (self.checkpoint_bytes is None) != (self.checkpoint_precision is None):
            raise ValueError("reference: give checkpoint_bytes and checkpoint_precision together")
        return self


class CatalogModel(BaseModel, frozen=True, extra="forbid"):
    """One model of the catalog: the architecture, the official figures, and where each came from."""

    spec: ModelSpec
    reference: ParameterReference
    # KV bytes per token in BF16 over all attention layers, from the reference data (MLA: the latent).
    kv_bytes_per_token_bf16: Annotated[int, Field(ge=0)] | None = None
    context_advertised: Annotated[int, Field(gt=0)] | None = None
    sources: Annotated[tuple[Source, ...], Field(min_length=1)]
    read_on: datetime.date  # when the sources above were read
    notes: tuple[str, ...] = ()
    # Checkpoints with this entry's config shapes, planned as it (model_catalog.get_model resolves them).
    aliases: tuple[ModelAlias, ...] = ()
    # Where spec.yarn (a YaRN extension the card documents and the config does not ship) is stated: the card's words.
    yarn_source: Source | None = None

    @model_validator(mode="after")
    def _check_yarn(self) -> CatalogModel:
        if (self.spec.yarn is None) != (self.yarn_source is None):
            raise ValueError("yarn_source: give it exactly when spec.yarn is given (the card that documents it)")
        return self

    @property
    def id(self) -> str:
        return self.spec.id

"""From what was read to a :class:`HubModel`: the spec, the parameter count the plan uses, and the notes.

Pure (no network): :func:`assemble` takes the parsed replies of one commit as :class:`Evidence`.

- **The spec** comes from ``config.json`` through :mod:`planner.sources.config` (sparse configs take the
  transformers config-class defaults, noted). A config that cannot be planned gives ``missing`` fields and a
  ``prefill`` for the custom-model form instead.
- **Counts**: the checkpoint's own (a single file's safetensors header, else the API's ``safetensors.total``)
  and the one computed from the config (:func:`planner.core.params.parameter_breakdown`). An unquantized plan
  uses the checkpoint's count, except for a tied ``lm_head`` copy (stored, loaded once); a quantized
  checkpoint counts packed integers and scales, so its plan uses the computed count. Every disagreement is
  noted.
- **Bytes**: ``metadata.total_size`` of the safetensors index, else the header, else the API's counts by
  dtype x the dtype's size (an estimate, labelled as one).
- **Vision tower** of a multimodal checkpoint: tensors named like one in the header, else the checkpoint
  count minus the text decoder; it is attached to the spec as a module the server loads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from planner.bounds.errors import BeyondLimitsError, PlannerError
from planner.core.blocks import AttachedModule
from planner.core.model import ModelSpec
from planner.core.params import PARAMETER_TOLERANCE, parameter_breakdown
from planner.core.precision import TORCH_DTYPE_NAMES, WeightPrecision
from planner.sources.config import spec_from_hf_config, text_config_key, with_family_defaults
from planner.sources.hub.checks import MAX_COUNT, describe
from planner.sources.hub.errors import HubResponseError, clip, logger, redact
from planner.sources.hub.quantization import precision_name
from planner.sources.hub.replies import ApiInfo
from planner.sources.hub.results import UNPLANNABLE, HubModel, MissingField, QuantizationInfo, SourcedCount
from planner.sources.hub.safetensors import DTYPE_BYTES, SafetensorsSummary

__all__ = ["Evidence", "assemble"]

HEADER_SOURCE = "safetensors header (model.safetensors)"
VISION_NAME = "vision tower + projector"
# Config keys that announce a vision tower.
VISION_CONFIG_KEYS = ("vision_config", "vision_tower_config", "visual")
REQUIRED_FIELDS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("num_hidden_layers", ("num_hidden_layers", "n_layer", "num_layers"), "number of decoder layers"),
    ("hidden_size", ("hidden_size", "n_embd", "d_model"), "model width"),
    ("num_attention_heads", ("num_attention_heads", "n_head"), "query heads"),
    ("vocab_size", ("vocab_size",), "vocabulary size (embedding and lm_head rows)"),
)
# What the custom-model form may be prefilled with, and the one type each field takes (else it is left empty).
PREFILL_FIELDS: tuple[tuple[str, tuple[str, ...], type], ...] = (
    *((name, keys, int) for name, keys, _ in REQUIRED_FIELDS),
    ("num_key_value_heads", ("num_key_value_heads", "n_head_kv", "num_kv_heads"), int),
    ("head_dim", ("head_dim",), int),
    ("intermediate_size", ("intermediate_size", "ffn_hidden_size"), int),
    ("max_position_embeddings", ("max_position_embeddings", "n_positions", "seq_length"), int),
    ("tie_word_embeddings", ("tie_word_embeddings",), bool),
    ("sliding_window", ("sliding_window",), int),
    ("model_type", ("model_type",), str),
)
Prefill = dict[str, int | float | str | bool]


@dataclass(frozen=True)
class Evidence:
    """The parsed replies for one repository at one commit."""

    repo_id: str
    revision: str | None
    endpoint: str
    api: ApiInfo
    config: dict[str, Any] | None = None
    quantization: QuantizationInfo | None = None
    index_total: int | None = None
    header: SafetensorsSummary | None = None


# -- config lookups ------------------------------------------------------------------------------------
def _lookup(config: Mapping[str, Any], keys: Iterable[str]) -> Any:
    key = text_config_key(config)
    scopes = [config[key], config] if key else [config]
    for scope in scopes:
        for name in keys:
            if scope.get(name) is not None:
                return scope[name]
    return None


def _fits(value: Any, kind: type) -> bool:
    """Whether a config value can prefill a form field of type ``kind``."""
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_COUNT
    if kind is str:
        return isinstance(value, str) and len(value) <= 100
    return isinstance(value, kind)


def _prefill(config: Mapping[str, Any]) -> Prefill:
    out: Prefill = {}
    for name, keys, kind in PREFILL_FIELDS:
        value = _lookup(config, keys)
        if _fits(value, kind):
            out[name] = value
    return out


def _missing_fields(config: Mapping[str, Any], error: str) -> tuple[MissingField, ...]:
    missing = [
        MissingField(field=name, reason=f"config.json has no {'/'.join(keys)} ({what})")
        for name, keys, what in REQUIRED_FIELDS
        if not isinstance(_lookup(config, keys), int) or isinstance(_lookup(config, keys), bool)
    ]
    moe = _lookup(config, ("num_local_experts", "n_routed_experts", "num_experts"))
    if not moe and _lookup(config, ("intermediate_size", "ffn_hidden_size")) is None:
        missing.append(
            MissingField(field="intermediate_size", reason="config.json has no intermediate_size (MLP width)")
        )
    if not missing:
        missing.append(MissingField(field=UNPLANNABLE, reason=error))
    return tuple(missing)


def _is_multimodal(config: Mapping[str, Any]) -> bool:
    return text_config_key(config) is not None or _has_vision(config)


def _has_vision(config: Mapping[str, Any]) -> bool:
    return any(isinstance(config.get(k), dict) for k in VISION_CONFIG_KEYS)


def _sourced(value: int | None, source: str) -> SourcedCount | None:
    """A count with its source; None when unknown (a zero count is no count: nothing to plan with)."""
    return SourcedCount(value=value, source=source) if value is not None and value > 0 else None


def _check_bounds(spec: ModelSpec) -> ModelSpec:
    """``spec`` if every number in it is one a real model can have (at most :data:`MAX_COUNT`)."""
    pending: list[tuple[str, Any]] = [("", spec.model_dump())]
    while pending:
        path, value = pending.pop()
        if isinstance(value, dict):
            pending.extend((f"{path}.{k}".lstrip("."), v) for k, v in value.items())
        elif isinstance(value, list | tuple):
            pending.extend((f"{path}[{i}]", v) for i, v in enumerate(value))
        elif isinstance(value, int) and value > MAX_COUNT:
            raise HubResponseError(
                f"config.json: {path} is {describe(value)}, more than any real model has (at most {MAX_COUNT:,})"
            )
    return spec


# -- steps ---------------------------------------------------------------------------------------------
def _checkpoint_counts(ev: Evidence) -> tuple[SourcedCount | None, dict[str, int]]:
    """The checkpoint's own element count and its split by dtype: the header's, else the API's."""
    if ev.header is not None:
        return _sourced(ev.header.parameters, HEADER_SOURCE), dict(ev.header.parameters_by_dtype)
    return _sourced(ev.api.parameters_total, "API safetensors.total"), ev.api.parameters_by_dtype


def _stored_bytes(ev: Evidence) -> SourcedCount | None:
    """The tensors' byte size: the index's total_size, the header's, else estimated from the API counts."""
    if ev.index_total is not None:
        return _sourced(ev.index_total, "safetensors index total_size")
    if ev.header is not None:
        return _sourced(ev.header.stored_bytes, HEADER_SOURCE)
    by_dtype = ev.api.parameters_by_dtype
    if by_dtype and all(k in DTYPE_BYTES for k in by_dtype):
        return _sourced(
            round(sum(n * DTYPE_BYTES[k] for k, n in by_dtype.items())),
            "estimated from API safetensors.parameters x dtype size",
        )
    return None


def _spec(ev: Evidence, notes: list[str]) -> tuple[ModelSpec | None, tuple[MissingField, ...], Prefill]:
    """The spec from config.json, or the fields a form must ask for and what config.json prefills."""
    if ev.config is None:
        reason = "no config.json in the repository"
        return None, tuple(MissingField(field=name, reason=reason) for name, _, _ in REQUIRED_FIELDS), {}
    filled, default_notes = with_family_defaults(ev.config)
    notes.extend(default_notes)
    prefill = _prefill(filled)
    spec: ModelSpec | None = None
    missing: tuple[MissingField, ...] = ()
    try:
        spec = _check_bounds(spec_from_hf_config(filled, ev.repo_id))
    except HubResponseError:
        raise
    except BeyondLimitsError as exc:  # a count no real model has: a hostile or corrupt reply, named
        raise HubResponseError(clip(str(exc))) from None
    except PlannerError as exc:
        missing = _missing_fields(filled, clip(str(exc)))
        notes.append(f"config.json cannot be planned as is ({exc}); complete the missing fields")
    except (ValidationError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        missing = _missing_fields(filled, f"config.json has unexpected values ({type(exc).__name__})")
    quant = ev.quantization
    if spec is not None and quant is not None and quant.precision is not None and spec.native_dtype != quant.precision:
        spec = ModelSpec.model_validate({**spec.model_dump(), "native_dtype": quant.precision})
    if spec is not None and has_mistral_native_files(ev.api.siblings):
        spec = ModelSpec.model_validate({**spec.model_dump(), "mistral_native_files": True})
        notes.append("the repository also ships Mistral-format files (params.json, consolidated*.safetensors)")
    return spec, missing, prefill


def has_mistral_native_files(siblings: frozenset[str] | None) -> bool:
    """Whether the repository's files are what vLLM reads as Mistral format by default: ``params.json`` and a
    ``consolidated*.safetensors`` (``vllm/transformers_utils/config.py`` lines 637-646 and ``repo_utils.py`` lines
    151-163 at v0.19.0). False when the API entry lists no files."""
    if not siblings or "params.json" not in siblings:
        return False
    return any(name.startswith("consolidated") and name.endswith(".safetensors") for name in siblings)


def _vision_tower(
    ev: Evidence, spec: ModelSpec, checkpoint: SourcedCount | None, notes: list[str]
) -> AttachedModule | None:
    """A multimodal checkpoint's vision tower: tensors named like one, else checkpoint minus text decoder."""
    if ev.config is None or not (_is_multimodal(ev.config) and _has_vision(ev.config)):
        return None
    if ev.header is not None and ev.header.vision_parameters:
        return AttachedModule(
            name=VISION_NAME,
            parameters=ev.header.vision_parameters,
            loaded_for_serving=True,
            source="safetensors header: tensors named vision_tower.* / multi_modal_projector.* (and similar)",
        )
    text_total = parameter_breakdown(spec).total
    if checkpoint is not None and ev.quantization is None and checkpoint.value > text_total:
        return AttachedModule(
            name=VISION_NAME,
            parameters=checkpoint.value - text_total,
            loaded_for_serving=True,
            source=f"{checkpoint.source} minus the text decoder computed from config.json",
        )
    notes.append("the vision tower's size is unknown (no exact checkpoint count): it is not counted")
    return None


def _with_module(spec: ModelSpec, module: AttachedModule) -> ModelSpec:
    dumped = spec.model_dump()
    return ModelSpec.model_validate({**dumped, "attached_modules": [*dumped["attached_modules"], module.model_dump()]})


def _reconcile(
    ev: Evidence, spec: ModelSpec, checkpoint: SourcedCount | None, computed: SourcedCount, notes: list[str]
) -> tuple[ModelSpec, SourcedCount]:
    """The count the plan uses when the checkpoint and config.json disagree, with a note saying why."""
    total = computed.value
    quant = ev.quantization
    if checkpoint is None or checkpoint.value == total:
        return spec, (checkpoint if checkpoint is not None and quant is None else computed)
    if quant is not None:
        notes.append(
            f"{checkpoint.source} {checkpoint.value:,} counts the stored elements of the {quant.method} "
            f"checkpoint (packed weights, scales, zero points); the plan uses {total:,}, computed from config.json"
        )
        return spec, computed
    diff = checkpoint.value - total
    vocab_h = (spec.vocab_size or 0) * (spec.hidden_size or 0)
    header = ev.header
    if spec.tie_word_embeddings and (
        (header is not None and header.lm_head_parameters == diff) or (header is None and diff == vocab_h)
    ):
        notes.append(
            f"the checkpoint also stores lm_head.weight ({diff:,} values), a copy of the tied embedding: "
            f"{checkpoint.source} {checkpoint.value:,} counts it, servers load one copy; the plan uses {total:,}"
        )
        return spec, computed
    if abs(diff) > PARAMETER_TOLERANCE * total:  # not one model's two counts: named, and the shape's count kept
        notes.append(
            f"{checkpoint.source} gives {checkpoint.value:,} parameters but config.json describes {total:,} "
            f"({diff / total:+.0%}, beyond the ±{PARAMETER_TOLERANCE:.0%} two counts of one model may differ): the "
            "plan uses the count computed from config.json; the checkpoint holds modules it does not describe, or "
            "the reply is wrong"
        )
        return spec, computed
    notes.append(
        f"{checkpoint.source} gives {checkpoint.value:,} parameters, config.json computes {total:,} "
        f"(difference {diff:+,}); the plan uses the checkpoint's count"
    )
    return ModelSpec.model_validate({**spec.model_dump(), "num_parameters": checkpoint.value}), checkpoint


def _weight_precision(ev: Evidence, spec: ModelSpec | None) -> WeightPrecision | None:
    """What the UI pre-selects: the quantization's precision, else the spec's dtype, else config's."""
    if ev.quantization is not None and ev.quantization.precision is not None:
        return ev.quantization.precision
    if spec is not None:
        return spec.native_dtype
    if ev.config is not None:
        dtype = _lookup(ev.config, ("torch_dtype", "dtype"))
        return precision_name(TORCH_DTYPE_NAMES.get(str(dtype), "")) if dtype else None
    return None


@dataclass
class _Counts:
    spec: ModelSpec | None
    parameters: SourcedCount | None = None
    computed: SourcedCount | None = None
    vision: AttachedModule | None = None


def _counts(
    ev: Evidence, spec: ModelSpec | None, checkpoint: SourcedCount | None, prefill: Prefill, notes: list[str]
) -> _Counts:
    """The vision tower attached to the spec, and the computed count and the count the plan uses."""
    if spec is None:
        if checkpoint is not None and ev.quantization is None:
            prefill["num_parameters"] = checkpoint.value
        return _Counts(spec=None, parameters=checkpoint)
    vision = _vision_tower(ev, spec, checkpoint, notes)
    if vision is not None:
        spec = _with_module(spec, vision)
    total = parameter_breakdown(spec).total
    if total > MAX_COUNT:
        raise HubResponseError(f"config.json describes {describe(total)} parameters, more than any real model has")
    computed = SourcedCount(
        value=total,
        source="computed from config.json" + (f" + vision tower ({vision.source})" if vision else ""),
    )
    spec, parameters = _reconcile(ev, spec, checkpoint, computed, notes)
    return _Counts(spec=spec, parameters=parameters, computed=computed, vision=vision)


def assemble(ev: Evidence, notes: list[str], clean: Callable[[str], str] = redact) -> HubModel:
    """The :class:`HubModel` of what was read; ``clean`` scrubs every note (the caller's token redaction).

    Raises :class:`HubResponseError` for a spec with numbers no real model has; a config that cannot be
    planned is not an error: it gives ``missing`` fields and a ``prefill``.
    """
    checkpoint, by_dtype = _checkpoint_counts(ev)
    quant = ev.quantization
    if quant is not None and quant.precision is None:
        notes.append(
            f"quantization {quant.method!r} is not one the planner models: choose the weight precision by hand"
        )
    spec, missing, prefill = _spec(ev, notes)
    counts = _counts(ev, spec, checkpoint, prefill, notes)
    precision = _weight_precision(ev, counts.spec)
    if precision is not None and counts.spec is None:
        prefill["native_dtype"] = precision
    config = ev.config or {}
    result = HubModel(
        repo_id=ev.repo_id,
        revision=ev.revision,
        sha=ev.api.sha,
        endpoint=ev.endpoint,
        url=f"{ev.endpoint}/{ev.repo_id}",
        gated=ev.api.gated,
        private=ev.api.private,
        model_type=str(config["model_type"]) if config.get("model_type") else None,
        architectures=tuple(str(a) for a in config.get("architectures") or () if isinstance(a, str)),
        multimodal=ev.config is not None and _is_multimodal(ev.config),
        spec=counts.spec,
        missing=missing,
        prefill=prefill,
        parameters=counts.parameters,
        checkpoint_parameters=checkpoint,
        computed_parameters=counts.computed,
        parameters_by_dtype=by_dtype,
        stored_bytes=_stored_bytes(ev),
        stored_bytes_by_dtype=dict(ev.header.bytes_by_dtype) if ev.header is not None else {},
        quantization=quant,
        weight_precision=precision,
        vision=counts.vision,
        notes=tuple(clip(clean(n)) for n in notes),
    )
    logger.debug(
        "read %s at %s: %s parameters",
        ev.repo_id,
        ev.api.sha or ev.revision or "main",
        result.parameters.value if result.parameters else "unknown",
    )
    return result

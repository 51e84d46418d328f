"""What an engine runs and takes: its platforms (weight formats x KV dtypes per GPU architecture family) and its
options. Every registered engine declares an :class:`EngineSupport`; :meth:`EngineSupport.refusal` says, in the
engine's own terms, why a request is not something it runs (``None`` when it is), and the advisor picks engines
from the same rows. Adding an engine declares its support here, in its own module.

Platform rows are data (``platforms/<engine>.toml``, one row per claim, each with its source), read by
:func:`platform_rows`.

>>> row = PlatformRow(families=("hopper",), weights=("fp8",), kv_dtypes=("bf16", "fp8"), compute="fp8", source="s")
>>> row.covers("hopper", "fp8", "fp8_e5m2", moe=True), row.covers("ampere", "fp8", "bf16", moe=False)
(True, False)
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, Field, ValidationError, model_validator

from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.kv_formats import KV_FORMATS
from planner.core.model import ModelSpec
from planner.core.overhead import parse_version
from planner.core.precision import WEIGHT_FORMATS
from planner.engines.base_formats import base_kv
from planner.engines.base_formats import base_weights as base_weights  # also imported from here by the engines
from planner.engines.first_release import ModelRelease
from planner.engines.speculation_refusals import SpeculationRefusal

PLATFORMS = Path(__file__).with_name("platforms")

Family = Literal[
    "volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna3", "cdna4", "rdna35", "gaudi3", "xe2", "apple"
]
ComputePath = Literal["16-bit", "fp8", "int8", "fp4"]

# The catalog's architecture names, by family.
ARCHITECTURE_FAMILIES: dict[str, Family] = {
    "Volta": "volta",
    "Turing": "turing",
    "Ampere": "ampere",
    "Ada Lovelace": "ada",
    "Hopper": "hopper",
    "Blackwell": "blackwell",
    "Blackwell Ultra": "blackwell",
    "Blackwell (GB202)": "blackwell",
    # DGX Spark's GB10 (sm_121): NVIDIA's DGX Spark playbooks run vLLM, SGLang, TensorRT-LLM and llama.cpp on it
    # (NVIDIA/dgx-spark-playbooks@019acc6a README.md), and vLLM verifies NVFP4 on it (vllm-project/recipes#632).
    "Blackwell (GB10)": "blackwell",
    "CDNA 3": "cdna3",
    "CDNA 4": "cdna4",
    "RDNA 3.5": "rdna35",  # Strix Halo's Radeon 8060S (gfx1151)
    "Gaudi 3": "gaudi3",
    "Xe2 (Battlemage)": "xe2",  # Intel Arc B-series and Arc Pro B60 (BMG-G21)
    "Apple silicon": "apple",
}


class PlatformRow(BaseModel, frozen=True, extra="forbid"):
    """The engine on some architecture families: the weight formats and KV dtypes it runs, and how."""

    families: Annotated[tuple[Family, ...], Field(min_length=1)]
    weights: Annotated[tuple[str, ...], Field(min_length=1)]
    kv_dtypes: Annotated[tuple[str, ...], Field(min_length=1)]
    compute: ComputePath  # the arithmetic of the matmuls: 16-bit (weight-only dequantisation) or the format's own
    moe: bool = True  # mixture-of-experts models covered
    dense: bool = True  # dense models covered (False: a format only MoE checkpoints ship, llama.cpp's MXFP4)
    variant: str | None = None  # an install of its own (vLLM's Gaudi plugin), named in labels
    other_bits: float | None = None  # the engine's file keeps the tensors but the routed experts at these bits
    source: Annotated[str, Field(min_length=1)]
    note: str = ""

    @model_validator(mode="after")
    def _check(self) -> PlatformRow:
        unknown = [w for w in self.weights if w not in WEIGHT_FORMATS]
        unknown += [k for k in self.kv_dtypes if k not in KV_FORMATS]
        if unknown:
            raise ValueError(f"unknown weight format or KV dtype {', '.join(unknown)}")
        return self

    def covers(self, family: Family, weights: str, kv_dtype: str, moe: bool) -> bool:
        return (
            family in self.families
            and base_weights(weights) in self.weights
            and base_kv(kv_dtype) in self.kv_dtypes
            and (self.moe or not moe)
            and (self.dense or moe)
        )


class _PlatformFile(BaseModel, frozen=True, extra="forbid"):
    row: tuple[PlatformRow, ...]


@cache
def platform_rows(name: str, folder: Path = PLATFORMS) -> tuple[PlatformRow, ...]:
    """The rows of ``platforms/<name>.toml``, validated (a bad row raises :class:`PlannerError` naming it)."""
    path = folder / f"{name}.toml"
    try:
        return _PlatformFile.model_validate(tomllib.loads(path.read_text(encoding="utf-8"))).row
    except tomllib.TOMLDecodeError as exc:
        raise PlannerError(f"{path.name}: not valid TOML: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise PlannerError(f"{path.name}: {problems}") from None


_FAMILY_WORDS = {"gaudi3": "Gaudi 3", "rdna35": "RDNA 3.5", "cdna3": "CDNA 3", "cdna4": "CDNA 4", "xe2": "Intel Xe2"}


def family_words(fam: Family | None) -> str:
    """An architecture family as people write it.

    >>> family_words("apple"), family_words("rdna35"), family_words(None)
    ('Apple', 'RDNA 3.5', 'these')
    """
    if fam is None:
        return "these"
    return _FAMILY_WORDS.get(fam, fam.capitalize())


class ModelKind(NamedTuple):
    """What of a model decides what an engine runs beyond the GPU: its experts (``moe``) and a latent cache
    (``mla``: :attr:`EngineSupport.mla_kv_refusals`). A bare bool is a model's ``moe`` alone."""

    moe: bool
    mla: bool = False


def kind_of(model: ModelSpec) -> ModelKind:
    return ModelKind(moe=model.moe is not None, mla=model.mla is not None)


def as_kind(model: bool | ModelKind) -> ModelKind:
    """``model`` as a :class:`ModelKind` (a bool: ``moe``, no latent cache).

    >>> as_kind(True), as_kind(ModelKind(False, True))
    (ModelKind(moe=True, mla=False), ModelKind(moe=False, mla=True))
    """
    return model if isinstance(model, ModelKind) else ModelKind(moe=model)


def family(gpu: GpuSpec | None) -> Family | None:
    """The GPU's architecture family, ``None`` when unknown (no GPU, or an architecture no table names)."""
    return None if gpu is None else ARCHITECTURE_FAMILIES.get(gpu.architecture or "")


Parallelism = Literal["tensor", "layer-split"]
# How an engine's decode speed is modelled (planner.advisor.engine_speed): a paged pool with continuous batching
# (vLLM, SGLang), a fused C++ runtime (TensorRT-LLM, whose kernels run closer to the roofline), or llama.cpp's layer
# split with per-slot contexts, the GPUs running one after another.
SpeedFamily = Literal["paged", "fused", "layer-split"]


class SpeedGap(BaseModel, frozen=True, extra="forbid"):
    """Where public measurements run below the speed model on an engine's path: a model type (``config.json``'s
    ``model_type``; every model, ``None``, where the family's step is what runs slower, the runs' models in
    ``measured_on``) in a weight format (or any, ``weights`` ``None``) on a GPU family, from ``from_batch``
    sequences decoding together a replica on (1: every batch), measured at ``low``-``high`` times the modelled
    tokens/s, with the source. Evidence only: nothing is fitted to it (:func:`gap_for` finds the one an option meets).

    >>> g = SpeedGap(model_types=("gpt_oss",), weights="mxfp4", families=("ampere",), low=0.4, high=0.71, source="s")
    >>> g.covers("gpt_oss", "mxfp4", "ampere"), g.covers("gpt_oss", "mxfp4", "hopper")
    (True, False)
    >>> g = SpeedGap(model_types=None, weights=None, families=("cdna3",), low=0.5, high=0.9, source="s", from_batch=8,
    ...              measured_on="m")
    >>> g.covers("qwen3", "bf16", "cdna3", batch=7), g.covers("qwen3", "bf16", "cdna3", batch=8)
    (False, True)
    """

    model_types: Annotated[tuple[str, ...], Field(min_length=1)] | None
    weights: str | None  # None: every weight format (a step's fixed cost, not its read, is what runs slower)
    families: Annotated[tuple[Family, ...], Field(min_length=1)]
    low: Annotated[float, Field(gt=0, lt=1)]
    high: Annotated[float, Field(gt=0, lt=1)]
    source: Annotated[str, Field(min_length=1)]
    # the cause is the model's step on the engine (its MoE and MLA kernels), not a family's kernels: the model on
    # another family, where nothing is measured, carries the caveat too, saying where it was measured
    other_families: bool = False
    from_batch: Annotated[int, Field(ge=1)] = 1  # the least sequences decoding together a replica it holds at
    measured_on: str = ""  # the models the runs measured, named in the caveat when it covers every model

    @model_validator(mode="after")
    def _ordered(self) -> SpeedGap:
        if self.low > self.high:
            raise ValueError("speed gap: low is above high")
        if self.model_types is None and not self.measured_on:
            raise ValueError("speed gap: every model covered, the models measured not named (measured_on)")
        return self

    def covers(self, model_type: str, weights: str, fam: Family | None, batch: int = 1) -> bool:
        format_met = self.weights is None or weights == self.weights
        measured = fam in self.families or self.other_families
        model_met = self.model_types is None or model_type in self.model_types
        return model_met and format_met and measured and batch >= self.from_batch

    def words(self, engine_label: str, fam: Family | None = None) -> str:
        """The caveat as the advisor shows it, for an option on ``fam`` (the gap's own families when not given).

        >>> g = SpeedGap(model_types=("x",), weights=None, families=("hopper",), low=0.37, high=0.49, source="s",
        ...              other_families=True)
        >>> g.words("vLLM", "cdna3")[:96]
        'speed likely optimistic: this model is unmeasured under vLLM on this GPU family; on Hopper GPUs '
        """
        at = f"{self.low:.2f}x" if self.low == self.high else f"{self.low:.2f}-{self.high:.2f}x"
        at += f" at {self.from_batch} or more users a replica" if self.from_batch > 1 else ""
        if fam is not None and fam not in self.families:
            where = ", ".join(family_words(f) for f in self.families)
            return (
                f"speed likely optimistic: this model is unmeasured under {engine_label} on this GPU family; on "
                f"{where} GPUs public measurements of it run at {at} the modelled tokens/s ({self.source}); not "
                "modelled"
            )
        runs = "this model" if self.model_types is not None else self.measured_on
        return (
            f"speed likely optimistic: public measurements of {runs} under {engine_label} on this GPU family run "
            f"at {at} the modelled tokens/s ({self.source}); not modelled"
        )


class MlaKvRefusal(BaseModel, frozen=True, extra="forbid"):
    """KV dtypes an engine's attention for multi-head latent attention models (DeepSeek's latent cache) does not
    store on some families, with the engine's reason.

    >>> r = MlaKvRefusal(kv_dtypes=("fp8",), families=("ampere",), reason="no FP8 latent cache")
    >>> r.covers("fp8_e4m3", "ampere"), r.covers("fp8", "ada")
    (True, False)
    """

    kv_dtypes: Annotated[tuple[str, ...], Field(min_length=1)]  # base KV dtypes (fp8 covers its variants) or variants
    families: Annotated[tuple[Family, ...], Field(min_length=1)]
    reason: Annotated[str, Field(min_length=1)]
    sparse_since: str | None = None  # DeepSeek sparse attention (an indexer) alone, from this release (None: any MLA)

    def covers(self, kv_dtype: str, fam: Family | None, sparse_at: str | None = None) -> bool:
        """``sparse_at``: the release a model with an indexer is planned at (``None``: no indexer, or unknown)."""
        since = self.sparse_since
        met = since is None or (sparse_at is not None and parse_version(sparse_at) >= parse_version(since))
        return (kv_dtype in self.kv_dtypes or base_kv(kv_dtype) in self.kv_dtypes) and fam in self.families and met


class FormatRelease(BaseModel, frozen=True, extra="forbid"):
    """A weight format a platform row covers only from a release on, on some families (of MoE models alone with
    ``moe_only``), with why the releases before it do not run it.

    >>> r = FormatRelease(weights="fp8", families=("ampere",), since="0.9.0", moe_only=True, why="no Marlin MoE")
    >>> r.refusal("vLLM", "0.8.5", "fp8", "ampere", True), r.refusal("vLLM", "0.9.0", "fp8", "ampere", True)
    ('vLLM 0.8.5 does not run fp8 weights of this model on Ampere before 0.9.0: no Marlin MoE', None)
    """

    weights: str  # a base weight format (fp8 covers its variants)
    families: Annotated[tuple[Family, ...], Field(min_length=1)]
    since: str  # the first release that runs it
    moe_only: bool = False  # mixture-of-experts models alone (dense ones ran before)
    why: Annotated[str, Field(min_length=1)]  # the source's reason, with the release or PR that changed it

    def refusal(self, label: str, version: str, weights: str, fam: Family | None, moe: bool) -> str | None:
        old = parse_version(version) < parse_version(self.since)
        if not old or base_weights(weights) != self.weights or fam not in self.families or (self.moe_only and not moe):
            return None
        return (
            f"{label} {version} does not run {self.weights} weights of this model on {family_words(fam)} before "
            f"{self.since}: {self.why}"
        )


class LoraSupport(BaseModel, frozen=True, extra="forbid"):
    """How an engine is told its LoRA adapter slots (:mod:`planner.engines.lora_flags` spells them), in its
    server's own arguments, and which of the planned modules it gives slots."""

    slots_flag: str  # adapters in one batch: vLLM --max-loras, SGLang --max-loras-per-batch
    host_flag: str  # adapters kept in host memory (at least the slots): --max-cpu-loras, --max-loaded-loras
    all_targets: str | None = None  # the word for every module, when the engine needs its targets named (SGLang)
    refused_models: dict[Literal["moe", "mla"], str] = {}  # model kinds whose adapter pool is not planned, and why


class EngineSupport(BaseModel, frozen=True, extra="forbid"):
    """What an engine runs and which deployment options it takes. Flags are the engine's own spelling; an empty
    flag means the engine has no such option, and a request asking for it is refused with ``label``'s reason."""

    label: str  # the engine as people write it ("vLLM"), for the reasons
    platforms: tuple[PlatformRow, ...]
    kv_cache_names: dict[str, str]  # planner KV dtype -> the engine's own name for it (a dtype absent: refused)
    kv_refusals: dict[str, str] = {}  # why a KV dtype is absent, where the engine has something close
    weight_refusals: dict[str, str] = {}  # why a weight format cannot be loaded at all
    online_quantization: dict[str, str] = {}  # format -> the flag that makes it from a 16-bit checkpoint
    parallelism: Parallelism = "tensor"  # llama.cpp splits layers across devices instead
    context_flag: str  # --max-model-len, --context-length, --max_seq_len, -c
    layer_offload_flags: tuple[str, ...] = ()  # llama.cpp -ngl / --n-cpu-moe
    cpu_offload_flag: str = ""  # vLLM / SGLang --cpu-offload-gb
    lora: LoraSupport | None = None  # None: the engine's adapter slots are not planned
    kv_offload_backends: tuple[str, ...] = ()  # vLLM --kv-offloading-backend values
    speculative_methods: tuple[str, ...] = ()
    stage_split: Literal["", "partition", "tensor-split"] = ""  # how uneven pipeline stages are given (mixed GPUs)
    # How a replica that spans servers is started, a comment above its command ({servers}, {last}, {gpus} filled in;
    # "": the engine's plans stay within one machine)
    multi_node: str = ""
    # The flag with which one command serves every whole-copy replica on the server it runs on ("": the command
    # runs once per replica): replicas bought in several servers are started with it on each server
    # (planner.advisor.option_notes.servers_note)
    replicas_flag: str = ""
    speed_family: SpeedFamily = "paged"
    # Compute capabilities on which the engine's default kernels for MXFP4 experts are OpenAI's Triton MoE kernels
    # (planner.advisor.kernels prices them per MoE layer and step).
    triton_mxfp4_moe: tuple[tuple[int, int], ...] = ()
    # (last release, share): up to that release the engine's FP8 prompt GEMMs on capability 9.0 reach this share of
    # the FP8 dense peak, measured below planner.advisor.kernels.GEMM_EFFICIENCY's (None: the shared figure).
    hopper_fp8_gemm_until: tuple[str, float] | None = None
    # (first, FP8-KV-from, last) releases read in which attention sinks, and from the second an FP8 KV cache, send
    # attention to the engine's Triton backend below Hopper and on SM 12.x (planner.advisor.triton_attention).
    triton_attention_releases: tuple[str, str, str] | None = None
    # Why a model with linear-attention or state-space layers (ModelSpec.linear_attention) is not planned on the
    # engine: its per-sequence states come out of the KV budget in a way not modelled ("": planned).
    state_layers_refusal: str = ""
    # The most concurrent users the advisor offers the engine for unless the buyer names it, with why (None: any).
    advised_max_users: int | None = None
    advised_max_users_reason: str = ""
    # Public measurements the speed model over-predicts on one of the engine's paths, not modelled (no mechanism a
    # source shows): the advisor names them on the options they cover, as a caveat that keeps the verdict from green.
    speed_gaps: tuple[SpeedGap, ...] = ()
    # KV dtypes its MLA attention does not store on some families (DeepSeek-style models)
    mla_kv_refusals: tuple[MlaKvRefusal, ...] = ()
    # The first release that loads each model type (planner.engines.first_release, model_releases/<engine>.toml)
    model_releases: dict[str, ModelRelease] = {}
    # Weight formats a platform row covers only from a release on (older releases are refused with the reason)
    format_releases: tuple[FormatRelease, ...] = ()
    # Why the engine does not start speculative decoding under pipeline parallelism, in every release ("": it does)
    pipeline_speculation_refusal: str = ""
    # Speculative methods the engine does not start with a launch setting on (planner.engines.speculation_refusals)
    speculation_setting_refusals: tuple[SpeculationRefusal, ...] = ()

    def gap_for(self, model_type: str, weights: str, gpu: GpuSpec, batch: int = 1) -> SpeedGap | None:
        """The first of :attr:`speed_gaps` an option of ``model_type`` in ``weights`` on ``gpu`` at ``batch``
        sequences decoding together a replica meets."""
        fam = family(gpu)
        return next((g for g in self.speed_gaps if g.covers(model_type, weights, fam, batch)), None)

    def mla_kv_refusal(self, kv_dtype: str, fam: Family | None, sparse_at: str | None = None) -> str | None:
        """Why an MLA model's ``kv_dtype`` cache is not stored on ``fam`` (``None``: it is; ``sparse_at``: covers')."""
        return next((r.reason for r in self.mla_kv_refusals if r.covers(kv_dtype, fam, sparse_at)), None)

    def format_release_refusal(self, version: str, weights: str, fam: Family | None, moe: bool) -> str | None:
        """Why release ``version`` does not run ``weights`` on ``fam`` yet (:attr:`format_releases`)."""
        refusals = (r.refusal(self.label, version, weights, fam, moe) for r in self.format_releases)
        return next((found for found in refusals if found), None)

    def model_refusal(self, model_type: str, version: str) -> str | None:
        """Why release ``version`` does not load a ``model_type`` model (``None``: it does, or no row says)."""
        row = self.model_releases.get(model_type)
        return None if row is None else row.refusal(self.label, version)

    def rows_for(self, fam: Family | None) -> tuple[PlatformRow, ...]:
        """The rows of ``fam`` (every row when the family is unknown)."""
        return self.platforms if fam is None else tuple(r for r in self.platforms if fam in r.families)

    def weights_refusal(self, weights: str, fam: Family | None, moe: bool) -> str | None:
        if not self.rows_for(fam):  # no row for the family at all: the engine, not the format (before any format)
            return f"{self.label} does not run on {family_words(fam)} GPUs"
        if weights in self.weight_refusals:
            return self.weight_refusals[weights]
        rows = [r for r in self.rows_for(fam) if base_weights(weights) in r.weights]
        where = f" on {fam}" if fam is not None else ""
        if not rows:
            known = sorted({w for r in self.rows_for(fam) for w in r.weights})
            return f"{self.label} does not run {weights} weights{where} (it runs {', '.join(known)})"
        if moe and not any(r.moe for r in rows):
            return f"{self.label} runs {weights} weights{where} for dense models only, not mixture-of-experts"
        if not moe and not any(r.dense for r in rows):
            return f"{self.label} runs {weights} weights{where} for mixture-of-experts models only (their experts)"
        return None

    def kv_refusal(self, kv_dtype: str, weights: str, fam: Family | None, mla: bool = False) -> str | None:
        if kv_dtype not in self.kv_cache_names:
            if kv_dtype in self.kv_refusals:
                return self.kv_refusals[kv_dtype]
            return f"{self.label} has no {kv_dtype} KV cache (it stores {', '.join(self.kv_cache_names)})"
        rows = [r for r in self.rows_for(fam) if base_weights(weights) in r.weights]
        if rows and not any(base_kv(kv_dtype) in r.kv_dtypes for r in rows):
            kvs = ", ".join(sorted({k for r in rows for k in r.kv_dtypes}))
            where = f" on {family_words(fam)} GPUs" if fam is not None else ""
            return f"{self.label} keeps no {kv_dtype} KV cache with {weights} weights{where} (it keeps {kvs})"
        return self.mla_kv_refusal(kv_dtype, fam) if mla else None  # an MLA model's latent cache

    def kv_dtypes(self) -> tuple[str, ...]:
        """The KV dtypes the engine stores, in the planner's names."""
        return tuple(self.kv_cache_names)

    def runs(self, weights: str, kv_dtype: str, fam: Family | None, moe: bool | ModelKind) -> bool:
        """Whether the engine runs ``weights`` with a ``kv_dtype`` cache (on ``fam``; any family when unknown) for a
        model of this kind (a bool: ``moe``)."""
        kind = as_kind(moe)
        return (
            self.weights_refusal(weights, fam, kind.moe) is None
            and self.kv_refusal(kv_dtype, weights, fam, kind.mla) is None
        )

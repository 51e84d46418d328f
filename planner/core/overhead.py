"""Working space: what a GPU holds besides the weights and the KV cache, and the base of engine profiles.

Every overhead model is a frozen pydantic model with a ``kind`` and a ``per_gpu(ctx)`` giving
:class:`OverheadBytes` for one GPU of one pipeline stage. Three generic models live here:

- ``simple-fraction``: a fixed share of every GPU's memory for "activations, runtime, headroom" — the
  reference planner of *Memory Planning for LLMs* (``const overhead = 0.10``).
- ``simple-fixed``: fixed bytes for framework and activations — *The Memory Math of Serving a Model* accounts a
  24 GB card as "framework + CUDA ~1.5 GB, peak activations ~1.0 GB".
- ``estimate`` (the default): activations that scale with the tokens in flight per step and the logits
  buffer, a framework cost that grows once GPUs talk to each other (NCCL), and the share of memory a
  serving engine leaves unreserved. Its constants come from vLLM V1 start-up logs (see each function).

Engine profiles (:class:`EngineProfile` subclasses, one per engine module) are overhead models too, so
:func:`planner.planning.plan.plan` sizes the KV pool the way the engine does.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, SerializeAsAny

from planner.bounds.hashing import HashedOnce
from planner.core.model import ModelSpec
from planner.core.platform import DevicePlatform
from planner.core.releases import parse_version as parse_version  # its home before; imported from here
from planner.core.units import GB, GiB

Fraction = Annotated[float, Field(gt=0, le=1)]
# Why an engine does not start, machine-readable (EngineReport.failure_kind, ParsedLog.failure_kind):
# free-memory: the GPU has less free memory than the fraction asks for (another process holds some);
# sampler-oom: the sampler warm-up after CUDA-graph capture runs out of the headroom; graph-capture-oom: the CUDA-graph
# capture itself, after the KV pool, runs out of it (vLLM V1 / V2, planner.engines.vllm.failures);
# tp-indivisible: the tensor-parallel size does not divide the attention heads or the vocabulary;
# max-model-len: the context is longer than the model's maximum;
# kv-cache-too-small: one request of max_model_len does not fit the KV cache; no-kv-memory: nothing is left for
# it; weights-oom: the weights alone do not fit; out-of-memory: any other CUDA out-of-memory error;
# mamba-blocks: a hybrid (Mamba / Gated DeltaNet) model's max_num_seqs exceeds the blocks of its KV pool (vLLM
# >= 0.20 with FULL CUDA graphs: one state block per decoding sequence); graph-profile-oom: the throwaway KV cache vLLM
# measures its CUDA graphs with does not fit beside the weights (planner.engines.vllm.profiling_kv); others-oom: other
# processes hold more than the 1 - util a release that counts from its own start leaves unused
# (planner.engines.vllm.start_memory); mm-item-batch: a multimodal prefix-LM model's largest item does not fit the
# max_num_batched_tokens given (vLLM will not split one across steps); mamba-align-step: with prefix caching a hybrid's
# attention block is larger than max_num_batched_tokens (vLLM 0.22-0.26 in Mamba cache mode 'align').
FailureKind = Literal[
    "free-memory",
    "sampler-oom",
    "tp-indivisible",
    "max-model-len",
    "kv-cache-too-small",
    "no-kv-memory",
    "weights-oom",
    "out-of-memory",
    "mamba-blocks",
    "graph-profile-oom",
    "others-oom",
    "mm-item-batch",
    "mamba-align-step",
    "graph-capture-oom",
]
PositiveInt = Annotated[int, Field(gt=0)]
# An engine release as engines print them: 0.19.0, v0.10.2rc1, ~0.10 (a range), b6000 (llama.cpp), 0.11.0+cu128.
_RELEASE = re.compile(r"[v~]?[0-9A-Za-z]{1,12}(?:[.+-][0-9A-Za-z]{1,12}){0,5}")
MAX_RELEASE_CHARS = 32


def check_release(value: str) -> str:
    """``value`` when it is a short release (ASCII letters and digits in dot-separated parts), else an error."""
    if len(value) > MAX_RELEASE_CHARS or not _RELEASE.fullmatch(value):
        shown = value[:20] + ("…" if len(value) > 20 else "")
        raise ValueError(
            f"{shown!r} is not an engine release (such as 0.19.0 or b6000, at most {MAX_RELEASE_CHARS} characters)"
        )
    return value


EngineVersion = Annotated[str, AfterValidator(check_release)]
# How each engine numbers its releases: vLLM, SGLang and TensorRT-LLM by numbers (0.19.0, v0.10.2rc1, ~0.10,
# 0.31.1rc1.dev50+g554340f3d, 1.0.0), llama.cpp by build tag (b6000).
_NUMBERED = re.compile(r"[v~]?[0-9]{1,4}(?:\.[0-9]{1,4}){0,3}(?:[.+-]?[0-9A-Za-z]{1,16}){0,4}")
_BUILD_TAG = re.compile(r"[bB][0-9]{1,9}")


def _numbered(label: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if not _NUMBERED.fullmatch(value):
            raise ValueError(f"{value!r} is not a {label} release (such as 0.19.0)")
        return value

    return check


def check_build_tag(value: str) -> str:
    """``value`` when it is a llama.cpp build tag.

    >>> check_build_tag("b6000")
    'b6000'
    """
    if not _BUILD_TAG.fullmatch(value):
        raise ValueError(f"{value!r} is not a llama.cpp build tag (such as b6000)")
    return value


VllmRelease = Annotated[str, AfterValidator(check_release), AfterValidator(_numbered("vLLM"))]
SglangRelease = Annotated[str, AfterValidator(check_release), AfterValidator(_numbered("SGLang"))]
TrtllmRelease = Annotated[str, AfterValidator(check_release), AfterValidator(_numbered("TensorRT-LLM"))]
BuildTag = Annotated[str, AfterValidator(check_release), AfterValidator(check_build_tag)]


class OverheadBytes(BaseModel, frozen=True, extra="forbid"):
    """Per-GPU working space, in bytes."""

    activation_bytes: Annotated[int, Field(ge=0)]
    framework_bytes: Annotated[int, Field(ge=0)]  # CUDA context, library workspaces, NCCL buffers
    reserved_bytes: Annotated[int, Field(ge=0)]  # left unused on purpose (gpu_memory_utilization < 1)


class StageContext(BaseModel, frozen=True, extra="forbid"):
    """What an overhead model may depend on: the model and where this GPU sits in the deployment."""

    model: ModelSpec
    gpu_memory_bytes: int
    tensor_parallel: int
    pipeline_parallel: int
    is_last_stage: bool
    device_total_bytes: int | None = None  # the total the vendor's tool reports (GpuSpec.memory_bytes; SGLang)
    other_bytes: int = 0  # held by other processes before the engine starts (SGLang, TensorRT-LLM size from the rest)
    weights_bytes: int = 0  # this GPU's weights (TensorRT-LLM sizes its pool from what is left after them)
    lora_draft_bytes: int = 0  # LoRA slots and a drafter on this GPU (planner.deploy; TensorRT-LLM: not free either)
    max_model_len: int | None = None  # vLLM V0 profiles one sequence of it; llama.cpp allocates it
    stage_index: int = 0  # which pipeline stage (the first holds the embedding, the last the sampler)
    layers: tuple[int, int] | None = None  # the decoder layers of the stage, [start, stop); None: all
    weights_format: str = "bf16"  # the weight format (fp32 activations, MXFP4 experts change the profile run)
    gpu_name: str | None = None  # engines pick batch defaults by device (vLLM: A100 vs H100)
    platform: DevicePlatform | None = None  # the device's facts (compute capability, ...); None: not named
    kv_dtype: str = "auto"  # the KV cache's dtype as resolved (vLLM's attention backend, and so its graphs, turn on it)
    speculative_tokens: int = 0  # tokens a drafter proposes per step (vLLM: its graphs and rejection sampler)
    speculative_method: str | None = None  # its method (planner.deploy.options.SpeculativeOptions.method)
    lora: bool = False  # adapters are served (SGLang then captures no prefill graphs before 0.5.17)
    windows_host: bool = False  # under Windows: WSL2, Docker Desktop (planner.deploy.host; vLLM's Windows share)
    attention_ranks: int = 1  # data-parallel attention: the server's ranks over this stage (SGLang's --dp)

    @property
    def server_tensor_parallel(self) -> int:
        """The server's tensor-parallel group: TP x the data-parallel attention ranks (SGLang's ``--tp``)."""
        return self.tensor_parallel * self.attention_ranks

    @property
    def speculative(self) -> bool:
        """Whether a drafter proposes tokens the target verifies (vLLM then warms its rejection sampler too)."""
        return self.speculative_tokens > 0


class LoadContext(BaseModel, frozen=True, extra="forbid"):
    """What the weights one GPU holds after loading may depend on (:meth:`OverheadModelBase.loaded_weights_bytes`):
    the checkpoint's bytes there, the model and format, where the GPU sits, the device, and the drafter."""

    model: ModelSpec
    weights_bytes: int  # the checkpoint's weights on this GPU of this stage (planner.core.weights)
    weights_format: str
    tensor_parallel: int
    pipeline_parallel: int
    stage_index: int
    layers: tuple[int, int]  # the stage's decoder layers, [start, stop)
    platform: DevicePlatform | None = None  # None: a device the catalog does not name
    drafter: str | None = None  # the speculative method of a drafter loaded with the model ("mtp", "eagle", ...)
    expert_gpus: int | None = None  # the GPUs the routed experts are split over when more than TP (shared ranks)

    @property
    def is_first_stage(self) -> bool:
        return self.stage_index == 0

    @property
    def is_last_stage(self) -> bool:
        return self.stage_index == self.pipeline_parallel - 1


# Every overhead model class by its ``kind``, filled as the classes are defined (for reading a plan back).
OVERHEAD_KINDS: dict[str, type[OverheadModelBase]] = {}


class OverheadModelBase(HashedOnce, frozen=True, extra="forbid"):
    """An overhead model: ``kind`` names it, :meth:`per_gpu` sizes the working space of one GPU."""

    kind: str
    # Whether memory other processes hold comes out of ``reserved_bytes`` first: vLLM budgets ``util x total`` and
    # leaves the rest unused, so another process may hold it (planner.deploy.sharing); SGLang's and TensorRT-LLM's
    # reserve is their own working space.
    reserve_is_spare: ClassVar[bool] = False
    # Whether the engine splits whole layers over its GPUs instead of splitting every layer (llama.cpp's default
    # ``--split-mode layer``): an unset tensor-parallel size then plans one stage per GPU, with no head rule.
    splits_layers: ClassVar[bool] = False
    # The KV dtype the engine caches in when none is asked (None: the model's activation dtype, serving_kv_dtype):
    # llama.cpp's --cache-type-k/v default is f16 (common/common.h cache_type_k = GGML_TYPE_F16), whatever the model
    default_kv_dtype: ClassVar[str | None] = None

    def kv_dtype_for(self, model: ModelSpec, platform: DevicePlatform | None) -> str | None:
        """The KV dtype the engine caches ``model`` in on ``platform`` when none is asked: :attr:`default_kv_dtype`
        (an engine whose default depends on the model and the device overrides this); ``None``: the model's."""
        return self.default_kv_dtype

    def others_in_reserve(self) -> bool:
        """Whether memory other processes hold comes out of the unused reserve before the pool
        (:attr:`reserve_is_spare`); an engine whose budget counts them in full (vLLM 0.6.4, 0.8.0-0.9.0) says no."""
        return self.reserve_is_spare

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        kind = cls.model_fields["kind"].default
        if isinstance(kind, str):
            OVERHEAD_KINDS.setdefault(kind, cls)

    @abstractmethod
    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """The working space of one GPU of one pipeline stage."""

    @property
    def attends_per_gpu(self) -> bool:
        """Data-parallel attention asked for (``--enable-dp-attention``; vLLM ``--data-parallel-size`` with
        ``--enable-expert-parallel``): an unset tensor-parallel size plans TP 1, one data-parallel rank a GPU, each
        attending (and caching) its own requests (:meth:`spread_over_replicas` splits the experts over them all)."""
        return False

    def lora_wraps_vocabulary(self) -> bool:
        """Whether adapters get vocabulary-sized slots too (vLLM: planner.deploy.lora.vocab_slot_bytes)."""
        return False

    def spread_over_replicas(self, model: ModelSpec) -> frozenset[str]:
        """The weight categories (:class:`planner.core.params.ParameterBreakdown`'s) the engine splits over every
        data-parallel rank of a stage rather than over one replica's tensor-parallel ranks (``experts``,
        ``dense_mlp``, ``lm_head``); empty: each replica holds a whole copy (independent servers)."""
        return frozenset()

    def kv_cap_bytes(self, ctx: StageContext, kv_bytes_per_token: int) -> int | None:
        """The most bytes the pool holds on a GPU of ``ctx`` (SGLang's ``--max-total-tokens``; ``kv_bytes_per_token``
        a token there), the rest left free; ``None``: the pool takes what is left."""
        return None

    def loaded_weights_bytes(self, ctx: LoadContext) -> int:
        """The weights one GPU holds once the engine has loaded them: the checkpoint's bytes (``ctx.weights_bytes``)
        unless the engine repacks or pads them for its kernels on this device, or builds buffers with the model
        (an engine profile overrides this). The plan's per-GPU weights are this figure, so every surface shows the
        weights the engine prints."""
        return ctx.weights_bytes

    def kv_model(self, model: ModelSpec) -> ModelSpec:
        """``model`` as the engine caches and attends to it: sliding-window and chunked layers keep their windows
        (vLLM, SGLang, llama.cpp); an engine that keeps every token of every layer overrides this
        (:func:`planner.core.kv.every_token_cached`)."""
        return model

    def weight_offload_taker(
        self, model: ModelSpec, weights: str, speculative: str | None = None
    ) -> tuple[OverheadModelBase, str] | None:
        """The profile under which ``--cpu-offload-gb`` moves ``model``'s weights (in ``weights``, with a
        ``speculative`` method) off the GPU, and the setting it needs beyond this one ("": none): this very profile
        where the engine offloads as asked (the default); where this profile's release ignores the flag for the
        model, one of the same engine that takes it (an engine profile overrides this), or None."""
        return self, ""

    @property
    def offloads_output_first(self) -> bool:
        """Whether partial offload keeps the output layer on the GPU before any decoder layer (llama.cpp builds
        since PR #18148 do; an engine whose profile says so overrides this)."""
        return False


class EngineProfile(OverheadModelBase, frozen=True, extra="forbid"):
    """An engine's settings as an overhead model; ``kind`` is the engine's registry name."""

    engine_version: EngineVersion

    @property
    def engine_name(self) -> str:
        """The registered engine that reports and launches this profile (its ``kind``)."""
        return self.kind


def _overhead_from_data(value: Any) -> Any:
    """Read an overhead model back from its dump: the class is chosen by ``kind``. Engines register their profile
    classes when :mod:`planner.engines` is imported (its ``__init__`` imports the registry), so a dump naming an
    engine is read back wherever engines are in use; the core itself never imports an engine."""
    if not isinstance(value, dict):
        return value
    cls = OVERHEAD_KINDS.get(str(value.get("kind")))
    if cls is None:
        raise ValueError(f"unknown overhead model kind {value.get('kind')!r}; known: {', '.join(OVERHEAD_KINDS)}")
    return cls.model_validate(value)


# Fields typed with the base class keep every subclass's fields when serialized (pydantic SerializeAsAny) and
# are read back by their ``kind``.
OverheadModel = Annotated[SerializeAsAny[OverheadModelBase], BeforeValidator(_overhead_from_data)]


class SimpleFraction(OverheadModelBase, frozen=True, extra="forbid"):
    """A fixed fraction of each GPU's memory for activations, runtime and headroom (Memory Planning for LLMs: 10 %)."""

    kind: Literal["simple-fraction"] = "simple-fraction"
    fraction: Annotated[float, Field(ge=0, lt=1)] = 0.10

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """``fraction x memory`` reserved, as Memory Planning for LLMs' ``total*(1-overhead)`` does."""
        return OverheadBytes(
            activation_bytes=0, framework_bytes=0, reserved_bytes=round(self.fraction * ctx.gpu_memory_bytes)
        )


class SimpleFixed(OverheadModelBase, frozen=True, extra="forbid"):
    """Fixed framework and activation bytes per GPU (The Memory Math of Serving a Model: ~1.5 GB framework, ~1 GB
    activations)."""

    kind: Literal["simple-fixed"] = "simple-fixed"
    framework_bytes: Annotated[int, Field(ge=0)] = round(1.5 * GB)
    activation_bytes: Annotated[int, Field(ge=0)] = 1 * GB

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        return OverheadBytes(
            activation_bytes=self.activation_bytes, framework_bytes=self.framework_bytes, reserved_bytes=0
        )


# Fitted to vLLM 0.19 "torch peak memory increase" at max_num_batched_tokens=8192 on H100 (tests/fixtures/reference/
# engine-logs-public.json): Llama-3.1-8B 1.89 GiB in total and 1.10 GiB on a pipeline stage without the
# lm_head, Qwen2.5-7B 2.21 GiB. Two unknowns, two stages: ~14 bytes per hidden unit (residual, norms, q/k/v,
# attention output in 16 bits) and ~6 bytes per MLP unit (gate+up output and the activated product) per token.
ACTIVATION_BYTES_PER_HIDDEN = 14
ACTIVATION_BYTES_PER_INTERMEDIATE = 6
# Logits for the sampler: fp32 rows of the whole vocabulary for max_num_seqs sequences, ~1.6 live copies
# (logits, probabilities, log-probabilities) — the same fit (0.79 GiB for 1024 x 128,256 fp32).
LOGITS_COPIES = 1.6
# vLLM 0.19 non-torch memory: 0.25 GiB on one GPU, 2.07 GiB with TP >= 2 (NCCL and custom all-reduce
# buffers; llm-d-planner PR #205 logs, vLLM PR #10511 1.79 -> 3.58 GiB).
NON_TORCH_SINGLE_BYTES = round(0.25 * GiB)
NON_TORCH_TP_BYTES = round(2.07 * GiB)
DEFAULT_HIDDEN = 4096  # a model known by its size alone: a 7B-class width for the activation terms
DEFAULT_VOCAB = 32000


def mlp_width(model: ModelSpec) -> int:
    """The MLP width one token passes through: the dense ``intermediate_size``, or for MoE the routed experts
    a token uses plus the shared expert (at least the dense width, for models mixing both)."""
    hidden = model.hidden_size or DEFAULT_HIDDEN
    if model.moe is not None:
        width = model.moe.moe_intermediate_size * model.moe.num_experts_per_tok + model.moe.shared_width
        return max(width, model.intermediate_size or 0)
    return model.intermediate_size or 4 * hidden


def layer_activation_bytes_per_token(model: ModelSpec, tensor_parallel: int) -> float:
    """Activation bytes of one token of a forward step: ``14 x hidden + 6 x MLP width / tp`` (constants above)."""
    hidden = model.hidden_size or DEFAULT_HIDDEN
    return ACTIVATION_BYTES_PER_HIDDEN * hidden + ACTIVATION_BYTES_PER_INTERMEDIATE * mlp_width(model) / tensor_parallel


def activation_peak_bytes(
    model: ModelSpec, max_num_batched_tokens: int, max_num_seqs: int, tensor_parallel: int, with_logits: bool
) -> int:
    """Peak transient memory of one forward step on one GPU.

    ``tokens x (14 x hidden + 6 x intermediate / tp)`` for the layer activations of a step of
    ``max_num_batched_tokens`` (chunked prefill bounds a step, so the context length does not matter), plus
    ``max_num_seqs x vocab x 4 bytes x 1.6`` of sampler logits on the last pipeline stage. MoE layers use the
    width of the experts a token is routed to. Constants: fitted to vLLM V1 logs (module constants above).
    """
    per_token = layer_activation_bytes_per_token(model, tensor_parallel)
    logits = max_num_seqs * (model.vocab_size or DEFAULT_VOCAB) * 4 * LOGITS_COPIES if with_logits else 0
    return round(max_num_batched_tokens * per_token + logits)


class Estimate(OverheadModelBase, frozen=True, extra="forbid"):
    """A serving engine in general: a memory fraction, activations per step, framework buffers.

    Defaults are vLLM's for an OpenAI-compatible server on a GPU of 70 GiB or more
    (``max_num_batched_tokens`` 8192, ``max_num_seqs`` 1024; ``EngineArgs._set_default_args``) with the
    ``gpu_memory_utilization`` default of 0.9.
    """

    kind: Literal["estimate"] = "estimate"
    reserve_is_spare: ClassVar[bool] = True
    gpu_memory_utilization: Annotated[float, Field(gt=0, le=1)] = 0.90
    max_num_batched_tokens: Annotated[int, Field(gt=0)] = 8192
    max_num_seqs: Annotated[int, Field(gt=0)] = 1024

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """Reserved ``(1 - util) x memory``; framework = vLLM's non-torch memory; activations as
        :func:`activation_peak_bytes`."""
        return OverheadBytes(
            activation_bytes=activation_peak_bytes(
                ctx.model, self.max_num_batched_tokens, self.max_num_seqs, ctx.tensor_parallel, ctx.is_last_stage
            ),
            framework_bytes=NON_TORCH_TP_BYTES if ctx.tensor_parallel > 1 else NON_TORCH_SINGLE_BYTES,
            reserved_bytes=round((1 - self.gpu_memory_utilization) * ctx.gpu_memory_bytes),
        )

"""vLLM's memory settings and its profile run, term by term, by release.

The budget (``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory``): available KV = total x
``gpu_memory_utilization`` - (weights + torch activation peak + non-torch memory), minus the CUDA-graph estimate from
the releases that subtract it (``versions.toml`` rule ``cudagraph_in_budget``). ``--kv-cache-memory-bytes`` replaces
the whole sizing. The activation peak is what ``GPUModelRunner.profile_run`` allocates
(``vllm/v1/worker/gpu_model_runner.py``, 0.19 tree):

- the forward of a dummy batch of ``max_num_batched_tokens`` tokens (:func:`forward_bytes`);
- on the last pipeline stage the sampler warm-up ``_dummy_sampler_run`` over ``num_reqs = min(max_num_seqs,
  max_num_batched_tokens)`` rows of fp32 logits with top-k and top-p, while the batch's hidden states are
  still held (:func:`sampler_bytes`; how many fp32 copies depends on the release's sampler); with speculative
  decoding the V1 runner then warms the rejection sampler on as many requests (:func:`rejection_bytes`, derived);
- the fused-MoE workspace of the experts backend (:mod:`.moe_backend`), persistent from the release that keeps it in
  the workspace manager (:func:`moe_workspace_bytes`), else transient inside the forward; from 0.27 a persistent one
  is counted with the non-torch memory (:meth:`VllmProfile.consumed_workspace`);
- the multimodal encoder's outputs and cache held through the run (a fitted constant);
- a pipeline stage after the first also holds the received hidden states and residual.

The peak is the largest of the forward and the two samplers, plus what is held throughout. Model Runner V2 (the default
for dense models from 0.25, for all from 0.29: :mod:`planner.engines.vllm.runner`) warms its own sampler (kind ``v2``,
derived: :func:`v2_sampler_bytes`). From 0.20 the CUDA-graph estimate is subtracted from the budget (on Model Runner V2
from 0.29: :meth:`VllmProfile.graphs_in_budget`) and depends on the graphs captured
(:mod:`planner.engines.vllm.graphs`: ``max_num_seqs``, speculative tokens, ``--max-cudagraph-capture-size``,
``--enforce-eager``); hybrid models' pages are :mod:`planner.engines.vllm.mamba`'s. Constants the source does not fix
are fitted by ``make calibrate`` (:mod:`planner.engines.vllm.versions`). V0 (before 0.8, ``vllm/worker/worker.py``)
profiled one prefill of ``max(max_model_len, 2048)`` tokens without a sampler warm-up.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

from pydantic import Field

from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.overhead import (
    DEFAULT_HIDDEN,
    EngineProfile,
    Fraction,
    LoadContext,
    OverheadBytes,
    OverheadModelBase,
    StageContext,
    VllmRelease,
    layer_activation_bytes_per_token,
    parse_version,
)
from planner.engines.platform import VllmPlatform, platform_of
from planner.engines.vllm.compile_copy import compile_copy_bytes, compile_inputs
from planner.engines.vllm.defaults import BatchFlags, batch_length, engine_batch
from planner.engines.vllm.encoder_memory import profiles_encoder
from planner.engines.vllm.extensible import EXTENSIBLE_UTILIZATION, reserved_bytes
from planner.engines.vllm.held import held_at_start
from planner.engines.vllm.kept import per_gpu_kept as _per_gpu_kept
from planner.engines.vllm.kept import terms_kept as _terms_kept
from planner.engines.vllm.loaded import vllm_loaded_weights_bytes
from planner.engines.vllm.moe_backend import moe_backend_of, moe_scratch_bytes
from planner.engines.vllm.non_torch import NonTorchInputs, graphics_compile_bytes, non_torch_bytes
from planner.engines.vllm.profile_graphs import VllmGraphs
from planner.engines.vllm.profile_held import VllmHeld
from planner.engines.vllm.runner import V1_RUNNER_ENVIRONMENT, uses_model_runner_v2
from planner.engines.vllm.setting_bounds import BatchTokens, CaptureSize, KvBytes, Sequences
from planner.engines.vllm.terms import (
    VLLM_V0_ACTIVATION_SCALE,
    ProfileTerms,
    TermsInputs,
    activation_dtype_bytes,
    forward_bytes,
    mla_bytes_per_token,
    rejection_bytes,
    sampler_term,
)
from planner.engines.vllm.towers import is_multimodal, loads_a_tower, prefix_floor_applies, towers_off
from planner.engines.vllm.unified import reads_ahead
from planner.engines.vllm.versions import VllmConstants, VllmRules, default_version, fitted_constants, vllm_rules

VLLM_DEFAULT_VERSION = default_version()


class VllmProfile(VllmHeld, VllmGraphs, EngineProfile, frozen=True, extra="forbid"):
    """vLLM (V1 from 0.8, V0 before). Settings are the CLI flags of ``vllm serve``."""

    kind: Literal["vllm"] = "vllm"
    reserve_is_spare: ClassVar[bool] = True  # budget util x total; the rest is left to other processes
    engine_version: VllmRelease = VLLM_DEFAULT_VERSION
    gpu_memory_utilization: Fraction | None = None  # None: the release's default (0.9; 0.92 from 0.20.0)
    max_num_batched_tokens: BatchTokens | None = None  # None: vLLM's default for the GPU (default_batch)
    max_num_seqs: Sequences | None = None  # --max-num-seqs; None: vLLM's default for the GPU and release
    usage_context: Literal["server", "llm-class"] = "server"  # `vllm serve` or the offline `LLM` class
    enforce_eager: bool = False  # --enforce-eager: no CUDA graphs, no graph estimate
    compile_cache: Literal["cold", "warm"] = "warm"  # torch.compile cache; "cold": a first boot (vllm.compile_copy)
    max_cudagraph_capture_size: CaptureSize | None = None  # --max-cudagraph-capture-size; None: from max_num_seqs
    kv_cache_memory_bytes: KvBytes | None = None  # --kv-cache-memory-bytes: skips the profile-based sizing
    # --no-enable-extensible-kv-cache (0.34 on); unset: the extensible cache where the release and runtime have it
    no_enable_extensible_kv_cache: bool = False
    language_model_only: bool = False  # --language-model-only: no vision tower loaded, no encoder profile
    skip_mm_profiling: bool = False  # --skip-mm-profiling: the tower loaded, no encoder profile
    enable_dp_attention: bool = False  # --data-parallel-size N --enable-expert-parallel at TP 1: a rank a GPU
    limit_mm_per_prompt: Annotated[int, Field(ge=0, le=1024)] | None = None  # items of each modality; 0: text only
    limit_mm_audio: Annotated[int, Field(ge=0, le=1024)] | None = None  # audio's own; 0: no audio tower (towers_off)
    enable_prefix_caching: bool | None = None  # None: the release's default (hybrids: off until 0.27.1)
    disable_hybrid_kv_cache_manager: bool = False  # sliding-window layers then cache the whole context
    enable_chunked_prefill: bool | None = Field(default=None)  # V0 only; None: on from max_model_len 32,768
    sampler: Literal["native-sort", "triton", "flashinfer"] | None = None  # None: the release's default
    estimate_cudagraphs: bool | None = None  # VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS; None: the release's
    use_v2_model_runner: bool | None = None  # VLLM_USE_V2_MODEL_RUNNER; None: the release's choice
    gpu_memory_in_use_bytes: Annotated[int, Field(ge=0)] = 0  # held on the GPU by other processes before vLLM starts
    # Unified memory (GB10): what the OS and other programs hold of the shared pool at start (MemAvailable = total
    # less it); None: UMA_HOST_DEFAULT_BYTES
    unified_memory_host_bytes: Annotated[int, Field(ge=0, le=1 << 44)] | None = None
    allow_long_max_model_len: bool = False  # VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
    # --load-format / --safetensors-load-strategy; None: vLLM's default loader (planner.engines.vllm.unified)
    load_format: Literal["fastsafetensors", "instanttensor"] | None = None
    safetensors_load_strategy: Literal["lazy", "prefetch"] | None = None
    constants: VllmConstants | None = None  # None: the fitted constants of fitted.toml

    @property
    def version(self) -> tuple[int, int, int]:
        return parse_version(self.engine_version)

    # The release's rules and the batch flags, kept on the instance once read (a frozen profile's fields never
    # change; a copy starts without them): every assessment reads them a dozen times.
    __slots__ = ("_batch_flags_kept", "_rules_kept")
    if TYPE_CHECKING:  # the slots, not fields nor private attributes: pydantic does not see them
        _rules_kept: VllmRules
        _batch_flags_kept: BatchFlags

    @property
    def rules(self) -> VllmRules:
        try:
            kept: VllmRules = self._rules_kept
        except AttributeError:
            kept = vllm_rules(self.engine_version)
            object.__setattr__(self, "_rules_kept", kept)
        return kept

    @property
    def fitted(self) -> VllmConstants:
        return self.constants if self.constants is not None else fitted_constants()

    @property
    def utilization(self) -> float:
        """The fraction on a CUDA device (:meth:`utilization_on`)."""
        return self.utilization_on("cuda")

    def utilization_on(self, runtime: str) -> float:
        """``--gpu-memory-utilization``, or the release's default on a device of ``runtime``: 1.0 with the
        extensible KV cache, else 0.92 (0.9 before 0.20)."""
        if self.gpu_memory_utilization is not None:
            return self.gpu_memory_utilization
        return EXTENSIBLE_UTILIZATION if self.extensible(runtime) else self.rules.default_gpu_memory_utilization

    def utilization_for(self, gpu: GpuSpec | None) -> float:
        """:meth:`utilization_on` the GPU's runtime (``None``: a CUDA device)."""
        return self.utilization_on(gpu.platform.runtime if gpu is not None else "cuda")

    def extensible(self, runtime: str = "cuda") -> bool:
        """Whether the KV cache is committed after warm-up from measured memory (:mod:`planner.engines.vllm.
        extensible`): from the release that has it, on CUDA and ROCm, unless turned off or fixed in size."""
        if not self.rules.extensible_kv_cache or runtime == "other" or self.kv_cache_memory_bytes is not None:
            return False
        return not self.no_enable_extensible_kv_cache

    @property
    def is_v1(self) -> bool:
        return self.rules.v1

    @property
    def hybrid_kv_manager(self) -> bool:
        return self.rules.hybrid_kv_manager and not self.disable_hybrid_kv_cache_manager

    @property
    def cudagraph_in_budget(self) -> bool:
        on = self.rules.cudagraph_in_budget if self.estimate_cudagraphs is None else self.estimate_cudagraphs
        return self.is_v1 and on and not self.enforce_eager and not self.extensible()

    def runs_v2(self, model: ModelSpec, weights: str, speculative: str | None = None) -> bool:
        """Whether ``model`` in ``weights``, with a ``speculative`` method, runs V2 (:func:`uses_model_runner_v2`)."""
        return uses_model_runner_v2(self.rules, model, weights, self.use_v2_model_runner, speculative)

    def graphs_in_budget(self, model: ModelSpec, weights: str, speculative: str | None = None) -> bool:
        """Whether the KV budget loses a CUDA-graph estimate for ``model`` in ``weights``: :attr:`cudagraph_in_budget`,
        except on Model Runner V2 before 0.29.0, whose estimate is a stub returning 0 (``versions.toml`` rule
        ``v2_cudagraph_estimate``): its graphs are captured afterwards, in the ``1 - util`` headroom."""
        if not self.cudagraph_in_budget:
            return False
        return self.rules.v2_cudagraph_estimate or not self.runs_v2(model, weights, speculative)

    def weight_offload_taker(
        self, model: ModelSpec, weights: str, speculative: str | None = None
    ) -> tuple[OverheadModelBase, str] | None:
        """This profile, unless ``model`` runs on Model Runner V2 in a release whose V2 installs no weight offloader
        (rule ``v2_weight_offload``: before 0.28.0 ``--cpu-offload-gb`` moves nothing there): then the V1 runner,
        forced by its environment variable, which offloads."""
        if self.rules.v2_weight_offload or not self.runs_v2(model, weights, speculative):
            return self, ""
        return self.model_copy(update={"use_v2_model_runner": False}), V1_RUNNER_ENVIRONMENT

    @property
    def reads_ahead(self) -> bool:
        """Whether the weights' loader reads the checkpoint ahead (:func:`planner.engines.vllm.unified.reads_ahead`)."""
        return reads_ahead(self.load_format, self.safetensors_load_strategy)

    @property
    def attends_per_gpu(self) -> bool:
        return self.enable_dp_attention

    def spread_over_replicas(self, model: ModelSpec) -> frozenset[str]:
        """A MoE model's routed experts over every data-parallel rank of a stage, from the release with
        ``--data-parallel-size`` (``FusedMoEParallelConfig.make``, ``fused_moe/config.py``: the expert layers' TP is
        ``dp x tp``, or their EP with ``--enable-expert-parallel``; attention, dense MLP, shared experts, embedding
        and lm_head at each rank's own TP, ``models/deepseek_v2.py``); before it, a replica is a server of its own."""
        if model.moe is None or not self.rules.flag_data_parallel_size:
            return frozenset()
        return frozenset({"experts"})

    def others_in_reserve(self) -> bool:
        """Not where the release counts other processes in non-torch (:func:`stage.others_counted`: 0.6.4, 0.8-0.9)."""
        return not self.rules.non_torch_device_wide

    @property
    def sampler_kind(self) -> str:
        return self.sampler or self.rules.sampler

    def sampler_for(self, model: ModelSpec, weights: str, speculative: str | None = None) -> str:
        """The sampler the profile run warms up: Model Runner V2's own (``v2``) where it runs
        (:mod:`planner.engines.vllm.runner`), else :attr:`sampler_kind`."""
        return "v2" if self.runs_v2(model, weights, speculative) else self.sampler_kind

    def batch(
        self,
        gpu_memory_bytes: int,
        gpu_name: str | None = None,
        max_model_len: int | None = None,
        model: ModelSpec | None = None,
    ) -> tuple[int, int]:
        """``(tokens per profile step, max_num_seqs)`` (:func:`planner.engines.vllm.defaults.engine_batch`)."""
        return engine_batch(self.batch_flags, gpu_memory_bytes, gpu_name, max_model_len, model)

    def batch_length(self, max_model_len: int | None) -> int | None:
        """``max_model_len`` where :meth:`batch` may read it (:func:`planner.engines.vllm.defaults.batch_length`)."""
        return batch_length(self.batch_flags, max_model_len)

    @property
    def batch_flags(self) -> BatchFlags:
        """What settles this profile's batch: its release's rules and the batch flags given (kept, as the rules)."""
        try:
            return self._batch_flags_kept
        except AttributeError:
            pass
        rules = self.rules
        floored = prefix_floor_applies(rules.mm_prefix_batch_floor, self.language_model_only, self.limit_mm_per_prompt)
        given = (self.max_num_batched_tokens, self.max_num_seqs, self.enable_chunked_prefill)
        kept = BatchFlags(
            rules.v1, rules.batch_defaults, rules.batch_len_cap, floored, self.usage_context, *given,
            rocm_vram=rules.rocm_vram_defaults,
        )  # fmt: skip
        object.__setattr__(self, "_batch_flags_kept", kept)
        return kept

    def non_torch_bytes(
        self,
        tensor_parallel: int,
        pipeline_parallel: int = 1,
        platform: VllmPlatform | None = None,
        weights_bytes: int = 0,
    ) -> int:
        """Non-torch memory of the profile run (:func:`planner.engines.vllm.non_torch.non_torch_bytes`)."""
        return non_torch_bytes(self.era_inputs, tensor_parallel, pipeline_parallel, platform, weights_bytes)

    def graphics_compile_bytes(self, tensor_parallel: int, platform: VllmPlatform) -> int:
        """:func:`planner.engines.vllm.non_torch.graphics_compile_bytes`."""
        return graphics_compile_bytes(self.era_inputs, tensor_parallel, platform)

    @property
    def era_inputs(self) -> NonTorchInputs:
        """What the non-torch terms read of the profile."""
        return NonTorchInputs(self.fitted, self.version, self.is_v1, self.enforce_eager, self.reads_ahead)

    def terms(self, model: ModelSpec, ctx: StageContext, tokens: int, seqs: int) -> ProfileTerms:
        """The activation peak of one rank of stage ``ctx.stage_index``, by term: :meth:`terms_of` of what it reads
        of ``ctx``, kept per profile, model and those (:mod:`planner.engines.vllm.kept`)."""
        layers = ctx.layers or (0, model.num_hidden_layers)
        first, last = ctx.stage_index == 0, ctx.is_last_stage
        drafter = (ctx.speculative, tokens, seqs, ctx.speculative_method)
        moe = moe_backend_of(ctx.weights_format, ctx.platform, self.rules.nvfp4_moe_flashinfer_sm12)
        sms = ctx.platform.multiprocessors if ctx.platform else None
        inputs = TermsInputs(ctx.tensor_parallel, ctx.weights_format, first, layers, last, *drafter, moe, sms)
        try:
            return _terms_kept(self, model, inputs)
        except TypeError:  # unhashable: a profile a calibration fit builds holds its trial constants in a dict
            return self.terms_of(model, inputs)

    def terms_of(self, model: ModelSpec, inputs: TermsInputs) -> ProfileTerms:
        """:meth:`terms` from what it reads (:class:`planner.engines.vllm.terms.TermsInputs`)."""
        tp, weights_format, first, layer_range, last, speculative, tokens, seqs, method, backend, sms = inputs
        act, layers = activation_dtype_bytes(weights_format), range(*layer_range)
        if not self.is_v1:
            per_token = layer_activation_bytes_per_token(model, tp) + mla_bytes_per_token(model, tp)
            return ProfileTerms(forward=round(VLLM_V0_ACTIVATION_SCALE * tokens * per_token))
        constants = self.fitted
        scratch, workspace = moe_scratch_bytes(model, backend, tokens, tp, act, layers)  # scratch: freed per call
        forward = forward_bytes(model, tokens, tp, act, constants) + scratch
        if not self.rules.moe_workspace_persistent:
            forward, workspace = forward + workspace, 0
        kind = self.sampler_for(model, weights_format, method)
        rejection = last and speculative and kind != "v2"  # terms.REJECTION_FP32_ROWS
        return ProfileTerms(
            forward=forward,
            sampler=sampler_term(kind, model, (tokens, seqs, act, tp), constants, self.rules, sms) if last else 0,
            rejection=rejection_bytes(model, tokens, seqs, act) if rejection else 0,
            moe_workspace=workspace,
            encoder=constants.encoder_bytes if first and profiles_encoder(self, model) else 0,
            pp_buffers=0 if first else 2 * tokens * (model.hidden_size or DEFAULT_HIDDEN) * act,
            compile_copy=compile_copy_bytes(model, tp, act, compile_inputs(self, model, first)),
        )

    def loaded_weights_bytes(self, ctx: LoadContext) -> int:
        """ "Model loading took": :func:`planner.engines.vllm.loaded.vllm_loaded_weights_bytes`."""
        off = towers_off(self)
        return vllm_loaded_weights_bytes(ctx, is_multimodal(ctx.model), off, self.rules.gemma4_shared_kv_built)

    def activation_bytes(self, ctx: StageContext) -> int:
        """The profile run's peak (:meth:`terms`), less the fused-MoE workspace where it is consumed memory."""
        terms = self.stage_terms(ctx)
        return terms.peak - (terms.moe_workspace if self.consumed_workspace(ctx) else 0)

    def stage_terms(self, ctx: StageContext) -> ProfileTerms:
        """:meth:`terms` at the batch vLLM settles for ``ctx`` (:meth:`batch`)."""
        tokens, seqs = self.batch(ctx.gpu_memory_bytes, ctx.gpu_name, ctx.max_model_len, ctx.model)
        return self.terms(ctx.model, ctx, tokens, seqs)

    def loads_encoder(self, model: ModelSpec) -> bool:
        """Whether a tower is loaded, so profiled (:func:`towers_off`: the vision tower, or an audio tower alone)."""
        return loads_a_tower(towers_off(self), model)

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """:meth:`per_gpu_of`, kept per profile and context (:mod:`planner.engines.vllm.kept`)."""
        try:
            return _per_gpu_kept(self, ctx)
        except TypeError:  # unhashable: a profile a calibration fit builds holds its trial constants in a dict
            return self.per_gpu_of(ctx)

    def per_gpu_of(self, ctx: StageContext) -> OverheadBytes:
        """Reserved ``(1 - util) x memory``; activations of the profile run; non-torch memory, plus the
        CUDA-graph estimate where the release subtracts it. With ``kv_cache_memory_bytes`` the reserve is whatever
        that leaves."""
        activation, device, total = self.activation_bytes(ctx), platform_of(ctx.platform), ctx.gpu_memory_bytes
        loaded = ctx.weights_bytes + ctx.lora_draft_bytes  # what the rank loaded (unified memory's share of it)
        framework = self.non_torch_bytes(ctx.tensor_parallel, ctx.pipeline_parallel, device, loaded)
        framework += self.persistent_bytes(ctx)
        layers = ctx.layers or (0, ctx.model.num_hidden_layers)
        graphs = self.context_graphs(ctx)
        if self.graphs_in_budget(ctx.model, ctx.weights_format, ctx.speculative_method):
            framework += self.cudagraph_estimate_bytes(layers[1] - layers[0], graphs)
        if self.kv_cache_memory_bytes is not None:
            reserved = total - loaded - activation - framework - self.kv_cache_memory_bytes
        elif self.extensible(device.runtime):
            if not self.enforce_eager:  # captured before the pool is committed: measured, not estimated
                framework += self.rank_capture_bytes(
                    layers[1] - layers[0], graphs, ctx.model, ctx.tensor_parallel, device, ctx.kv_dtype
                )
            world, in_use = ctx.tensor_parallel * ctx.pipeline_parallel, self.gpu_memory_in_use_bytes + ctx.other_bytes
            held = held_at_start(self.fitted, world, device.integrated, in_use, self.unified_memory_host_bytes)
            reserved = reserved_bytes(total, self.utilization_on(device.runtime), held, activation, device.runtime)
        else:
            reserved = total - math.floor(self.utilization_on(device.runtime) * total)
        return OverheadBytes(activation_bytes=activation, framework_bytes=framework, reserved_bytes=max(0, reserved))

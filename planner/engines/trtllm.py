"""TensorRT-LLM: ``free_gpu_memory_fraction`` of the memory still free after the model and its working space.

- 1.x (PyTorch flow, ``trtllm-serve``; the default here): ``tensorrt_llm/_torch/pyexecutor/_util.py``
  ``KvCacheCreator`` profiles a dummy batch of ``max_num_tokens`` with a small temporary KV cache, then sizes the
  pool as ``(total - peak + temporary KV) x free_gpu_memory_fraction`` (0.9): what the profile left free. KV blocks
  hold ``KvCacheConfig.tokens_per_block`` = 32 tokens (``tensorrt_llm/llmapi/llm_args.py``); ``max_batch_size``
  defaults to 2048 and ``max_num_tokens`` to 8192 (``BaseLlmArgs``).
- before 1.0 (TensorRT engines built by ``trtllm-build``, the C++ runtime / Triton backend):
  ``kv_cache_free_gpu_mem_fraction`` of the memory free after the engine and its build-time workspace loaded;
  blocks of 64 tokens. Indicative (``tests/fixtures/reference/engine-memory-notes.md`` section 5).
- Sliding-window and chunked layers cache every token unless the attention window is set at run time: the KV
  cache manager's window defaults to ``max_seq_len`` for every layer (1.x ``KvCacheConfig.max_attention_window``
  None, ``tensorrt_llm/_torch/pyexecutor/resource_manager.py``; TensorRT engines ``--max_attention_window_size``,
  the C++ ``KvCacheConfig.maxAttentionWindowVec`` unset), and the model's ``sliding_window`` is not read into it:
  ``LLaMAConfig.from_hugging_face`` (``tensorrt_llm/models/llama/config.py``) drops Mistral's; the Mistral v0.1
  README section (``examples/llama/README.md``, ``examples/models/core/llama/README.md`` from 0.18) runs it with
  ``--max_attention_window_size=4096`` set by hand; trtllm-bench's ``get_kvcache_config`` sets only the memory
  fraction (and block reuse); Gemma 3's variable windows are a ``max_attention_window`` list the user gives (the
  1.x accuracy tests' ``[512, 512, 512, 512, 512, 32768]``), although its PyTorch model masks its sliding layers
  (``tensorrt_llm/_torch/models/modeling_gemma3.py`` ``attention_window_size``; gpt-oss's even layers likewise,
  ``modeling_gpt_oss.py``): their cache keeps every token, and their reads may be fewer than counted here.
  ``attention_windows`` sets them to the model's own (:meth:`TrtllmProfile.kv_model`). Read from the search index's
  stored versions of NVIDIA/TensorRT-LLM (the snapshot is over the fetch limit), not pinned to the v0.17.0 / v1.0.0
  tags; the default is the same in every stored version read.
"""

from __future__ import annotations

import json
import math
from typing import ClassVar, Literal

from planner.core.kv import every_token_cached, has_windows, kv_bytes_per_sequence
from planner.core.model import ModelSpec
from planner.core.overhead import (
    EngineProfile,
    Fraction,
    OverheadBytes,
    PositiveInt,
    StageContext,
    TrtllmRelease,
    parse_version,
)
from planner.core.units import GiB
from planner.deploy.options import SpeculativeOptions
from planner.deploy.spark_hosts import unified_host_bytes
from planner.engines.base import Engine, EngineReport, engine_total_bytes, gib_text, own_profile
from planner.engines.checkpoints import with_note
from planner.engines.commands import replicas_note, speculative_head
from planner.engines.logscan import Lines
from planner.engines.support import EngineSupport
from planner.engines.trtllm_logparse import parse_trtllm
from planner.engines.trtllm_options import attention_dp_refusal, cache_config_lines, options_flag
from planner.engines.trtllm_seq_len import reduced_lines, reduced_max_seq_len
from planner.engines.trtllm_support import TRTLLM_SUPPORT, fp8_block_refusal
from planner.engines.vllm.estimates import vllm_activation_bytes
from planner.engines.yarn import trtllm_yarn_refusal
from planner.planning.context import speculative_method
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

TRTLLM_CONTEXT_BYTES = round(0.6 * GiB)  # CUDA context + cuBLAS/TensorRT runtime (indicative)
TRTLLM_DEFAULT_VERSION = "1.0.0"
# trtllm-serve: NVIDIA/TensorRT-LLM issue #2667 runs it on 0.16.0; in September 2024 (0.12-0.13) the project pointed
# OpenAI-API users to examples/apps (issue #2237). Releases before: trtllm-build engines served by Triton.
TRTLLM_SERVE_FROM = (0, 16, 0)
TRTLLM_MAX_NUM_TOKENS = 8192  # BaseLlmArgs.max_num_tokens (module docstring)


class TrtllmProfile(EngineProfile, frozen=True, extra="forbid"):
    """TensorRT-LLM's memory settings (``trtllm-serve`` / the Triton backend's)."""

    kind: Literal["trtllm"] = "trtllm"
    engine_version: TrtllmRelease = TRTLLM_DEFAULT_VERSION
    kv_cache_free_gpu_mem_fraction: Fraction = 0.90
    max_batch_size: PositiveInt | None = None  # None: 2048 (1.x), 256 (TensorRT engines)
    max_num_tokens: PositiveInt | None = None  # tokens per step; None: 8192 (1.x: the profile batch; engines: built)
    tokens_per_block: PositiveInt | None = None  # None: 32 (1.x KvCacheConfig), 64 (TensorRT engines)
    # KvCacheConfig.max_attention_window (--max_attention_window_size) set to the model's own windows; off (the
    # default): every layer keeps max_seq_len tokens, sliding-window and chunked layers included
    attention_windows: bool = False
    attention_dp: bool = False  # enable_attention_dp (1.x): attention TP 1, a rank a GPU, routed experts over all

    @property
    def attends_per_gpu(self) -> bool:
        return self.attention_dp

    def spread_over_replicas(self, model: ModelSpec) -> frozenset[str]:
        """``enable_attention_dp``: routed experts over every rank (``--ep_size``), the rest whole on each."""
        return frozenset({"experts"}) if self.attention_dp and model.moe is not None else frozenset()

    @property
    def pytorch_flow(self) -> bool:
        return parse_version(self.engine_version) >= (1, 0, 0)

    @property
    def block_tokens(self) -> int:
        return self.tokens_per_block or (32 if self.pytorch_flow else 64)

    @property
    def batch_size(self) -> int:
        return self.max_batch_size or (2048 if self.pytorch_flow else 256)

    @property
    def num_tokens(self) -> int:
        return self.max_num_tokens or TRTLLM_MAX_NUM_TOKENS

    def kv_model(self, model: ModelSpec) -> ModelSpec:
        """The model with its windows (``attention_windows``), else every token cached in every layer
        (:func:`planner.core.kv.every_token_cached`: the attention window defaults to ``max_seq_len``)."""
        return model if self.attention_windows else every_token_cached(model)

    def workspace_bytes(self, model: ModelSpec, tensor_parallel: int) -> int:
        """The activation workspace of a built engine: the same layer formula as vLLM's over ``max_num_tokens``."""
        return vllm_activation_bytes(model, self.num_tokens, self.batch_size, tensor_parallel, True, v1=False)

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        workspace = self.workspace_bytes(ctx.model, ctx.tensor_parallel)
        # memory other processes, adapters and a drafter hold is not free when the cache is sized (trtllm_report)
        host = host_share(ctx.platform is not None and ctx.platform.integrated)  # not free either: reserved
        held = ctx.weights_bytes + workspace + TRTLLM_CONTEXT_BYTES + ctx.other_bytes + ctx.lora_draft_bytes + host
        free = max(0, ctx.gpu_memory_bytes - held)
        return OverheadBytes(
            activation_bytes=workspace,
            framework_bytes=TRTLLM_CONTEXT_BYTES,
            reserved_bytes=free - math.floor(self.kv_cache_free_gpu_mem_fraction * free) + host,
        )


def sequence_blocks_bytes(request: PlanRequest, result: PlanResult, profile: TrtllmProfile) -> int:
    """Bytes of the blocks one sequence of ``max_model_len`` takes on the first stage's GPU: every layer's
    ``max_seq_len`` tokens in whole blocks by default, ``ceil(max_len / block) x block bytes`` (the printed tokens
    divided by the sequence); with ``attention_windows`` its windowed layers' share capped at their windows
    (:func:`planner.core.kv.kv_bytes_per_sequence` of the blocks' tokens)."""
    stage = result.stages[0]
    paged = math.ceil(result.max_model_len / profile.block_tokens) * profile.block_tokens
    if not profile.attention_windows:
        return stage.kv_bytes_per_token * paged
    layers = range(*stage.layers)
    return kv_bytes_per_sequence(request.model, result.kv_dtype, paged, result.tensor_parallel, layers)


NO_WINDOWS = (
    "This model has no sliding-window or chunked-attention layers: the attention window setting "
    "(--max-attention-window) changes nothing, every layer keeps the maximum sequence length."
)


def window_note(
    request: PlanRequest, result: PlanResult, profile: TrtllmProfile, blocks_bytes: int, full: int
) -> str | None:
    """What the model's windows would give where the attention window is left at its default: the same pool's
    conversations with every windowed layer capped at its window (:func:`sequence_blocks_bytes` with
    ``attention_windows``) against ``full``, the bytes a sequence takes now, and the setting that does it.
    ``None``: no windowed layer, or the windows set; :data:`NO_WINDOWS` when they are set on a model without any."""
    model = request.model
    if not has_windows(model):
        return NO_WINDOWS if profile.attention_windows else None
    if profile.attention_windows:
        return None
    windowed = sequence_blocks_bytes(request, result, profile.model_copy(update={"attention_windows": True}))
    if not full or not windowed or windowed >= full:
        return None
    knob = "kv_cache_config.max_attention_window" if profile.pytorch_flow else "--max_attention_window_size"
    windows = [
        f"{kind} layers ({size:,} tokens)"
        for kind, size in (("sliding-window", model.sliding_window), ("chunked-attention", model.attention_chunk_size))
        if size is not None
    ]
    return (
        f"TensorRT-LLM keeps every token of this model's {' and '.join(windows)}: its attention window defaults "
        f"to the maximum sequence length. Set {knob} to the model's windows and the same pool holds "
        f"{blocks_bytes / windowed:,.1f} conversations of {result.max_model_len:,} tokens, not "
        f"{blocks_bytes / full:,.1f}."
    )


def host_share(integrated: bool) -> int:
    """On unified memory, what the host holds of the pool (:func:`planner.deploy.spark_hosts.unified_host_bytes`):
    the free memory TensorRT-LLM sizes its cache from is CUDA's, the host's ``MemAvailable`` there."""
    return unified_host_bytes(TRTLLM_CONTEXT_BYTES) if integrated else 0


def trtllm_report(request: PlanRequest, result: PlanResult, profile: TrtllmProfile) -> EngineReport:
    """``Using N tokens in paged KV cache`` and the ``[MemUsageChange]`` line, from the first rank."""
    total = engine_total_bytes(request)
    stage = result.stages[0]
    workspace = profile.workspace_bytes(request.model, result.tensor_parallel)
    free = total - stage.weights_bytes - workspace - TRTLLM_CONTEXT_BYTES
    free -= stage.lora_bytes + stage.draft_bytes + stage.other_bytes  # planner.deploy: not free when it sizes
    free -= host_share(request.gpu is not None and request.gpu.platform.integrated)
    kv = math.floor(profile.kv_cache_free_gpu_mem_fraction * max(0, free))
    block_bytes = stage.kv_bytes_per_token * profile.block_tokens
    blocks = kv // block_bytes if block_bytes else 0
    tokens = blocks * profile.block_tokens
    max_len = result.max_model_len
    per_sequence = sequence_blocks_bytes(request, result, profile)
    failure = None
    if tokens <= 0:
        failure = ("no-kv-memory", "[TensorRT-LLM][ERROR] no memory left for the paged KV cache")
    reduced = reduced_max_seq_len(blocks, profile.block_tokens, blocks * block_bytes, per_sequence)
    return EngineReport(
        engine="trtllm",
        engine_version=profile.engine_version,
        total_memory_bytes=total,
        budget_bytes=max(0, free),
        fraction=profile.kv_cache_free_gpu_mem_fraction,
        weights_bytes=stage.weights_bytes,
        activation_bytes=workspace,
        non_torch_bytes=TRTLLM_CONTEXT_BYTES,
        cuda_graph_bytes=0,
        available_kv_cache_bytes_per_gpu=kv if free > 0 else free,
        min_available_kv_cache_bytes=kv if free > 0 else free,
        block_size=profile.block_tokens,
        gpu_blocks=blocks,
        kv_cache_groups=1,
        kv_cache_tokens=tokens,
        max_model_len=reduced or max_len,
        max_concurrency=blocks * block_bytes / per_sequence if per_sequence else 0.0,
        fits_max_model_len=failure is None and reduced is None,
        estimated_max_model_len=reduced,
        fits=failure is None,
        failure_kind=failure[0] if failure else None,
        failure=failure[1] if failure else None,
        max_running=profile.batch_size,
        lines=(
            f"[TensorRT-LLM][INFO] Using {tokens} tokens in paged KV cache.",
            f"[TensorRT-LLM][INFO] [MemUsageChange] Allocated {gib_text(kv)} GiB for max tokens in paged KV cache "
            f"({tokens}).",
            *(reduced_lines(reduced, profile.pytorch_flow) if reduced else ()),
        ),
        notes=(
            "Indicative: the activation workspace depends on how the engine was built (max_num_tokens).",
            *filter(None, [window_note(request, result, profile, blocks * block_bytes, per_sequence)]),
        ),
    )


# The planner's speculative methods as TensorRT-LLM 1.0's LLM API reads them: DecodingBaseConfig.from_dict's keys
# (llm_args.py; "Eagle3" and "Draft_Target" are not among them), the PyTorch flow's "Eagle" being EAGLE-3
# (EagleDecodingConfig.spec_dec_mode). EAGLE-1 heads and Medusa are not run there (PYTORCH_FLOW_REFUSES).
TRTLLM_DECODING = {"draft": "DraftTarget", "eagle3": "Eagle", "mtp": "MTP"}
PYTORCH_FLOW_REFUSES = {
    "eagle": "its PyTorch flow's Eagle is EAGLE-3 (llm_args.py EagleDecodingConfig.spec_dec_mode: EAGLE3 or "
    "EAGLE3_ONE_MODEL), so an EAGLE-1 head is not run; plan eagle3",
    "medusa": "MedusaDecodingConfig runs on the TensorRT backend only (supports_backend: not pytorch), which "
    "trtllm-serve's PyTorch flow is not",
}


class TrtllmEngine(Engine):
    name: ClassVar[str] = "trtllm"
    label: ClassVar[str] = "TensorRT-LLM"
    description: ClassVar[str] = "TensorRT-LLM: a fraction of the memory free after the engine loads"
    report_terms: ClassVar[tuple[str, str]] = ("Activation workspace", "CUDA context and runtime")
    profile_type: ClassVar[type[EngineProfile]] = TrtllmProfile
    fraction_flag: ClassVar[str | None] = "--kv_cache_free_gpu_memory_fraction"
    default_fraction: ClassVar[float | None] = 0.90
    log_hint: ClassVar[str] = "'Using N tokens in paged KV cache'"
    full_pool_behaviour: ClassVar[str] = (
        "TensorRT-LLM's default scheduler policy (GUARANTEED_NO_EVICT) starts a request only when its maximum KV "
        "need is guaranteed, i.e. it plans for the maximum; MAX_UTILIZATION packs more requests and pauses some "
        "when the pool runs out."
    )

    setting_fields: ClassVar[dict[str, str]] = {
        "fraction": "kv_cache_free_gpu_mem_fraction",
        "max_num_seqs": "max_batch_size",
        "max_num_batched_tokens": "max_num_tokens",
        "max_attention_window": "attention_windows",
        "enable_dp_attention": "attention_dp",
    }
    # trtllm-serve's own spelling (tensorrt_llm/commands/serve.py: --max_batch_size, --max_num_tokens; trtllm-build
    # takes the same names for an engine's built limits)
    setting_flags: ClassVar[dict[str, str]] = {
        "max_num_seqs": "--max_batch_size",
        "max_num_batched_tokens": "--max_num_tokens",
        "enable_dp_attention": "enable_attention_dp",
    }
    # KvCacheConfig.max_tokens (in the --extra_llm_api_options file): the pool is the smaller of it and the fraction's
    setting_counterparts: ClassVar[dict[str, str]] = {"max_total_tokens": "kv_cache_config.max_tokens"}
    window_setting: ClassVar[str | None] = "max_attention_window"
    running_flag: ClassVar[str] = "--max_batch_size"
    support: ClassVar[EngineSupport] = TRTLLM_SUPPORT

    def refusal(self, request: PlanRequest) -> str | None:
        """:meth:`Engine.refusal`, attention data parallelism over a TP above 1 (:func:`attention_dp_refusal`), and
        speculative decoding before trtllm-serve, which builds it into the engine (``trtllm-build
        --speculative_decoding_mode``) instead of reading an options file."""
        found = super().refusal(request) or fp8_block_refusal(request.model, request.resolved_weights, request.gpu)
        found = found or trtllm_yarn_refusal(request.model)
        overhead, options = request.overhead, request.deployment
        if found is None and isinstance(overhead, TrtllmProfile) and overhead.attention_dp:
            old = f"TensorRT-LLM {overhead.engine_version} has no enable_attention_dp (the PyTorch flow's, from 1.0)"
            found = self.ranks_refusal(request.resolved_parallelism[0]) or (None if overhead.pytorch_flow else old)
        if found is not None or options is None or options.speculative is None:
            return found
        version = overhead.engine_version if isinstance(overhead, TrtllmProfile) else TRTLLM_DEFAULT_VERSION
        if parse_version(version) >= TRTLLM_SERVE_FROM:
            why = PYTORCH_FLOW_REFUSES.get(options.speculative.method)
            return f"TensorRT-LLM {version} does not run {options.speculative.method}: {why}" if why else None
        return (
            f"TensorRT-LLM {version} builds speculative decoding into the engine "
            "(trtllm-build --speculative_decoding_mode), not planned here; plan 1.0"
        )

    def ranks_refusal(self, tensor_parallel: int) -> str | None:
        return attention_dp_refusal(tensor_parallel)

    def speculative_flags(self, spec: SpeculativeOptions, request: PlanRequest, result: PlanResult) -> list[str]:
        """``speculative_config`` in an ``--extra_llm_api_options`` YAML file (trtllm-serve has no flag of its own
        for it; 1.0's ``tensorrt_llm/llmapi/llm_args.py``: ``decoding_type`` as :data:`TRTLLM_DECODING`,
        ``max_draft_len``, ``speculative_model_dir``, the name 1.0 reads, an alias of ``speculative_model`` from
        PR #10099; MTP's ``num_nextn_predict_layers`` is its draft length), given
        here as a file the shell writes (bash process substitution); the cache's dtype, the model's attention
        windows and the memory fraction, attention data parallelism and chunked prefill, when set
        (:func:`cache_config_lines`), go in the same file, since trtllm-serve reads one."""
        k = spec.num_speculative_tokens
        trt = self._own(request.overhead if isinstance(request.overhead, TrtllmProfile) else None)
        lines = _options_lines(request, result, trt)
        lines += ["speculative_config:", f"  decoding_type: {TRTLLM_DECODING[spec.method]}"]
        if spec.method == "mtp":
            lines.append(f"  num_nextn_predict_layers: {k}")
        else:
            drafter = (
                spec.draft_model.id if spec.draft_model is not None else speculative_head(spec.method, request.model)
            )
            lines += [f"  max_draft_len: {k}", f"  speculative_model_dir: {json.dumps(drafter)}"]  # a YAML string
        return [options_flag(lines)]

    def parse_log(self, lines: Lines) -> dict[str, object] | None:
        return parse_trtllm(lines)

    def releases(self) -> tuple[str, ...]:
        """TensorRT engines (trtllm-build, C++ runtime) before 1.0; the PyTorch flow from 1.0."""
        return ("0.5.0", "0.9.0", TRTLLM_DEFAULT_VERSION)

    def _own(self, profile: EngineProfile | None) -> TrtllmProfile:
        return own_profile(profile, TrtllmProfile, "a TensorRT-LLM profile")

    def report(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> EngineReport:
        return trtllm_report(request, result, self._own(profile))

    def launch_command(self, request: PlanRequest, result: PlanResult, profile: EngineProfile | None) -> str:
        trt = self._own(profile)
        if parse_version(trt.engine_version) < TRTLLM_SERVE_FROM:
            return triton_note(result, trt)
        loading = self.weight_loading(request.model, result.weights)
        ranks = result.replicas if trt.attention_dp else 1  # enable_attention_dp: one server over every rank
        size = f"--tp_size {result.tensor_parallel * ranks}" + (
            f" --ep_size {result.tensor_parallel * ranks}" * (ranks > 1)
        )
        command = (
            f"trtllm-serve {loading.model_argument}{loading.flags} {size} --pp_size "
            f"{result.pipeline_parallel} --max_seq_len {result.max_model_len}"
            f" --max_batch_size {trt.batch_size} --max_num_tokens {trt.num_tokens}"
            f" --kv_cache_free_gpu_memory_fraction {trt.kv_cache_free_gpu_mem_fraction:g}"
        )
        speculating = speculative_method(request) is not None
        config = _options_lines(request, result, trt)
        if config and not speculating:  # else in the speculative flag's file: trtllm-serve reads one
            command += " " + options_flag(config)
        command = with_note(command, loading)
        if ranks == result.replicas:
            return command
        gpus = result.tensor_parallel * result.pipeline_parallel
        return replicas_note("trtllm-serve serves one replica a process", result.replicas, gpus) + command


def _options_lines(request: PlanRequest, result: PlanResult, trt: TrtllmProfile) -> list[str]:
    """The options file's lines for the profile's settings (:func:`cache_config_lines`)."""
    fraction, tokens = trt.kv_cache_free_gpu_mem_fraction, trt.num_tokens
    return cache_config_lines(request, result, trt.attention_windows, trt.attention_dp, fraction, tokens)


def triton_note(result: PlanResult, trt: TrtllmProfile) -> str:
    """What a release before ``trtllm-serve`` is launched with, as comment lines: an engine built by
    ``trtllm-build`` with the plan's sizes, served by Triton's tensorrtllm backend at the plan's memory fraction."""
    return (
        f"# TensorRT-LLM {trt.engine_version} has no trtllm-serve (NVIDIA/TensorRT-LLM#2667 runs it on 0.16.0): build "
        f"a TensorRT engine with trtllm-build (tp_size {result.tensor_parallel}, pp_size {result.pipeline_parallel}, "
        f"max_batch_size {trt.batch_size}, max_seq_len {result.max_model_len}, max_num_tokens {trt.num_tokens})\n"
        "# and serve it with Triton's tensorrtllm backend at kv_cache_free_gpu_mem_fraction "
        f"{trt.kv_cache_free_gpu_mem_fraction:g}"
        + (f", one server per replica ({result.replicas} in all)" if result.replicas > 1 else "")
    )


ENGINE = TrtllmEngine()

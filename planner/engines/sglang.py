"""SGLang: ``mem_fraction_static`` of the memory free when its weights start loading, for weights plus the KV pool.

Source: ``python/sglang/srt/model_executor/model_runner.py`` ``profile_max_num_token`` (0.5.18:
``mem_cache/kv_cache_configurator.py`` ``_profile_available_bytes``): ``rest_memory = available_gpu_memory -
pre_model_load_memory x (1 - mem_fraction_static)``, ``max_num_token = rest // cell_size``, where
``pre_model_load_memory`` is what was free before the weights loaded (the device total less what other processes
and SGLang's own start-up hold); activations and CUDA graphs live in the ``1 - mem_fraction_static`` rest,
unprofiled. The default fraction comes from ``server_args.py`` (a heuristic since v0.5.3, sglang PR #10975), read
from the total ``nvidia-smi`` reports.
"""

from __future__ import annotations

import math
from typing import ClassVar, Literal

from planner.core.kv import kv_bytes_per_token_in_layers
from planner.core.model import ModelSpec
from planner.core.overhead import (
    EngineProfile,
    Fraction,
    LoadContext,
    OverheadBytes,
    PositiveInt,
    SglangRelease,
    StageContext,
    parse_version,
)
from planner.core.platform import DevicePlatform
from planner.core.units import GiB
from planner.deploy.options import SpeculativeOptions
from planner.deploy.spark_hosts import unified_host_bytes
from planner.engines.base import (
    BEFORE_KV_CACHE,
    Engine,
    EngineReport,
    engine_total_bytes,
    own_profile,
    stage_total_bytes,
)
from planner.engines.loading import kernel_padding_bytes
from planner.engines.logscan import Lines
from planner.engines.sglang_launch import (
    DP_ATTENTION_SPREAD,
    launch_lines,
    launch_notes,
    server_command,
    speculative_words,
)
from planner.engines.sglang_logparse import parse_sglang
from planner.engines.sglang_pool import (
    Pool,
    cap_bytes,
    pool_failure,
    request_apart,
    settle,
    split_line,
    swa_split,
)
from planner.engines.sglang_rules import (
    SGLANG_DEFAULT_VERSION,
    SGLANG_RELEASES,
    SGLANG_VLM_FACTOR,
    FractionInputs,
    context_failure,
    dsa_kv_dtype,
    heuristic_total_bytes,
    pool_line,
    sglang_default_mem_fraction,
    sglang_defaults,
    sglang_running,
    short_pool_lines,
    speculative_running,
    vlm,
    vlm_reserve_bytes,
)
from planner.engines.sglang_support import SGLANG_SUPPORT
from planner.engines.support import EngineSupport
from planner.planning.context import result_context
from planner.planning.extras import stage_drafter
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult

# Memory SGLang holds before its weights load (CUDA context, torch's and NCCL's init, custom all-reduce): TP 1, a
# device total less the "Load weight begin. avail mem" of SGLang's docs CI on an H100 (79.19 - 78.43 GiB; the
# blind set's other unshared H100 and B200 logs show 0.71-0.78); TP > 1 from the planner's earlier estimate.
SGLANG_LOAD_OVERHEAD_TP1 = round(0.76 * GiB)
SGLANG_LOAD_OVERHEAD_TP = round(1.5 * GiB)


class SglangProfile(EngineProfile, frozen=True, extra="forbid"):
    """SGLang: ``mem_fraction_static`` of total memory for weights plus the KV pool."""

    kind: Literal["sglang"] = "sglang"
    engine_version: SglangRelease = SGLANG_DEFAULT_VERSION
    mem_fraction_static: Fraction | None = None  # None: SGLang's heuristic (sglang_default_mem_fraction)
    chunked_prefill_size: PositiveInt | None = None
    cuda_graph_max_bs: PositiveInt | None = None
    page_size: PositiveInt = 1
    max_total_tokens: PositiveInt | None = None  # a cap on the pool's tokens (--max-total-tokens)
    max_running_requests: PositiveInt | None = None  # None: the scheduler's own (sglang_running)
    disable_cuda_graph: bool = False  # --disable-cuda-graph: no graph captured; the default fraction is the same
    enable_dp_attention: bool = False  # --enable-dp-attention: attention TP 1, a rank a GPU (sglang_launch)

    @property
    def attends_per_gpu(self) -> bool:
        return self.enable_dp_attention

    def server_tp(self, tensor_parallel: int, replicas: int) -> int:
        """The server's ``--tp``: every rank's GPUs under ``--enable-dp-attention`` (its NCCL group), else TP."""
        return tensor_parallel * replicas if self.enable_dp_attention else tensor_parallel

    def spread_over_replicas(self, model: ModelSpec) -> frozenset[str]:
        """Under ``--enable-dp-attention`` the MoE, dense-MLP and lm_head layers keep the whole ``--tp`` group
        (:data:`planner.engines.sglang_launch.DP_ATTENTION_SPREAD`); plain ``--dp`` replicas are whole copies."""
        return DP_ATTENTION_SPREAD if self.enable_dp_attention and model.moe is not None else frozenset()

    def kv_dtype_for(self, model: ModelSpec, platform: DevicePlatform | None) -> str | None:
        """SGLang's own cache for a DeepSeek sparse-attention model (:func:`dsa_kv_dtype`), else the model's."""
        return dsa_kv_dtype(model, platform, self.engine_version)

    def fraction(
        self,
        gpu_memory_bytes: int,
        tensor_parallel: int,
        pipeline_parallel: int = 1,
        inputs: FractionInputs | None = None,
    ) -> float:
        """The fraction in force: the given one or the heuristic, times 0.95 for a vision-language model."""
        inputs = inputs or FractionInputs(disable_cuda_graph=self.disable_cuda_graph)
        fraction = self.mem_fraction_static
        if fraction is None:
            fraction = sglang_default_mem_fraction(
                gpu_memory_bytes,
                tensor_parallel,
                pipeline_parallel,
                self.engine_version,
                self.chunked_prefill_size,
                self.cuda_graph_max_bs,
                inputs,
            )
        return fraction * SGLANG_VLM_FACTOR if inputs.multimodal else fraction

    @staticmethod
    def load_overhead_bytes(tensor_parallel: int) -> int:
        return SGLANG_LOAD_OVERHEAD_TP if tensor_parallel > 1 else SGLANG_LOAD_OVERHEAD_TP1

    @staticmethod
    def before_loading_bytes(total_bytes: int, other_bytes: int, tensor_parallel: int, integrated: bool) -> int:
        """``pre_model_load_memory``: free when the weights start loading, after other processes, on unified memory
        the host's share (:func:`planner.deploy.spark_hosts.unified_host_bytes`: SGLang reads free memory as CUDA
        reports it, the host's ``MemAvailable`` there), and SGLang's own start-up (:meth:`load_overhead_bytes`)."""
        host = SglangProfile.host_share_bytes(integrated)
        return max(0, total_bytes - other_bytes - host - SglangProfile.load_overhead_bytes(tensor_parallel))

    @staticmethod
    def host_share_bytes(integrated: bool) -> int:
        """On unified memory, what the host holds of the pool beyond SGLang's own start-up
        (:func:`planner.deploy.spark_hosts.unified_host_bytes`); none on a discrete GPU."""
        return unified_host_bytes(SGLANG_LOAD_OVERHEAD_TP1) if integrated else 0

    def kv_cap_bytes(self, ctx: StageContext, kv_bytes_per_token: int) -> int | None:
        """``--max-total-tokens`` in bytes (:func:`planner.engines.sglang_pool.cap_bytes`)."""
        cap = self.kv_token_cap()
        return None if cap is None else cap_bytes(ctx, self.engine_version, cap, self.page_size, kv_bytes_per_token)

    def kv_token_cap(self) -> int | None:
        """``--max-total-tokens`` in whole pages (``model_runner.py:1690-1703``: the smaller of it and the profiled
        pool, then ``// page_size * page_size``)."""
        cap = self.max_total_tokens
        return None if cap is None else cap // self.page_size * self.page_size

    def fraction_inputs_of(self, ctx: StageContext) -> FractionInputs:
        """What the default fraction reads of the model and the deployment (:class:`FractionInputs`)."""
        return FractionInputs(
            multimodal=vlm(ctx.model),
            mla=ctx.model.mla is not None,
            lora=ctx.lora,
            speculative=ctx.speculative_method,
            disable_cuda_graph=self.disable_cuda_graph,
            dp_ranks=ctx.attention_ranks,
        )

    def fraction_of(self, ctx: StageContext) -> float:
        """:meth:`fraction` on the GPU of ``ctx``, its default read from the total ``nvidia-smi`` reports
        (:func:`heuristic_total_bytes`) and the server's ``--tp`` (every rank's GPUs under data-parallel
        attention): the one the plan, the report and the launch command use."""
        smi_total = heuristic_total_bytes(ctx.platform, ctx.device_total_bytes, ctx.gpu_memory_bytes)
        return self.fraction(smi_total, ctx.server_tensor_parallel, ctx.pipeline_parallel, self.fraction_inputs_of(ctx))

    def loaded_weights_bytes(self, ctx: LoadContext) -> int:
        """The checkpoint's bytes and the padding of the MoE and Marlin kernels SGLang shares with vLLM
        (:func:`planner.engines.loading.kernel_padding_bytes`)."""
        return ctx.weights_bytes + kernel_padding_bytes(ctx)

    def per_gpu(self, ctx: StageContext) -> OverheadBytes:
        """Reserved ``(1 - mem_fraction_static)`` of the memory free when the weights start loading (activations
        and graphs live there, unprofiled): ``pre_model_load_memory x (1 - f)`` (0.5.18
        ``mem_cache/kv_cache_configurator.py`` ``_profile_available_bytes``; 0.5.4 ``model_runner.py``
        ``profile_max_num_token``), so memory other processes hold shrinks it, and the budget a vision-language model
        loses from 0.5.18 (:func:`vlm_reserve_bytes`); framework = what SGLang holds before loading."""
        fraction = self.fraction_of(ctx)
        integrated = ctx.platform is not None and ctx.platform.integrated
        tp = ctx.server_tensor_parallel  # the server's --tp: its NCCL group
        before = self.before_loading_bytes(ctx.gpu_memory_bytes, ctx.other_bytes, tp, integrated)
        host = self.host_share_bytes(integrated)  # the host's share: not free either
        return OverheadBytes(
            activation_bytes=0,
            framework_bytes=self.load_overhead_bytes(tp),
            reserved_bytes=before
            - math.floor(fraction * before)
            + vlm_reserve_bytes(self.engine_version, ctx.model)
            + host,
        )


def _pool_tokens(request: PlanRequest, result: PlanResult, profile: SglangProfile, fraction: float) -> Pool:
    """The pool at ``fraction``: ``rest = f x pre_model_load_memory - what loaded`` on each rank
    (:meth:`SglangProfile.per_gpu`), the tightest stage wins; in whole pages, at most the cap
    (:meth:`SglangProfile.kv_token_cap`; ``model_runner.py:1690-1703``)."""
    model, tp = request.model, result.tensor_parallel
    server_tp = profile.server_tp(tp, result.replicas)  # the --tp group NCCL joins
    integrated = request.gpu is not None and request.gpu.platform.integrated
    version = profile.engine_version
    apart = request_apart(request, version)
    found: list[Pool] = []
    for index, stage in enumerate(result.stages):
        layers = range(*stage.layers)
        # LoRA pool and draft weights are allocated before init_memory_pool; other processes' memory is not free.
        weights = stage.weights_bytes + stage.lora_bytes + stage.draft_bytes  # as loaded (loaded_weights_bytes)
        total = stage_total_bytes(request, result, index)
        before = profile.before_loading_bytes(total, stage.other_bytes, server_tp, integrated)
        rest = math.floor(fraction * before) - weights - vlm_reserve_bytes(profile.engine_version, model)
        last = index == len(result.stages) - 1
        drafter = stage_drafter(request, tp, last).kv_bytes_per_token
        cell = kv_bytes_per_token_in_layers(model, request.resolved_kv_dtype, tp, layers) + drafter
        split = swa_split(model, request.resolved_kv_dtype, tp, (layers, last), drafter, version) if apart else None
        held = (split.full_tokens(rest) if split else max(0, rest) // cell) if cell else 0
        found.append(Pool(held, held, cell, rest, weights, before, split))
    return settle(found, profile.page_size, profile.kv_token_cap(), version)


def sglang_report(request: PlanRequest, result: PlanResult, profile: SglangProfile) -> EngineReport:
    """SGLang's ``KV Cache is allocated`` and scheduler lines (``max_running_requests`` default:
    ``min(max(int(tokens / context_len x 512), 2048), 4096)``)."""
    model, total = request.model, engine_total_bytes(request)
    ctx = result_context(request, result, 0, total)
    inputs, fraction = profile.fraction_inputs_of(ctx), profile.fraction_of(ctx)
    first = _pool_tokens(request, result, profile, fraction)
    tokens, rest_first, before = first.tokens, first.rest_bytes, first.before_bytes
    max_len = result.max_model_len
    pool = first.pool_bytes(tokens, profile.page_size)
    # with --enable-dp-attention the whole server's (48 under speculation unless given), a rank's share is // dp
    given = speculative_running(profile.max_running_requests, inputs.speculative is not None)
    given = max(1, given // result.replicas) if given and profile.enable_dp_attention else given
    running = sglang_running(tokens, max_len, given, profile.engine_version)  # tp_worker.py: per rank
    lines = [
        split_line(tokens, profile.page_size)
        if first.split
        else pool_line(profile.engine_version, request.resolved_kv_dtype, tokens, pool, model.mla is not None),
        f"max_total_num_tokens={tokens}, max_running_requests={running}, context_len={max_len}",
    ]
    lines[:0] = launch_lines(profile, first.profiled)
    too_long = context_failure(model, max_len)  # ModelConfig refuses it before loading: no pool is allocated
    failure = too_long or pool_failure(first, fraction, model, (profile.engine_version, profile.page_size))
    if failure is None:
        lines += short_pool_lines(profile.engine_version, tokens, max_len)
    if failure is not None:
        lines = [failure[1]] if failure[0] in BEFORE_KV_CACHE else [*lines, failure[1]]
    default = " (SGLang's default heuristic)" if profile.mem_fraction_static is None else ""
    if vlm(model):
        default += f", x{SGLANG_VLM_FACTOR} for a vision-language model"
    return EngineReport(
        engine="sglang",
        engine_version=profile.engine_version,
        total_memory_bytes=total,
        budget_bytes=math.floor(fraction * before),
        fraction=fraction,
        weights_bytes=first.weights_bytes,
        activation_bytes=0,
        non_torch_bytes=profile.load_overhead_bytes(ctx.server_tensor_parallel),
        cuda_graph_bytes=0,
        available_kv_cache_bytes_per_gpu=pool if tokens > 0 else rest_first,
        min_available_kv_cache_bytes=pool if tokens > 0 else rest_first,
        block_size=profile.page_size,
        gpu_blocks=tokens // profile.page_size,
        kv_cache_groups=1,
        kv_cache_tokens=tokens,
        max_model_len=max_len,
        max_concurrency=tokens / max_len,
        fits_max_model_len=tokens >= max_len,
        estimated_max_model_len=None if tokens >= max_len else max(0, tokens - 1),
        fits=failure is None,
        lines=tuple(lines),
        notes=(
            f"mem_fraction_static = {fraction:.3f}{default}",
            *launch_notes(profile, total, ctx.server_tensor_parallel, result.pipeline_parallel, inputs),
        ),
        failure_kind=failure[0] if failure else None,
        failure=failure[1] if failure else None,
        max_running=running or None,
    )


class SglangEngine(Engine):
    name: ClassVar[str] = "sglang"
    label: ClassVar[str] = "SGLang"
    description: ClassVar[str] = "SGLang: mem_fraction_static of memory for weights + KV pool"
    report_terms: ClassVar[tuple[str, str]] = (
        "",
        "Held before the weights load (CUDA context, NCCL, SGLang's start-up)",
    )
    profile_type: ClassVar[type[EngineProfile]] = SglangProfile
    fraction_flag: ClassVar[str | None] = "--mem-fraction-static"
    default_fraction: ClassVar[float | None] = None
    log_hint: ClassVar[str] = "'KV Cache is allocated. #tokens: N, K size: X GB, V size: Y GB'"
    full_pool_behaviour: ClassVar[str] = (
        "SGLang first evicts cached prefixes nobody is using (radix cache); if the pool still cannot hold the next "
        "decode step it retracts running requests back to the waiting queue, frees their KV and re-runs their "
        "prefill later, and lowers the share of memory it reserves for new tokens so it admits fewer requests "
        "at once. Users see a pause, not an error."
    )

    # srt/server_args.py (0.5.4): --max-running-requests :1806, --max-total-tokens :1818, --chunked-prefill-size
    # :1825, --cuda-graph-max-bs :2858, --disable-cuda-graph :2870; the chunk and the graphs' batch enter the default
    # mem_fraction_static (sglang_default_mem_fraction), the running requests what is served at once, the token cap
    # the pool (_pool_tokens); --disable-cuda-graph changes no figure (launch_notes)
    setting_fields: ClassVar[dict[str, str]] = {
        "fraction": "mem_fraction_static",
        "max_num_seqs": "max_running_requests",
        "max_num_batched_tokens": "chunked_prefill_size",
        "max_cudagraph_capture_size": "cuda_graph_max_bs",
        "max_total_tokens": "max_total_tokens",
        "enforce_eager": "disable_cuda_graph",
        "enable_dp_attention": "enable_dp_attention",
    }
    setting_flags: ClassVar[dict[str, str]] = {
        "max_num_seqs": "--max-running-requests",
        "max_num_batched_tokens": "--chunked-prefill-size",
        "max_cudagraph_capture_size": "--cuda-graph-max-bs",
        "max_total_tokens": "--max-total-tokens",
        "enforce_eager": "--disable-cuda-graph",
        "enable_dp_attention": "--enable-dp-attention",
    }
    # --disable-radix-cache (0.5.4 srt/server_args.py :2853) resizes the Mamba and windowed pools (0.5.18
    # kv_cache_configurator.py :1813-1815, pool_configurator.py :652-663), not planned (planner.engines.sglang_pool)
    setting_counterparts: ClassVar[dict[str, str]] = {"enable_prefix_caching": "--disable-radix-cache"}
    setting_instead: ClassVar[dict[str, str]] = {
        "kv_cache_memory_bytes": "its own cap is --max-total-tokens (tokens, planned)",
    }
    setting_unplanned: ClassVar[dict[str, str]] = {
        "load_format": "the memory a loader holds is read for vLLM's loaders only (its default loader is planned)",
    }
    running_flag: ClassVar[str] = "--max-running-requests"
    support: ClassVar[EngineSupport] = SGLANG_SUPPORT

    def flag_for(self, setting: str, version: str | None = None) -> str:
        """From 0.5.20 the graphs' batch is ``--cuda-graph-max-bs-decode`` (``srt/arg_groups/fields/exec_.py``
        ``cuda_graph_max_bs_decode``; ``--cuda-graph-max-bs`` is gone, and as a prefix of the decode and prefill
        flags argparse refuses it as ambiguous)."""
        if setting == "max_cudagraph_capture_size" and parse_version(version or SGLANG_DEFAULT_VERSION) >= (0, 5, 20):
            return "--cuda-graph-max-bs-decode"
        return super().flag_for(setting, version)

    def speculative_flags(self, spec: SpeculativeOptions, request: PlanRequest, result: PlanResult) -> list[str]:
        return [speculative_words(spec, request.model)]  # planner.engines.sglang_launch

    def kv_cache_flags(self, kv_dtype: str) -> tuple[str, ...]:
        name = self.support.kv_cache_names.get(kv_dtype, "auto")
        return () if name == "auto" else ("--kv-cache-dtype", name)

    def parse_log(self, lines: Lines) -> dict[str, object] | None:
        return parse_sglang(lines)

    def prefill_chunk_tokens(self, gpu_memory_bytes: int, gpu_name: str, tensor_parallel: int) -> int | None:
        """``chunked_prefill_size`` by GPU memory: 2,048 under 35 GiB, 4,096 under 60, 8,192 under 160, else 16,384
        (sglang 0.5.3 ``srt/server_args.py:542-627``, ``_handle_gpu_memory_settings``; :func:`sglang_defaults`)."""
        return sglang_defaults(gpu_memory_bytes, tensor_parallel)[0]

    def releases(self) -> tuple[str, ...]:
        """Before 0.5.3 a fixed fraction by TP size; from 0.5.3 the memory heuristic (sglang PR #10975), by
        release to 0.5.23 (:mod:`planner.engines.sglang_rules`)."""
        return SGLANG_RELEASES

    def _own(self, profile: EngineProfile | None) -> SglangProfile:
        return own_profile(profile, SglangProfile, "an SGLang profile")

    def report(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> EngineReport:
        return sglang_report(request, result, self._own(profile))

    def launch_command(self, request: PlanRequest, result: PlanResult, profile: EngineProfile | None) -> str:
        sg = self._own(profile)
        ctx = result_context(request, result, 0, engine_total_bytes(request))
        ranks = result.replicas if sg.attends_per_gpu else 1  # this profile's ranks, whichever engine's plan it is
        fraction = sg.fraction_of(ctx.model_copy(update={"attention_ranks": ranks}))
        return server_command(self, request, result, sg, fraction)


ENGINE = SglangEngine()

"""What vLLM prints at start-up for a plan, the largest ``--max-model-len`` it accepts, and its command line.

Block accounting: :mod:`planner.engines.vllm.blocks`. V1 lines follow ``vllm/v1/core/kv_cache_utils.py``
(``_report_kv_cache_config``, ``check_enough_kv_cache_memory``); V0 lines ``vllm/worker/worker.py``.
"""

from __future__ import annotations

import math

from planner.core.model import ModelSpec
from planner.deploy.sysmem import spill_note
from planner.engines.base import BEFORE_KV_CACHE, EngineReport, engine_total_bytes, gib_text, stage_total_bytes
from planner.engines.checkpoints import GGUF, gguf_file, model_word, weight_loading, with_note
from planner.engines.commands import replicas_note as one_per_replica
from planner.engines.loading import kernel_padding_bytes
from planner.engines.platform import vllm_platform
from planner.engines.vllm.blocks import (
    StageOverrides,
    VllmStage,
    estimate_max_len,
    has_linear_layers,
)
from planner.engines.vllm.capacity import Capacity, capacity, v0_lines, v1_lines
from planner.engines.vllm.caveats import first_boot_bytes, machine_notes
from planner.engines.vllm.compile_cache import cold_note
from planner.engines.vllm.defaults import batch_raise_line
from planner.engines.vllm.deployment_notes import deployment_notes, lmcache_command_line
from planner.engines.vllm.extensible import margin_bytes
from planner.engines.vllm.failures import capture_bytes, max_num_seqs_of, sampler_headroom, spills, vllm_failure
from planner.engines.vllm.in_flight import in_flight_tokens, window_note
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.rope import derived_max_model_len
from planner.engines.vllm.stage import StartChecks, vllm_stage, vllm_stage_kept
from planner.engines.vllm.start_memory import Failure, free_at_start
from planner.engines.vllm.support import VLLM_SUPPORT
from planner.engines.vllm.towers import limit_mm_argument, replicated_tower_extra_bytes
from planner.engines.vllm.versions import first_release_with, release_note
from planner.engines.yarn import vllm_yarn_flags
from planner.planning.context import result_context, speculative_method
from planner.planning.plan import PlanRequest, load_context
from planner.planning.results import PlanResult


def _sampler_note(request: PlanRequest, result: PlanResult, profile: VllmProfile, last: VllmStage) -> str | None:
    """A warning when the post-capture sampler warm-up has less room than logged warm-ups that ran out of it (none
    with the extensible KV cache: the warm-up runs before the pool is committed)."""
    if last.capacity is not None:
        return None
    free, need = sampler_headroom(request, result, profile, last)
    if not profile.is_v1 or profile.enforce_eager:
        return None
    if free < need:  # refused, unless the overflow runs from system memory (planner.deploy.sysmem)
        spilled = spills(request, result)
        return spill_note(need - free, "The CUDA-graph capture and sampler warm-up") if spilled else None
    ratio = free / need if need else math.inf
    if ratio >= profile.fitted.sampler_risk_ratio:
        return None
    return (
        f"Sampler warm-up after CUDA-graph capture: {gib_text(free)} GiB free for a {gib_text(need)} GiB peak "
        f"(x{ratio:.2f}); logged warm-ups ran out of memory up to x{profile.fitted.sampler_risk_ratio:.2f} (0.19 "
        "gpt-oss-20b at util 0.95, allocator fragmentation). If start-up fails there, lower "
        "--gpu-memory-utilization or --max-num-seqs."
    )


def _notes(
    request: PlanRequest,
    result: PlanResult,
    profile: VllmProfile,
    stages: list[VllmStage],
    cap: Capacity,
    first_boot: int,
) -> list[str]:
    first = stages[0]
    release = release_note(profile.engine_version)
    windows = window_note(first.groups, cap.batched, cap.reserved, result.max_model_len) if profile.is_v1 else None
    notes = [n for n in (release, windows) if n]
    layers = range(*result.stages[0].layers)
    extra = kernel_padding_bytes(load_context(request, 0, result.tensor_parallel, result.pipeline_parallel, 0, layers))
    if extra:
        notes.append(
            f"Weights as loaded exceed the checkpoint by {gib_text(extra)} GiB per GPU on this GPU (MXFP4 experts "
            "padded for the MoE kernels, or Marlin's 16-bit FP8 scales on GPUs without FP8)."
        )
    graphs = first.graphs
    if graphs.total:
        notes.append(
            f"CUDA graphs: {graphs.mode}, {graphs.piecewise} piecewise + {graphs.full} full (sizes up to "
            f"{graphs.sizes[-1]}), estimated {gib_text(first.cuda_graph)} GiB per GPU."
        )
    if has_linear_layers(first):
        notes.append(
            f"Hybrid model: attention blocks of {first.block_size} tokens (one state page per block), "
            f"{first.mamba_pages} state page(s) per running sequence in each linear-attention group."
        )
    if replicated_tower_extra_bytes(request.model, request.resolved_weights, result.tensor_parallel, True):
        notes.append(
            "Vision encoder whole on every GPU: vLLM loads this repo's Mistral-format files "
            "(PixtralForConditionalGeneration, plain nn.Linear layers), so the tower is not split by TP."
        )
    if first.capacity is not None:
        notes.append(extensible_note(first, vllm_platform(request.gpu).runtime))
    elif (
        not profile.graphs_in_budget(request.model, request.resolved_weights, speculative_method(request))
        and not profile.enforce_eager
        and profile.is_v1
    ):
        captured = capture_bytes(request, result, profile, stages[-1])  # what the start-up check weighs
        notes.append(
            f"CUDA graphs (~{gib_text(captured)} GiB planned) are captured after KV sizing and use the "
            f"(1 - gpu_memory_utilization) headroom in v{profile.engine_version}."
        )
    if profile.is_v1:
        notes += _profile_notes(request, result, profile, stages[-1])
    return [
        *notes,
        *deployment_notes(request, result, profile),
        *machine_notes(request, result, profile, first, first_boot),
    ]


def _profile_notes(request: PlanRequest, result: PlanResult, profile: VllmProfile, last: VllmStage) -> list[str]:
    """The V1 profile run's terms in words, and the sampler warm-up's warning where it applies."""
    ctx = result_context(request, result, 0, engine_total_bytes(request))
    tokens, seqs = profile.batch(ctx.gpu_memory_bytes, ctx.gpu_name, result.max_model_len, request.model)
    t = profile.terms(request.model, ctx, tokens, seqs)
    sampler = profile.sampler_for(request.model, request.resolved_weights, speculative_method(request))
    run = (
        f"Profile run of v{profile.engine_version} ({tokens} tokens, {min(seqs, tokens)} sampler rows, "
        f"{sampler} sampler): forward {gib_text(t.forward)}, sampler {gib_text(t.sampler)}, "
        f"MoE workspace {gib_text(t.moe_workspace)}, encoder {gib_text(t.encoder)}, pipeline buffers "
        f"{gib_text(t.pp_buffers)} GiB -> peak {gib_text(t.peak)} GiB."
    )
    warning = _sampler_note(request, result, profile, last)
    return [run, warning] if warning else [run]


def extensible_note(first: VllmStage, runtime: str) -> str:
    """How vLLM 0.34's extensible KV cache sized the pool (:mod:`planner.engines.vllm.extensible`)."""
    margin = margin_bytes(first.activation, runtime)
    floor = "3 GiB on ROCm" if runtime == "rocm" else "1 GiB"
    return (
        f"Extensible KV cache (vLLM 0.34): the pool is committed after warm-up and CUDA-graph capture "
        f"(~{gib_text(first.cuda_graph)} GiB, measured, not estimated), from the memory free then less the "
        f"{gib_text(first.activation)} GiB transient peak and a {gib_text(margin)} GiB margin left free (max({floor}, "
        f"0.75 x the peak)): {gib_text(first.available)} GiB per GPU. Its 'Available KV cache memory' line prints "
        f"the capacity reserved ({gib_text(max(0, first.capacity or 0))} GiB), not the pool."
    )


def _printed(
    request: PlanRequest, profile: VllmProfile, total: int, lines: list[str], failure: Failure | None
) -> list[str]:
    """The lines vLLM prints, in order: the batch raised for a prefix-LM model (logged as the arguments are read),
    the KV-cache lines (none when it stops before sizing the cache) and the error it stops with."""
    if failure is not None and failure[0] in BEFORE_KV_CACHE:
        lines = []
    if failure is not None and failure[1] not in lines:
        lines = [*lines, failure[1]]
    raised = batch_raise_line(profile.batch_flags, total, request.gpu.name if request.gpu else None, request.model)
    return [raised, *lines] if raised else lines


def vllm_report(
    request: PlanRequest,
    result: PlanResult,
    profile: VllmProfile,
    overrides: StageOverrides | None = None,
    notes: bool = True,
) -> EngineReport:
    """What vLLM prints: available KV memory per rank, KV cache tokens, maximum concurrency, and why it does not
    start when it does not (:func:`planner.engines.vllm.failures.vllm_failure`; ``overrides``: figures from a
    log; ``notes`` False: without the notes, nothing else changes)."""
    total = engine_total_bytes(request)
    util_total = overrides.util_total if overrides is not None else None
    kept = [
        vllm_stage_kept(request, result, profile, i, stage_total_bytes(request, result, i), overrides)
        for i in range(len(result.stages))
    ]
    stages = [stage for stage, _ in kept]
    # The start-up checks kept with a one-stage plan's stage, without deployment options (its key holds all they
    # read: the device total is then the stage's): vllm_failure.
    checks = kept[0][1] if len(kept) == 1 and request.deployment is None else None
    first, max_len = stages[0], result.max_model_len
    cap = capacity(request, result, profile, stages)
    if profile.is_v1:
        fixed = free_at_start(request, result, profile)[1] if profile.kv_cache_memory_bytes is not None else None
        lines = v1_lines(stages, cap, max_len, fixed)
    else:
        lines = v0_lines(first, cap, max_len, total, profile.utilization)
    failure = vllm_failure(request, result, profile, stages, cap.min_available, cap.fits_len, cap.estimated, checks)
    seqs = max_num_seqs_of(request, profile)  # as the launch command
    lines = _printed(request, profile, total, lines, failure)
    boot = kept_first_boot(request, result, profile, kept[0][1])
    return EngineReport(
        engine="vllm",
        engine_version=profile.engine_version,
        total_memory_bytes=util_total or total,
        budget_bytes=math.floor(profile.utilization_for(request.gpu) * (util_total or total)),
        fraction=None if profile.kv_cache_memory_bytes is not None else profile.utilization_for(request.gpu),
        weights_bytes=first.weights,
        activation_bytes=first.activation,
        non_torch_bytes=first.non_torch,
        cuda_graph_bytes=first.cuda_graph,
        available_kv_cache_bytes_per_gpu=first.available,
        min_available_kv_cache_bytes=cap.min_available,
        block_size=first.block_size,
        gpu_blocks=cap.blocks,
        kv_cache_groups=cap.groups,
        kv_cache_tokens=cap.tokens,
        max_model_len=max_len,
        max_concurrency=cap.concurrency,
        fits_max_model_len=cap.fits_len,
        estimated_max_model_len=cap.estimated,
        fits=failure is None,
        lines=tuple(lines),
        notes=tuple(_notes(request, result, profile, stages, cap, boot)) if notes else (),
        first_boot_bytes=boot,
        failure_kind=failure[0] if failure else None,
        failure=failure[1] if failure else None,
        max_running=seqs,
    )


def kept_first_boot(request: PlanRequest, result: PlanResult, profile: VllmProfile, first: StartChecks | None) -> int:
    """:func:`first_boot_bytes`, kept with the first stage where :func:`vllm_stage_kept` keeps it (``first``, its
    checks; ``None``: computed afresh): it reads the profile, the model and the first stage's context at that stage's
    device total, which the stage's key holds (the context's length only through the batch, whose length is in the
    key), so a ranking at another context (the advisor's slider) builds no context for it again."""
    if first is None:
        return first_boot_bytes(request, result, profile)
    if first.first_boot is StartChecks.UNSET:
        first.first_boot = first_boot_bytes(request, result, profile)
    found: int = first.first_boot
    return found


def vllm_max_model_len(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> int:
    """The largest ``--max-model-len`` the set-up accepts (``estimate_max_model_len``), capped at the model's
    length (:func:`derived_max_model_len`); 0 when no KV memory is left."""
    limit = derived_max_model_len(request.model)
    totals = [stage_total_bytes(request, result, i) for i in range(len(result.stages))]
    stages = [vllm_stage(request, result, profile, i, stage_total) for i, stage_total in enumerate(totals)]
    if min(s.available for s in stages) <= 0:
        return 0
    if not profile.is_v1:
        return min(limit, min(s.blocks for s in stages) * stages[0].block_size)
    return estimate_max_len(stages, limit, in_flight_tokens(request, result, profile)[1])


VLLM_KV_FLAGS = {
    "fp8": " --kv-cache-dtype fp8",
    "fp8_e4m3": " --kv-cache-dtype fp8_e4m3",
    "fp8_e5m2": " --kv-cache-dtype fp8_e5m2",
}


def vllm_launch_command(request: PlanRequest, result: PlanResult, profile: VllmProfile) -> str:
    """``vllm serve`` with the plan's weights (:mod:`planner.engines.checkpoints`), parallelism, memory fraction,
    context, batch and KV dtype."""
    tp, pp, dp = result.tensor_parallel, result.pipeline_parallel, result.replicas
    seqs = max_num_seqs_of(request, profile)
    loading = weight_loading(VLLM_SUPPORT, request.model, result.weights)
    flags = loading.flags
    if result.weights == "bf16" and request.gpu is not None and request.gpu.compute.bf16 == "none":
        # a GPU without BF16 (the catalog's compute figure; below sm_80): to 0.8.5 vLLM stops ("Bfloat16 is only
        # supported on GPUs with compute capability of at least 8.0 ... --dtype=half", v1/worker/gpu_worker.py:346);
        # from 0.9.0 it falls back itself (config.py:3086)
        flags = flags.replace(" --dtype bfloat16", "") + " --dtype half"
    argument = loading.model_argument
    if result.weights in GGUF:  # vLLM loads one local GGUF file, its tokenizer from the original repository
        argument = gguf_file(request.model, result.weights.upper())
    server = lmcache_command_line(request, result, profile)  # an LMCache server to start first (0.23.0 on)
    command = f"{server}{environment(profile)}vllm serve {argument}{flags} --tensor-parallel-size {tp}"
    if result.weights in GGUF:
        command += f" --tokenizer {model_word(request.model)[0]}"
    if pp > 1:
        command += f" --pipeline-parallel-size {pp}"
    if dp > 1 and profile.rules.flag_data_parallel_size:
        command += f" --data-parallel-size {dp}"
    if profile.kv_cache_memory_bytes is not None:
        command += f" --kv-cache-memory-bytes {profile.kv_cache_memory_bytes}"
    if profile.kv_cache_memory_bytes is None or profile.gpu_memory_utilization is not None:
        # with a fixed KV size the fraction still sets the start-up check of free memory (start_memory.py)
        command += f" --gpu-memory-utilization {profile.utilization_for(request.gpu):g}"
    command += f" --max-model-len {result.max_model_len} --max-num-seqs {seqs}{VLLM_KV_FLAGS.get(result.kv_dtype, '')}"
    command += vllm_yarn_flags(request.model, profile.rules.yarn_rope_parameters)  # a documented YaRN, switched on
    command = cold_note(profile.compile_cache) + with_note(command + knob_flags(profile, request.model), loading)
    if dp > 1 and not profile.rules.flag_data_parallel_size:
        return replicas_note(profile, dp, tp * pp) + command
    return command


def environment(profile: VllmProfile) -> str:
    """The environment variables a plan sets beyond the release's defaults, as the command's prefix.

    >>> environment(VllmProfile(engine_version="0.26.0", use_v2_model_runner=False, allow_long_max_model_len=True))
    'VLLM_USE_V2_MODEL_RUNNER=0 VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 '
    >>> environment(VllmProfile())
    ''
    """
    settings = (
        ("VLLM_USE_V2_MODEL_RUNNER", profile.use_v2_model_runner),
        ("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", profile.estimate_cudagraphs),
        ("VLLM_ALLOW_LONG_MAX_MODEL_LEN", profile.allow_long_max_model_len or None),
    )
    return "".join(f"{name}={int(value)} " for name, value in settings if value is not None)


def replicas_note(profile: VllmProfile, replicas: int, gpus: int) -> str:
    """A release before ``--data-parallel-size`` (0.8.3) serves one replica a process: the comment line that says so.

    >>> replicas_note(VllmProfile(engine_version="0.7.2"), 4, 2).rstrip()
    '# vLLM 0.7.2 has no --data-parallel-size (it came with 0.8.3): run this command once per replica, 4 in all, \
each on its own 2 GPUs (CUDA_VISIBLE_DEVICES), behind a load balancer'
    """
    since = first_release_with("flag_data_parallel_size")
    return one_per_replica(
        f"vLLM {profile.engine_version} has no --data-parallel-size (it came with {since})", replicas, gpus
    )


def knob_flags(profile: VllmProfile, model: ModelSpec | None = None) -> str:
    """The settings a plan carries beyond the defaults, as ``vllm serve`` flags (the speculative config is a
    deployment setting: :func:`planner.assessment.summary.launch_settings`); ``--limit-mm-per-prompt`` names each
    modality of ``model`` (:func:`limit_mm_argument`)."""
    flags = ""
    if profile.max_num_batched_tokens:
        flags += f" --max-num-batched-tokens {profile.max_num_batched_tokens}"
    if profile.enforce_eager:
        flags += " --enforce-eager"
    elif profile.max_cudagraph_capture_size is not None:
        flags += f" --max-cudagraph-capture-size {profile.max_cudagraph_capture_size}"
    if profile.no_enable_extensible_kv_cache:
        flags += " --no-enable-extensible-kv-cache"
    if profile.enable_dp_attention:
        flags += " --enable-expert-parallel"
    if profile.skip_mm_profiling:
        flags += " --skip-mm-profiling"
    if profile.language_model_only:
        flags += " --language-model-only"
    elif argument := limit_mm_argument(
        profile.limit_mm_per_prompt, model, profile.limit_mm_audio, profile.rules.limit_mm_json
    ):
        flags += f" {argument}"
    if profile.enable_prefix_caching is not None:
        flags += " --enable-prefix-caching" if profile.enable_prefix_caching else " --no-enable-prefix-caching"
    if profile.load_format is not None:
        flags += f" --load-format {profile.load_format}"
    if profile.safetensors_load_strategy is not None:
        flags += f" --safetensors-load-strategy {profile.safetensors_load_strategy}"
    return flags

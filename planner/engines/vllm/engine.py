"""vLLM's registry entry: labels, profile construction, report, limit and launch command."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import ClassVar

from pydantic import ValidationError

from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.overhead import EngineProfile, parse_version
from planner.deploy.options import SpeculativeOptions
from planner.engines.base import CalibratedProfile, Engine, EngineReport, SettingCure
from planner.engines.checkpoints import GGUF
from planner.engines.commands import speculative_head, word
from planner.engines.logfigures import ParsedLog
from planner.engines.logscan import Lines
from planner.engines.platform import vllm_platform
from planner.engines.settings import BY_NAME
from planner.engines.support import EngineSupport
from planner.engines.vllm.align_step import align_step_cures
from planner.engines.vllm.calibrated import Calibrated, calibrated_from_log
from planner.engines.vllm.compile_cache import compile_cache_problem
from planner.engines.vllm.defaults import default_batch
from planner.engines.vllm.draft_slots import draft_slots, draft_slots_refusal
from planner.engines.vllm.flags import batch_refusal, missing_flag, release_refusal
from planner.engines.vllm.logparse import parse_vllm
from planner.engines.vllm.profile import VLLM_DEFAULT_VERSION, VllmProfile
from planner.engines.vllm.report import vllm_launch_command, vllm_max_model_len, vllm_report
from planner.engines.vllm.runner import environment_problem
from planner.engines.vllm.sink_attention import sink_fp8_refusal
from planner.engines.vllm.stage import stage_graphs
from planner.engines.vllm.support import VLLM_SUPPORT
from planner.engines.vllm.towers import is_multimodal
from planner.engines.vllm.versions import first_release_with, known_releases, vllm_rules
from planner.planning.context import speculative_method
from planner.planning.plan import PlanRequest
from planner.planning.results import PlanResult, StageMemory

# The planner's speculative methods as vLLM names them (0.34.0 config/speculative.py :90-97; "draft_model" since
# the method literal exists, 0.8.5 config.py :2137)
VLLM_SPECULATIVE_METHODS = {
    "draft": "draft_model",
    "eagle": "eagle",
    "eagle3": "eagle3",
    "medusa": "medusa",
    "mtp": "mtp",
}


def as_vllm(profile: EngineProfile | None) -> VllmProfile:
    """The vLLM profile behind ``profile``: itself, a calibration's base profile, or vLLM's defaults."""
    if isinstance(profile, VllmProfile):
        return profile
    if isinstance(profile, Calibrated):
        return profile.base_profile()
    if profile is None:
        return VllmProfile()
    raise PlannerError(f"engine: a {profile.kind!r} profile is not a vLLM profile")


def release_problem(profile: VllmProfile, settings: Mapping[str, object]) -> str | None:
    """Why the profile's release does not take ``settings`` as given: a flag it does not define (:func:`missing_flag`;
    an older ``vllm serve`` stops at an argument it does not know), ``VLLM_USE_V2_MODEL_RUNNER`` where it has no
    such choice (:func:`environment_problem`), or a compile-cache state it is not planned in
    (:func:`compile_cache_problem`)."""
    missing = missing_flag(profile.rules, settings)
    if missing is not None:
        since = first_release_with(missing.rule)
        return (
            f"vLLM {profile.engine_version} has no {missing.words}: {missing.what} came with {since} (an older vllm "
            "serve stops at an argument it does not know)"
        )
    version = profile.engine_version
    found = environment_problem(profile.rules, profile.use_v2_model_runner, version)
    return found or compile_cache_problem(profile.rules, settings.get("compile_cache"), version)


class VllmEngine(Engine):
    name: ClassVar[str] = "vllm"
    label: ClassVar[str] = "vLLM"
    description: ClassVar[str] = (
        f"vLLM V1 ({VLLM_DEFAULT_VERSION}): profiled activations by release, non-torch memory, blocks of 16 tokens"
    )
    profile_type: ClassVar[type[EngineProfile]] = VllmProfile
    fraction_flag: ClassVar[str | None] = "--gpu-memory-utilization"
    default_fraction: ClassVar[float | None] = vllm_rules(VLLM_DEFAULT_VERSION).default_gpu_memory_utilization
    log_hint: ClassVar[str] = (
        "'Available KV cache memory: X GiB', 'GPU KV cache size: N tokens', 'Memory profiling results: ...' "
        "or '# GPU blocks: N'"
    )
    full_pool_behaviour: ClassVar[str] = (
        "vLLM admits requests while free KV blocks remain. When a running sequence needs a new block and none is "
        "free, the scheduler preempts the most recently admitted running request: its blocks are freed and it goes "
        "back to the front of the waiting queue, to be recomputed from its prompt and the tokens generated so far "
        "(V1 recomputes, from whatever of that prefix its prefix cache, on by default, still holds; V0 could also "
        "swap the blocks to CPU memory). New requests wait in the queue. Nothing "
        "fails, but the preempted user's stream stalls and the recomputation costs GPU time; the log warns about "
        "preemption."
    )

    def profile(
        self, *, fraction: float | None = None, version: str | None = None, **settings: object
    ) -> EngineProfile:
        """:meth:`Engine.profile`; a launch flag the release does not define is refused by name
        (:mod:`planner.engines.vllm.flags`): its ``vllm serve`` stops at an argument it does not know."""
        made = super().profile(fraction=fraction, version=version, **settings)
        problem = release_problem(made, settings) if isinstance(made, VllmProfile) else None
        if problem is not None:
            raise PlannerError(f"engine: {problem}")
        return made

    def planned_version(self, request: PlanRequest) -> str | None:
        """The release of a vLLM profile or of a calibration's base profile."""
        overhead = request.overhead
        return as_vllm(overhead).engine_version if isinstance(overhead, VllmProfile | Calibrated) else None

    def refusal(self, request: PlanRequest) -> str | None:
        """:meth:`Engine.refusal`, an FP8 KV cache for attention sinks on Ada before 0.11.0 (:func:`sink_fp8_refusal`),
        a batch its scheduler refuses (:func:`batch_refusal`; with a draft model, one that leaves no token to
        schedule, :func:`draft_slots_refusal`), and the deployment options the planned release does not run
        (:func:`release_refusal`)."""
        found = super().refusal(request)
        overhead = request.overhead
        if found is not None or not isinstance(overhead, VllmProfile | Calibrated):
            return found  # another engine's profile, or an estimate: no release to hold the options to
        vllm = as_vllm(overhead)
        if request.resolved_weights in GGUF and (vllm.load_format or vllm.safetensors_load_strategy):
            return (
                "vLLM reads GGUF weights with its GGUF loader: --load-format and --safetensors-load-strategy choose "
                "how safetensors checkpoints are read"
            )
        old = parse_version(vllm.engine_version) < (0, 10, 0)  # the releases read; later ones were not
        if old and vllm.limit_mm_per_prompt is not None and not is_multimodal(request.model):
            return (
                f"--limit-mm-per-prompt: {request.model.display_name} has no vision or audio tower, and vLLM "
                f"{vllm.engine_version} stops at the flag ('`limit_mm_per_prompt` is only supported for multimodal "
                "models', vllm/config.py _init_multimodal_config, up to 0.9; vllm-project/vllm#21120): leave it out"
            )
        slots = draft_slots(vllm, request)  # a draft model's slot per sequence off the step (0.20.0-0.27.1)
        found = sink_fp8_refusal(vllm, request)  # gpt-oss with FP8 KV on Ada before 0.11.0
        found = found or batch_refusal(vllm, slots) or draft_slots_refusal(vllm, request)
        return found or release_refusal(vllm, request)

    def speculative_flags(self, spec: SpeculativeOptions, request: PlanRequest, result: PlanResult) -> list[str]:
        """``--speculative-config`` (0.34.0 ``config/speculative.py`` :90-97): a draft model is method
        ``draft_model`` (not "draft"); every method but MTP needs its ``model`` (the head's repository for EAGLE,
        EAGLE-3 and Medusa, which the planner does not know: a placeholder to replace), MTP drafts with the target's
        own layers (``v1/worker/gpu/spec_decode/speculator_config.py`` :76-78, :172-175)."""
        config: dict[str, object] = {
            "method": VLLM_SPECULATIVE_METHODS[spec.method],
            "num_speculative_tokens": spec.num_speculative_tokens,
        }
        proposer = spec.draft_model.id if spec.draft_model is not None else speculative_head(spec.method, request.model)
        overhead = request.overhead
        if isinstance(overhead, VllmProfile | Calibrated) and not as_vllm(overhead).rules.flag_speculative_config:
            # before --speculative-config (0.8.2): the proposer's path, its method read from its config
            return [f"--speculative-model {word(proposer)} --num-speculative-tokens {spec.num_speculative_tokens}"]
        if spec.method != "mtp":
            config = {"model": proposer, **config}
        return [f"--speculative-config {word(json.dumps(config))}"]

    def fraction_default(
        self, version: str | None = None, gpu: GpuSpec | None = None, settings: Mapping[str, object] | None = None
    ) -> float | None:
        """``gpu_memory_utilization``'s default: 0.9, 0.92 from v0.20.0 (vllm PR #38284; ``versions.toml``), 1.0
        from 0.34.0 with the extensible KV cache on CUDA and ROCm (:mod:`planner.engines.vllm.extensible`), which
        ``--no-enable-extensible-kv-cache`` or a fixed ``--kv-cache-memory-bytes`` turns off (``settings``; values the
        profile does not take are not read: :meth:`profile` refuses them)."""
        fields = VllmProfile.model_fields
        taken = {k: v for k, v in (settings or {}).items() if k in fields and k != "engine_version"}
        try:
            profile = VllmProfile.model_validate({"engine_version": version or VLLM_DEFAULT_VERSION, **taken})
        except ValidationError:
            profile = VllmProfile(engine_version=version or VLLM_DEFAULT_VERSION)
        return profile.utilization_for(gpu)

    setting_fields: ClassVar[dict[str, str]] = {
        "fraction": "gpu_memory_utilization",
        # every launch setting of planner.engines.settings but TensorRT-LLM's attention window (vLLM's hybrid KV
        # manager sizes sliding-window layers by their window without being told) and SGLang's token cap is a
        # VllmProfile field
        **{name: name for name in BY_NAME if name not in ("max_attention_window", "max_total_tokens")},
    }
    # CacheConfig.num_gpu_blocks_override (from 0.6.4 in the wheels read): a block count instead of the profiled one
    setting_counterparts: ClassVar[dict[str, str]] = {"max_total_tokens": "--num-gpu-blocks-override"}
    # data-parallel attention is data-parallel ranks at TP 1 with the experts split by expert
    setting_flags: ClassVar[dict[str, str]] = {"enable_dp_attention": "--data-parallel-size N --enable-expert-parallel"}
    running_flag: ClassVar[str] = "--max-num-seqs"
    support: ClassVar[EngineSupport] = VLLM_SUPPORT

    def prefill_chunk_tokens(self, gpu_memory_bytes: int, gpu_name: str, tensor_parallel: int) -> int | None:
        """``max_num_batched_tokens`` for ``vllm serve``: 8,192 on a device of 70 GiB or more that is not an A100,
        else 2,048 (vllm 0.11.0 ``engine/arg_utils.py:1594-1624``, ``_set_default_args``: "Setting large
        ``max_num_batched_tokens`` for A100 reduces throughput, see PR #17885"; the same rule at 0.10.2,
        ``:1665-1688``; every release since, :func:`planner.engines.vllm.defaults.default_batch`)."""
        return default_batch(gpu_memory_bytes, gpu_name)[0]

    def setting_cures(self, report: EngineReport) -> tuple[SettingCure, ...]:
        return align_step_cures(report)  # planner.engines.vllm.align_step

    def kv_cache_flags(self, kv_dtype: str) -> tuple[str, ...]:
        name = self.support.kv_cache_names.get(kv_dtype, "auto")
        return () if name == "auto" else ("--kv-cache-dtype", name)

    log_fallback: ClassVar[bool] = True  # a log showing only a failure line (CUDA out of memory) reads as vLLM's

    def parse_log(self, lines: Lines) -> dict[str, object] | None:
        """V0's and V1's start-up lines (:mod:`planner.engines.vllm.logparse`)."""
        return parse_vllm(lines)

    def calibrate(
        self, parsed: ParsedLog, engine_version: str | None, gpu_memory_utilization: float | None
    ) -> CalibratedProfile | None:
        """:func:`planner.engines.vllm.calibrated.calibrated_from_log`: any engine's figures, vLLM's accounting."""
        return calibrated_from_log(parsed, engine_version, gpu_memory_utilization)

    def footprint_bytes(
        self, report: EngineReport, stage: StageMemory, profile: EngineProfile, request: PlanRequest
    ) -> int:
        """vLLM's budget ``util x total``, plus the CUDA graphs captured after sizing the KV cache (outside the
        budget: releases before 0.20, and Model Runner V2 before 0.29): what another engine started after it finds
        taken. The capture is the stage's graphs with FlashAttention 3's split accumulators on Hopper
        (:meth:`VllmGraphs.rank_capture_bytes`), as the profile's budget counts it."""
        vllm = as_vllm(profile)
        if vllm.graphs_in_budget(request.model, request.resolved_weights, speculative_method(request)):
            return report.budget_bytes
        graphs = stage_graphs(request, vllm, stage.gpu_memory_bytes)
        tp, platform = request.resolved_parallelism[0], vllm_platform(request.gpu)
        layers = stage.layers[1] - stage.layers[0]
        capture = vllm.rank_capture_bytes(layers, graphs, request.model, tp, platform, request.resolved_kv_dtype)
        return report.budget_bytes + capture

    def report(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> EngineReport:
        if isinstance(profile, Calibrated):
            return vllm_report(
                request, result, profile.base_profile(), profile.stage_overrides(result.pipeline_parallel)
            )
        return vllm_report(request, result, as_vllm(profile))

    def report_figures(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> EngineReport:
        if isinstance(profile, Calibrated):
            overrides = profile.stage_overrides(result.pipeline_parallel)
            return vllm_report(request, result, profile.base_profile(), overrides, notes=False)
        return vllm_report(request, result, as_vllm(profile), notes=False)

    def releases(self) -> tuple[str, ...]:
        return known_releases()

    def launch_command(self, request: PlanRequest, result: PlanResult, profile: EngineProfile | None) -> str:
        return vllm_launch_command(request, result, as_vllm(profile))

    def max_model_len(self, request: PlanRequest, result: PlanResult, profile: EngineProfile) -> int:
        return vllm_max_model_len(request, result, as_vllm(profile))

    def own(self, profile: EngineProfile | None) -> EngineProfile:
        return as_vllm(profile)


ENGINE = VllmEngine()

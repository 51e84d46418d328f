"""vLLM by release: the rules read from the engine's source (``versions.toml``) and the constants fitted to
public start-up logs by ``make calibrate`` (``fitted.toml``), both beside this module.

:func:`vllm_rules` answers which rule holds for a release (a rule holds from its ``since`` release until a
later entry of the same name replaces it). :func:`fitted_constants` gives the fitted terms; a profile may carry
its own (:class:`VllmConstants`, e.g. a leave-one-family-out fit) instead.
"""

from __future__ import annotations

import tomllib
from functools import cache, lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from planner.bounds.errors import PlannerError
from planner.core.overhead import parse_version

HERE = Path(__file__).parent
VERSIONS_PATH = HERE / "versions.toml"
FITTED_PATH = HERE / "fitted.toml"
SamplerKind = Literal["none", "native-sort", "triton", "flashinfer", "v2"]
ModelRunner = Literal["v1", "v2-listed", "v2-dense", "v2-all"]
KvCheck = Literal["layers", "first-group", "groups"]
# FlashInfer's top-k/top-p path holds 3 fp32 copies of num_reqs x vocab (the fp32 cast in Sampler.forward,
# top_k_mask_logits, softmax): derived from vllm/v1/sample/ops/topk_topp_sampler.py flashinfer_sample, not fitted.
FLASHINFER_SAMPLER_COPIES = 3.0


class VllmRules(BaseModel, frozen=True, extra="forbid"):
    """What a vLLM release does, by rule (each from ``versions.toml``)."""

    version: tuple[int, int, int]
    v1: bool = False
    hybrid_kv_manager: bool = False
    default_gpu_memory_utilization: float = 0.9
    cudagraph_estimate_printed: bool = False
    cudagraph_in_budget: bool = False
    v2_cudagraph_estimate: bool = False  # Model Runner V2 estimates its graphs (a stub returns 0 before 0.29.0)
    v2_sampler_fp32_copy: bool = False  # Model Runner V2's sampler copies the logits to fp32 (0.22 - 0.25)
    v2_weight_offload: bool = False  # Model Runner V2 installs the --cpu-offload-gb offloader (0.28.0 on)
    gemma4_shared_kv_built: bool = False  # Gemma 4's shared-KV layers get k/v projections too (0.19-0.29)
    # the minimal KV cache of the graph profiling: a block per capture-size token, or per sequence (0.26.0 on)
    profiling_kv_blocks: Literal["capture-size", "per-sequence"] = "capture-size"
    graph_profile_rocm: bool = False  # the graph profiling runs on ROCm too (0.26.0 on)
    # non-torch is the whole device's use, other processes' too (0.6.4; V1's worker 0.8.0-0.9.0)
    non_torch_device_wide: bool = False
    sampler: SamplerKind = "none"
    moe_workspace_persistent: bool = False
    nvfp4_moe_flashinfer_sm12: bool = False  # W4A4 NVFP4 experts on FlashInfer CUTLASS on 12.x (read 0.22-0.31)
    startup_free_memory_check: bool = False
    printed_tokens: Literal["blocks", "concurrency"] = "blocks"
    mamba_block_refusal: bool = False
    hybrid_prefix_caching: bool = False  # prefix caching on by default for attention + Mamba/GDN models
    mamba_align_always: bool = False  # with prefix caching: 'align' even where the model supports 'all'
    mamba_align_step_check: bool = False  # in 'align' mode the attention block must fit one step (to 0.26)
    # how the start-up check counts one request's KV (planner.engines.vllm.blocks.needed_bytes): each layer's own
    # pages, the first group's pages in every slot of a group (0.14-0.18), or every group's (0.19 on)
    kv_check: KvCheck = "layers"
    non_kv_formula: Literal["split", "consumed"] = "split"
    model_runner: ModelRunner = "v1"
    batch_defaults: Literal["v1", "v028", "v033"] = "v1"
    batch_len_cap: bool = False  # defaulted tokens capped at max_num_seqs x max_model_len (0.12.0 on)
    # a multimodal prefix-LM model's largest item as the tokens' floor: from 0.22.0 whatever input is enabled, from
    # 0.27.0 only where multimodal input is (versions.toml)
    mm_prefix_batch_floor: Literal["none", "always", "with-mm-input"] = "none"
    capture_cap_sm100: int = 512
    spec_capture_grid: Literal["tokens", "requests"] = "tokens"
    sampler_warms_native: bool = False  # the warm-up also runs forward_native (Triton top-k/top-p from 8 rows)
    # sliding-window and chunked-local layers reserve every batch in flight, not one (planner.engines.vllm.in_flight)
    sliding_in_flight: bool = False
    # speculative methods for which asynchronous scheduling is off by default (planner.engines.vllm.in_flight)
    async_off_for: tuple[str, ...] = ()
    # the KV cache committed after warm-up and graph capture, from measured memory (planner.engines.vllm.extensible)
    extensible_kv_cache: bool = False
    # launch flags by the release that added them (planner.engines.vllm.flags)
    flag_kv_cache_memory_bytes: bool = False
    flag_max_cudagraph_capture_size: bool = False
    flag_language_model_only: bool = False
    flag_skip_mm_profiling: bool = False
    flag_safetensors_load_strategy: bool = False
    safetensors_prefetch: bool = False  # --safetensors-load-strategy prefetch
    load_format_fastsafetensors: bool = False  # --load-format fastsafetensors
    load_format_instanttensor: bool = False  # --load-format instanttensor
    # deployment options by release (planner.engines.vllm.flags.release_refusal)
    speculative_eagle3: bool = False
    speculative_mtp: bool = False
    speculative_medusa: bool = False
    draft_step_slot: bool = False  # a draft model's slot per sequence off the step refuses an empty step (0.20-0.27)
    kv_offloading_flags: bool = False
    lmcache_server: bool = False  # --kv-offloading-backend lmcache connects to an LMCache server (0.23.0 on)
    rocm_vram_defaults: bool = False  # the batch defaults read amdsmi's VRAM total: an APU's carve-out (0.24.0 on)
    v2_runner_environment: bool = False  # VLLM_USE_V2_MODEL_RUNNER chooses the runner, as planned (0.22.0-0.33.x)
    lora_ranks: tuple[int, ...] = (8, 16, 32, 64, 128, 256)  # what --max-lora-rank takes
    flag_lora_target_modules: bool = False
    yarn_rope_parameters: bool = False  # --hf-overrides takes a YaRN as rope_parameters; before: rope_scaling
    lora_moe_experts: bool = False  # fused MoE experts get adapter slots
    lora_graph_cases: bool = False  # with LoRA the V1 runner captures each graph for 2 LoRA cases (0.11.1 on)
    lora_graph_cases_v2: bool = False  # the same on Model Runner V2 (0.24.0 on)
    lora_vocab_wrappers: bool = False  # embed_tokens / lm_head get vocabulary-sized slots (planner.deploy.lora)
    flag_speculative_config: bool = False  # before: --speculative-model, --num-speculative-tokens
    flag_data_parallel_size: bool = False  # before: one server per replica
    limit_mm_json: bool = False  # --limit-mm-per-prompt as JSON; before: image=N,video=N(,audio=N)
    # a cold compile benchmarks kernels on full-size random inputs (planner.engines.vllm.compile_copy)
    compile_benchmarks_inputs: bool = False


class NonTorchEra(BaseModel, frozen=True, extra="forbid"):
    """Non-torch memory of the profile run from a release on (bytes; fitted medians of printed figures)."""

    since: str
    tp1: int
    tp2: int  # tensor parallel 2 with vLLM's NVLink collectives (VllmPlatform.nvlink_collectives: 9.0, 10.x)
    per_extra_rank: int = 0  # added per TP rank beyond 2
    pp: int  # a pipeline stage with TP 1
    tp2_nccl: int | None = None  # TP 2 elsewhere (NCCL alone): the era's tp1 (bench/calibrate_terms.py); None: tp2
    evidence: str = ""


class VllmConstants(BaseModel, frozen=True, extra="forbid"):
    """The terms of vLLM's profile run that the source does not fix, fitted by ``bench/calibrate.py``."""

    forward_bytes_per_hidden: float  # per token of the profile batch, per hidden unit
    sampler_copies: dict[str, float]  # fp32 copies of num_reqs x vocab, by sampler kind
    encoder_bytes: Annotated[int, Field(ge=0)]  # multimodal models: encoder outputs and cache held in the profile
    non_torch: tuple[NonTorchEra, ...]
    # "Estimated CUDA graph memory" = base + per_layer x layers + per_graph_layer x layers x (graphs - 1 per mode)
    graph_estimate_base: int
    graph_estimate_per_layer: int
    graph_estimate_per_graph_layer: int
    # the per-graph-and-layer term on compute capability 10.x (datacenter Blackwell), fitted on the estimates printed
    # there (bench/calibrate_graphs.py sm100_graph_fit); 0: none fitted, the shared term
    graph_estimate_sm100: int = 0
    graph_capture_base: int  # "Graph capturing finished ... took X GiB" (the headroom graphs take), same form
    graph_capture_per_layer: int
    graph_capture_per_graph_layer: int
    # what the capture lines of compute capability 9.x (Hopper) hold beyond the others' base, beside FlashAttention
    # 3's split accumulators: found in no source line (planner.engines.vllm.profile_graphs, bench/calibrate_graphs.py)
    graph_capture_hopper: int = 0
    init_baseline_tp1: int  # CUDA context before the worker's memory snapshot ("cuda_memory=" at init)
    init_baseline_tp: int  # the same with NCCL initialised (TP or PP > 1)
    sampler_risk_ratio: float  # post-capture free / sampler peak at which logged warm-ups still ran out of memory
    # Non-torch added on unified memory, as a share of the weights one GPU loads, by loader class: what the host
    # stops counting in MemAvailable during the start-up, which vLLM reads as the device's free memory there; empirical
    # shares, not rules of the source (planner.engines.vllm.unified, docs/fidelity.md)
    uma_weights_share: Annotated[float, Field(ge=0, le=2)] = 0.0  # loaders that read ahead (unified.py)
    uma_weights_share_lazy: Annotated[float, Field(ge=0, le=2)] = 0.0  # vLLM's default, memory-mapped loader
    encoder_non_torch: int = 0  # non-torch a V1 encoder profile leaves, per token of its largest item (encoder_memory)
    # non-torch a V1 process holds under Windows (WSL2), as a share of the weights it loaded (windows_share)
    windows_weights_share: Annotated[float, Field(ge=0, le=2)] = 0.0
    graphics_extra: int = 0  # non-torch added on desktop cards at TP 1 (DevicePlatform.desktop_card), shared by TP
    # HIP on a CDNA 3 device (DevicePlatform.cdna3), fitted on its start-ups (planner.engines.vllm.hip_graphs): bytes
    # per graph captured (each piece of each PIECEWISE size, each FULL graph) in the estimate and in the capture, and
    # the non-torch memory held beyond the era's datacenter base; 0 (the CUDA terms) where no such start-up was fitted
    hip_graph_bytes: int = 0
    hip_graph_capture_bytes: int = 0
    cdna3_non_torch: int = 0
    fit: dict[str, Any] = Field(default_factory=dict)  # how the constants were fitted (cases, errors)

    def non_torch_era(self, version: tuple[int, int, int]) -> NonTorchEra:
        eras = [e for e in self.non_torch if parse_version(e.since) <= version]
        return eras[-1] if eras else self.non_torch[0]

    def copies(self, sampler: str) -> float:
        if sampler == "flashinfer":
            return self.sampler_copies.get(sampler, FLASHINFER_SAMPLER_COPIES)
        if sampler == "none":
            return 0.0
        if sampler == "v2" and sampler not in self.sampler_copies:  # no log fitted yet: FlashInfer's derived form
            return FLASHINFER_SAMPLER_COPIES
        return self.sampler_copies[sampler]


@cache
def _versions_data() -> dict[str, Any]:
    return tomllib.loads(VERSIONS_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=64)  # keyed by a user-given release: bounded (a few kB an entry)
def vllm_rules(version: str) -> VllmRules:
    """The rules that hold for ``version`` (``"0.19.0"``, ``"v0.10.2rc1"``)."""
    wanted = parse_version(version)
    values: dict[str, Any] = {}
    for rule in sorted(_versions_data()["rule"], key=lambda r: parse_version(r["since"])):
        if parse_version(rule["since"]) <= wanted:
            values[rule["name"]] = rule["value"]
    return VllmRules.model_validate({"version": wanted, **values})


def first_release_with(rule: str) -> str:
    """The release a flag rule of ``versions.toml`` is first on in (the earliest ``since`` under its name whose value
    is true).

    >>> first_release_with("extensible_kv_cache")
    '0.34.0'
    """
    found = [r["since"] for r in _versions_data()["rule"] if r["name"] == rule and r["value"] is True]
    if not found:
        raise KeyError(rule)
    return str(min(found, key=parse_version))


def default_version() -> str:
    return str(_versions_data()["default_version"])


def known_releases() -> tuple[str, ...]:
    return tuple(str(v) for v in _versions_data()["releases"])


def release_note(version: str) -> str | None:
    """A note when ``version`` is not a release whose source was read (:func:`known_releases`): it is planned with
    the rules of the newest read release before it (:func:`vllm_rules` takes every rule up to it), which the
    report says rather than passing a later release's changes off as read.

    >>> release_note("0.31.0") is None
    True
    >>> release_note("0.40.1")  # doctest: +ELLIPSIS
    'vLLM 0.40.1 is not among the releases whose source was read (0.6.4 to ...): planned with the rules of ...'
    """
    releases = known_releases()
    if version in releases:
        return None
    earlier = [r for r in releases if parse_version(r) <= parse_version(version)]
    basis = f"the rules of {earlier[-1]}, the newest read release before it" if earlier else f"{releases[0]}'s rules"
    return (
        f"vLLM {version} is not among the releases whose source was read ({releases[0]} to {releases[-1]}): "
        f"planned with {basis}; what it changed since is not modelled."
    )


def constants_from_data(data: dict[str, Any]) -> VllmConstants:
    """Constants from the ``fitted.toml`` layout (``[constants]``, ``[[non_torch]]``, ``[fit]``)."""
    try:
        return VllmConstants.model_validate(
            {**data["constants"], "non_torch": data.get("non_torch", []), "fit": data.get("fit", {})}
        )
    except (KeyError, ValueError) as exc:
        raise PlannerError(f"vllm fitted constants: {exc}") from None


@cache
def fitted_constants() -> VllmConstants:
    """The constants ``make calibrate`` fitted to every public log (``fitted.toml``)."""
    return constants_from_data(tomllib.loads(FITTED_PATH.read_text(encoding="utf-8")))

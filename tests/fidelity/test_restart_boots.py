"""Two boots of one vLLM 0.28 setting (Qwen3-32B-AWQ on an RTX 5090 at util 0.70, 8,192 tokens; one project's
models.md, search-index file id 69451098589): the container's first boot printed 0.45 GiB and refused one 8,192-token
request ("estimated maximum model length is 1856"), its restart 28 s later printed 3.0 GiB and started.

The first boot's 0.45 GiB is 21.95 - 20.04 - 1.46: the consumed memory and peak activation of the same container's
run at util 0.85, which gpu_memory_utilization does not enter (0.28.0 ``v1/worker/gpu_worker.py`` :513-563 profile
the model before the budget is taken). The restart took 2.55 GiB less: 18.62 consumed where the first boots took
20.04 (its compile amount), 0.33 GiB of peak activation where they took 1.46.

Until 2026-12-04 the planner predicted the first boot (its fitted Model Runner V2 sampler term, 3.82 fp32 copies of
the logits, stood in for the first boots' 1.46 GiB peak); with that term derived from the source (one bf16 copy) it
sat between the two boots, 1.50 GiB over the first and 1.05 under the restart. Since 2026-12-07 each boot is planned
in its own compile-cache state (planner.engines.vllm.compile_copy): the first boot cold, its transient the random
copy of the 1.449 GiB embedding table Inductor benchmarks on (1.46 printed), +0.47 GiB and the refusal predicted;
the restart warm, still -1.05 and its verdict wrong: what it lacks is the first boots' +1.42 GiB of consumed memory,
which the planner's fitted desktop share holds on both."""

from __future__ import annotations

import pytest

from bench.fidelity import UNMATCHED, run_all

FIRST = "vllm-0.28-rtx5090-qwen3-32b-awq-util070-8k-first-boot"
RESTART = "vllm-0.28-rtx5090-qwen3-32b-awq-util070-8k"
AT_085 = "vllm-0.28-rtx5090-qwen3-32b-awq-util085-8k"


def test_first_boot_refuses_as_the_planner_predicts() -> None:
    by_id = {r.id: r for r in run_all()}
    first, restart = by_id[FIRST], by_id[RESTART]
    assert first.reported_failure == "kv-cache-too-small"
    assert first.predicted_failure == "kv-cache-too-small"
    # +0.47 / -1.05 until the desktop cards' share was refitted beside FlashInfer's decode workspace (2026-12-07),
    # +0.60 / -0.92 until the allocator's segment tails were counted with the weights (the same day: 0.125 GiB of
    # Qwen3-32B's AWQ tensors), +0.49 / -1.03 until the mechanistic non-torch model (2026-12-07, fifty-third session):
    # no desktop share, so the restart is planned as printed
    # and the first boot's refusal by 0.03 GiB (1.97 planned, 2.00 needed)
    assert first.kv_error_gib == pytest.approx(1.52, abs=0.01)
    assert restart.kv_error_gib == pytest.approx(0.00, abs=0.01)


def test_first_boot_overhead_is_the_util_085_runs() -> None:
    """Budget less KV: 21.50 GiB in both (0.70 x 31.36 - 0.45; 20.04 + 1.46), utilization entering neither."""
    by_id = {r.id: r for r in run_all()}
    first, at_085 = by_id[FIRST], by_id[AT_085]
    assert first.reported_kv_gib is not None and at_085.reported_kv_gib is not None
    overhead_070 = round(0.70 * 31.36, 2) - first.reported_kv_gib
    assert abs(overhead_070 - (20.04 + 1.46)) < 0.02
    # the first boot met the 0.5 GiB target from the allocator's segment tails (+0.49) until the mechanistic non-torch
    # model (2026-12-07, fifty-third session) (+1.52); the
    # restart meets it since (0.00)
    assert RESTART not in UNMATCHED and FIRST in UNMATCHED

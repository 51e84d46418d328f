"""What a vLLM plan rests on that only the machine knows (planner/engines/vllm/caveats.py): vLLM counts the whole
device's drop in free memory (0.28.0 utils/mem_utils.py:317-318, gpu_worker.py:548), and on unified memory its
free memory is the host's MemAvailable (:147-155), so the fitted graphics-die and unified-memory amounts and the
host's share of a DGX Spark are stated beside the figures, with the input that settles the start-up check."""

from __future__ import annotations

import math

import pytest

from model_catalog import get_gpu, get_model
from planner.core.units import GiB
from planner.engines.base import gib_text
from planner.engines.registry import engine_report
from planner.engines.vllm.failures import free_at_start
from planner.engines.vllm.held import UMA_HOST_DEFAULT_BYTES
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest, plan


def _request(gpu: str, overhead: VllmProfile, tp: int = 1) -> PlanRequest:
    card = get_gpu(gpu)
    return PlanRequest(
        model=get_model("Qwen/Qwen3.6-27B").spec,
        gpu=card,
        gpu_memory_bytes=card.engine_visible_bytes or card.memory_bytes,
        context_tokens=32768,
        max_model_len=32768,
        tensor_parallel=tp,
        gpu_count=tp,
        overhead=overhead,
    )


def _notes(request: PlanRequest) -> str:
    return " | ".join(engine_report(request, plan(request)).notes)


def test_spark_start_check_names_the_host_figure_that_decides_it() -> None:
    """util 0.92 of a 121.69 GiB Spark asks 111.95 GiB of MemAvailable (0.28.0 v1/worker/utils.py:449-462): it
    starts only if at most 9.74 GiB is held at the worker's snapshot; the note says so, what the planner took,
    and the input that settles it."""
    request = _request("dgx-spark-gb10", VllmProfile(engine_version="0.28.0", max_num_seqs=8))
    total = request.gpu_memory_bytes
    requested = math.floor(0.92 * total)
    assert gib_text(total - requested) == "9.74"
    notes = _notes(request)
    assert "if at most 9.74 GiB of the pool is held then" in notes
    assert "the planner takes 10.90 GiB (the median of 37 public DGX Sparks')" in notes
    assert "unified_memory_host_bytes" in notes
    own = VllmProfile(engine_version="0.28.0", max_num_seqs=8, unified_memory_host_bytes=6 * GiB)
    assert "(your host figure and vLLM's context)" in _notes(_request("dgx-spark-gb10", own))


def test_spark_default_host_figure_already_holds_the_workers_context() -> None:
    """The default (10.9 GiB) is read off workers' own 'Free memory on device (F/T GiB) on startup' lines,
    i.e. init_snapshot.free_memory (0.28.0 gpu_worker.py:784), taken after the CUDA context: the planner's free
    memory at the snapshot is total less 10.9 GiB, not less the context a second time. A host figure the user
    gives (before vLLM starts) still gets the worker's baseline on top."""
    profile = VllmProfile(engine_version="0.28.0", max_num_seqs=8)
    request = _request("dgx-spark-gb10", profile)
    total, free = free_at_start(request, plan(request), profile)
    assert total - free == UMA_HOST_DEFAULT_BYTES
    given = profile.model_copy(update={"unified_memory_host_bytes": 6 * GiB})
    request = _request("dgx-spark-gb10", given)
    total, free = free_at_start(request, plan(request), given)
    assert total - free == 6 * GiB + given.fitted.init_baseline_tp1


@pytest.mark.parametrize("loader", [{}, {"load_format": "fastsafetensors"}])
def test_unified_memory_share_is_stated_as_what_the_kv_rests_on(loader: dict[str, str]) -> None:
    """The fitted share of the loaded weights for the loader class (planner.engines.vllm.unified) is an amount the
    source does not fix: the note gives it in GiB for this plan, and the other class's share."""
    profile = VllmProfile(engine_version="0.28.0", max_num_seqs=8, gpu_memory_utilization=0.8, **loader)
    request = _request("dgx-spark-gb10", profile)
    report = engine_report(request, plan(request))
    fitted = profile.fitted
    share = fitted.uma_weights_share if loader else fitted.uma_weights_share_lazy
    other = fitted.uma_weights_share_lazy if loader else fitted.uma_weights_share
    notes = _notes(request)
    assert f"non-torch memory includes {gib_text(round(share * report.weights_bytes))} GiB for what the host" in notes
    assert f"{share:.2f} of the loaded weights with" in notes and f": {other:.2f}; vLLM's source" in notes


def test_graphics_die_share_is_stated_per_gpu_and_not_on_datacenter_dies() -> None:
    """graphics_extra is a fitted amount, divided by TP, stated where it is planned; fitted 0 since the mechanistic
    non-torch model (2026-12-07, fifty-third session), so no
    card carries the note now (it read 1.03 GiB at TP 1, 0.52 at TP 2 on an RTX 5090 before)."""
    profile = VllmProfile(engine_version="0.28.0", max_num_seqs=8)
    assert profile.fitted.graphics_extra == 0
    for notes in (_notes(_request("rtx-5090", profile)), _notes(_request("rtx-5090", profile, tp=2))):
        assert "fitted on public compiled GeForce" not in notes
    assert "fitted on public compiled GeForce" not in _notes(_request("h100-sxm-80gb", profile))
    eager = profile.model_copy(update={"enforce_eager": True})
    assert "fitted on public compiled GeForce" not in _notes(_request("rtx-5090", eager))  # planned without it
    assert "Unified memory" not in _notes(_request("h100-sxm-80gb", profile))


def test_spark_host_default_is_the_median_of_public_sparks() -> None:
    """What a DGX Spark's host holds when vLLM's worker starts is a fact of each machine: the default is the median
    of 37 public machines with nothing else running (their 'Free memory on device (F/T GiB)' lines, T = 121.69,
    121.63 or 119.63), 10.9 GiB, not one machine's 10.31; the note quotes their range."""
    import statistics

    from planner.deploy.spark_hosts import SPARK_HOSTS

    held = [h.held_gib for h in SPARK_HOSTS]
    assert len(held) == len(SPARK_HOSTS) == 37 and len({h.source for h in SPARK_HOSTS}) == 37
    assert all(h.total_gib in (119.63, 121.63, 121.69) for h in SPARK_HOSTS)
    assert statistics.median(held) == 10.9
    assert round(10.9 * GiB) == UMA_HOST_DEFAULT_BYTES
    notes = _notes(_request("dgx-spark-gb10", VllmProfile(engine_version="0.28.0", max_num_seqs=8)))
    assert "Public DGX Sparks held 5.27 to 24.94 GiB (median 10.90 of 37)" in notes

"""llama.cpp fixes the conversations it serves at start-up (``-np`` slots, each ``-c / -np`` tokens): with a
target of users the plan launches one slot per user and replica, or the most that fit, on every surface (Memory
page, what-if curve, CLI, advisor); without one, llama-server's single slot. Llama 3.1 8B keeps 32 layers x 8 KV
heads x 128 x 2 (K, V) x 2 bytes = 131,072 bytes of BF16 KV per token (its config.json), so one 8,192-token slot
is exactly 1 GiB."""

from __future__ import annotations

import json
import math

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import ContextDistribution, Workload, rank
from planner.assessment.assess import assess
from planner.cli import main
from planner.core.units import GiB
from planner.engines.launch import launch_commands
from planner.engines.llamacpp.profile import LLAMACPP_CONTEXT_BYTES, LlamacppProfile
from planner.engines.registry import engine_profile
from planner.planning.plan import PlanRequest

H100 = get_gpu("h100-sxm-80gb")
LLAMA_8B = get_model("meta-llama/Llama-3.1-8B").spec
SLOT_BYTES = 8192 * 131_072  # one 8k-token slot of Llama 3.1 8B in BF16


def _request(gpus: int = 1, profile: LlamacppProfile | None = None) -> PlanRequest:
    return PlanRequest(
        model=LLAMA_8B,
        gpu=H100,
        gpu_memory_bytes=H100.memory_bytes_for(True),
        gpu_count=gpus,
        tensor_parallel=1,
        weights="bf16",
        kv_dtype="bf16",
        context_tokens=8192,
        max_model_len=8192,
        overhead=profile or engine_profile("llamacpp"),
    )


def _command(a: object) -> str:
    return launch_commands(a.request, a.result)["llamacpp"].splitlines()[-1]  # type: ignore[attr-defined]


def test_without_a_target_llama_server_starts_one_slot() -> None:
    a = assess(_request())
    assert a.fits and a.conversations == 1 and a.report is not None
    assert " -c 8192 -np 1 " in _command(a)
    assert "llama_context: n_seq_max     = 1" in a.report.lines


def test_a_target_launches_one_slot_per_user_and_the_kv_for_all_of_them() -> None:
    a = assess(_request(), 8)
    assert a.fits and a.state.value == "meets-target" and a.conversations == 8 and a.report is not None
    assert " -c 65536 -np 8 " in _command(a)
    assert "llama_context: n_ctx         = 65536" in a.report.lines
    assert "llama_context: n_ctx_seq     = 8192" in a.report.lines
    assert a.report.available_kv_cache_bytes_per_gpu == 8 * SLOT_BYTES == 8 * GiB


def test_replicas_split_the_target() -> None:
    a = assess(_request(gpus=2), 100)
    assert a.fits and a.replicas == 2 and a.conversations == 100
    assert " -np 50 " in _command(a)


def test_slots_set_by_the_profile_are_kept() -> None:
    a = assess(_request(profile=LlamacppProfile(n_parallel=4)), 8)
    assert a.fits and a.conversations == 4 and a.state.value == "misses-target"
    assert " -c 32768 -np 4 " in _command(a)


def test_a_target_beyond_memory_launches_the_most_slots_that_fit() -> None:
    a = assess(_request(), 100)
    assert a.fits and a.state.value == "misses-target" and a.report is not None
    r = a.report
    room = r.total_memory_bytes - r.weights_bytes - r.activation_bytes - LLAMACPP_CONTEXT_BYTES
    fit = room // SLOT_BYTES
    assert 55 <= fit <= 65  # 80 GiB less 15 GiB of weights, in 1 GiB slots
    assert a.conversations == fit and f" -np {fit} " in _command(a)
    too_many = assess(_request(profile=LlamacppProfile(n_parallel=fit + 1)))
    assert too_many.state.value == "engine-refuses-to-start" and too_many.report is not None
    assert too_many.report.failure_kind == "out-of-memory"
    assert f"{fit} slots would fit." in " ".join(too_many.report.notes)


def test_one_slot_that_does_not_fit_refuses() -> None:
    rtx = get_gpu("rtx-4090")
    request = _request().model_copy(update={"gpu": rtx, "gpu_memory_bytes": rtx.memory_bytes_for(True)})
    a = assess(request.at_context(131_072), 4)  # 15 GiB of weights and a 16 GiB slot on 24 GB
    assert a.state.value in ("engine-refuses-to-start", "weights-do-not-fit") and a.conversations == 0


@pytest.mark.parametrize("n_parallel", [1, 3, 16])
def test_the_report_and_the_launch_command_agree_on_the_context(n_parallel: int) -> None:
    a = assess(_request(profile=LlamacppProfile(n_parallel=n_parallel)))
    assert a.report is not None
    assert a.report.kv_cache_tokens == 8192 * n_parallel  # -c max_model_len x slots, 256-aligned already
    assert f" -c {8192 * n_parallel} -np {n_parallel} " in _command(a)


def test_the_advisor_launches_llamacpp_for_its_target_and_the_memory_page_agrees() -> None:
    dist = ContextDistribution(mean_tokens=8192, p95_tokens=8192, max_tokens=8192)
    workload = Workload(context=dist, concurrent_conversations=40, pricing="cloud", engines=("llamacpp",))
    gpus = [H100, get_gpu("l40s"), get_gpu("rtx-4090")]
    ranking = rank(LLAMA_8B, workload, gpus=gpus, weights=["bf16"], kv_dtypes=["bf16"], overhead=_request().overhead)
    checked = 0
    for option in ranking.options:
        gpu = get_gpu(option.gpu_id)
        request = _request(gpus=option.gpu_count).model_copy(
            update={"gpu": gpu, "gpu_memory_bytes": gpu.memory_bytes_for(True), "tensor_parallel": 1}
        )
        if option.tensor_parallel != 1:
            continue
        a = assess(request, option.target_concurrency)
        assert a.conversations == option.conversations >= 40
        per_replica = math.ceil(40 / a.replicas)
        assert f" -np {per_replica} " in _command(a)
        checked += 1
    assert checked >= 3, [r.detail for r in ranking.rejected]


def test_the_cli_launches_the_same_slots(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["fit", "--model", LLAMA_8B.id, "--gpu", "h100-sxm-80gb", "--engine", "llamacpp", "--context", "8192"]
    code = main([*argv, "--weights", "bf16", "--kv-dtype", "bf16", "--users", "8", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["conversations_total"] == 8
    assert "llama_context: n_seq_max     = 8" in data["engine_lines"]
    assert data["available_kv_cache_bytes_per_gpu"] == 8 * GiB


def test_the_slot_count_is_said_where_the_plan_fits() -> None:
    """'holds 4,096 tokens of KV cache: 1 concurrent conversation' for Llama-3.1-8B on an H100 gave no hint that
    it is llama.cpp's one slot (-np 1, the default one user), not the memory (review, 2026-12-05)."""
    from model_catalog import get_gpu, get_model
    from planner.engines.registry import engine_profile, engine_report
    from planner.planning.plan import PlanRequest, plan

    h100 = get_gpu("h100-sxm-80gb")
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-8B").spec,
        gpu=h100,
        gpu_memory_bytes=h100.memory_bytes_for(True),
        overhead=engine_profile("llamacpp"),
    )
    report = engine_report(request, plan(request))
    assert report.fits and any(n.startswith("-np 1: 1 slot of 4,096-token context") for n in report.notes)

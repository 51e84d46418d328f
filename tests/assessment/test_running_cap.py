"""An engine serves at most the sequences it runs at once, whatever its KV pool holds: vLLM's ``--max-num-seqs``
(set, or its default by GPU: 256 under 70 GiB, ``planner.engines.vllm.defaults``), TensorRT-LLM's
``max_batch_size``, llama.cpp's ``-np`` slots. More conversations wait in the queue (vLLM's scheduler admits a
waiting request only while fewer than ``max_num_seqs`` run: ``v1/core/sched/scheduler.py``), so a verdict that
counts the pool's conversations against a target the engine cannot run at once says what is not so.

Before: Qwen3-8B on one H100 at 8k with ``--max-num-seqs 4`` was "49 concurrent conversations ... covers the
target of 20 users with 29 to spare"."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import VerdictState, assess
from planner.assessment.curve import concurrency_curve
from planner.engines.registry import overhead_profile
from planner.engines.trtllm import TrtllmProfile
from planner.planning.plan import PlanRequest
from ui.link_changes import launch_changes

H100 = get_gpu("h100-sxm-80gb")
RTX = get_gpu("rtx-4090")
QWEN = get_model("Qwen/Qwen3-8B").spec
SMALL = get_model("Qwen/Qwen3-0.6B").spec


def _request(
    gpu_id: str = "h100-sxm-80gb", context: int = 8192, model: object = QWEN, **overhead: object
) -> PlanRequest:
    gpu = get_gpu(gpu_id)
    profile = overhead.pop("profile", None) or overhead_profile("vllm", **overhead)
    return PlanRequest(
        model=model, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True), context_tokens=context,
        max_model_len=context, overhead=profile,
    )  # fmt: skip


def test_max_num_seqs_caps_the_conversations_served() -> None:
    a = assess(_request(max_num_seqs=4), target_users=20)
    assert a.concurrency > 49  # the pool's, as vLLM prints it ("Maximum concurrency ... 49.99x")
    assert a.conversations == 4 and a.running_cap == 4
    assert a.state is VerdictState.MISSES_TARGET
    sentence = a.sentence()
    assert "4 concurrent conversations of 8k tokens (vLLM runs at most 4 at once, --max-num-seqs; the pool would " in (
        sentence
    )
    assert "16 short of the target of 20 users" in sentence


def test_vllm_default_sequences_cap_a_small_card() -> None:
    """Qwen3-0.6B on an RTX 4090 at 512 tokens: the pool holds more than the 300 users, vLLM's default runs 256."""
    a = assess(_request("rtx-4090", 512, SMALL), target_users=300)
    assert a.concurrency > 300
    assert a.conversations == 256 and a.running_cap == 256
    assert a.state is VerdictState.MISSES_TARGET


def test_the_pool_sets_the_count_below_the_limit() -> None:
    a = assess(_request(max_num_seqs=256), target_users=20)
    assert a.running_cap is None and a.conversations == math.floor(a.concurrency)
    assert "runs at most" not in a.sentence()


def test_tensorrt_llm_max_batch_size_caps_too() -> None:
    a = assess(_request(profile=TrtllmProfile(max_batch_size=8)), target_users=10)
    assert a.report is not None and a.report.max_running == 8
    assert a.conversations == 8 and "--max_batch_size" in a.sentence()


@settings(max_examples=25, deadline=None)
@given(seqs=st.integers(1, 400), context=st.sampled_from([512, 4096, 32768]), users=st.integers(1, 500))
def test_never_more_served_than_held_or_run(seqs: int, context: int, users: int) -> None:
    a = assess(_request(context=context, max_num_seqs=seqs), target_users=users)
    assert a.conversations <= math.floor(a.concurrency + 1e-9)
    assert a.conversations <= seqs * a.replicas
    assert (a.state is VerdictState.MEETS_TARGET) == (a.fits and a.conversations >= users)


def test_the_nearest_set_up_raises_the_limit_first() -> None:
    """Where the engine's limit, not the pool, misses the target, the first nearest set-up raises it to the users
    (under the engine's own flag); its link carries the setting, and the page it opens meets the target."""
    for profile, flag, param in (
        (overhead_profile("vllm", max_num_seqs=4), "--max-num-seqs 12", "max_num_seqs"),
        (TrtllmProfile(max_batch_size=8), "--max_batch_size 12", "max_num_seqs"),
    ):
        request = _request(profile=profile)
        first = nearest_fitting(request, 12)[0]
        assert first.change == flag
        assert launch_changes(request, first.request) == {param: "12"}
        assert assess(first.request, target_users=12).state is VerdictState.MEETS_TARGET


def test_a_curve_of_conversations_stops_at_the_limit() -> None:
    """The What-if curve plots conversations at once: at most what the engine runs, however short the context."""
    points = concurrency_curve(_request(max_num_seqs=4), [1024, 8192, 131072], users=20)
    assert [p.concurrency for p in points][:2] == [4.0, 4.0] and all(p.conversations <= 4 for p in points)
    assert 0 < points[2].concurrency < 4  # at 128k (YaRN) the pool holds fewer than the limit: the pool sets it

"""A met target whose margin a first boot's transient would take is a warning, as one within the planner's own miss
is: Qwen3-32B in FP8 on 4 x RTX PRO 6000 Server at 200 users was green at 204 conversations while its own engine
note said a first boot may hold up to 1.5 GiB less KV cache per GPU (reviewer, 2026-12-05: 196 would remain).

Since 2026-12-07 the first boot's transient is derived (a cold compile's random copy of the embedding table,
planner.engines.vllm.compile_copy), not quoted: on that card vLLM batches 8,192 tokens and the forward's own peak
(1.68 GiB) is above Qwen3-32B's 1.45 GiB table, so a first boot there holds nothing more and the set-up is green
(204 conversations, 200 after the planner's own miss). On an RTX 3090 Qwen3-8B's table is 0.92 GiB over the forward,
more than the planner's miss there (0.75). (The example was Qwen3-14B on an L40S, whose 1.12 GiB transient was over
the datacenter group's miss until the merged tree of 2026-12-07 took that miss to 1.29 GiB.)"""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.core.units import GiB
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest
from tests.engines.tight_set_up import qwen3_8b_on_an_rtx_3090


def _request(model_id: str, users_context: int = 8192, gpu_id: str = "rtx-pro-6000-blackwell-server") -> PlanRequest:
    gpu = get_gpu(gpu_id)
    return PlanRequest(
        model=get_model(model_id).spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True), gpu_count=4,
        tensor_parallel=1, weights="fp8", kv_dtype="fp8", context_tokens=users_context, max_model_len=users_context,
        overhead=overhead_profile("vllm"),
    )  # fmt: skip


def test_a_first_boots_transient_turns_a_thin_margin_amber() -> None:
    """Qwen3-8B BF16 on one RTX 3090 at 8k: 0.92 GiB of first-boot transient (the 1.16 GiB table less the 0.24 GiB
    forward) above the graphics dies' 90th-percentile miss (0.75 GiB), so against 4 users (4 held) the sentence names
    the first boot: amber, to 3 conversations. The example was Qwen3-14B FP8 on 4 x L40S against 146 users (148
    conversations then, 144 after the transient) until, on the merged tree of 2026-12-07 (FlashInfer's workspace
    placed in FULL's first capture, make calibrate's encoder refit to 46,417 B), the datacenter group's miss rose
    1.09 -> 1.29 GiB, over that boot's 1.12 GiB transient: that set-up (152 conversations) is still amber, to the same
    144, and its sentence named the planner's error until a Gated DeltaNet layer's own profile peak and make
    calibrate's encoder refit to 37,217 B (2026-12-07, fifty-sixth session) took the group's miss to 1.08 GiB, under
    the transient, and it named the first boot again until the Triton sampler's cached buffer beside it (the same
    session, coder3 with relout2) took the miss to 1.15 GiB, over the transient again: it names the planner's error.
    The graphics dies' miss 0.75 -> 0.62 GiB with that refit."""
    a = assess(qwen3_8b_on_an_rtx_3090(8192), 4)
    assert a.report is not None and a.report.first_boot_bytes / GiB == pytest.approx(0.92, abs=0.01)
    # 0.75 until a Gated DeltaNet layer's own profile peak and the encoder refit (fifty-sixth session)
    assert a.accuracy is not None and a.accuracy.p90_abs_bytes / GiB == pytest.approx(0.62, abs=0.01)
    assert a.conversations == 4 and a.conversations_after_miss == 3
    assert a.tone == "warning" and a.margin_within_error
    assert "thinner than a first boot's transient" in a.sentence() and "3 conversations" in a.sentence()
    l40s = assess(_request("Qwen/Qwen3-14B", gpu_id="l40s"), 146)  # the former example
    assert l40s.report is not None and l40s.report.first_boot_bytes / GiB == pytest.approx(1.12, abs=0.01)
    # 144 after the miss until the twenty-fifth blind set's five start-ups, three on RTX PRO 6000 Server Edition
    # cards (2026-12-08, fifty-seventh session): the datacenter miss 1.15 -> 1.34 GiB
    assert l40s.conversations == 152 and l40s.conversations_after_miss == 140 and l40s.tone == "warning"
    # "a first boot's transient" while the datacenter miss was 1.08 GiB (relout2 alone, fifty-sixth session)
    assert "thinner than the planner's error" in l40s.sentence()


def test_no_transient_where_the_forward_is_larger_than_the_table() -> None:
    """The reviewer's set-up: at 8,192 batched tokens the forward's peak is above the table."""
    a = assess(_request("Qwen/Qwen3-32B"), 200)
    assert a.report is not None and a.report.first_boot_bytes == 0
    # 204 / 200 until the mechanistic non-torch model widened the datacenter group's miss (0.87 -> 1.15 GiB)
    assert a.conversations == 204 and a.conversations_after_miss == 196


def test_no_transient_where_no_first_boot_showed_one() -> None:
    """Qwen3-30B-A3B: its 0.58 GiB table is under the forward at 8,192 tokens, so a first boot holds nothing more."""
    a = assess(_request("Qwen/Qwen3-30B-A3B"), 20)
    assert a.report is not None and a.report.first_boot_bytes == 0

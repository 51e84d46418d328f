"""The speed floor is checked against what public runs of the model on its engine reach, not the model alone (an
outside review, 2026-12-06): DeepSeek-V3 for 100 users at a floor of 30 tokens/s had 8 x MI300X as its pick at 42
modelled tokens/s per user, while its own caveat said public vLLM runs of the model measure 0.37-0.49x the model
(at most ~21; 0.37-0.58x, at most ~24, since a burst waits on vLLM 0.11.0's chat-template parse; 0.54-0.73x since
the routed experts take vLLM's measured fused-MoE time, planner.advisor.paged_moe, and the shared constants were
refitted: the 39.0 modelled now meet 28.5 at most on 8 x MI300X, still under the floor; 0.54-0.75x since vLLM
0.11.0's FP8 prompt GEMMs take that release's measured rate, planner.advisor.kernels.gemm_efficiency; 0.54-0.77x
since a prompt's routed experts take the measured fused-MoE time at the chunk's tokens, planner.advisor.prompt_moe)."""

from __future__ import annotations

from model_catalog import get_model
from planner.advisor import Workload, rank
from planner.advisor.recommend import summary_lines

DEEPSEEK = get_model("deepseek-ai/DeepSeek-V3").spec


def _ranking(gpu_ids: tuple[str, ...] | None = None):  # type: ignore[no-untyped-def]
    workload = Workload.fixed_length(
        8192, concurrent_conversations=100, min_tokens_per_s_per_user=30.0, gpu_ids=gpu_ids
    )
    return rank(DEEPSEEK, workload)


def test_no_option_is_kept_below_the_floor_its_own_evidence_gives() -> None:
    ranking = _ranking()
    assert ranking.options
    for option in ranking.options:
        counted = option.counted_tokens_per_s_per_user
        assert counted is not None and counted >= 30.0, (option.label, option.decode_tokens_per_s_per_user, counted)


def test_b200_fp8_at_31_8_modelled_and_0_77_measured_misses_30() -> None:
    """42 modelled and x0.58 on 8 x MI300X until TensorRT-LLM's HBM share was its own and the shared constants
    refitted, and vLLM's and SGLang's routed experts took their measured fused-MoE time (2026-12-07: the gap re-stated
    0.54-0.73 from the same GPUStack run, 2,621 tokens/s in all against 3,598 modelled): 39.0 modelled, at most 28.5.
    Since the MI300X's experts take B200's measured fused-MoE efficiency (planner.advisor.moe_transfer) its fastest
    vLLM set-up models 26.4 and misses by the model alone; B200's FP8 data-parallel ranks (its experts' efficiency its
    own FP8 kernel's, transferred to the expert-parallel layout) model 35.8, at most 26.1 (26.8 since the gap's high
    end is 0.75: GPUStack's ShareGPT burst with vLLM 0.11.0's FP8 GEMMs at their measured rate). Since a prompt's
    routed experts take the measured kernel's time at the chunk's tokens (planner.advisor.prompt_moe) they model
    31.8, at most 24.5 (the gap's high end 0.77: the same burst, 2,621 tokens/s against 3,407 modelled), and the
    MI300X's fastest 24.0 (26.4 before)."""
    mi300x = _ranking(("mi300x",))
    assert not mi300x.options
    assert any(r.detail.startswith("24.0 tokens/s per user at the target load") for r in mi300x.rejected)
    ranking = _ranking(("b200-sxm",))
    assert not [o.label for o in ranking.options if (o.counted_tokens_per_s_per_user or 0) < 30]
    missed = [r.detail for r in ranking.rejected if r.reason == "latency-target-missed" and "(x0.77" in r.detail]
    assert missed, sorted({r.reason for r in ranking.rejected})
    assert "as public runs of this model on its engine measure (x0.77, on Hopper GPUs)" in missed[0]
    assert any(d.startswith("31.8 tokens/s per user modelled") and "at most 24.5" in d for d in missed), missed


def test_the_summary_names_the_measured_speed_beside_the_modelled() -> None:
    speed = next(line for line in summary_lines(_ranking()) if line.startswith("Speed:"))
    assert "modelled (at most ~" in speed and "on Hopper GPUs" in speed  # the pick is a B200: the runs were H200s


def test_a_gap_measured_on_another_family_says_where() -> None:
    """A maintainer's review (2026-12-06): "at most ~36 as public runs measure" on eight MI300X read as MI300X runs,
    where the runs were on H200s."""
    workload = Workload.fixed_length(8192, concurrent_conversations=32, gpu_ids=("mi300x",))
    options = rank(DEEPSEEK, workload).options
    assert options and all(o.measured_speed_on == "Hopper" for o in options if o.measured_speed_share)
    from planner.advisor.speed_words import speed_text

    assert "if it runs as public runs of this model on its engine do on Hopper GPUs" in speed_text(options[0])

"""A Mac wires at most ``iogpu.wired_limit_mb`` of its memory for the GPU (75 % by default): a set-up that misses
its target there is offered the smallest raise that meets it, with the command and its figure, before more
machines or a smaller format; the raise leaves macOS 8 GiB (planner.deploy.gpu_share). The Memory page had no such
fix; the advisor's ``--unified-memory-share`` was the only way to plan a raised share."""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.alternatives import nearest_fitting
from planner.assessment.assess import VerdictState, assess
from planner.assessment.share_lever import current_share, with_share
from planner.core.units import GiB
from planner.deploy.gpu_share import highest_share, wired_limit_mib
from planner.deploy.options import DeploymentOptions
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest

MAC = get_gpu("apple-m4-max")  # 128 GiB of DRAM, 96 GiB wired by default
LLAMA_70B = get_model("meta-llama/Llama-3.1-70B").spec


def _request(**deployment: object) -> PlanRequest:
    options = DeploymentOptions.model_validate(deployment) if deployment else None
    share = options.unified_share if options else None
    return PlanRequest(
        model=LLAMA_70B, gpu=MAC, gpu_memory_bytes=MAC.memory_bytes_for(True, share), weights="q8_0",
        context_tokens=32_768, max_model_len=32_768, overhead=overhead_profile("llamacpp").model_copy(),
        deployment=options,
    )  # fmt: skip


def test_the_smallest_raise_that_meets_the_target_is_offered() -> None:
    """Llama 3.1 70B in Q8_0 with three 32k slots (10 GiB each) needs ~100.5 GiB; 96 GiB holds two."""
    request = _request()
    found = assess(request, 3)
    assert found.state is VerdictState.MISSES_TARGET and found.conversations == 2
    offered = nearest_fitting(request, 3)
    share = next(o for o in offered if "share of memory" in o.change)
    assert offered[0] is share  # a machine setting comes before buying more
    raised = share.request.deployment.unified_share if share.request.deployment else None
    assert raised == 0.79 and share.assessment.conversations == 3  # 0.78 x 128 GiB = 99.84 GiB holds two
    assert assess(with_share(request, 0.78), 3).conversations == 2
    assert share.request.gpu_memory_bytes == round(0.79 * 128 * GiB)
    assert f"sudo sysctl iogpu.wired_limit_mb={wired_limit_mib(MAC, 0.79)}" in share.change
    assert wired_limit_mib(MAC, 0.79) == 103_547  # ceil(0.79 x 131,072 MiB)


def test_no_raise_past_what_macos_keeps() -> None:
    """Ten 32k slots need ~170 GiB: no share up to 93 % (128 GiB less 8) holds them, so no raise is offered."""
    assert highest_share(MAC) == 0.93
    assert not any("share of memory" in o.change for o in nearest_fitting(_request(), 10))


@pytest.mark.parametrize("share", [0.9, 0.93])
def test_a_raised_share_is_the_plan_of_that_share(share: float) -> None:
    request = _request(unified_share=share)
    assert current_share(request) == share
    assert request.gpu_memory_bytes == round(share * 128 * GiB)
    assert not any("share of memory" in o.change for o in nearest_fitting(request, 10) if share == 0.93)


def test_memory_given_by_hand_has_no_share_to_raise() -> None:
    request = _request().model_copy(update={"gpu_memory_bytes": 90 * GiB})
    assert current_share(request) is None


def test_a_share_given_past_what_macos_keeps_is_warned() -> None:
    """A 99 % share left macOS 1.3 GiB of 128 GiB under a green verdict and no warning (review, 2026-12-05)."""
    found = assess(_request(unified_share=0.99), 5)
    assert any("leaves the OS 1.28 GiB of 128.00 GiB" in w for w in found.result.warnings), found.result.warnings
    assert not assess(_request(unified_share=0.93), 5).result.warnings


def test_the_launch_commands_set_the_share_they_are_planned_at() -> None:
    """The page's launch commands had only llama-server: without the sysctl the 98,304 tokens do not fit."""
    from planner.engines.launch import launch_commands

    found = assess(_request(unified_share=0.79), 3)
    command = launch_commands(found.request, found.result)["llamacpp"]
    assert (
        command.splitlines()[0]
        == "sudo sysctl iogpu.wired_limit_mb=103547  # (macOS 14 or later; until the next reboot)"
    )
    assert not launch_commands(assess(_request(), 2).request, assess(_request(), 2).result)["llamacpp"].startswith(
        "sudo"
    )

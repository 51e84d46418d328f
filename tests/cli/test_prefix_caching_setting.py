"""Prefix caching as a launch setting people set (review 45c, finding 8): ``--enable-prefix-caching`` and
``--no-enable-prefix-caching`` on ``fit``, a tri-state (not given: the release's default). A hybrid model's plan
depends on it: with prefix caching on vLLM keeps its Mamba cache in mode 'align', a second state page per running
sequence (0.26.0 ``model_executor/models/config.py:558-570``); 0.26.0-0.27.1 keep it opt-in for hybrids (0.27.1
``engine/arg_utils.py:2602-2606``) and 0.28.0 turns it on (``:2650``). Before, both flags were "unrecognized
arguments", so a 0.27.1 start-up with ``--enable-prefix-caching`` or a 0.28 one with ``--no-enable-prefix-caching``
could not be planned. SGLang's counterpart is ``--disable-radix-cache`` (0.5.4 ``srt/server_args.py:2853``), which
resizes its Mamba and windowed pools; it is not planned, and the refusal names it."""

from __future__ import annotations

import json

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.cli import main
from planner.engines.launch import launch_commands
from planner.engines.registry import engine_profile, overhead_profile
from planner.planning.plan import PlanRequest, plan

BASE = ["fit", "--model", "Qwen/Qwen3.8-27B", "--weights", "fp8", "--gpu", "h100-sxm-80gb", "--context", "8192"]


def _lines(capsys: pytest.CaptureFixture[str], version: str, *extra: str) -> list[str]:
    """vLLM's lines; at the H100's default 1,024 sequences every one of these refuses for want of Mamba blocks
    (816), after it has printed the pool (the exit status 1: does not fit)."""
    assert main([*BASE, "--engine-version", version, *extra, "--json"]) == 1
    lines: list[str] = json.loads(capsys.readouterr().out)["engine_lines"]
    return lines


@pytest.mark.parametrize(
    ("version", "default", "on", "off"),
    [
        # 0.27.1: off by default (opt-in for hybrids); --enable-prefix-caching: mode 'align', two state pages
        # 477,476 / 393,216 from 39.06 GiB until the mechanistic non-torch model (2026-12-07, fifty-third session):
        # Qwen3.8-27B's vision encoder's amount; 466,944 / 384,542 from 38.20 GiB until make calibrate refitted that
        # amount without club-3090 #851's under-counted INT4 weights (2026-12-07, fifty-fourth session); 468,699 /
        # 385,987 from 38.35 GiB until FlashInfer's workspace was placed in FULL's first capture and make calibrate
        # refit the encoder amount to 46,417 B (2026-12-07); 468,114 / 385,505 from 38.29 GiB until make calibrate refit
        # it to 41,312 B beside the MTP drafter's buffers (2026-12-07, fifty-fifth session); 468,699 / 385,987 from
        # 38.36 GiB until a Gated DeltaNet layer's own profile peak and the encoder refit to 37,217 B (2026-12-07,
        # fifty-sixth session)
        ("0.27.1", "469,869", "386,951", "469,869"),
        # 0.28.0: on by default; --no-enable-prefix-caching: one state page, 0.27.1's default pool
        ("0.28.0", "386,951", "386,951", "469,869"),
    ],
)
def test_fit_plans_prefix_caching_on_and_off(
    capsys: pytest.CaptureFixture[str], version: str, default: str, on: str, off: str
) -> None:
    """Qwen3.8-27B FP8 on one H100 at 8,192 tokens: the same 38.43 GiB holds 469,869 tokens with one state page per
    sequence and 386,951 with two ('align')."""
    for extra, tokens in (((), default), (("--enable-prefix-caching",), on), (("--no-enable-prefix-caching",), off)):
        lines = _lines(capsys, version, *extra)
        assert lines[:2] == ["Available KV cache memory: 38.43 GiB", f"GPU KV cache size: {tokens} tokens"], lines


def _command(version: str, **settings: object) -> str:
    gpu = get_gpu("h100-sxm-80gb")
    request = PlanRequest(
        model=get_model("Qwen/Qwen3.8-27B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
        weights="fp8", context_tokens=8192, max_model_len=8192,
        overhead=engine_profile("vllm", version=version, max_num_seqs=256, **settings),
    )  # fmt: skip
    return launch_commands(request, plan(request))["vllm"]


def test_the_launch_command_says_the_side_given_and_nothing_by_default() -> None:
    assert _command("0.27.1", enable_prefix_caching=True).endswith("--max-num-seqs 256 --enable-prefix-caching")
    assert _command("0.28.0", enable_prefix_caching=False).endswith("--max-num-seqs 256 --no-enable-prefix-caching")
    assert "prefix-caching" not in _command("0.28.0")


def test_engines_without_it_refuse_it_with_their_own_reason(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(PlannerError) as sglang:
        overhead_profile("sglang", enable_prefix_caching=False)
    assert str(sglang.value) == (
        "engine: SGLang has no --enable-prefix-caching setting; its own --disable-radix-cache is not planned here"
    )
    with pytest.raises(PlannerError, match=r"^engine: TensorRT-LLM has no --enable-prefix-caching setting$"):
        overhead_profile("trtllm", enable_prefix_caching=True)
    assert main([*BASE, "--overhead-fraction", "0.2", "--no-enable-prefix-caching"]) == 2
    assert "give it or --no-enable-prefix-caching, not both" in capsys.readouterr().err

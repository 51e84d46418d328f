"""llama-server's command is one its planned build parses: ``-fa`` is a bare switch before the flash-attention type
(~b6327) and takes ``on`` from it, where a bare ``-fa`` would take the next argument as its value ("unkown value for
--flash-attn: '--main-gpu'", yazon/flexllama#15); ``--n-cpu-moe`` came with b6089 (ggml-org/llama.cpp PR #15077),
so an earlier build refuses MoE offload by name."""

from __future__ import annotations

import shlex

import pytest

from model_catalog import get_gpu, get_model
from planner.deploy.options import DeploymentOptions
from planner.engines.registry import get_engine, overhead_profile
from planner.planning.plan import PlanRequest, plan

RTX = get_gpu("rtx-3090")
MOE = get_model("Qwen/Qwen3-30B-A3B").spec


def _request(version: str, cpu_moe_layers: int = 0) -> PlanRequest:
    options = DeploymentOptions(cpu_moe_layers=cpu_moe_layers) if cpu_moe_layers else None
    return PlanRequest(
        model=MOE, gpu=RTX, gpu_memory_bytes=RTX.memory_bytes_for(True), weights="q4_k_m", context_tokens=8192,
        max_model_len=8192, overhead=overhead_profile("llamacpp", version=version), deployment=options,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("version", "flag"), [("b6000", "-fa"), ("b6326", "-fa"), ("b6327", "-fa on"), ("b7470", "-fa on")]
)
def test_flash_attention_as_the_build_spells_it(version: str, flag: str) -> None:
    request = _request(version)
    tokens = shlex.split(get_engine("llamacpp").launch_command(request, plan(request), request.overhead))
    after = tokens[tokens.index("-fa") + 1 :]
    if flag == "-fa on":
        assert after[0] == "on"
    else:  # a bare switch: the next token, if any, is another flag
        assert not after or after[0].startswith("-")


def test_moe_offload_needs_a_build_with_n_cpu_moe() -> None:
    engine = get_engine("llamacpp")
    old = engine.refusal(_request("b6000", cpu_moe_layers=8))
    assert old == (
        "llama.cpp b6000 has no --n-cpu-moe (it came with b6089); its -ot / --override-tensor keeps expert tensors on "
        "the CPU"
    )
    new = _request("b7470", cpu_moe_layers=8)
    assert engine.refusal(new) is None
    assert "--n-cpu-moe 8" in " ".join(engine.deployment_flags(new, plan(new), 0))


def test_the_selector_offers_a_build_with_todays_flags() -> None:
    assert get_engine("llamacpp").releases() == ("b6000", "b7470", "b9849")
    assert get_engine("llamacpp").profile().engine_version == "b9849"  # the newest build with a public log

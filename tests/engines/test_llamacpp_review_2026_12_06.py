"""llama.cpp, an outside engine-maintainer review (2026-12-06).

Speculative flags: ggml-org/llama.cpp PR #22397 ("spec : refactor params", merged 2026-04-26) removed ``--draft``,
``--draft-n`` and ``--draft-max`` (llama-server exits "the argument has been removed. use --spec-draft-n-max or
--spec-ngram-mod-n-max") and ``--draft-min``; ``--model-draft`` and ``--cache-type-k-draft`` / ``-v-draft`` stay as
aliases of ``--spec-draft-model`` / ``--spec-draft-type-k`` / ``-v`` (a later build's ``--help``). PR #23988
(b9464, 2026-06-01) removed the auto-enable of draft-simple when a draft model is given: from it the type is
named, ``--spec-type draft-simple`` (the default is ``none``). The planner's default build b9849 printed
``--draft-max``: the command it gave exits before loading.
"""

from __future__ import annotations

import shlex

import pytest

from model_catalog import get_gpu, get_model
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.registry import get_engine, overhead_profile
from planner.planning.plan import PlanRequest, plan

RTX_4090 = get_gpu("rtx-4090")
LLAMA_8B = get_model("meta-llama/Llama-3.1-8B").spec
LLAMA_1B = get_model("meta-llama/Llama-3.2-1B").spec


def _draft_command(version: str) -> list[str]:
    spec = SpeculativeOptions(method="draft", num_speculative_tokens=5, draft_model=LLAMA_1B)
    request = PlanRequest(
        model=LLAMA_8B, gpu=RTX_4090, gpu_memory_bytes=RTX_4090.memory_bytes_for(True), weights="q4_k_m",
        kv_dtype="int8", context_tokens=8192, max_model_len=8192,
        overhead=overhead_profile("llamacpp", version=version), deployment=DeploymentOptions(speculative=spec),
    )  # fmt: skip
    (flags,) = get_engine("llamacpp").deployment_flags(request, plan(request), 0)
    return shlex.split(flags)


@pytest.mark.parametrize("version", ["b6000", "b7470", "b8925"])
def test_builds_before_the_refactor_take_draft_max(version: str) -> None:
    assert _draft_command(version) == [
        "--model-draft", "Llama-3.2-1B-Q4_K_M.gguf", "--draft-max", "5",
        "--cache-type-k-draft", "q8_0", "--cache-type-v-draft", "q8_0",
    ]  # fmt: skip


def test_a_build_after_the_refactor_takes_spec_draft_n_max() -> None:
    command = _draft_command("b9000")
    assert "--draft-max" not in command and "--draft-min" not in command
    assert command[command.index("--spec-draft-n-max") + 1] == "5"
    assert "--spec-type" not in command  # a draft model still turned draft-simple on by itself before b9464


@pytest.mark.parametrize("version", ["b9464", "b9849"])
def test_builds_from_b9464_name_the_draft_type(version: str) -> None:
    assert _draft_command(version) == [
        "--spec-type", "draft-simple", "--model-draft", "Llama-3.2-1B-Q4_K_M.gguf", "--spec-draft-n-max", "5",
        "--cache-type-k-draft", "q8_0", "--cache-type-v-draft", "q8_0",
    ]  # fmt: skip

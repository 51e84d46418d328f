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
from planner.engines.base import EngineReport
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


def _report(model: str, ctx: int, slots: int = 1, ngl: int | None = None) -> EngineReport:
    profile = overhead_profile("llamacpp").model_copy(update={"n_parallel": slots})
    request = PlanRequest(
        model=get_model(model).spec, gpu=RTX_4090, gpu_memory_bytes=RTX_4090.memory_bytes_for(True), weights="q4_k_m",
        context_tokens=ctx, max_model_len=ctx, overhead=profile,
        deployment=DeploymentOptions(gpu_layers=ngl) if ngl is not None else None,
    )  # fmt: skip
    return get_engine("llamacpp").report(request, plan(request), request.overhead)  # type: ignore[arg-type]


def test_the_size_line_counts_every_layers_cache_whatever_its_device() -> None:
    """``llama_kv_cache: size`` is ``size_k_bytes() + size_v_bytes()``, each a sum of ``ggml_nbytes`` over every
    layer of the cache (``src/llama-kv-cache.cpp``), the CPU layers' with the GPU's: -ngl 40 of Llama 3.1 70B at
    8,192 tokens in f16 is 80 layers x 8,192 x 8 x 128 x 2 bytes x 2 = 2,560 MiB (1,248 on CUDA0, 1,312 on the CPU),
    where it printed the GPU's 1,248."""
    lines = _report("meta-llama/Llama-3.1-70B", 8192, ngl=40).lines
    assert "llama_kv_cache:      CUDA0 KV buffer size = 1248.00 MiB" in lines
    assert "llama_kv_cache:        CPU KV buffer size = 1312.00 MiB" in lines
    assert "llama_kv_cache: size = 2560.00 MiB, K (f16): 1280.00 MiB, V (f16): 1280.00 MiB" in lines


def test_a_model_too_big_fails_at_its_model_buffer() -> None:
    """load_tensors allocates the model buffers before any context (``src/llama-model.cpp``): Llama 3.1 70B's
    Q4_K_M buffer on one 24 GB card is the first cudaMalloc that fails, with its own size (ggml-cuda.cu
    ``ggml_backend_cuda_buffer_type_alloc_buffer``), then "unable to allocate CUDA0 buffer"; the line used to sum
    model, KV, compute and context (51,075.07 MiB)."""
    report = _report("meta-llama/Llama-3.1-70B", 8192)
    model_line = next(line for line in report.lines if "CUDA0 model buffer size" in line)
    size = model_line.split("= ")[1]
    assert report.failure_kind == "weights-oom" and report.failure is not None
    assert report.failure.startswith(
        f"ggml_backend_cuda_buffer_type_alloc_buffer: allocating {size} on device 0: cudaMalloc failed: out of memory"
    )
    assert report.lines[-1] == "llama_model_load: error loading model: unable to allocate CUDA0 buffer"


def test_a_cache_too_big_fails_at_its_kv_buffer() -> None:
    """The weights load; the context's KV buffer is the first that does not fit (``llama_kv_cache`` throws "failed
    to allocate buffer for kv cache", which ``llama_init_from_model`` prints): 4 slots of 131,072 tokens of Llama
    3.1 8B in f16, 64 GiB."""
    report = _report("meta-llama/Llama-3.1-8B", 131_072, slots=4)
    assert report.failure_kind == "out-of-memory" and report.failure is not None
    assert report.failure.startswith(
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 65536.00 MiB on device 0: cudaMalloc failed"
    )
    assert report.lines[-1] == (
        "llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache"
    )

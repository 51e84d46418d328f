"""The launch settings people set (planner.engines.settings) reach the plan, the engine's figures and its launch
command from the CLI; an engine without the setting refuses it with one line."""

from __future__ import annotations

import json

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.cli import main
from planner.engines.launch import launch_commands
from planner.engines.registry import engine_profile
from planner.planning.plan import PlanRequest, plan

BASE = ["fit", "--model", "Qwen/Qwen3.6-27B", "--gpu", "rtx-3090", "--gpus", "2", "--weights", "fp8"]
BASE += ["--context", "32768", "--json"]


def _vllm_command(**settings: object) -> str:
    """The vLLM launch command of the same set-up with these settings (as the Memory page shows it)."""
    gpu = get_gpu("rtx-3090")
    request = PlanRequest(
        model=get_model("Qwen/Qwen3.6-27B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True), gpu_count=2,
        weights="fp8", context_tokens=32768, max_model_len=32768, overhead=engine_profile("vllm", **settings),
    )  # fmt: skip
    return launch_commands(request, plan(request))["vllm"]


def _fit(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    main([*BASE, "--engine", "vllm", *extra])
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_max_num_seqs_fits_a_hybrid_model_on_two_3090s(capsys: pytest.CaptureFixture[str]) -> None:
    """The default 256 sequences need 256 Mamba blocks a GPU, more than the pool has: vLLM refuses to start (as the
    2 x RTX 3090 users of issue 20 found); at --max-num-seqs 2 it starts and serves."""
    default = _fit(capsys)
    assert default["verdict"] == "engine-refuses-to-start"
    assert "exceeds available Mamba cache blocks" in str(default["engine_failure"])
    two = _fit(capsys, "--max-num-seqs", "2")
    assert two["verdict"] != "engine-refuses-to-start" and int(str(two["conversations_total"])) >= 1
    assert "--max-num-seqs 2" in _vllm_command(max_num_seqs=2)


def test_a_fixed_kv_size_replaces_the_fraction(capsys: pytest.CaptureFixture[str]) -> None:
    data = _fit(capsys, "--max-num-seqs", "2", "--kv-cache-memory-gib", "4")
    first = data["engine_lines"][0]  # type: ignore[index]
    # vLLM's own line for a fixed size (it skips the profiling that prints "Available KV cache memory")
    assert "reserved 4.00 GiB memory for KV Cache as specified by kv_cache_memory_bytes config" in first
    command = _vllm_command(max_num_seqs=2, kv_cache_memory_bytes=4 * 2**30)
    assert f"--kv-cache-memory-bytes {4 * 2**30}" in command and "--gpu-memory-utilization" not in command


def test_an_engine_without_the_setting_refuses_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--engine", "sglang", "--kv-cache-memory-gib", "4"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: engine: SGLang has no --kv-cache-memory-bytes setting; its own cap is --max-total-tokens "
        "(tokens, planned)"
    )


def test_sglang_takes_its_own_eager_mode_and_token_cap(capsys: pytest.CaptureFixture[str]) -> None:
    """--enforce-eager is SGLang's --disable-cuda-graph (the pool the same until 0.5.13; from 0.5.15, the default
    0.5.18's, its graphs' share is freed), --max-total-tokens its pool's cap."""
    base = ["fit", "--model", "Qwen/Qwen3-8B", "--gpu", "h100-sxm-80gb", "--context", "8192", "--json"]
    assert main([*base, "--engine", "sglang"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert main([*base, "--engine", "sglang", "--enforce-eager", "--max-total-tokens", "100000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kv_budget_tokens"] == 100_000 < default["kv_budget_tokens"]
    assert "max_total_num_tokens=100000, max_running_requests=4096, context_len=8192" in data["engine_lines"]
    assert any("--disable-cuda-graph: no CUDA graph is captured" in n for n in data["engine_notes"])
    assert main([*base, "--engine", "sglang", "--enforce-eager"]) == 0
    assert json.loads(capsys.readouterr().out)["kv_budget_tokens"] == default["kv_budget_tokens"] + 6_282  # 976 MB
    old = ["--engine", "sglang", "--engine-version", "0.5.4"]
    assert main([*base, *old]) == 0
    before = json.loads(capsys.readouterr().out)["kv_budget_tokens"]
    assert main([*base, *old, "--enforce-eager"]) == 0
    assert json.loads(capsys.readouterr().out)["kv_budget_tokens"] == before


def test_sglang_serves_at_most_its_running_requests(capsys: pytest.CaptureFixture[str]) -> None:
    """--max-num-seqs is SGLang's --max-running-requests: the launch command and the served count follow it."""
    base = ["fit", "--model", "Qwen/Qwen3-8B", "--gpu", "h100-sxm-80gb", "--context", "8192", "--json"]
    assert main([*base, "--engine", "sglang", "--max-num-seqs", "2", "--users", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["conversations_total"] == 2 and data["engine_max_running_per_replica"] == 2
    assert "SGLang runs at most 2 at once, --max-running-requests" in data["verdict_sentence"]


def test_the_weight_loader_is_a_choice_the_release_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """``--load-format`` / ``--safetensors-load-strategy`` (planner.engines.vllm.unified): an offered value reaches
    the launch command; one vLLM does not offer is argparse's named error; one the release lacks, vLLM's."""
    assert "--safetensors-load-strategy prefetch" in _vllm_command(safetensors_load_strategy="prefetch")
    with pytest.raises(SystemExit):
        main([*BASE, "--engine", "vllm", "--load-format", "pt; rm -rf /"])
    assert "invalid choice" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a huge value is quoted back shortened, the choices still said
        main([*BASE, "--engine", "vllm", "--safetensors-load-strategy", "x" * 100_000])
    err = capsys.readouterr().err
    assert len(err) < 200 and "x…'" in err and "'prefetch'" in err
    assert main([*BASE, "--engine", "vllm", "--engine-version", "0.17.0", "--safetensors-load-strategy", "prefetch"])
    assert "vLLM 0.17.0 has no --safetensors-load-strategy prefetch: the value came with 0.18.0" in (
        capsys.readouterr().err
    )


def test_the_memory_fraction_help_states_each_engines_own_default(capsys, monkeypatch) -> None:
    """``fit --help`` says each engine's memory-fraction default as the registry plans it: vLLM's
    ``gpu_memory_utilization`` is 0.92 from 0.20.0 (vllm PR #38284) and 1.0 from 0.34.0 (the extensible KV cache),
    0.9 before; the help once said 0.9 for every release while the default release planned 0.92."""
    from planner.engines.registry import get_engine
    from planner.engines.vllm.profile import VLLM_DEFAULT_VERSION

    vllm = get_engine("vllm")
    assert (vllm.fraction_default("0.19.0"), vllm.fraction_default("0.20.0"), vllm.fraction_default("0.34.0")) == (
        0.9,
        0.92,
        1.0,
    )
    monkeypatch.setenv("COLUMNS", "1000")  # argparse wraps at hyphens; one line a flag
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    planned = vllm.fraction_default(VLLM_DEFAULT_VERSION)
    assert f"vLLM --gpu-memory-utilization (default {planned:g} at {VLLM_DEFAULT_VERSION}" in shown
    assert "0.9 before 0.20.0" in shown and "1 from 0.34.0" in shown
    assert "SGLang --mem-fraction-static (default: its heuristic by GPU memory" in shown
    assert "TensorRT-LLM --kv_cache_free_gpu_memory_fraction (default 0.9)" in shown
    assert "(default 0.9), SGLang" not in shown


def test_a_llamacpp_layer_split_is_not_called_tensor_parallel(capsys: pytest.CaptureFixture[str]) -> None:
    """Found by an outside review (2026-12-05): fit printed llama.cpp's layer split over two RTX 4090s as 'TP 2, PP
    1' while the page says llama.cpp has no TP; the row and the JSON now say how it splits."""
    argv = ["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "rtx-4090", "--gpus", "2", "--engine", "llamacpp"]
    argv += ["--weights", "q4_k_m", "--context", "8192", "--users", "8"]
    assert main(argv) == 0
    assert "2 × GeForce RTX 4090 (layers split over 2 GPUs, 1 replica)" in capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # as the command takes it (--tp 2, llama.cpp has no --pp), each GPU a stage of whole layers as llama.cpp places
    # them: 17 and 15 of Llama 3.1 8B's 32 (the output layer counts and goes to the last)
    assert data["split"] == "layer" and (data["tensor_parallel"], data["pipeline_parallel"]) == (2, 1)
    assert data["layers_per_gpu"] == [17, 15]
    assert main(["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--gpus", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["split"] == "tensor"


def test_the_compile_cache_state_is_a_setting(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 20: ``--compile-cache cold`` (a first boot, a container without a kept ~/.cache/vllm,
    VLLM_DISABLE_COMPILE_CACHE=1; planner.engines.vllm.compile_cache) plans what the Python API plans cold. Qwen3-8B
    on one RTX 3090 under vLLM 0.31.0: 21,344 tokens cold, 28,016 warm and not given (the first-boot note's 0.92
    GiB, 6,672 tokens of 144 KiB); the warm plan's note names the setting, the cold one has none. Before, the flag
    did not exist (argparse stopped at it)."""
    base = ["fit", "--model", "Qwen/Qwen3-8B", "--gpu", "rtx-3090", "--engine", "vllm", "--context", "8192"]
    base += ["--users", "2", "--json"]
    answers = {}
    for given in ([], ["--compile-cache", "warm"], ["--compile-cache", "cold"]):
        assert main([*base, *given]) == 0
        answers[" ".join(given)] = json.loads(capsys.readouterr().out)
    tokens = {given: data["kv_budget_tokens"] for given, data in answers.items()}
    # 28,016 / 21,344 until the desktop cards' share was refitted beside FlashInfer's decode workspace (2026-12-07),
    # 28,976 / 22,288 until the mechanistic non-torch model (2026-12-07, fifty-third session): no desktop share
    assert tokens == {"": 36_576, "--compile-cache warm": 36_576, "--compile-cache cold": 29_888}
    gpu = get_gpu("rtx-3090")
    request = PlanRequest(
        model=get_model("Qwen/Qwen3-8B").spec, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True),
        context_tokens=8192, max_model_len=8192, overhead=engine_profile("vllm", compile_cache="cold"),
    )  # fmt: skip
    assert assess(request, 2).kv_budget_tokens == 29_888  # one answer: the Python API's (22,288 before)
    warm_notes = " ".join(map(str, answers[""]["engine_notes"]))  # type: ignore[call-overload]
    cold_notes = " ".join(map(str, answers["--compile-cache cold"]["engine_notes"]))  # type: ignore[call-overload]
    assert "holds 0.92 GiB less KV cache per GPU (plan it with --compile-cache cold)" in warm_notes
    assert "First boot" not in cold_notes


def test_the_compile_cache_does_not_apply_elsewhere(capsys: pytest.CaptureFixture[str]) -> None:
    """Another engine, or a vLLM release before 0.22.0 (whose cold compile is not planned), says the setting does not
    apply; a state it does not offer is argparse's named error."""
    base = ["fit", "--model", "Qwen/Qwen3-8B", "--gpu", "rtx-3090", "--context", "8192", "--json"]
    assert main([*base, "--engine", "sglang", "--compile-cache", "cold"]) == 2
    assert capsys.readouterr().err.strip() == "error: engine: SGLang has no --compile-cache setting"
    assert main([*base, "--engine", "vllm", "--engine-version", "0.21.0", "--compile-cache", "cold"]) == 2
    assert "vLLM 0.21.0: --compile-cache does not apply before 0.22.0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*base, "--engine", "vllm", "--compile-cache", "lukewarm"])
    assert "invalid choice: 'lukewarm'" in capsys.readouterr().err

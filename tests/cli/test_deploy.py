"""``fit``'s deployment flags: one JSON field per component (bytes per GPU, host bytes), the answers the flags ask
for, and one clear line with exit status 2 on a bad value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.cli import main
from planner.core.units import GiB, MiB

FIELDS = (
    "lora_bytes_per_gpu",
    "draft_bytes_per_gpu",
    "other_bytes_per_gpu",
    "offloaded_weights_bytes_per_gpu",
    "host_weights_bytes",
    "kv_offload_host_bytes",
    "kv_offload_shm_bytes",
    "lora_host_bytes",
    "deployment",
)
LLAMA = ["fit", "--model", "meta-llama/Llama-3.1-8B", "--json"]


def _fit(capsys: pytest.CaptureFixture[str], argv: list[str], status: int = 0) -> dict:
    assert main(argv) == status, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_every_component_field_is_always_there(capsys) -> None:
    data = _fit(capsys, [*LLAMA, "--gpu", "h100-sxm-80gb"])
    assert all(field in data for field in FIELDS)
    assert data["deployment"] is None and data["lora_bytes_per_gpu"] == 0


def test_lora_flags(capsys) -> None:
    data = _fit(capsys, [*LLAMA, "--gpu", "h100-sxm-80gb", "--engine", "vllm", "--max-loras", "4"])
    # the linear stacks (tests/deploy/test_deploy.py, by hand) and, from vLLM 0.22.0 (the default release here), the
    # untied embedding's and logits processor's: 2 x 4 slots x 16 x (128,256 + 4,096) x 2 bytes (test_lora_vocab.py)
    assert data["lora_bytes_per_gpu"] == 335_544_320 + 2 * 4 * 16 * (128256 + 4096) * 2 == 369_426_432
    assert data["lora_host_bytes"] == 4 * 335_544_320 // 4  # max_cpu_loras = max_loras: 4 whole adapters
    assert "--enable-lora --max-loras 4 --max-lora-rank 16" in data["deployment"]["launch_settings"]


def test_llamacpp_gpu_layers_and_the_layers_that_fit(capsys) -> None:
    argv = ["fit", "--model", "mistralai/Mistral-7B-v0.1", "--gpu", "rtx-4090", "--engine", "llamacpp", "--users", "1"]
    old = [*argv, "--engine-version", "b6000"]  # the EduHPC'25 log's build (before PR #18148): 20 repeating layers
    data = _fit(capsys, [*old, "--weights", "q4_k_m", "--context", "768", "--gpu-layers", "20", "--json"])
    assert data["available_kv_cache_bytes_per_gpu"] == 60 * MiB
    new = _fit(capsys, [*argv, "--weights", "q4_k_m", "--context", "768", "--gpu-layers", "20", "--json"])
    assert new["available_kv_cache_bytes_per_gpu"] == 57 * MiB  # b9849: the output layer first, 19 repeating
    assert data["host_weights_bytes"] > 0 and data["deployment"]["decode"]["host_link"] == "host RAM"
    assert data["gpu_layers_that_fit"] == 33  # all of it fits a 24 GB card


def test_cpu_offload_and_the_offload_needed(capsys) -> None:
    argv = ["fit", "--model", "Qwen/Qwen3-14B", "--gpu", "rtx-4090", "--engine", "vllm", "--json"]
    data = _fit(capsys, [*argv, "--cpu-offload-gb", "12"])
    assert data["offloaded_weights_bytes_per_gpu"] == 12 * GiB
    assert data["cpu_offload_gib_needed"] is not None


def test_kv_offload_and_working_set(capsys) -> None:
    data = _fit(capsys, [*LLAMA, "--gpu", "h100-sxm-80gb", "--engine", "vllm", "--kv-offload-gib", "10"])
    assert data["kv_offload_host_bytes"] == data["kv_offload_shm_bytes"] == 10 * GiB
    assert data["deployment"]["kv_offload"]["tokens"] == 81920
    argv = [*LLAMA, "--gpu", "h100-sxm-80gb", "--engine", "vllm", "--users", "100"]
    data = _fit(capsys, [*argv, "--prefix-tokens", "2000", "--prefix-hit-rate", "0.6"])
    assert data["kv_offload_host_bytes"] == 7500 * 131072 * 16


def test_speculative_flags(capsys) -> None:
    argv = [*LLAMA, "--gpu", "h100-sxm-80gb", "--engine", "vllm"]
    data = _fit(capsys, [*argv, "--draft-model", "meta-llama/Llama-3.2-1B", "--num-speculative-tokens", "4"])
    assert data["draft_bytes_per_gpu"] > 2 * 10**9
    eagle = _fit(capsys, [*argv, "--speculative-method", "eagle"])
    assert 0 < eagle["draft_bytes_per_gpu"] < data["draft_bytes_per_gpu"]


def test_used_memory_mig_and_nvidia_smi(capsys, tmp_path: Path) -> None:
    argv = [*LLAMA, "--gpu", "h100-sxm-80gb", "--engine", "vllm"]
    data = _fit(capsys, [*argv, "--used-memory-gib", "20"], status=1)
    assert data["fit_status"] == "free-memory" and data["other_bytes_per_gpu"] == 20 * GiB
    smi = tmp_path / "smi.txt"
    smi.write_text("| N/A 30C P0 70W / 700W |   2048MiB /  81559MiB |  0%  Default |\n")
    data = _fit(capsys, [*argv, "--nvidia-smi", str(smi)])
    assert data["other_bytes_per_gpu"] == 2048 * MiB and data["fits"]
    data = _fit(capsys, [*argv, "--mig", "3g.40gb"])
    assert data["gpu_memory_bytes"] == round(39.5 * GiB) and data["deployment"]["mig_profile"] == "3g.40gb"


def test_each_memory_flag_reads_the_unit_it_names(capsys) -> None:
    """``--used-memory-gib`` and ``--kv-offload-gib`` take GiB (2^30 bytes); ``--used-memory-gb`` and
    ``--kv-offload-gb`` take GB (10^9 bytes). The GB names had read GiB (10 "GB" planned as 10.74 GB)."""
    argv = [*LLAMA, "--gpu", "h100-sxm-80gb", "--engine", "vllm"]
    assert _fit(capsys, [*argv, "--used-memory-gib", "1.5"])["other_bytes_per_gpu"] == round(1.5 * GiB)
    assert _fit(capsys, [*argv, "--used-memory-gb", "1.5"])["other_bytes_per_gpu"] == 1_500_000_000  # was 1.5 GiB
    assert _fit(capsys, [*argv, "--kv-offload-gib", "64"])["kv_offload_host_bytes"] == 64 * GiB
    tier = _fit(capsys, [*argv, "--kv-offload-gb", "64"])["kv_offload_host_bytes"]
    assert 64 * 10**9 - 2 * MiB < tier <= 64 * 10**9  # whole KV blocks of it (64 GiB was 4.7 GB more)
    both = _fit(capsys, [*argv, "--used-memory-gib", "1", "--used-memory-gb", "1"], status=2)
    assert both["error"] == "give --used-memory-gib or --used-memory-gb, not both"
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "--used-memory-gib USED_MEMORY_GIB GiB (2^30 bytes)" in shown
    assert "--used-memory-gb USED_MEMORY_GB the same in GB (10^9 bytes)" in shown


def test_mixed_gpus_and_their_split(capsys) -> None:
    argv = ["fit", "--model", "Qwen/Qwen3-14B", "--gpu", "rtx-4090", "--gpu", "rtx-3090", "--engine", "vllm"]
    data = _fit(capsys, [*argv, "--json"])
    assert data["pipeline_parallel"] == 2 and sum(data["deployment"]["layer_split"]) == 40
    assert data["deployment"]["launch_settings"][0].startswith("VLLM_PP_LAYER_PARTITION=")
    fixed = _fit(capsys, [*argv, "--layer-split", "24,16", "--json"])
    assert fixed["deployment"]["layer_split"] == [24, 16]


def test_colocated_engines(capsys) -> None:
    argv = [*LLAMA, "--gpu", "h100-sxm-80gb", "--engine", "vllm", "--gpu-util", "0.6"]
    data = _fit(capsys, [*argv, "--colocate", "meta-llama/Llama-3.2-1B@0.3"])
    assert data["colocated"][0]["starts"] and data["fits"]
    refused = _fit(capsys, [*argv, "--colocate", "meta-llama/Llama-3.2-1B@0.5"], status=1)
    assert refused["fit_status"] == "free-memory"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--cpu-offload-gb", "nan"], "--cpu-offload-gb must be a number"),
        (["--cpu-offload-gb", "1e300"], "--cpu-offload-gb must be a number"),
        (["--gpu-layers", "-1"], "--gpu-layers must be a whole number"),
        (["--gpu-layers", "3"], "llama.cpp's"),
        (["--max-loras", "0"], "--max-loras must be a whole number"),
        (["--max-loras", "2", "--lora-target-modules", "q_proj,evil"], "unknown evil"),
        (["--max-loras", "4", "--max-cpu-loras", "2"], "--max-cpu-loras (2) must be at least --max-loras (4)"),
        (["--max-loras", "2", "--max-lora-rank", "24"], "takes --max-lora-rank 1, 8, 16, 32"),
        (["--num-speculative-tokens", "3"], "needs --draft-model"),
        (["--speculative-method", "draft"], "--draft-model goes with"),
        (["--mig", "9g.999gb"], "no profile"),
        (["--layer-split", "10,10"], "--layer-split"),
        (["--colocate", "meta-llama/Llama-3.2-1B@lots"], "--colocate"),
        (["--prefix-hit-rate", "2", "--prefix-tokens", "10"], "--prefix-hit-rate must be"),
        (["--nvidia-smi", "/nonexistent"], "--nvidia-smi"),
    ],
)
def test_bad_values_are_one_line(capsys, flags: list[str], message: str) -> None:
    argv = ["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb", "--engine", "vllm", *flags]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1

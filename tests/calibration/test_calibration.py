"""calibrate_log: a start-up log against the planner's prediction for the same set-up, and the calibration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.bounds.errors import PlannerError
from planner.calibration import calibrate_log
from planner.engines.vllm.calibrated import Calibrated

REFERENCE = Path(__file__).parents[1] / "fixtures" / "reference"
EXTRA = {c["id"]: c for c in json.loads((REFERENCE / "engine-logs-llmd-extra.json").read_text(encoding="utf-8"))}


def _log(case_id: str) -> str:
    return "\n".join(EXTRA[case_id]["verbatim"])


def test_a_complete_log_is_compared_figure_by_figure_and_calibrated() -> None:
    result = calibrate_log(_log("vllm-0.19-h100-codellama-codellama-7b-h-h100-80gb-tp1pp1dp1-8192"))
    setup = result.setup
    assert (setup.model, setup.gpu, setup.tensor_parallel, setup.engine_version) == (
        "codellama/CodeLlama-7b-hf",
        "h100-sxm-80gb",
        1,
        "0.19.0",
    )
    assert {"model", "gpu", "engine_version", "gpu_memory_utilization"} <= set(setup.from_log)
    by_name = {c.name: c for c in result.comparisons}
    kv = by_name["available KV cache"]
    assert kv.printed == 61.66 and kv.difference is not None and abs(kv.difference) < 0.5
    assert by_name["activation peak"].printed == 0.77 and by_name["weights"].printed == 12.56
    assert by_name["KV cache tokens"].printed == 126_256
    assert result.predicted_failure is None and result.printed_failure is None
    # The calibrated profile uses the printed terms: only rounding is left.
    assert result.calibrated_kv_gib == pytest.approx(61.66, abs=0.03)
    assert Calibrated.from_token(result.calibration_token) == result.calibrated


def test_given_fields_win_over_the_log() -> None:
    result = calibrate_log(
        _log("vllm-0.19-h100-codellama-codellama-7b-h-h100-80gb-tp1pp1dp1-8192"),
        gpu="h100-sxm-80gb",
        gpu_memory_utilization=0.9,
    )
    assert "gpu" not in result.setup.from_log and result.setup.gpu_memory_utilization == 0.9


def test_a_failed_start_up_is_compared_too() -> None:
    result = calibrate_log(_log("vllm-0.19-h100-codellama-codellama-34b-h100-80gb-tp2pp1dp1-8192-failed"))
    assert result.printed_failure == "free-memory" and result.setup.tensor_parallel == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("INFO Initializing a V1 LLM engine (v0.19.0) with config: model='acme/unknown-7b', dtype=torch.bfloat16\n"
         "INFO Available KV cache memory: 10.0 GiB", r"not in the catalog; name it with --model \(a catalog id\)"),
        ("INFO Initializing a V1 LLM engine (v0.19.0) with config: model='meta-llama/Llama-3.1-8B', dtype=x\n"
         "INFO Available KV cache memory: 10.0 GiB", r"which GPU; name it with --gpu \(a catalog id\)"),
        ("INFO Available KV cache memory: 10.0 GiB", r"does not name its model; name it with --model"),
        # a fine-tune the catalog holds no alias for is no longer planned as a base silently
        ("INFO Initializing a V1 LLM engine (v0.19.0) with config: model='Qwen/Qwen2.5-7B-Instruct', dtype=x\n"
         "INFO Available KV cache memory: 10.0 GiB", r"'Qwen/Qwen2.5-7B-Instruct' is not in the catalog"),
        ("KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB", "only vLLM"),
    ],
)  # fmt: skip
def test_missing_set_up_is_named(text: str, message: str) -> None:
    with pytest.raises(PlannerError, match=message):
        calibrate_log(text)


def _wsl_4090_log() -> str:
    """The public RTX 4090 WSL2 start-up (tests/fidelity vllm-0.27-rtx4090-wsl2-qwen25-0.5b-2k-util085)."""
    cases = json.loads(
        (Path(__file__).parents[1] / "fidelity" / "cases" / "vllm-blind-2026-12i.json").read_text(encoding="utf-8")
    )
    (case,) = [c for c in cases if c["id"] == "vllm-0.27-rtx4090-wsl2-qwen25-0.5b-2k-util085"]
    return "\n".join(case["verbatim"])


def test_a_windows_log_is_planned_on_the_windows_machine() -> None:
    """The log prints 23.99 GiB, the RTX 4090's whole 24,564 MiB as CUDA reports it under WSL2 (Linux's vLLM prints
    23.55): the comparison plans it on the Windows machine, so the device total matches. Its non-torch memory holds
    the Windows term since the mechanistic non-torch model (2026-12-07, fifty-third session:
    planner.engines.vllm.windows_share), a share of the weights loaded since the fifty-fourth session (7.05 % of
    0.93 GiB): 0.46 planned, 0.32 printed (1.58 with 1.18 GiB per process; 1.45 with the desktop cards' share
    refitted beside FlashInfer's decode workspace, 1.58 before that)."""
    result = calibrate_log(_wsl_4090_log(), model="Qwen/Qwen2.5-0.5B-Instruct", gpu="rtx-4090", engine_version="0.27.1")
    by_name = {c.name: c for c in result.comparisons}
    assert by_name["device total"].predicted == pytest.approx(23.99, abs=0.005)
    assert by_name["non-torch memory"].predicted == pytest.approx(0.46, abs=0.01)
    assert any("the card's whole memory, as CUDA reports it under Windows" in n for n in result.notes)


def test_a_windows_refusal_names_its_card_and_is_predicted() -> None:
    """vLLM's free-memory refusal on an RTX 5090 under WSL2 prints the card's whole 31.84 GiB, which only the RTX
    5090 has in the catalog: the GPU is read from it, and the refusal is predicted (the Windows desktop's default)."""
    log = (
        "(EngineCore pid=1) ERROR 09-01 10:00:00 [core.py:1] ValueError: Free memory on device cuda:0 (30.2/31.84 "
        "GiB) on startup is less than desired GPU memory utilization (0.98, 31.21 GiB). Decrease GPU memory "
        "utilization or reduce GPU memory used by other processes."
    )
    result = calibrate_log(
        log, model="Qwen/Qwen3.8-27B", weights="nvfp4-fp8attn", kv_dtype="fp8", engine_version="0.27.1",
        max_model_len=32768, gpu_memory_utilization=0.98,
    )  # fmt: skip
    assert result.setup.gpu == "rtx-5090" and "gpu" in result.setup.from_log
    assert result.printed_failure == result.predicted_failure == "free-memory"


LLMD = Path(__file__).parents[1] / "fidelity" / "cases" / "llmd-planner-v0.19-logs.json"


def test_the_model_is_read_from_the_non_default_args_line() -> None:
    """vLLM 0.19.0 prints the served model in ``entrypoints/utils.py:233``'s "non-default args" line and, in this
    excerpt (llm-d-incubation/llm-d-planner@d3121e059da8 accuracy/results/v0.19.0/logs/
    meta-llama-llama-3-1-8b---h100-80gb--tp1pp1dp1--2048.log), nowhere else: it is read, and the instruct
    checkpoint is planned as its catalog entry through the catalog's alias, said in a note."""
    cases = json.loads(LLMD.read_text(encoding="utf-8"))
    (case,) = [c for c in cases if c["id"] == "vllm-0.19-h100-meta-llama-llama-3-1-8b--h100-80gb-tp1pp1dp1-2048"]
    text = "\n".join(case["verbatim"])
    assert "with config: model=" not in text and "'model': 'meta-llama/Llama-3.1-8B-Instruct'" in text
    result = calibrate_log(text)
    assert result.parsed.model == "meta-llama/Llama-3.1-8B-Instruct"
    assert (result.setup.model, result.setup.gpu) == ("meta-llama/Llama-3.1-8B", "h100-sxm-80gb")
    assert {"model", "gpu"} <= set(result.setup.from_log)
    assert "Llama-3.1-8B-Instruct: planned as the catalog's Llama 3.1 8B (meta-llama/Llama-3.1-8B), same shapes" in (
        result.notes
    )
    by_name = {c.name: c for c in result.comparisons}
    assert by_name["weights"].printed == 14.99 and by_name["available KV cache"].printed == 58.11


def test_a_checkpoint_the_log_names_by_path_asks_for_the_model_by_the_cli_flag() -> None:
    text = (
        "INFO Initializing a V1 LLM engine (v0.19.0) with config: model='/models/my-finetune', dtype=x\n"
        "INFO Available KV cache memory: 10.0 GiB"
    )
    with pytest.raises(PlannerError) as caught:
        calibrate_log(text)
    assert "model=..." not in str(caught.value) and "--model" in str(caught.value)

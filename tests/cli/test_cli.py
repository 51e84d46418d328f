"""``python -m planner``: JSON fields, human tables, and one clear line with exit status 2 on bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from planner.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIT_8B = ("fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100-sxm-80gb")  # on one H100 SXM


def _json(capsys: pytest.CaptureFixture[str], argv: list[str], status: int = 0) -> dict:
    assert main(argv) == status
    return json.loads(capsys.readouterr().out)


def test_models_and_gpus_list_the_catalog(capsys) -> None:
    models = _json(capsys, ["models", "--json"])
    assert "meta-llama/Llama-3.1-8B" in models and len(models) >= 50
    gpus = _json(capsys, ["gpus", "--json"])
    assert {"h100-sxm-80gb", "rtx-4090", "mi300x", "h20-96gb", "rtx-a5000"} <= set(gpus)
    assert main(["models"]) == 0
    table = capsys.readouterr().out
    assert "meta-llama/Llama-3.1-8B" in table and "8.03 B" in table and "GQA" in table


def test_inspect_json(capsys) -> None:
    data = _json(capsys, ["inspect", "--model", "deepseek-ai/DeepSeek-V3", "--json"])
    assert data["parameters_total"] == 684_489_845_504  # 671,026,419,200 + the MTP layer
    assert data["parameters_served"] == 671_026_419_200
    assert data["layer_kinds"]["full"] == 61
    assert data["kv_bytes_per_token"]["bf16"] == 70_272  # MLA: (512 + 64) x 2 bytes x 61 layers
    assert data["kv_bytes_per_token"]["fp8"] == 35_136
    gemma = _json(capsys, ["inspect", "--model", "google/gemma-3-27b-it", "--json"])
    assert gemma["layer_kinds"] == {"full": 10, "sliding": 52, "chunked": 0, "linear": 0}


def test_inspect_config_with_num_parameters_and_quantization(tmp_path: Path, capsys) -> None:
    config = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "torch_dtype": "float16",
        "num_parameters": 8_000_000_000,
        "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128},
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    data = _json(capsys, ["inspect", "--config", str(path), "--json"])
    assert data["parameters_total"] == 8_000_000_000  # num_parameters overrides the computed 8,030,261,248
    assert data["native_dtype"] == "int4-awq"
    assert data["kv_bytes_per_token"]["bf16"] == 131_072


def test_fit_json_fields(capsys) -> None:
    data = _json(
        capsys,
        [
            "fit",
            "--model",
            "meta-llama/Llama-3.1-8B",
            "--gpu-memory-gb",
            "80",
            "--overhead-fraction",
            "0.1",
            "--context",
            "4096",
            "--json",
        ],
    )
    for field in (
        "fits",
        "gpu_memory_bytes",
        "weights_bytes_per_gpu",
        "kv_cache_bytes_per_gpu",
        "activation_bytes_per_gpu",
        "overhead_bytes_per_gpu",
        "kv_bytes_per_token",
        "kv_budget_tokens_per_replica",
        "kv_budget_tokens_total",
        "max_concurrency_total",
        "conversations_total",
        "verdict",
        "verdict_sentence",
    ):
        assert field in data
    assert data["fits"] is True and data["gpu_memory_bytes"] == 80 * 10**9
    assert data["kv_bytes_per_token"] == 131_072
    assert data["weights_bytes_per_gpu"] == 8_030_261_248 * 2
    assert data["max_concurrency_total"] == pytest.approx((72e9 - 16_060_522_496) / (131_072 * 4096))
    assert (
        data["conversations_total"] == 104
    )  # Memory Planning for LLMs' golden table: 8B FP16 on 80 GB, 104 of 4,096 tokens


def test_fit_engine_json(capsys) -> None:
    data = _json(
        capsys,
        [
            *FIT_8B,
            "--engine",
            "vllm",
            "--engine-version",
            "0.19.0",
            "--gpu-util",
            "0.95",
            "--context",
            "8192",
            "--json",
        ],
    )
    assert data["gpu_blocks_per_replica"] == pytest.approx(29_751, rel=0.01)  # the vLLM 0.19 log prints 29,751
    assert data["kv_budget_tokens_per_replica"] == pytest.approx(476_016, rel=0.01)
    assert data["max_concurrency_total"] == pytest.approx(58.11, abs=0.1)
    assert data["conversations_total"] == 58 and data["engine_starts"] is True
    assert data["available_kv_cache_bytes_per_gpu"] / 2**30 == pytest.approx(58.11, abs=0.25)


def test_fit_that_does_not_fit_exits_1(capsys) -> None:
    data = _json(capsys, ["fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "rtx-4090", "--json"], status=1)
    assert data["fits"] is False and data["headroom_bytes_per_gpu"] < 0
    assert main(["fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "rtx-4090"]) == 1
    assert "DOES NOT FIT" in capsys.readouterr().out


def _status(argv: list[str]) -> int:
    """main()'s status; argparse's own usage errors leave through SystemExit(2)."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["fit", "--model", "no/such-model", "--gpu", "h100-sxm-80gb"], "model: unknown id 'no/such-model'"),
        (["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "h100"], "gpu: unknown id 'h100'; did you mean"),
        (
            ["advise", "--model", "meta-llama/Llama-3.3-70B", "--users", "50"],
            "model: unknown id 'meta-llama/Llama-3.3-70B'; did you mean meta-llama/Llama-3.3-70B-Instruct?",
        ),
        (
            ["fit", "--model", "Qwen/Qwen3-32B-AWQ", "--gpu", "l40s"],
            "did you mean Qwen/Qwen3-32B (the base model: a fine-tune",
        ),
        (
            ["fit", "--model", "meta-llama/Meta-Llama-3-8B-Instruct", "--gpu", "l40s"],
            "did you mean meta-llama/Meta-Llama-3-8B (the base model",
        ),
        (["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu-memory-gb", "-3"], "argument --gpu-memory-gb: "),
        (["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu-memory-gb", "nan"], "argument --gpu-memory-gb: "),
        (
            ["fit", "--model", "Qwen/Qwen2.5-7B", "--gpu", "l40s", "--gpus", "8", "--tp", "8"],
            "28 attention heads do not split evenly over TP 8",
        ),
        (["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "l40s", "--context", "0"], "argument --context: "),
        (["fit", "--model", "meta-llama/Llama-3.1-8B", "--gpu", "l40s", "--weights", "int3"], "invalid choice"),
        (
            [*FIT_8B, "--engine", "vllm", "--engine-version", "banana"],
            "'banana' is not a vLLM release (such as 0.19.0)",
        ),
        (
            [*FIT_8B, "--engine", "llamacpp", "--engine-version", "0.19.0"],
            "'0.19.0' is not a llama.cpp build tag (such as b6000)",
        ),
        (
            [*FIT_8B, "--engine", "generic", "--engine-version", "0.5.0"],
            "engine: the generic profile has no release; --engine-version needs an engine",
        ),
        (
            [*FIT_8B, "--nvidia-smi", "/no/such/smi.txt"],
            "--nvidia-smi: /no/such/smi.txt: no such file",
        ),
        (["inspect"], "one of the arguments"),
        (["inspect", "--config", "/nonexistent/config.json"], "cannot read"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str, capsys) -> None:
    assert _status(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_malformed_config_json(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "config.json"
    bad.write_text('{"hidden_size": 4096, ')
    assert main(["inspect", "--config", str(bad)]) == 2
    assert "config.json is not valid JSON" in capsys.readouterr().err
    shape = tmp_path / "shape.json"
    shape.write_text(
        json.dumps(
            {
                "num_hidden_layers": 2,
                "hidden_size": 100,
                "num_attention_heads": 3,
                "vocab_size": 10,
                "intermediate_size": 10,
            }
        )
    )
    assert main(["inspect", "--config", str(shape)]) == 2
    assert "hidden_size (100) is not divisible by num_attention_heads (3)" in capsys.readouterr().err
    big = tmp_path / "big.json"
    big.write_text(" " * 1_000_001 + "{}")
    assert main(["inspect", "--config", str(big)]) == 2
    assert "larger than a config.json can be" in capsys.readouterr().err


@pytest.mark.slow
def test_module_entry_point_exit_status() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "planner", "fit", "--model", "x/y", "--gpu-memory-gb", "24"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: model: unknown id 'x/y'")


def test_fit_json_names_per_replica_and_total_and_the_engines_refusal(capsys) -> None:
    """Issue "one answer", case 4: two replicas of half a conversation each hold no conversation, and vLLM
    refuses to start; the command line says so in the same words as the Memory page."""
    argv = ["fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "h100-sxm-80gb", "--gpus", "2", "--tp", "1"]
    argv += ["--weights", "fp8", "--kv-dtype", "fp8", "--context", "9000", "--engine", "vllm", "--users", "50"]
    data = _json(capsys, [*argv, "--json"], status=1)
    assert data["fits"] is False and data["engine_starts"] is False
    assert data["fit_status"] == "kv-cache-too-small" and data["verdict"] == "engine-refuses-to-start"
    assert data["conversations_total"] == 0 and data["replicas"] == 2
    assert data["kv_budget_tokens_total"] == 2 * data["kv_budget_tokens_per_replica"]
    assert "would refuse to start" in data["verdict_sentence"]


def test_a_set_up_below_its_target_says_so_in_the_verdicts_first_words(capsys: pytest.CaptureFixture[str]) -> None:
    """'FITS (fits): ... 390 short of the target of 500 users' led with FITS alone (review, 2026-12-05)."""
    args = [*FIT_8B, "--engine", "vllm"]
    assert main([*args, "--users", "500"]) == 0
    assert "verdict        FITS, BELOW TARGET (fits): " in capsys.readouterr().out
    assert main([*args, "--users", "10"]) == 0
    assert "verdict        FITS (fits): " in capsys.readouterr().out


def test_json_output_names_an_invalid_request_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    """'fit --json' for a format the engine does not run printed nothing on stdout (exit 2, the reason on stderr
    only), where a refusal to start prints its JSON verdict (review, 2026-12-05)."""
    args = [*FIT_8B, "--engine", "llamacpp"]
    assert main([*args, "--weights", "fp8", "--json"]) == 2
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["exit_code"] == 2 and "llama.cpp has no FP8 weights" in data["error"]
    assert err.startswith("error: engine: llama.cpp has no FP8 weights")
    assert main([*args, "--weights", "fp8"]) == 2
    assert capsys.readouterr().out == ""  # without --json, nothing on stdout


def test_fit_offers_the_nearest_set_ups_as_the_memory_page_does(capsys) -> None:
    """A Mac plan below its target: ``fit`` names the GPU-share raise and the other levers, with their verdicts,
    as the Memory page does (it named none), and its room for the KV cache is labelled as such."""
    argv = ["fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "apple-m4-max", "--engine", "llamacpp",
            "--weights", "q8_0", "--context", "32768", "--users", "3"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"nearest +the GPU's share of memory raised to 79%: sudo sysctl iogpu\.wired_limit_mb=103547", out)
    assert re.search(r"room for KV +25\.47 GiB per GPU\n", out), out
    assert "host RAM" not in out  # Metal maps the whole model file as the GPU's buffer, token_embd included
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["nearest"][0]["conversations"] == 3 and "79%" in data["nearest"][0]["change"]
    assert main([*argv, "--unified-memory-share", "0.79", "--json"]) == 0
    raised = json.loads(capsys.readouterr().out)
    assert raised["conversations_total"] == 3 and raised["nearest"] == []


def test_a_nearest_set_up_names_the_target_the_verdict_was_asked_about(capsys: pytest.CaptureFixture[str]) -> None:
    """A maintainer's review (2026-12-05): without --users the nearest line ended "That covers the target of 1 user
    with 10 to spare." while --json had target_users null. Since 2026-12-06 a target not given is the dashboard's
    (32 users, planner.core.defaults), and the nearest lines and --json both name it; with --users, that."""
    args = ["fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "h100-sxm-80gb", "--gpus", "2", "--weights", "fp8"]
    args += ["--kv-dtype", "fp8", "--context", "32768", "--engine", "vllm", "--used-memory-gib", "10"]
    main(args)
    out = capsys.readouterr().out.splitlines()
    nearest = [line for line in out if line.startswith("nearest")]
    assert nearest and all("the target of 32 users" in line for line in nearest), nearest
    main([*args, "--json"])
    assert json.loads(capsys.readouterr().out)["target_users"] == 32
    main([*args, "--users", "8"])
    nearest = [line for line in capsys.readouterr().out.splitlines() if line.startswith("nearest")]
    assert any("That covers the target of 8 users" in line for line in nearest), nearest


def test_fit_says_how_much_room_is_missing_and_no_sign_rule_beside_room_there_is(capsys) -> None:
    """Llama-3.1-70B in BF16 (141 GB of weights) on one H100: the room for the KV cache is a shortfall, said as
    one; before, a positive room carried "(negative: short by)" too."""
    assert main(["fit", "--model", "meta-llama/Llama-3.1-70B", "--gpu", "h100-sxm-80gb", "--weights", "bf16"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"room for KV +short by \d+\.\d\d GiB per GPU\n", out), out
    assert "negative" not in out


@pytest.mark.parametrize("command", ["fit", "advise"])
def test_an_instruct_checkpoint_plans_as_its_catalog_entry_and_says_so(command: str, capsys) -> None:
    """The review's own command (2026-12-07, finding 3): ``advise`` / ``fit`` named Llama-3.1-70B-Instruct and were
    refused while ``calibrate`` planned it as the base. The catalog's alias (same config shapes,
    tests/catalog/test_aliases.py) resolves it for both: the answer is the base entry's, and stderr says so."""
    setup = {
        "fit": ["--gpu", "h100-sxm-80gb", "--gpus", "2", "--tp", "2", "--weights", "fp8", "--context", "32768"],
        "advise": ["--users", "50", "--context", "32768"],
    }[command]
    assert main([command, "--model", "meta-llama/Llama-3.1-70B-Instruct", *setup, "--json"]) in (0, 1)
    aliased = capsys.readouterr()
    assert aliased.err == (
        "note: Llama-3.1-70B-Instruct: planned as the catalog's Llama 3.1 70B (meta-llama/Llama-3.1-70B), same shapes\n"
    )
    assert main([command, "--model", "meta-llama/Llama-3.1-70B", *setup, "--json"]) in (0, 1)
    base = capsys.readouterr()
    assert base.err == "" and json.loads(aliased.out) == json.loads(base.out)

"""llama.cpp's layer split over equal GPUs as it places the layers (planner.deploy.mixed.llamacpp_split): the first
GPUs hold one layer more where the last holds the output layer (``llama_model::load_tensors``), so the binding GPU
is the first. An outside review (2026-12-06) found Llama 3.1 70B Q4_K_M at 20,480 tokens on two RTX 4090s planned
to fit when typed ``--gpus 2`` (even shards: 20,051 MiB of model buffer and 3,200 MiB of KV a GPU) and to run out of
memory when typed as two GPUs (41 layers: 20,241 + 3,280 MiB on CUDA0)."""

from __future__ import annotations

import pytest

from planner.cli import main
from planner.deploy.mixed import llamacpp_split

ARGV = ["fit", "--model", "meta-llama/Llama-3.1-70B", "--engine", "llamacpp", "--weights", "q4_k_m", "--context"]


def _lines(capsys: pytest.CaptureFixture[str], gpus: list[str], context: str) -> list[str]:
    main([*ARGV, context, *gpus])
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("context", ["20480", "12288"])
def test_two_equal_gpus_read_the_same_however_typed(capsys: pytest.CaptureFixture[str], context: str) -> None:
    alike = _lines(capsys, ["--gpu", "rtx-4090", "--gpus", "2"], context)
    mixed = _lines(capsys, ["--gpu", "rtx-4090", "--gpu", "rtx-4090"], context)

    def engine(lines: list[str]) -> list[str]:
        return [line.split("prints", 1)[1].strip() for line in lines if line.startswith("llama.cpp prints")]

    assert engine(alike) == engine(mixed)
    first, second = (next(line for line in lines if line.startswith("verdict")) for lines in (alike, mixed))
    assert first.split("(")[0].split()[1:] == second.split("(")[0].split()[1:]  # FITS / DOES NOT FIT alike


def test_the_first_gpu_holds_41_layers_of_80(capsys: pytest.CaptureFixture[str]) -> None:
    text = "\n".join(_lines(capsys, ["--gpu", "rtx-4090", "--gpus", "2"], "20480"))
    assert "CUDA0 KV buffer size = 3280.00 MiB" in text  # 41 layers x 20,480 tokens x 8 x 128 x 2 x 2 bytes
    assert "CUDA1 KV buffer size = 3120.00 MiB" in text  # 39
    assert "CUDA0 model buffer size = 20241.27 MiB" in text and "CUDA1 model buffer size = 19860.10 MiB" in text
    assert "DOES NOT FIT (out-of-memory)" in text  # 20,241 + 3,280 + 427 MiB of compute on a 23.55 GiB card


def test_llamacpp_split_follows_its_single_precision_rule() -> None:
    assert llamacpp_split(80, 2) == (41, 39)  # il / 81 < 0.5 for il <= 40
    assert llamacpp_split(32, 2) == (17, 15)
    assert llamacpp_split(61, 8) == (8, 8, 8, 7, 8, 8, 8, 6)  # layer 31: 31 / 62 == 0.5, the bound, goes on
    assert sum(llamacpp_split(94, 3)) == 94

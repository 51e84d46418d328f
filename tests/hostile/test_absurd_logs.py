"""Absurd figures in a pasted start-up log are a named error before they reach a calibration (issue 11: "GPU KV
cache size: " + 400 nines; "Model loading took <400 digits> GiB" then "Use the measured figures")."""

from __future__ import annotations

import pytest

from planner.bounds.errors import PlannerError
from planner.engines.vllm.calibrated import Calibrated
from planner.sources.logs import calibrate, parse_log

AVAILABLE = "INFO 04-22 00:04:20 [v1/worker/gpu_worker.py:436] Available KV cache memory: 58.11 GiB"


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("GPU KV cache size: " + "9" * 400 + " tokens", "GPU KV cache size"),
        ("Model loading took " + "9" * 400 + " GiB and 5.0 seconds", "weights"),
        ("Model loading took 999999999999999 GiB and 5.0 seconds", "weights_gib"),  # 15 digits: ~10^24 bytes
        ("Model loading took 99999999999999.9 GiB and 5.0 seconds", "weights_gib"),
        ("Available KV cache memory: 999999999999999 GiB", "kv_cache_gib"),
        ("worker init memory copy total_memory=999999999999999GiB", "total_memory_gib"),
        ("Initializing a V1 LLM engine (v0.19.0) with config: max_seq_len=999999999999999, ", "max_model_len"),
        ("non-default args: {'tensor_parallel_size': 999999999999999}", "tensor_parallel"),
    ],
)
def test_an_absurd_figure_is_named(line: str, field: str) -> None:
    with pytest.raises(PlannerError, match=field):
        calibrate(parse_log(f"{AVAILABLE}\nINFO {line}"))


def test_the_largest_figures_a_log_may_hold_make_a_token_that_reads_back() -> None:
    """Every calibration a log can produce travels in a link: its figures fit the token's 15 digits."""
    parsed = parse_log(f"INFO Model loading took 90000 GiB and 5.0 seconds\n{AVAILABLE}")
    calibrated = calibrate(parsed)
    assert Calibrated.from_token(calibrated.to_token()) == calibrated

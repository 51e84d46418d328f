"""Pasted start-up logs through the whole calibration: lines engines print, with hostile figures, parsed, turned
into a calibration, carried in a link and compared with a plan. Only a PlannerError comes out (the parser's own
random-text fuzzing is tests/fidelity/test_logparse_hostile.py, part of this suite)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.bounds.errors import PlannerError
from planner.calibration import calibrate_log
from planner.engines.vllm.calibrated import Calibrated
from planner.sources.logs import calibrate, parse_log
from tests.fuzz.conftest import FEW, FUZZ, only_named_refusals

NUMBER = st.one_of(
    st.floats(min_value=-1e6, max_value=1e16, allow_nan=False).map(lambda x: f"{x:.2f}"),
    st.integers(min_value=0, max_value=10**16).map(str),
    st.sampled_from(["0", "-1.5", "1,024", "9" * 15, "9" * 16, "9" * 400, "1e9", "nan", "0.00", "99999999999999.9"]),
)
TEMPLATES = [
    "Available KV cache memory: {} GiB",
    "GPU KV cache size: {} tokens",
    "Maximum concurrency for {} tokens per request: {}x",
    "Model loading took {} GiB and {} seconds",
    "Memory profiling takes 17.96 seconds. Total non KV cache memory: {}GiB; torch peak memory increase: {}GiB; "
    "non-torch forward increase memory: {}GiB; weights memory: {}GiB.",
    "Estimated CUDA graph memory: {} GiB total",
    "Graph capturing finished in 5 secs, took {} GiB",
    "worker init memory copy total_memory={}GiB",
    "non-default args: {{'max_model_len': {}, 'gpu_memory_utilization': {}, 'tensor_parallel_size': {}}}",
    "Initializing a V1 LLM engine (v0.19.0) with config: max_seq_len={}, tensor_parallel_size={}, quantization=None",
    "num_gpu_blocks is: {}",
    "KV Cache is allocated. #tokens: {}, K size: {} GB, V size: {} GB",
    "CUDA0 KV buffer size = {} MiB",
    "To serve at least one request with the models's max seq len ({}), ({} GiB KV cache is needed",
]
LINE = st.builds(
    lambda template, numbers: "INFO 04-22 00:04:20 [worker.py:1] " + template.format(*numbers),
    st.sampled_from(TEMPLATES),
    st.lists(NUMBER, min_size=4, max_size=4),
)
LOG = st.lists(st.one_of(LINE, st.text(max_size=80)), min_size=1, max_size=12).map("\n".join)


def _calibrate(text: str) -> None:
    calibrated = calibrate(parse_log(text))
    assert Calibrated.from_token(calibrated.to_token()) == calibrated


@FUZZ
@given(LOG)
def test_a_log_calibrates_or_is_refused_by_name(text: str) -> None:
    only_named_refusals(lambda: _calibrate(text))


@FEW
@given(LOG)
def test_a_log_compares_with_the_plan_or_is_refused_by_name(text: str) -> None:
    only_named_refusals(lambda: calibrate_log(text, model="meta-llama/Llama-3.1-8B", gpu="h100-sxm-80gb"))


def test_a_memory_fraction_above_one_is_refused_by_name() -> None:
    """Found by the fuzzer: a log whose settings line says gpu_memory_utilization 2 reached the calibrated profile's
    validation (a ValidationError, not a named refusal)."""
    text = (
        "INFO 04-22 00:04:20 [worker.py:1] Available KV cache memory: 0.00 GiB\n"
        "INFO 04-22 00:04:20 [worker.py:1] non-default args: {'gpu_memory_utilization': 2, 'tensor_parallel_size': 1}"
    )
    with pytest.raises(PlannerError, match="gpu_memory_utilization"):
        calibrate(parse_log(text))

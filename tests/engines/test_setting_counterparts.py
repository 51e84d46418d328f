"""A launch setting an engine does not plan names the engine's own flag for the same thing, so the reader knows
where it lives there (before: only "SGLang has no --max-num-seqs setting"). SGLang's flags: 0.5.4
``srt/server_args.py`` ``--max-running-requests`` :1806, ``--max-total-tokens`` :1818, ``--chunked-prefill-size``
:1825, ``--cuda-graph-max-bs`` :2858, ``--disable-cuda-graph`` :2870; llama.cpp's slots are ``-np``, which the
planner sets from the target users."""

from __future__ import annotations

import pytest

from planner.bounds.errors import PlannerError
from planner.engines.registry import overhead_profile


@pytest.mark.parametrize(
    ("engine", "setting", "value", "counterpart"),
    [
        ("sglang", "max_num_seqs", 8, "--max-running-requests"),
        ("sglang", "enforce_eager", True, "--disable-cuda-graph"),
        ("sglang", "max_cudagraph_capture_size", 64, "--cuda-graph-max-bs"),
        ("sglang", "max_num_batched_tokens", 4096, "--chunked-prefill-size"),
        ("sglang", "kv_cache_memory_bytes", 2**34, "--max-total-tokens"),
        ("llamacpp", "max_num_seqs", 8, "-np"),
    ],
)
def test_a_setting_not_planned_names_the_engines_own(
    engine: str, setting: str, value: object, counterpart: str
) -> None:
    with pytest.raises(PlannerError) as refused:
        overhead_profile(engine, **{setting: value})
    message = str(refused.value)
    assert "has no --" in message and f"its own {counterpart}" in message and "not planned here" in message, message


def test_a_setting_without_a_counterpart_says_only_that() -> None:
    with pytest.raises(PlannerError, match=r"SGLang has no --no-enable-extensible-kv-cache setting$"):
        overhead_profile("sglang", no_enable_extensible_kv_cache=True)

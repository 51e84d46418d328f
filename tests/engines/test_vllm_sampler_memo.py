"""``sampler_headroom`` keeps each V1 rank's answer across calls (it reads no length): at another context, after
other set-ups, it is what a fresh computation gives (hypothesis over models, GPUs, splits, KV dtypes, lengths and
vLLM releases); the memo is bounded; a V0 profile is never kept."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.bounds.errors import PlannerError
from planner.engines.vllm import failures
from tests.engines.vllm_planned import planned

MODELS = (
    "meta-llama/Llama-3.1-8B",
    "Qwen/Qwen3-30B-A3B",
    "google/gemma-3-27b-it",
    "openai/gpt-oss-20b",
    "ibm-granite/granite-4.0-h-small",
)
GPUS = ("h100-sxm-80gb", "a100-sxm-80gb", "l40s", "rtx-4090", "b200-sxm")
VERSIONS = (None, "0.19.0", "0.27.0", "0.6.4")  # 0.6.4: V0, never kept


def _headrooms(
    model: str, gpu: str, tp: int, kv: str, context: int, version: str | None
) -> tuple[tuple[int, int], tuple[int, int]]:
    """(the kept answer, a fresh one) for the last rank of the set-up at ``context``."""
    request, result, profile, stages = planned(model, gpu, tp, kv, context, version)
    fresh = failures._sampler_headroom(request, result, profile, stages[-1])
    return failures.sampler_headroom(request, result, profile, stages[-1]), fresh


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.sampled_from(MODELS),
    gpu=st.sampled_from(GPUS),
    tp=st.sampled_from((1, 2, 4)),
    kv=st.sampled_from(("bf16", "fp8")),
    contexts=st.lists(st.integers(256, 131072), min_size=2, max_size=2),
    version=st.sampled_from(VERSIONS),
)
def test_kept_headroom_is_the_fresh_one(
    model: str, gpu: str, tp: int, kv: str, contexts: list[int], version: str | None
) -> None:
    for context in contexts:  # the memo is not cleared: earlier examples' entries stay
        try:
            kept, fresh = _headrooms(model, gpu, tp, kv, context, version)
        except PlannerError as illegal:  # a split the model does not divide by
            pytest.skip(str(illegal))
        assert kept == fresh


def test_bounded_and_v0_never_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    failures.clear_samplers()
    monkeypatch.setattr(failures._SAMPLERS, "max_entries", 3)
    for gpu in GPUS:
        _headrooms("meta-llama/Llama-3.1-8B", gpu, 1, "bf16", 8192, None)
    assert len(failures._SAMPLERS) == 3
    failures.clear_samplers()
    _headrooms("meta-llama/Llama-3.1-8B", "h100-sxm-80gb", 1, "bf16", 8192, "0.6.4")
    assert len(failures._SAMPLERS) == 0


def test_every_gpu_after_every_other() -> None:
    """Every model on every GPU of the list, one after another at two lengths (GPUs of one memory size and platform
    differ only in the figures the key reads: a key missing one would hand one GPU another's answer)."""
    failures.clear_samplers()
    for context in (4096, 65536):
        for model in MODELS:
            for gpu in GPUS:
                kept, fresh = _headrooms(model, gpu, 1, "fp8", context, None)
                assert kept == fresh, (model, gpu, context)

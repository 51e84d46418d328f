"""planner.advisor.screen keeps each candidate's outcome up to its first memory check across rank() calls: a ranking
after others that share the screen, or differ in one of the fields it is keyed by, equals a cold one; the memo is
bounded."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model_catalog import get_model, load_gpus
from planner.advisor import Workload, rank, reuse, screen
from planner.advisor.options import Rejected
from tests.advisor.test_context_reuse import _keeping_nothing

GPUS = list(load_gpus().values())
MODELS = ("meta-llama/Llama-3.1-8B", "Qwen/Qwen3-30B-A3B", "google/gemma-3-27b-it", "ibm-granite/granite-4.0-h-small")


def _cold(spec: Any, workload: Workload, **kw: Any) -> str:
    """The ranking with every memo cleared and none kept during it."""
    with _keeping_nothing():
        return rank(spec, workload, **kw).model_dump_json()


# Each field the screen reads from the workload: the target (llama.cpp's advised users, rack-mounted hosts above
# FEW_USERS), pricing, engines and the unified-memory share (desktops asked for or not: drawn once, else the GPUs
# offered differ and so do the keys).
FIELDS = st.fixed_dictionaries(
    {
        "concurrent_conversations": st.sampled_from([1, 3, 4, 5, 40, 300]),
        "pricing": st.sampled_from(["purchase", "cloud"]),
        "engines": st.sampled_from([None, ("llamacpp",), ("sglang", "vllm")]),
        "unified_memory_share": st.sampled_from([None, 0.9]),
    }
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.sampled_from(MODELS),
    contexts=st.lists(st.sampled_from([512, 8192, 32768]), min_size=3, max_size=3),
    fields=st.lists(FIELDS, min_size=3, max_size=3),
    personal=st.booleans(),
    gpus=st.lists(st.sampled_from(GPUS), min_size=3, max_size=8, unique_by=lambda g: g.id),
)
def test_a_ranking_after_others_equals_a_cold_one(
    model: str, contexts: list[int], fields: list[dict[str, Any]], personal: bool, gpus: list[Any]
) -> None:
    spec = get_model(model).spec
    workloads = [
        Workload.fixed_length(c, include_personal=personal, **f) for c, f in zip(contexts, fields, strict=True)
    ]
    reuse.clear()
    for w in workloads[:-1]:
        rank(spec, w, gpus=gpus)
    warm = rank(spec, workloads[-1], gpus=gpus).model_dump_json()
    assert warm == _cold(spec, workloads[-1], gpus=gpus)


def test_the_slider_serves_the_screen_and_a_new_target_past_a_threshold_does_not() -> None:
    """Another context and another target on the same side of every threshold share one screen; crossing llama.cpp's
    advised users (4) gives a new one, and each ranking equals its cold one."""
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    reuse.clear()
    first = Workload.fixed_length(8192, concurrent_conversations=40)
    rank(spec, first, gpus=GPUS)
    assert len(screen._SCREENS) == 1
    slid = Workload.fixed_length(131072, concurrent_conversations=41)
    warm = rank(spec, slid, gpus=GPUS)
    assert len(screen._SCREENS) == 1
    assert any(r.detail.startswith("weights and working memory") for r in warm.rejected)  # kept fit rejections
    assert warm.model_dump_json() == _cold(spec, slid, gpus=GPUS)
    rank(spec, first, gpus=GPUS)
    few = Workload.fixed_length(8192, concurrent_conversations=3)  # llama.cpp suits; desktop hosts do
    warm_few = rank(spec, few, gpus=GPUS)
    assert len(screen._SCREENS) == 2
    assert warm_few.model_dump_json() == _cold(spec, few, gpus=GPUS)


def test_the_screen_is_bounded() -> None:
    reuse.clear()
    spec = get_model("Qwen/Qwen3-0.6B").spec
    workload = Workload.fixed_length(2048, concurrent_conversations=8)
    for count in range(2, screen.SCREENS + 5):  # each its own GPU counts: its own screen
        rank(spec, workload, gpus=GPUS, counts=(1, count))
    assert len(screen._SCREENS) == screen.SCREENS
    assert all(isinstance(s, Rejected) or s.candidate.gpu in GPUS for entry in screen._SCREENS.values() for s in entry)

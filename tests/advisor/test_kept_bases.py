"""An option's parts that read no user count are kept across rankings (planner.advisor.option_base, the memo
planner.advisor.reuse.OPTION_BASES): keyed by its assessment and support row (by identity), its candidate, profile
and hosts, and by the ranking's model, context, pricing terms and prompts. A key short of any of them would serve
one ranking another's figures: each ranking here follows one that differs in one input, and equals the same ranking
made with nothing kept."""

from __future__ import annotations

from typing import Any

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank, reuse
from planner.core.gpu import GpuSpec

GPUS = [get_gpu(g) for g in ("h100-sxm-80gb", "a100-sxm-80gb", "rtx-4090", "l40s")]
# A GPU edited under its own id (the catalog editor): another price, so other costs and another option.
EDITED = [GPUS[0].model_copy(update={"price": GPUS[1].price}), *GPUS[1:]]
# Unified memory: the share of it the workload plans with is read by the assessment alone (its memory per GPU).
UNIFIED = [get_gpu(g) for g in ("amd-ryzen-ai-max-plus-395", "apple-m4-max")]


def _ranked(context: int = 4096, users: int = 16, gpus: list[GpuSpec] = GPUS, **fields: Any) -> str:
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    workload = Workload.fixed_length(context, concurrent_conversations=users, **fields)
    return rank(spec, workload, gpus=gpus).model_dump_json()


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({}, {"users": 24}),  # another user count at a context seen: every base found, the rest made again
        ({"users": 2}, {"users": 64}),  # replicas and batches of another size
        ({}, {"context": 8192}),  # another context: other assessments
        ({}, {"usd_per_kwh": 0.31}),  # a purchase's running-cost assumptions
        ({"pricing": "cloud"}, {"pricing": "cloud", "cloud_tier": "spot"}),  # a rental's tier
        ({"pricing": "cloud"}, {}),  # bought after rented
        ({}, {"gpus": EDITED}),  # a GPU edited under its id
        ({"engines": ("llamacpp",), "users": 4}, {"engines": ("llamacpp",), "users": 5}),  # fixed slots: a user each
        (
            {"gpus": UNIFIED, "include_personal": True},
            {"gpus": UNIFIED, "include_personal": True, "unified_memory_share": 0.9},  # another assessment alone
        ),
    ],
)
def test_kept_bases_read_all_they_are_made_from(before: dict[str, Any], after: dict[str, Any]) -> None:
    reuse.clear()
    _ranked(**before)
    kept = _ranked(**after)
    assert len(reuse.OPTION_BASES) > 0  # the memo was read, not bypassed
    reuse.clear()
    assert kept == _ranked(**after)


def test_kept_bases_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its bound the memo lets the least recently used go: a ranking then makes them again, the same."""
    reuse.clear()
    cold = _ranked(users=24)
    monkeypatch.setattr(reuse.OPTION_BASES, "max_entries", 5)
    _ranked(context=8192)  # other assessments: new entries, the first ranking's let go
    assert len(reuse.OPTION_BASES) <= 5
    assert _ranked(users=24) == cold
    reuse.clear()

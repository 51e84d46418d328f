"""An option's costs and what it buys are kept across rankings (planner.advisor.reuse.SYSTEM_COSTS and
PURCHASE_TEXTS, read by planner.advisor.build.Built.cost and purchase): keyed by the GPU, its count and hosts and
the pricing's terms. A key without the running-cost assumptions or the cloud tier would price a ranking with another
ranking's electricity or tier: each ranking here follows one at the same length and GPUs with other terms, and
equals the same ranking made with nothing kept."""

from __future__ import annotations

from typing import Any

import pytest

from model_catalog import get_gpu, get_model
from planner.advisor import Workload, rank, reuse

GPUS = [get_gpu(g) for g in ("h100-sxm-80gb", "a100-sxm-80gb", "rtx-4090", "l40s")]


def _ranked(**fields: Any) -> str:
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    return rank(spec, Workload.fixed_length(4096, concurrent_conversations=16, **fields), gpus=GPUS).model_dump_json()


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({}, {"usd_per_kwh": 0.31}),  # a purchase's assumptions: its energy and TCO
        ({}, {"life_years": 5.0}),
        ({}, {"pue": 1.6}),
        ({"pricing": "cloud"}, {"pricing": "cloud", "cloud_tier": "spot"}),  # a rental's tier
        ({"pricing": "cloud"}, {}),  # the same GPUs and counts bought, after they were rented
    ],
)
def test_kept_costs_read_the_pricing_terms(before: dict[str, Any], after: dict[str, Any]) -> None:
    reuse.clear()
    _ranked(**before)
    kept = _ranked(**after)
    reuse.clear()
    assert kept == _ranked(**after)
    assert len(reuse.SYSTEM_COSTS) > 0  # the memo was read, not bypassed

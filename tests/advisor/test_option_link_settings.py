"""A row's Memory-page link reproduces the row, whatever launch settings the sidebar still carries.

The advisor plans every set-up at its engine's defaults (or with the ``--max-num-seqs`` / ``--max-num-batched-tokens``
its label names: :class:`planner.advisor.Option`), while the session's selection keeps the launch settings a reader set
on the Memory page (they live in the link, ``ui.settings``). The row's link had kept them too (review57): with
``--kv-cache-memory-bytes`` at 5 GiB left in the sidebar, Llama 3.1 70B's first pick for 50 users at 32k, 8 x RTX PRO
6000 Blackwell Max-Q at TP 4 x 2 holding 106 conversations, opened on the Memory page holding 8; ``--enforce-eager`` or
``--max-cudagraph-capture-size 8`` left there, 108. The link now sets every launch setting to the option's own.
"""

from __future__ import annotations

import pytest

from model_catalog import get_model
from planner.advisor import Ranking, Workload, rank
from ui import settings
from ui.advisor_rows import option_link, option_selection
from ui.state import Selection

MODEL = "meta-llama/Llama-3.1-70B"
LEFT_IN_THE_SIDEBAR = {"kv_cache_memory_gib": 5.0, "enforce_eager": True, "max_cudagraph_capture_size": 8}


@pytest.fixture(scope="module")
def ranking() -> Ranking:
    workload = Workload.fixed_length(32_768, concurrent_conversations=50, gpu_ids=("rtx-pro-6000-blackwell-max-q",))
    return rank(get_model(MODEL).spec, workload)


@pytest.mark.parametrize("setting", sorted(LEFT_IN_THE_SIDEBAR))
def test_a_rows_link_plans_the_rows_count(ranking: Ranking, setting: str) -> None:
    best = ranking.options[0]
    assert (best.gpu_count, best.tensor_parallel, best.replicas, best.conversations) == (8, 4, 2, 106)
    sel = Selection(model_id=MODEL, **{setting: LEFT_IN_THE_SIDEBAR[setting]})
    for option in ranking.options[:5]:
        assert option_selection(sel, option).assessment().conversations == option.conversations, option.label
    assert f"{settings.LAUNCH_BY_NAME[_declared(setting)].url}=" not in option_link(sel, best, None)


def test_the_options_own_settings_are_kept() -> None:
    """Qwen3.8-27B for 8 users at 32k: the H100 PCIe row planned with --max-num-seqs 32 keeps it in its link, and an
    --enforce-eager left in the sidebar is dropped (tests/advisor/test_max_num_seqs.py)."""
    model = "Qwen/Qwen3.8-27B"
    workload = Workload.fixed_length(32_768, concurrent_conversations=8, gpu_ids=("h100-pcie-80gb",))
    option = next(o for o in rank(get_model(model).spec, workload).options if o.weights == "fp8" and o.gpu_count == 1)
    sel = option_selection(Selection(model_id=model, enforce_eager=True), option)
    assert (sel.max_num_seqs, sel.enforce_eager) == (32, None)
    assert sel.assessment().conversations == option.conversations == 32


def _declared(field: str) -> str:
    """The launch setting's declared name for a Selection field (``kv_cache_memory_gib``: ``kv_cache_memory_bytes``)."""
    return next(name for name, s in settings.LAUNCH_BY_NAME.items() if s.field == field)

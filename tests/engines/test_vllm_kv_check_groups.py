"""vLLM's start-up KV check counts the padding layers of a hybrid model's groups.

``get_kv_cache_configs`` checks that one request of ``max_model_len`` fits by ``_max_memory_usage_bytes_from_groups``
(0.19.0 ``v1/core/kv_cache_utils.py:1332``, :1579-1581; 0.22.0 :1741-1800; 0.27.1 :1890-1950, :2186-2195): with
the hybrid manager's groups it is ``group_size x page x sum over groups of cdiv(spec.max_memory_usage_bytes,
page)``, so a group padded to the group size ("Add 3 padding layers") needs pages in every slot, padding included,
where summing the layers' own needs leaves the padding out.

The RTX 5090 WSL2 boot of unsloth's Qwen3.8-27B NVFP4 with MTP 3 and 16,384 batched tokens printed "1.87 GiB KV
cache is needed" (its README, search-index file id 60293000203). Its 16 full-attention layers and the MTP layer are
one group of 17, its 48 Gated DeltaNet layers three groups of 17 (3 padding layers); the page is a 1,600-token block
of fp8 K and V (4 heads of 256: 2,048 bytes a token), 3,276,800 bytes. A 32,768-token request needs 21 pages in the
full group and 2 + 3 in each linear group in Mamba cache mode 'align' (``MambaSpec.max_memory_usage_bytes``, 0.27.1
``v1/kv_cache_interface.py:729-738``): 17 x 36 pages, 1.868 GiB. The layers' own sum gives 1.822 (17 x 21 + 48 x 5
pages); without prefix caching (mode 'none', 1 + 3 pages) the groups give 1.712 and the sum 1.675: only the groups
in mode 'align' print 1.87.
"""

from __future__ import annotations

import pytest

from bench.fidelity_cases import build_request, load_cases, setup_of
from planner.core.units import GiB
from planner.engines.base import engine_total_bytes
from planner.engines.vllm.blocks import needed_bytes
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.stage import vllm_stage
from planner.planning.plan import plan

MTP3_16K = "vllm-0.27-rtx5090-wsl2-qwen38-27b-nvfp4-mtp3-mbt16384-kv-refusal"
PAGE = 1600 * 2048


def _need(case_id: str, **profile: object) -> int:
    case = next(c for c in load_cases() if c["id"] == case_id)
    request = build_request(case, setup_of(case))
    vllm = request.overhead
    assert isinstance(vllm, VllmProfile)
    if profile:
        request = request.model_copy(update={"overhead": vllm.model_copy(update=profile)})
        vllm = vllm.model_copy(update=profile)
    result = plan(request)
    stage = vllm_stage(request, result, vllm, 0, engine_total_bytes(request))
    assert (stage.page_bytes, stage.group_size) == (PAGE, 17)
    return needed_bytes(stage, result.max_model_len, 16384)


def test_the_printed_need_of_the_mtp3_refusal() -> None:
    """17 x (21 + 3 x 5) pages: 1.87 GiB as printed."""
    need = _need(MTP3_16K)
    assert need == 17 * (21 + 3 * 5) * PAGE
    assert round(need / GiB, 2) == 1.87


def test_without_prefix_caching_the_groups_hold_four_pages_each() -> None:
    """Mode 'none': 17 x (21 + 3 x 4) pages, 1.71 GiB (vLLM would have printed this without prefix caching)."""
    need = _need(MTP3_16K, enable_prefix_caching=False)
    assert need == 17 * (21 + 3 * 4) * PAGE
    assert need / GiB == pytest.approx(1.712, abs=0.001)


def test_before_the_groups_the_layers_sum() -> None:
    """A release before the check by groups (rule ``kv_check_groups``) sums the layers' own needs: 17 x 21 + 48 x 5
    pages in mode 'align'."""
    need = _need(MTP3_16K, engine_version="0.13.0")
    assert need == (17 * 21 + 48 * 5) * PAGE


def test_from_0_14_to_0_18_the_first_group_in_every_slot() -> None:
    """0.14-0.18 take the first group's pages for every group (``blocks_needed = cdiv(any_spec...)`` with
    ``any_spec = kv_cache_groups[0].kv_cache_spec``): layer 0 is a Gated DeltaNet one, so 17 x 5 pages."""
    need = _need(MTP3_16K, engine_version="0.18.0")
    assert need == 17 * 5 * PAGE


INT8_HEAD_180K = "vllm-0.27-rtx3090-qwen38-27b-w4a16-autoround-int8lmhead-180k-seqs3-util0972"


def test_the_int8_head_boots_need_is_the_engines() -> None:
    """The Talos RTX 3090 boot of Qwen3.8-27B W4A16 at 180,000 tokens (fp8 KV, prefix caching: mode 'align', no
    drafter) started with 6.50 GiB of KV and printed 1.12x concurrency (its README, search-index file id
    61175742748). Its 16 full-attention layers are one group and its 48 Gated DeltaNet layers three groups of 16; the
    page is a 1,568-token block of fp8 K and V (4 heads of 256: 2,048 bytes a token), 3,211,264 bytes. One request
    needs cdiv(180,000, 1,568) = 115 pages in the full group and 2 in each linear group: 16 x 121 pages, 5.79 GiB,
    and 6.50 / 5.79 = 1.12x as printed. The planned refusal of this boot is the pool's (5.39 GiB planned), not the
    need's (tests/fidelity/test_blind_2026_12q.py)."""
    case = next(c for c in load_cases() if c["id"] == INT8_HEAD_180K)
    request = build_request(case, setup_of(case))
    vllm = request.overhead
    assert isinstance(vllm, VllmProfile)
    result = plan(request)
    stage = vllm_stage(request, result, vllm, 0, engine_total_bytes(request))
    page = 1568 * 2048
    assert (stage.page_bytes, stage.group_size) == (page, 16)
    need = needed_bytes(stage, result.max_model_len, 2048)
    assert need == 16 * (115 + 3 * 2) * page
    assert round(need / GiB, 2) == 5.79
    assert round(case["reported"]["kv_cache_gib"] / (need / GiB), 2) == case["reported"]["max_concurrency"] == 1.12

"""A blind SGLang set (tests/fidelity/cases/sglang-blind-2026-12.json): public start-ups of SGLang 0.5.8-0.5.18
found on 2026-12-04, after its release-by-release rules were read from the wheels, and scored before anything
changed (``unseen_score``). Six are in scope: Qwen3-30B-A3B-FP8 on an H100 at 0.83 (0.5.18), Qwen3-Reranker-0.6B
on an H100 at 0.3 (0.5.18), Qwen3-4B on an H100 at 0.85 (0.5.18), Qwen3-8B with SGLang's defaults on a B200 (a main
build after 0.5.10), Qwen2.5-0.5B-Instruct on an H100 NVL that other processes shared (0.5.10) and the same model in
SGLang's docs CI under a token cap (0.5.8); Qwen3-4B and Qwen2.5-0.5B-Instruct were added to the catalog for them.
Two are kept with the reason each cannot be scored (a GPU not identified, a pool given in prose).

Five were within 0.26 GiB when found; the shared H100 NVL was 7.58 GiB under: SGLang's reserve is (1 -
``mem_fraction_static``) of the memory free when the weights start loading (``pre_model_load_memory``), not of the
card. Two ServerArgs dumps print the default ``mem_fraction_static`` SGLang computed: 0.83 for an H100 at 0.5.18
and 0.841 for an H100 with graphs to batch 4 (SGLang's docs CI). The planner gave 0.829 and 0.840: SGLang's
heuristic reads the device total from ``nvidia-smi --query-gpu=memory.total`` (``get_device_memory_capacity`` ->
``get_nvgpu_memory_capacity``, 0.5.18 ``srt/utils/common.py:817-841``), 81,559 MiB on an H100, where the planner
passed torch's 79.19 GiB."""

from __future__ import annotations

import json

import pytest

from bench.fidelity import run_all
from bench.fidelity_cases import CASES_DIR
from model_catalog import get_gpu
from planner.core.units import GiB
from planner.engines.sglang_rules import heuristic_total_bytes, sglang_default_mem_fraction

BLIND = json.loads((CASES_DIR / "sglang-blind-2026-12.json").read_text(encoding="utf-8"))
RESULTS = {r.id: r for r in run_all() if r.id in {c["id"] for c in BLIND}}
SCORED = [c for c in BLIND if "unseen_score" in c]


def test_the_set_is_sourced_and_every_case_is_scored_or_says_why_not() -> None:
    assert len(BLIND) == len(RESULTS) == 8 and len(SCORED) == 6
    for case in BLIND:
        assert case["source"] and (case["verbatim"] or case["excerpt"]), case["id"]
        setup = case["setup"]
        assert ("unseen" in setup.get("not_fitted", "")) != bool(setup.get("out_of_scope")), case["id"]


FIRST = {  # KV error when found (GiB, as recorded; the reranker printed no KV line: its token error)
    "sglang-0.5.18-h100-qwen3-30b-a3b-fp8-mf083": 0.21,
    "sglang-0.5.18-h100-qwen3-reranker-0.6b-mf03": None,
    "sglang-main-2026-04-27-b200-qwen3-8b-defaults": 0.01,
    "sglang-0.5.18-h100-qwen3-4b-ctx32k": 0.26,
    "sglang-0.5.10.post1-h100nvl-qwen2.5-0.5b-shared": -7.58,
    "sglang-docsci-2026-02-04-h100-qwen2.5-0.5b-capped": -0.01,
}


@pytest.mark.parametrize("case", SCORED, ids=[c["id"] for c in SCORED])
def test_each_as_first_scored(case: dict[str, object]) -> None:
    """Every verdict right when found, with nothing fitted on them; the KV errors as recorded."""
    score = case["unseen_score"]
    assert score["verdict_right"] and score["kv_error_gib"] == FIRST[str(case["id"])]  # type: ignore[index]


# The KV and token errors now (GiB, 0.01: the printed precision; tokens to 0.01 %): SGLang's reserve taken from
# the memory free when the weights start loading, SGLang's own use by then (0.76 GiB) read from the docs CI's log,
# whose pool is its token cap (no score of its own rests on it)
NOW = {
    "sglang-0.5.18-h100-qwen3-30b-a3b-fp8-mf083": (0.08, 0.0025),
    "sglang-0.5.18-h100-qwen3-reranker-0.6b-mf03": (None, 0.0059),
    "sglang-main-2026-04-27-b200-qwen3-8b-defaults": (0.04, 0.0003),
    "sglang-0.5.18-h100-qwen3-4b-ctx32k": (0.11, 0.0019),
    "sglang-0.5.10.post1-h100nvl-qwen2.5-0.5b-shared": (0.08, 0.0025),
    "sglang-docsci-2026-02-04-h100-qwen2.5-0.5b-capped": (-0.01, 0.0),
}


@pytest.mark.parametrize("case_id", sorted(NOW))
def test_each_now(case_id: str) -> None:
    result, (kv, tokens) = RESULTS[case_id], NOW[case_id]
    assert result.verdict_right
    assert result.kv_error_gib == (None if kv is None else pytest.approx(kv, abs=0.01))
    assert result.token_error == pytest.approx(tokens, abs=1e-4)


@pytest.mark.parametrize(
    ("gpu", "version", "graphs", "printed"),
    [("h100-sxm-80gb", "0.5.18", None, 0.83), ("h100-sxm-80gb", "0.5.8", 4, 0.841)],
)
def test_the_default_fraction_is_the_one_serverargs_prints(gpu: str, version: str, graphs: int, printed: float) -> None:
    """0.83: the Qwen3-30B-A3B-FP8 start-up (chunk 8,192, graphs to 256); 0.841: the docs CI's Qwen2.5-0.5B
    (graphs to batch 4; 2026-02-04, between 0.5.8 and 0.5.9), each as its ServerArgs line prints it."""
    spec = get_gpu(gpu)
    total = heuristic_total_bytes(spec.platform, spec.memory_bytes, spec.engine_visible_bytes or spec.memory_bytes)
    assert total == 81_559 * 2**20
    assert sglang_default_mem_fraction(total, 1, 1, version, cuda_graph_max_bs=graphs) == printed


def test_the_b200_log_implies_the_fraction_nvidia_smi_gives() -> None:
    """162.30 - 177.57 x (1 - f) = 136.36 GiB (K 68.18 + V 68.18) gives f = 0.854 to the printed precision, the
    default from nvidia-smi's 183,359 MiB (0.853 from torch's 178.35 GiB)."""
    implied = 1 - (162.30 - 136.36) / 177.57
    spec = get_gpu("b200-sxm")
    total = heuristic_total_bytes(spec.platform, spec.memory_bytes, spec.engine_visible_bytes or spec.memory_bytes)
    assert round(implied, 3) == sglang_default_mem_fraction(total, 1, 1, "0.5.10") == 0.854
    assert sglang_default_mem_fraction(spec.engine_visible_bytes or 0, 1, 1, "0.5.10") == 0.853


def test_rocm_and_unified_memory_use_the_torch_total() -> None:
    """No nvidia-smi figure: ROCm's ``get_amdgpu_memory_capacity`` reads torch's total, and a GB10's nvidia-smi
    prints no memory total, so SGLang falls back to ``torch.cuda.mem_get_info`` (0.5.18 ``_cuda_mem_fallback``)."""
    for gpu in ("mi300x", "dgx-spark-gb10"):
        spec = get_gpu(gpu)
        visible = spec.engine_visible_bytes or spec.memory_bytes
        assert heuristic_total_bytes(spec.platform, spec.memory_bytes, visible) == visible
    assert heuristic_total_bytes(None, None, 40 * GiB) == 40 * GiB

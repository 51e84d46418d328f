"""The 262,144-position Qwen3 MoE checkpoints (July 2025 refresh and Qwen3-Coder) planned with their own positions.

vLLM keeps a cos/sin cache of ``max_position_embeddings x rotary_dim`` values on every GPU, counted with the
weights (``planner.engines.vllm.rope``; 0.27.1 ``model_executor/layers/rotary_embedding/base.py``:
``_compute_cos_sin_cache`` over ``torch.arange(self.max_position_embeddings)``). Qwen3-235B-A22B-Instruct-2507,
Qwen3-30B-A3B-Instruct-2507 and Qwen3-Coder-30B-A3B-Instruct ship ``max_position_embeddings`` 262144 (their cards:
"Context Length: 262,144 natively"; Qwen3-Coder-30B-A3B-Instruct's config.json as copied in ztxz16/fastllm@f8f04c33
``Qwen3-Coder-30B-A3B-Instruct/config.json``), the April checkpoints 40960, so a boot of one of them mapped onto
the April entry was planned 262,144 - 40,960 = 221,184 positions x 128 x 2 bytes = 56,623,104 bytes short."""

from __future__ import annotations

import json

import pytest

from bench.fidelity import run_all
from bench.fidelity_cases import CASES_DIR
from model_catalog import get_model
from planner.engines.vllm.rope import rope_cache_bytes

CHECKPOINTS = {
    # the checkpoint a case served -> the catalog entry holding its positions
    "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8": "Qwen/Qwen3-235B-A22B-Instruct-2507",
    "RedHatAI/Qwen3-30B-A3B-Instruct-2507-quantized.w4a16": "Qwen/Qwen3-30B-A3B-Instruct-2507",
    "Qwen/Qwen3-Coder-30B-A3B-Instruct": "Qwen/Qwen3-Coder-30B-A3B-Instruct",
}
APRIL = {
    "Qwen/Qwen3-235B-A22B-Instruct-2507": "Qwen/Qwen3-235B-A22B",
    "Qwen/Qwen3-30B-A3B-Instruct-2507": "Qwen/Qwen3-30B-A3B",
    "Qwen/Qwen3-Coder-30B-A3B-Instruct": "Qwen/Qwen3-30B-A3B",
}
# KV error (GiB) now; the figure before, with the April entries' 40,960 positions, in the comment. Tolerance 0.01
# GiB (the printed precision). The RoPE cache is 0.053 GiB more weights on every rank (and every PP stage).
NOW = {
    "vllm-0.27-4xrtxpro6000-qwen3-235b-a22b-2507-fp8-tp4-32k": 0.33,  # 0.38
    "vllm-0.27-4xrtxpro6000-qwen3-235b-a22b-2507-fp8-tp4-ep-32k": 0.22,  # 0.27
    "vllm-0.27-4xrtxpro6000-qwen3-235b-a22b-2507-fp8-pp4-32k": 2.42,  # 2.48
    "vllm-0.30-rtx3090-qwen3-30b-a3b-2507-w4a16-8k": 0.25,  # 0.30
    # 0.12, then 0.07 until the Triton sampler's cached buffer and the refit Triton copies (2026-12-07, fifty-sixth)
    "vllm-0.24-4xl40s-qwen3-coder-30b-a3b-bf16-tp4-32k": 0.01,
}


def _cases() -> list[dict[str, object]]:
    cases: list[dict[str, object]] = []
    for path in sorted(CASES_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        cases.extend(data if isinstance(data, list) else data.get("cases", [data]))
    return cases


@pytest.mark.parametrize(("entry", "april"), sorted(APRIL.items()))
def test_the_2507_entries_hold_262144_positions_and_the_april_shapes(entry: str, april: str) -> None:
    new, old = get_model(entry).spec, get_model(april).spec
    assert new.max_position_embeddings == 262_144 and old.max_position_embeddings == 40_960
    assert new.yarn is None  # the 2507 configs ship no rope_scaling and run natively to 262,144
    same = ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim")
    assert all(getattr(new, f) == getattr(old, f) for f in (*same, "vocab_size", "tie_word_embeddings", "moe"))
    assert get_model(entry).reference.hub_safetensors_total == get_model(april).reference.hub_safetensors_total


def test_the_rope_cache_grows_by_the_positions_the_april_entry_lacked() -> None:
    new = get_model("Qwen/Qwen3-235B-A22B-Instruct-2507").spec
    old = get_model("Qwen/Qwen3-235B-A22B").spec
    assert rope_cache_bytes(new, 2) == 262_144 * 128 * 2 == 67_108_864
    assert rope_cache_bytes(new, 2) - rope_cache_bytes(old, 2) == 56_623_104


def test_every_case_of_those_checkpoints_maps_onto_its_own_entry() -> None:
    mapped = {str(c["id"]): c for c in _cases() if str(c.get("model", "")) in CHECKPOINTS}
    assert len(mapped) == 6  # the four RTX PRO 6000 boots, the RTX 3090 W4A16, the 4 x L40S Coder
    for case in mapped.values():
        setup = case["setup"]
        assert isinstance(setup, dict) and setup["model"] == CHECKPOINTS[str(case["model"])]


def test_their_kv_errors_now() -> None:
    results = {r.id: r for r in run_all() if r.id in NOW}
    assert len(results) == len(NOW)
    for case_id, error in NOW.items():
        assert results[case_id].kv_error_gib == pytest.approx(error, abs=0.01), case_id
        assert results[case_id].verdict_right

"""config.json: real configs with fields swapped for hostile values, random JSON-like dicts with plausible keys, and
raw bytes. Reading gives a ModelSpec or a PlannerError naming the field; every spec read plans (under the page's
budget) to a result or a PlannerError: nothing else, and fast."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from planner.assessment.assess import assess
from planner.bounds.limits import FIELD_LIMITS
from planner.bounds.walltime import budget
from planner.engines.registry import overhead_profile
from planner.planning.plan import PlanRequest
from planner.sources.config import parse_config_text, spec_from_hf_config
from tests.fuzz.conftest import FEW, FUZZ, only_named_refusals

ROOT = Path(__file__).resolve().parents[2]
REAL = [
    json.loads(path.read_text(encoding="utf-8"))
    for path in sorted([*ROOT.glob("tests/fixtures/configs/*.json"), *ROOT.glob("tests/fixtures/hub/*/*/config.json")])
]
REAL = [config for config in REAL if isinstance(config, dict) and "model_type" in config]
KEYS = sorted(
    {
        *FIELD_LIMITS,
        *(key for config in REAL for key in config),
        "layer_types",
        "sliding_window_pattern",
        "full_attention_interval",
        "hybrid_override_pattern",
        "layers_block_type",
        "no_rope_layers",
        "text_config",
        "quantization_config",
        "config_groups",
        "n_routed_experts",
        "num_local_experts",
        "kv_lora_rank",
        "q_lora_rank",
        "mamba_n_heads",
        "mamba_d_state",
        "linear_num_key_heads",
        "interleave_moe_layer_step",
        "num_kv_shared_layers",
        "mtp_num_hidden_layers",
    }
)
MODEL_TYPES = sorted({str(config["model_type"]) for config in REAL} | {"mistral", "gemma2", "gemma3_text", "jamba"})
HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from([0, 1, 3, 1024, 1025, 10**6, 10**7, 10**9, 2**53 + 1, 10**30, 10**400]),
    st.floats(),  # NaN and infinities included: a dict need not come from JSON
    st.text(max_size=20),
    st.sampled_from(["x", "full", "sliding_attention", "linear_attention", "M-*", "bfloat16"]),
    st.lists(st.sampled_from(["full_attention", "sliding_attention", "x", 1, None]), max_size=2000),
)
VALUES = st.recursive(
    HOSTILE,
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(st.sampled_from(KEYS), children, max_size=5)
    ),
    max_leaves=20,
)


def _mutated(base: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(KEYS), VALUES, min_size=1, max_size=4).map(lambda junk: {**base, **junk})


CONFIGS = st.one_of(
    st.sampled_from(REAL).flatmap(_mutated),
    st.builds(
        lambda model_type, junk: {"model_type": model_type, **junk},
        st.sampled_from(MODEL_TYPES),
        st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=12),
    ),
    VALUES,
)


def _plan(config: Any) -> None:
    spec = spec_from_hf_config(config)
    request = PlanRequest(
        model=spec,
        gpu_memory_bytes=80 * 10**9,
        context_tokens=min(4096, spec.max_position_embeddings),
        overhead=overhead_profile("vllm"),
    )
    with budget(0.9, "the fuzz example"):
        assess(request)


@FUZZ
@given(CONFIGS)
def test_a_config_reads_and_plans_or_is_refused_by_name(config: Any) -> None:
    only_named_refusals(lambda: _plan(config))


@FEW
@given(st.one_of(st.binary(max_size=2_000), CONFIGS.map(lambda c: json.dumps(c, default=str).encode())))
def test_config_bytes_parse_or_are_refused_by_name(raw: bytes) -> None:
    only_named_refusals(lambda: spec_from_hf_config(parse_config_text(raw)))


def test_every_real_config_still_reads() -> None:
    for config in REAL:
        only_named_refusals(lambda config=config: _plan(config))

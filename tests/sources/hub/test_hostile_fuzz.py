"""Junk at every parser of a Hub reply: only a PlannerError (HubError) may come out, never another exception.

Random JSON values, recorded replies with fields swapped for junk, deep nesting, huge integers, NaN and
Infinity, raw bytes: thrown at the JSON loader and at the API-entry, config, index, safetensors-header and
quantize_config readers, and through the assembly of a HubModel. Kept to a few seconds in all.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.bounds.errors import PlannerError
from planner.sources.hub import detect_quantization, parse_safetensors_header
from planner.sources.hub.assembly import Evidence, assemble
from planner.sources.hub.replies import ApiInfo, index_total_size, parse_api_info, parse_config, parse_quantize_config
from planner.sources.hub.transport import parse_json
from tests.sources.hub.conftest import FIXTURES

pytestmark = pytest.mark.fuzz  # part of the fuzz suite (tests/fuzz/conftest.py)

# HEADROOM_FUZZ_EXAMPLES=5000 for a deeper run than the default few seconds.
FUZZ = settings(
    max_examples=int(os.environ.get("HEADROOM_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
KEYS = [
    "sha",
    "siblings",
    "rfilename",
    "gated",
    "private",
    "safetensors",
    "parameters",
    "total",
    "metadata",
    "total_size",
    "dtype",
    "shape",
    "data_offsets",
    "__metadata__",
    "quantization_config",
    "quant_method",
    "config_groups",
    "weights",
    "num_bits",
    "type",
    "bits",
    "w_bit",
    "group_size",
    "load_in_8bit",
    "quant_algo",
    "model_type",
    "architectures",
    "num_hidden_layers",
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "intermediate_size",
    "vocab_size",
    "max_position_embeddings",
    "tie_word_embeddings",
    "sliding_window",
    "layer_types",
    "text_config",
    "vision_config",
    "torch_dtype",
    "num_local_experts",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "sliding_window_pattern",
]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**45), max_value=10**45)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["BF16", "F8_E4M3", "gptq", "compressed-tensors", "llama", "bfloat16", "full_attention"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner),
    max_leaves=25,
)
RAW = st.one_of(
    st.binary(max_size=200),
    st.integers(min_value=1, max_value=5_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=1, max_value=5_000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
    st.integers(min_value=3_000, max_value=6_000).map(lambda n: b'{"total": ' + b"9" * n + b"}"),
    st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b'{"x": 1e999}', b"\xff\xfe", b'"\\ud800"', b""]),
    VALUES.map(lambda v: json.dumps(v).encode()),
)


def _fixture(repo: str, name: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / repo / name).read_text()))


BASE_CONFIGS = [
    _fixture(repo, "config.json")
    for repo in ("Qwen/Qwen3-0.6B", "deepseek-ai/DeepSeek-V3", "google/gemma-3-27b-it", "openai/gpt-oss-20b")
]
BASE_API = _fixture("Qwen/Qwen3-0.6B", "api.json")
BASE_HEADER = _fixture("headroom-test/tiny-vlm", "model.safetensors.header.json")
INTS = st.integers(min_value=-3, max_value=2**70) | st.sampled_from([0, 1, 2**40, 10**40])


def _mutated(base: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """``base`` with a few of its own keys (or known keys) set to junk."""
    keys = sorted(base)
    return st.dictionaries(st.sampled_from(keys) | st.sampled_from(KEYS), VALUES, max_size=4).map(
        lambda junk: {**base, **junk}
    )


def _shaped(required: dict[str, Any], optional: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """An object with the right keys, each value of the right shape or junk."""
    return st.fixed_dictionaries(
        {k: v | VALUES for k, v in required.items()}, optional={k: v | VALUES for k, v in optional.items()}
    )


API = _shaped(
    {},
    {
        "sha": st.just(BASE_API["sha"]),
        "siblings": st.lists(_shaped({"rfilename": st.text(max_size=30)}, {}), max_size=4),
        "gated": st.sampled_from([False, "auto", "manual"]),
        "private": st.booleans(),
        "safetensors": _shaped({}, {"parameters": st.dictionaries(st.text(max_size=8), INTS), "total": INTS}),
    },
)
TENSOR = _shaped(
    {
        "dtype": st.sampled_from(["BF16", "F16", "F4", "U8", "XX"]),
        "shape": st.lists(INTS, max_size=4),
        "data_offsets": st.lists(INTS, min_size=2, max_size=2),
    },
    {},
)
HEADER = st.dictionaries(st.text(max_size=40) | st.sampled_from(["model.vision_tower.x", "lm_head.weight"]), TENSOR)
QUANT = _shaped(
    {"quant_method": st.sampled_from(["gptq", "awq", "compressed-tensors", "bitsandbytes", "modelopt", "fp8"])},
    {
        "config_groups": st.dictionaries(
            st.text(max_size=4), _shaped({"weights": _shaped({}, {"num_bits": INTS, "type": st.text()})}, {})
        ),
        "bits": INTS,
        "w_bit": INTS,
        "group_size": INTS,
        "load_in_8bit": st.booleans(),
        "quant_algo": st.sampled_from(["FP8", "NVFP4"]),
    },
)
INDEX = _shaped({}, {"metadata": _shaped({}, {"total_size": INTS})})


def _only_planner_errors(call: Callable[[], object]) -> None:
    with contextlib.suppress(PlannerError):
        call()


def _through_assembly(config: Any) -> None:
    checked = parse_config(config)
    evidence = Evidence(
        repo_id="fuzz/model",
        revision=None,
        endpoint="https://huggingface.co",
        api=ApiInfo(parameters_total=1_000_000, parameters_by_dtype={"BF16": 1_000_000}),
        config=checked,
        quantization=detect_quantization(checked),
    )
    assemble(evidence, [])


@FUZZ
@given(RAW)
def test_the_json_loader_raises_only_planner_errors(raw: bytes) -> None:
    _only_planner_errors(lambda: parse_json(raw, "fuzz.json", 100_000))


@FUZZ
@given(st.one_of(VALUES, _mutated(BASE_API), API))
def test_the_api_entry_reader_raises_only_planner_errors(value: Any) -> None:
    _only_planner_errors(lambda: parse_api_info(value, "fuzz/model"))


@FUZZ
@given(st.one_of(VALUES, INDEX))
def test_the_index_reader_raises_only_planner_errors(value: Any) -> None:
    _only_planner_errors(lambda: index_total_size(value))


@FUZZ
@given(st.one_of(VALUES, _mutated(BASE_HEADER), HEADER))
def test_the_safetensors_header_reader_raises_only_planner_errors(value: Any) -> None:
    _only_planner_errors(lambda: parse_safetensors_header(value))


@FUZZ
@given(st.one_of(VALUES, QUANT))
def test_the_quantize_config_reader_raises_only_planner_errors(value: Any) -> None:
    def read() -> None:
        legacy = parse_quantize_config(value)
        if legacy is not None:
            detect_quantization({"quantization_config": legacy})

    _only_planner_errors(read)


@FUZZ
@given(
    st.one_of(
        VALUES,
        st.sampled_from(BASE_CONFIGS).flatmap(_mutated),
        st.builds(lambda q: {**BASE_CONFIGS[0], "quantization_config": q}, QUANT | VALUES),
        st.builds(lambda t: {**BASE_CONFIGS[2], "text_config": t}, VALUES),
        st.builds(lambda a: {**BASE_CONFIGS[1], "architectures": a, "model_type": a}, VALUES),
    )
)
def test_the_config_reader_and_assembly_raise_only_planner_errors(value: Any) -> None:
    _only_planner_errors(lambda: _through_assembly(value))

"""The two packed link tokens, ``spec=`` and ``calib=``, and the engine release: bounded before any work, every
refusal a named :class:`PlannerError` (issue 11: ``w²``, 5,000 and 400 digits, 3M nested ``[`` in a 3.9 kB link,
``max_position_embeddings`` above 2^53, ``hidden_size`` of 10^400, a 5,000-digit ``--engine-version``)."""

from __future__ import annotations

import json
import time

import pytest
from pydantic import ValidationError

from model_catalog import get_model
from planner.bounds.errors import PlannerError
from planner.engines.registry import engine_profile
from planner.engines.vllm.calibrated import Calibrated
from ui.custom_spec import decode_spec, encode_spec, pack_token


def pack(text: str | bytes) -> str:
    return pack_token(text.encode() if isinstance(text, str) else text)


LLAMA = get_model("meta-llama/Llama-3.1-8B").spec.model_dump(mode="json", exclude_defaults=True)


def test_a_catalog_model_round_trips() -> None:
    spec = get_model("meta-llama/Llama-3.1-8B").spec
    assert decode_spec(encode_spec(spec)) == spec


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 3_000_000, "larger than"),  # a 3.9 kB link; RecursionError before the fix
        ("[" * 100_000, "nested"),
        ('{"a":' * 100 + "1" + "}" * 100, "nested"),
        (json.dumps({**LLAMA, "max_position_embeddings": 2**53 + 1}), "max_position_embeddings"),
        (json.dumps({**LLAMA, "max_position_embeddings": 1e300}), "max_position_embeddings"),
        ('{"id":"x","hidden_size":1' + "0" * 400 + "}", "digits"),
        (json.dumps({**LLAMA, "num_hidden_layers": 1e6}), "num_hidden_layers"),
        (json.dumps({**LLAMA, "num_hidden_layers": 10**6, "layer_pattern": ["full"]}), "num_hidden_layers"),
        ('{"id": "x", "hidden_size": Infinity}', "Infinity"),
        ('{"id": "x", "hidden_size": NaN}', "NaN"),
        ("[1, 2]", "not a model description"),
        ("\xff\xfe", "damaged"),
    ],
)
def test_a_hostile_spec_is_a_named_error(text: str, message: str) -> None:
    token = pack(text)
    assert len(token) < 6000
    start = time.perf_counter()
    with pytest.raises(PlannerError, match=message):
        decode_spec(token)
    assert time.perf_counter() - start < 0.5


def test_a_decompression_bomb_stops_at_the_bound() -> None:
    """4 MB of spaces pack into a 5 kB link: decompression stops at the bound instead of inflating them."""
    token = pack(b" " * 4_000_000)
    assert len(token) < 6000
    start = time.perf_counter()
    with pytest.raises(PlannerError, match="larger than"):
        decode_spec(token)
    assert time.perf_counter() - start < 0.2


@pytest.mark.parametrize(
    "token",
    [
        "",
        "m1.",
        "m1.!!!!",
        "m2." + pack("{}")[3:],
        "m1." + "A" * 7000,
        pack("{}")[:-3] + "\u00b2\u00b2",
    ],
)
def test_damaged_spec_tokens(token: str) -> None:
    with pytest.raises(PlannerError, match="spec"):
        decode_spec(token)


def test_a_calibration_round_trips() -> None:
    cal = Calibrated(engine_version="0.19.0", gpu_memory_utilization=0.95, weights_bytes=16_095_000_000)
    assert Calibrated.from_token(cal.to_token()) == cal


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("cal1~vllm~0.19.0~0.9~w²", "w²"),  # ValueError from int() before the fix
        ("cal1~vllm~0.19.0~0.9~w" + "9" * 5_000, "longer"),  # the integer-string limit's ValueError before
        ("cal1~vllm~0.19.0~0.9~w" + "9" * 400, "longer"),
        ("cal1~vllm~0.19.0~0.9~w" + "9" * 16, "digits"),
        ("cal1~vllm~0.19.0~0.9~t" + "9" * 20, "digits"),
        ("cal1~vllm~" + "9" * 5_000 + "~0.9", "longer"),
        ("cal1~vllm~" + "9" * 100 + "~0.9", "release"),
        ("cal1~vllm~0.19.0~nan", "fraction"),
        ("cal1~vllm~0.19.0~inf", "fraction"),
        ("cal1~vllm~0.19.0~1e308", "fraction"),
        ("cal1~vllm~0.19.0~0.9~w1~w2", "twice"),
        ("cal1~vllm~0.19.0~0.9~x1", "unreadable"),
        ("cal1~vllm~0.19.0~0.9~w-1", "unreadable"),
        ("cal1~vllm~0.19.0~0.9~w\uff11", "unreadable"),  # a full-width digit
        ("cal1~tensorrt~0.19.0~0.9", "engine"),
        ("cal1~vllm~0.19.0", "expected"),
        ("cal1~vllm~0.19.0~0.9~w1~", "unreadable"),
    ],
)
def test_a_hostile_calibration_is_a_named_error(token: str, message: str) -> None:
    with pytest.raises(PlannerError, match=message):
        Calibrated.from_token(token)


@pytest.mark.parametrize("version", ["9" * 5_000, "0.19.0; rm -rf /", "0.19.0\n", "\u0661.\u0662"])
def test_an_engine_release_is_a_short_version(version: str) -> None:
    """``fit --engine-version`` with 5,000 digits: a named error, not a ValueError from int()."""
    with pytest.raises((PlannerError, ValidationError), match=r"engine_version|release"):
        engine_profile("vllm", version=version)


@pytest.mark.parametrize(
    ("engine", "version"),
    [
        ("vllm", "0.19.0"),
        ("vllm", "v0.10.2rc1"),
        ("vllm", "~0.10"),
        ("vllm", "0.11.0+cu128"),
        ("vllm", "0.31.1rc1.dev50+g554340f3d"),
        ("sglang", "0.5.18"),
        ("trtllm", "1.0.0"),
        ("llamacpp", "b6000"),
    ],
)
def test_real_releases_are_accepted(engine: str, version: str) -> None:
    assert engine_profile(engine, version=version).engine_version == version


@pytest.mark.parametrize(
    ("engine", "version", "message"),
    [
        ("vllm", "banana", "'banana' is not a vLLM release"),
        ("vllm", "b6000", "'b6000' is not a vLLM release"),
        ("sglang", "latest", "'latest' is not a SGLang release"),
        ("trtllm", "main", "'main' is not a TensorRT-LLM release"),
        ("llamacpp", "0.19.0", "'0.19.0' is not a llama.cpp build tag"),
    ],
)
def test_a_release_is_numbered_as_its_engine_numbers_them(engine: str, version: str, message: str) -> None:
    """Any short token used to pass (``--engine vllm --engine-version banana`` planned with 0.6.4's rules); each
    engine's releases have their own form."""
    with pytest.raises(ValidationError, match=message):
        engine_profile(engine, version=version)

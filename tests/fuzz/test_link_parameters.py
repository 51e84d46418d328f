"""Link parameters: every declared setting's parser on random and crafted text, and the two packed tokens
(``spec``, ``calib``) on random and structured junk. A setting refuses with a plain ValueError and its reason (the
page names the parameter); a token with a PlannerError; nothing else, and fast."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from planner.bounds.errors import PlannerError
from planner.engines.vllm.calibrated import CALIBRATION_LETTERS, Calibrated
from tests.fuzz.conftest import FUZZ, only_named_refusals
from ui.custom_spec import decode_spec, encode_spec, pack_token
from ui.settings import SETTINGS

CRAFTED = st.sampled_from(
    [
        "",
        " ",
        "0",
        "-1",
        "1e9",
        "1e999",
        "NaN",
        "inf",
        "-inf",
        "0x10",
        "1_000",
        "²",
        "\u0661\u0662",  # Arabic-Indic digits
        "\uff11",  # a full-width one
        "9" * 13,
        "9" * 400,
        "9" * 5_000,
        "0." + "9" * 400,
        "auto",
        "true",
        "<script>alert(1)</script>",
        "[click](https://evil.example)",
        ":material/warning:",
        "../../etc/passwd",
        "a" * 10_000,
        "\x00",
        "\ud7ff\ue000",
        "cal1~vllm~0.19.0~0.9~w²",
        "m1." + "A" * 6_000,
    ]
)
TEXT = st.one_of(CRAFTED, st.text(max_size=300), st.text(alphabet="0123456789.e-+~", max_size=40))


@FUZZ
@given(st.sampled_from(SETTINGS), st.lists(TEXT, max_size=20))
def test_every_setting_parses_or_names_its_reason(setting: Any, raw: list[str]) -> None:
    only_named_refusals(lambda: setting.parse_values(raw), also=(ValueError,))


def _pack(data: bytes) -> str:
    return pack_token(data)


SPEC_KEYS = [
    "id",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "intermediate_size",
    "vocab_size",
    "num_parameters",
    "max_position_embeddings",
    "sliding_window",
    "attention_chunk_size",
    "layer_pattern",
    "layer_types",
    "moe",
    "mla",
    "linear_attention",
    "attached_modules",
    "num_kv_shared_layers",
    "global_head_dim",
    "native_dtype",
    "tie_word_embeddings",
    "norms_per_layer",
    "hidden_size_per_layer_input",
    "vocab_size_per_layer_input",
    "num_nextn_predict_layers",
    "indexer",
]
HOSTILE_NUMBERS = st.one_of(
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from([0, 1, 2, 7, 64, 1024, 1025, 2**31, 2**53 + 1, 10**6, 10**15]),
    st.floats(allow_nan=False, allow_infinity=False),
)
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), HOSTILE_NUMBERS, st.text(max_size=30)),
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(st.sampled_from([*SPEC_KEYS, "kind", "num_experts", "kv_lora_rank"]), children, max_size=6),
    ),
    max_leaves=30,
)
BASE_SPEC = json.loads(
    json.dumps(
        {
            "id": "fuzz/model",
            "hidden_size": 4096,
            "num_hidden_layers": 32,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "intermediate_size": 14336,
            "vocab_size": 128256,
        }
    )
)
SPECS = st.one_of(
    st.dictionaries(st.sampled_from(SPEC_KEYS), JSON_VALUES, max_size=12),
    st.builds(
        lambda extra: {**BASE_SPEC, **extra}, st.dictionaries(st.sampled_from(SPEC_KEYS), JSON_VALUES, max_size=3)
    ),
)


@FUZZ
@given(st.one_of(SPECS.map(lambda d: _pack(json.dumps(d).encode())), TEXT, st.binary(max_size=500).map(_pack)))
def test_a_spec_token_decodes_or_is_refused_by_name(token: str) -> None:
    spec = only_named_refusals(lambda: decode_spec(token))
    if spec is not None:
        assert decode_spec(encode_spec(spec)) == spec


FIGURE = st.one_of(
    st.integers(min_value=0, max_value=10**20).map(str),
    st.text(alphabet="0123456789²٣-+.e", max_size=20),
    st.sampled_from(["", "9" * 400, "9" * 5_000]),
)
CALIBRATIONS = st.builds(
    lambda engine, version, util, parts: "~".join(["cal1", engine, version, util, *parts]),
    st.sampled_from(["vllm", "sglang", "llamacpp", "trtllm", "", "VLLM"]),
    st.one_of(st.sampled_from(["0.19.0", "b6000", "v0.10.2rc1", "9" * 100, ""]), st.text(max_size=20)),
    st.one_of(st.sampled_from(["0.9", "1", "0", "nan", "inf", "1e-05", "1e308", "-0.5"]), st.text(max_size=8)),
    st.lists(st.builds(lambda letter, figure: letter + figure, st.sampled_from([*"twangx", ""]), FIGURE), max_size=7),
)


@FUZZ
@given(st.one_of(CALIBRATIONS, TEXT))
def test_a_calibration_token_reads_or_is_refused_by_name(token: str) -> None:
    calibrated = only_named_refusals(lambda: Calibrated.from_token(token))
    if calibrated is not None:
        assert Calibrated.from_token(calibrated.to_token()) == calibrated
        for _, name in CALIBRATION_LETTERS:
            value = getattr(calibrated, name)
            assert value is None or len(str(value)) <= 15


def test_the_refusals_are_planner_errors() -> None:
    """The helper's contract, checked once: a bare ValueError from a token is a failure, not a refusal."""
    try:
        only_named_refusals(lambda: int("x"))
    except ValueError:
        pass
    else:  # pragma: no cover
        raise AssertionError("a bare ValueError must not pass as a named refusal")
    only_named_refusals(lambda: (_ for _ in ()).throw(PlannerError("named")))


def test_a_model_id_in_another_case_opens_the_catalog_model() -> None:
    """The CLI reads Hugging Face ids in any case (``advise --model google/gemma-4-31b-it``); a link does too, and
    the page keeps the catalog's spelling."""
    from tests.app.conftest import run_page

    at = run_page("memory", {"model": "google/gemma-4-31b-it"})
    assert not [w.value for w in at.warning if "ignored" in str(w.value)]
    assert any("Gemma 4 31B" in str(t.value) for t in at.title)

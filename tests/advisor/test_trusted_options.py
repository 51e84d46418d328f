"""The options a ranking assembles without validating them again (planner.bounds.trusted) are the options
validation makes of the same fields: every field of the same value and type, the same JSON, repr and fields set,
over models and workloads that reach every kind of field (a MoE's ranks, llama.cpp's slots, rentals, a 4-bit
fallback, a lowered or raised memory fraction, --max-num-seqs)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, PrivateAttr

from model_catalog import get_model
from planner.advisor import Option, Workload, rank
from planner.advisor.options import Rejected
from planner.bounds.trusted import assembled

CASES = (
    ("meta-llama/Llama-3.1-70B", Workload.fixed_length(8192, concurrent_conversations=32)),
    ("meta-llama/Llama-3.1-70B", Workload.fixed_length(131072, concurrent_conversations=33)),
    ("Qwen/Qwen3-30B-A3B", Workload.from_preset("support-chat", concurrent_conversations=100)),
    ("meta-llama/Llama-3.1-8B", Workload.fixed_length(4096, concurrent_conversations=2, pricing="cloud")),
    ("openai/gpt-oss-120b", Workload.fixed_length(32768, concurrent_conversations=50)),
    ("ibm-granite/granite-4.0-h-small", Workload.fixed_length(16384, concurrent_conversations=8)),
    ("deepseek-ai/DeepSeek-V3", Workload.fixed_length(8192, concurrent_conversations=4)),
)


def _same(made: BaseModel, validated: BaseModel) -> None:
    assert made == validated
    assert repr(made) == repr(validated)
    assert made.model_dump_json() == validated.model_dump_json()
    assert made.model_fields_set == validated.model_fields_set
    for name in type(made).model_fields:
        assert type(getattr(made, name)) is type(getattr(validated, name)), name


@pytest.mark.parametrize(("model_id", "workload"), CASES, ids=[f"{m}-{w.context_tokens}" for m, w in CASES])
def test_every_option_is_its_validated_copy(model_id: str, workload: Workload) -> None:
    ranking = rank(get_model(model_id).spec, workload)
    options = [*ranking.options, *(m.closest for m in ranking.near_misses)]
    assert options or ranking.rejected
    for option in options:
        _same(option, Option.model_validate(dict(option.__dict__)))
    for rejected in ranking.rejected:
        _same(rejected, Rejected.model_validate(dict(rejected.__dict__)))


def test_a_field_missing_or_unknown_is_refused() -> None:
    workload = Workload.fixed_length(8192, concurrent_conversations=32)
    option = rank(get_model("meta-llama/Llama-3.1-8B").spec, workload).options[0]
    fields = dict(option.__dict__)
    assert assembled(Option, fields) == option
    with pytest.raises(ValueError, match="missing \\['headroom'\\]"):
        assembled(Option, {k: v for k, v in fields.items() if k != "headroom"})
    with pytest.raises(ValueError, match="unknown \\['surprise'\\]"):
        assembled(Option, {**fields, "surprise": 1})


def test_a_class_that_does_more_than_set_its_fields_is_refused() -> None:
    class Private(BaseModel, frozen=True):
        x: int
        _seen: int = PrivateAttr(default=0)

    class Hooked(BaseModel, frozen=True):
        x: int

        def model_post_init(self, context: object) -> None:
            pass

    for cls in (Private, Hooked):
        with pytest.raises(TypeError, match="validate it"):
            assembled(cls, {"x": 1})

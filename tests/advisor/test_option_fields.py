"""Options are built without validation (planner.advisor.build.build_option: ``Option.model_construct``, ~10 us of
~60 per option): every field already has its declared type, so validating each option again gives an equal option
with the same field types and the same JSON (hypothesis over models, workloads and pricing)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model_catalog import get_model, load_gpus
from planner.advisor import Workload, rank
from planner.advisor.options import Option

GPUS = list(load_gpus().values())
MODELS = ("meta-llama/Llama-3.1-8B", "Qwen/Qwen3-30B-A3B", "google/gemma-3-27b-it", "openai/gpt-oss-20b")


def _same(option: Option) -> None:
    validated = Option.model_validate(option.model_dump())
    assert validated == option
    assert validated.model_dump_json() == option.model_dump_json()
    for name in Option.model_fields:
        assert type(getattr(validated, name)) is type(getattr(option, name)), name


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.sampled_from(MODELS),
    context=st.sampled_from([512, 4096, 32768]),
    users=st.sampled_from([1, 3, 40, 200]),
    pricing=st.sampled_from(["purchase", "cloud"]),
    engines=st.sampled_from([None, ("llamacpp",), ("sglang", "trtllm")]),
)
def test_options_validate_to_themselves(
    model: str, context: int, users: int, pricing: str, engines: tuple[str, ...] | None
) -> None:
    workload = Workload.fixed_length(
        context, concurrent_conversations=users, pricing=pricing, engines=engines, include_personal=True
    )
    ranking = rank(get_model(model).spec, workload, gpus=GPUS)
    for option in ranking.options:
        _same(option)

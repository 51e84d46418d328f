"""One source of truth per figure, and contradictions named (issue 11: ``num_parameters=16e9`` on Llama-3.1-8B's
shape gave 32 GB of weights in total but 16 GB per GPU, and still "fit")."""

from __future__ import annotations

import json

import pytest

from model_catalog import get_model, load_models
from planner.bounds.errors import PlannerError
from planner.core.model import ModelSpec
from planner.core.params import PARAMETER_TOLERANCE, check_parameter_count, layer_breakdowns, parameter_breakdown
from planner.planning.plan import PlanRequest, plan
from planner.sources.config import spec_from_hf_config
from planner.sources.hub.assembly import Evidence, _reconcile
from planner.sources.hub.replies import ApiInfo
from planner.sources.hub.results import SourcedCount
from ui.custom_spec import decode_spec, encode_spec

LLAMA = get_model("meta-llama/Llama-3.1-8B").spec
COMPUTED = parameter_breakdown(LLAMA).total  # 8,030,261,248


def with_count(count: int) -> ModelSpec:
    return LLAMA.model_copy(update={"num_parameters": count})


@pytest.mark.parametrize("count", [16 * 10**9, 10**13, 10**6, round(COMPUTED * (1 + PARAMETER_TOLERANCE)) + 1])
def test_a_count_that_contradicts_the_shape_is_named(count: int) -> None:
    spec = with_count(count)
    for check in (check_parameter_count, parameter_breakdown):
        with pytest.raises(PlannerError) as info:
            check(spec)
        message = str(info.value)
        assert f"{count:,}" in message and f"{COMPUTED:,}" in message and "num_parameters" in message


def test_the_contradiction_is_named_on_every_path() -> None:
    """The link, an uploaded config.json and the plan all refuse it by name."""
    token = encode_spec(with_count(16 * 10**9))
    with pytest.raises(PlannerError, match="num_parameters"):
        decode_spec(token)
    config = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "num_parameters": 16 * 10**9,
    }
    with pytest.raises(PlannerError, match="num_parameters"):
        spec_from_hf_config(json.loads(json.dumps(config)))
    request = PlanRequest(model=with_count(16 * 10**9), gpu_memory_bytes=80 * 10**9)
    with pytest.raises(PlannerError, match="num_parameters"):
        plan(request)


@pytest.mark.parametrize("count", [8_000_000_000, 8_500_000_000, COMPUTED])
@pytest.mark.parametrize(("tp", "pp"), [(1, 1), (1, 4), (2, 2)])
def test_a_count_within_the_tolerance_is_one_figure_everywhere(count: int, tp: int, pp: int) -> None:
    """Before the fix the difference went into the total alone: per-GPU weights did not add up to it."""
    spec = with_count(count)
    params = parameter_breakdown(spec)
    assert params.total == count
    layers = layer_breakdowns(spec)
    assert sum(layer.dense_mlp for layer in layers) == params.dense_mlp
    result = plan(
        PlanRequest(
            model=spec, gpu_memory_bytes=80 * 10**9, gpu_count=tp * pp, tensor_parallel=tp, pipeline_parallel=pp
        )
    )
    per_gpu = sum(stage.weights_bytes for stage in result.stages) * tp
    assert per_gpu == pytest.approx(result.weights_bytes_total, rel=0.01)


def test_catalog_models_carry_no_contradiction() -> None:
    for entry in load_models().values():
        check_parameter_count(entry.spec)


@pytest.mark.parametrize(("checkpoint", "used"), [(16 * 10**9, COMPUTED), (8_300_000_000, 8_300_000_000)])
def test_a_hub_checkpoint_count_far_from_the_config_is_named_and_not_planned(checkpoint: int, used: int) -> None:
    """A checkpoint claiming twice what config.json describes: the note names both figures, the plan keeps the
    config's count (before the fix the spec carried num_parameters = the checkpoint's, and planned 32 GB in total
    against 16 GB per GPU)."""
    ev = Evidence(repo_id="x/y", revision=None, endpoint="http://127.0.0.1", api=ApiInfo(parameters_total=checkpoint))
    computed = SourcedCount(value=COMPUTED, source="computed from config.json")
    notes: list[str] = []
    spec, count = _reconcile(ev, LLAMA, SourcedCount(value=checkpoint, source="API safetensors.total"), computed, notes)
    assert count.value == used and parameter_breakdown(spec).total == used
    assert f"{checkpoint:,}" in notes[0] and f"{COMPUTED:,}" in notes[0]


def test_a_shape_beyond_any_real_model_in_total_is_named() -> None:
    """Each field within its bound, the whole beyond any model: 16,384 experts of width 1,048,576 on 1,024 layers."""
    spec = ModelSpec.model_validate(
        {
            **LLAMA.model_dump(exclude={"layer_types"}),
            "num_hidden_layers": 1024,
            "moe": {"num_experts": 16384, "num_experts_per_tok": 8, "moe_intermediate_size": 1_048_576},
        }
    )
    with pytest.raises(PlannerError, match="parameters; at most 100,000,000,000,000"):
        parameter_breakdown(spec)
    with pytest.raises(PlannerError, match="spec: the shape describes"):
        decode_spec(encode_spec(spec))

"""Data-parallel attention and experts split over data-parallel ranks (``--enable-dp-attention``).

The layouts tested are the engines' own, read from source (the sources are in the docstrings of
:meth:`planner.core.overhead.OverheadModelBase.spread_over_replicas`' overrides):
- vLLM ``FusedMoEParallelConfig.make``: a MoE layer's TP (or EP) is ``dp x tp``, every other layer a rank's own TP;
- SGLang ``--enable-dp-attention``: attention and the embedding at TP ``tp / dp``; MoE, dense MLP and lm_head over
  the whole ``--tp``;
- TensorRT-LLM ``enable_attention_dp``: routed experts over ``--ep_size``, the rest whole on each rank.
DeepSeek-V3's routed experts are its published shape: 58 MoE layers x 256 experts x 3 x 7,168 x 2,048.
"""

from __future__ import annotations

import pytest

from model_catalog import get_gpu, get_model
from planner.bounds.errors import PlannerError
from planner.core.precision import weight_format
from planner.core.weights import category_bits
from planner.engines.registry import engine_profile, get_engine
from planner.planning.plan import PlanRequest, PlanResult, plan

V3 = get_model("deepseek-ai/DeepSeek-V3").spec
H200 = get_gpu("h200-sxm-141gb")
ROUTED = 58 * 256 * 3 * 7168 * 2048  # DeepSeek-V3's routed experts (config.json: 61 layers, first 3 dense)


def _request(engine: str, gpus: int = 8, tp: int | None = None, model=V3, **settings: object) -> PlanRequest:
    return PlanRequest(
        model=model,
        gpu=H200,
        gpu_memory_bytes=H200.memory_bytes_for(True),
        gpu_count=gpus,
        tensor_parallel=tp,
        context_tokens=32768,
        overhead=engine_profile(engine, **settings),
    )


def _fp8_bytes(params: int, category: str) -> float:
    return params * float(category_bits(weight_format("fp8"), True)[category]) / 8


def _plan(engine: str, **kw: object) -> PlanResult:
    return plan(_request(engine, **kw))  # type: ignore[arg-type]


def test_routed_experts_are_the_published_shape() -> None:
    assert _plan("vllm").parameters_served - V3.num_hidden_layers == pytest.approx(671.0e9, rel=0.002)
    from planner.core.params import parameter_breakdown

    assert parameter_breakdown(V3).experts == ROUTED


@pytest.mark.parametrize("engine", ["vllm", "trtllm"])
def test_vllm_and_trtllm_split_only_the_routed_experts(engine: str) -> None:
    """TP 8 holds an eighth of everything sharded; DP attention holds every layer whole but an eighth of the routed
    experts: the difference is the non-expert weights' other seven eighths (less what TP 8 already replicated)."""
    whole = _plan(engine, enable_dp_attention=True)
    assert (whole.tensor_parallel, whole.replicas) == (1, 8)
    alone = plan(_request(engine, gpus=1))  # TP 1 on one GPU: the whole model
    seven_eighths = _fp8_bytes(ROUTED, "experts") * 7 / 8
    assert whole.per_gpu.weights_bytes == pytest.approx(alone.per_gpu.weights_bytes - seven_eighths, abs=2)


def test_sglang_also_splits_dense_mlp_and_lm_head() -> None:
    from planner.core.params import parameter_breakdown

    p = parameter_breakdown(V3)
    dp = _plan("sglang", enable_dp_attention=True)
    alone = plan(_request("sglang", gpus=1))
    spread = _fp8_bytes(ROUTED, "experts") + _fp8_bytes(p.dense_mlp, "dense_mlp") + _fp8_bytes(p.lm_head, "lm_head")
    assert dp.per_gpu.weights_bytes == pytest.approx(alone.per_gpu.weights_bytes - spread * 7 / 8, abs=2)


def test_each_rank_caches_its_own_conversations() -> None:
    """MLA's latent (61 layers x 576 values x 2 bytes = 70,272 bytes a token) is held whole by every TP rank; with
    DP attention each GPU holds its own conversations', so the set-up holds several times as many."""
    tp8, dp8 = _plan("vllm"), _plan("vllm", enable_dp_attention=True)
    assert tp8.per_gpu.kv_bytes_per_token == dp8.per_gpu.kv_bytes_per_token == 61 * 576 * 2
    assert dp8.kv_budget_tokens == 8 * dp8.kv_budget_tokens_per_replica
    assert dp8.capacity.sequences > 4 * tp8.capacity.sequences


def test_vllm_data_parallel_moe_splits_experts_without_the_setting() -> None:
    """``--data-parallel-size`` with a MoE model: the expert layers' TP is dp x tp whether or not
    ``--enable-expert-parallel`` is given (from 0.8.3, which has the flag); a release before it runs one server a
    replica, each a whole copy."""
    dp4 = _plan("vllm", tp=2)
    tp2 = plan(_request("vllm", gpus=2, tp=2))
    assert dp4.replicas == 4
    assert dp4.per_gpu.weights_bytes == pytest.approx(
        tp2.per_gpu.weights_bytes - _fp8_bytes(ROUTED, "experts") * (1 / 2 - 1 / 8), abs=2
    )
    old = plan(_request("vllm", tp=2, version="0.7.2"))
    assert old.per_gpu.weights_bytes == plan(_request("vllm", gpus=2, tp=2, version="0.7.2")).per_gpu.weights_bytes


def test_launch_commands_say_it_each_engines_way() -> None:
    commands = {}
    for engine in ("vllm", "sglang", "trtllm"):
        request = _request(engine, enable_dp_attention=True)
        commands[engine] = get_engine(engine).launch_command(request, plan(request), request.overhead)  # type: ignore[arg-type]
    assert "--tensor-parallel-size 1 --data-parallel-size 8" in commands["vllm"]
    assert commands["vllm"].endswith("--enable-expert-parallel") or " --enable-expert-parallel" in commands["vllm"]
    assert " --tp 8 --dp 8 " in commands["sglang"] and "--enable-dp-attention" in commands["sglang"]
    assert "--tp_size 8 --ep_size 8" in commands["trtllm"] and "'enable_attention_dp: true'" in commands["trtllm"]
    assert "# " not in commands["trtllm"]  # one server, not one a replica


@pytest.mark.parametrize(
    ("engine", "model", "gpus", "words"),
    [
        ("vllm", "meta-llama/Llama-3.1-70B", 8, "has no routed experts"),
        ("sglang", "deepseek-ai/DeepSeek-V3", 1, "needs two data-parallel ranks or more"),
        ("llamacpp", "deepseek-ai/DeepSeek-V3", 8, "has no --enable-dp-attention setting"),
    ],
)
def test_refused_where_it_changes_nothing_or_is_not_run(engine: str, model: str, gpus: int, words: str) -> None:
    with pytest.raises(PlannerError, match=words):
        plan(_request(engine, gpus=gpus, model=get_model(model).spec, enable_dp_attention=True))


def test_a_vllm_release_without_data_parallel_is_refused_by_name() -> None:
    with pytest.raises(PlannerError, match=r"vLLM 0\.7\.2 has no --data-parallel-size .*came with 0\.8\.3"):
        _request("vllm", enable_dp_attention=True, version="0.7.2")


def test_sglang_divides_a_given_running_limit_over_its_ranks() -> None:
    """tp_worker.py: ``max_running_requests // dp_size`` under --enable-dp-attention."""
    from planner.assessment.assess import assess

    a = assess(_request("sglang", enable_dp_attention=True, max_num_seqs=64))
    assert a.report is not None and a.report.max_running == 8

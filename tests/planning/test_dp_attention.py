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


def _request(
    engine: str, gpus: int = 8, tp: int | None = None, model=V3, gpu=H200, **settings: object
) -> PlanRequest:  # fmt: skip
    return PlanRequest(
        model=model,
        gpu=gpu,
        gpu_memory_bytes=gpu.memory_bytes_for(True),
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
    assert commands["vllm"].endswith(" --enable-expert-parallel")
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


def test_the_nearest_set_up_turns_it_on_in_the_engines_words() -> None:
    """TP 8 holds 19 conversations of 32k; the same GPUs as eight ranks hold 96 under vLLM, 56 under SGLang."""
    from planner.assessment.alternatives import nearest_fitting

    for engine, words in (
        ("vllm", "--data-parallel-size 8 --enable-expert-parallel"),
        ("sglang", "--enable-dp-attention"),
    ):
        found = [a for a in nearest_fitting(_request(engine), 50) if "data-parallel ranks at TP" in a.change]
        assert len(found) == 1 and found[0].change.startswith(words), engine
        assert found[0].assessment.conversations >= 50
    dense = _request("vllm", model=get_model("meta-llama/Llama-3.1-70B").spec)
    assert not [a for a in nearest_fitting(dense, 500) if "data-parallel" in a.change]


def test_every_engines_command_runs_the_ranks_the_plan_has() -> None:
    """A vLLM plan of eight ranks: SGLang's command is its own data-parallel attention (not --dp replicas of TP 8 on
    64 GPUs), TensorRT-LLM's one server with enable_attention_dp (not a whole model a GPU), llama.cpp says it would
    run whole copies; ranks of TP 2 are not what TensorRT-LLM's attention DP runs."""
    from planner.engines.launch import launch_commands

    request = _request("vllm", enable_dp_attention=True)
    commands = launch_commands(request, plan(request))
    assert " --tp 8 --dp 8 " in commands["sglang"] and commands["sglang"].endswith("--enable-dp-attention")
    assert "--tp_size 8 --ep_size 8" in commands["trtllm"] and "once per replica" not in commands["trtllm"]
    assert commands["llamacpp"].startswith("# not runnable as planned: llama.cpp runs data-parallel replicas as whole")
    wide = _request("vllm", tp=2, enable_dp_attention=True)
    assert "runs each rank's attention on one GPU, not TP 2" in launch_commands(wide, plan(wide))["trtllm"]
    trt = _request("trtllm", tp=2, enable_dp_attention=True)
    assert "not TP 2" in (get_engine("trtllm").refusal(trt) or "")


def test_an_mtp_module_splits_its_experts_with_the_target() -> None:
    """DeepSeek-V3's MTP layer holds one MoE layer (256 experts of 3 x 7,168 x 2,048): over eight ranks an eighth of
    them a GPU, the rest of the module whole (it had been the whole module, 11.7 GiB)."""
    from planner.deploy.options import DeploymentOptions, SpeculativeOptions
    from planner.deploy.speculative import mtp_bytes, mtp_expert_bytes

    spec = SpeculativeOptions(method="mtp", num_speculative_tokens=1)
    request = _request("vllm", enable_dp_attention=True).model_copy(
        update={"deployment": DeploymentOptions(speculative=spec)}
    )
    experts = mtp_expert_bytes(V3, "fp8")
    assert experts == pytest.approx(_fp8_bytes(256 * 3 * 7168 * 2048, "experts"), rel=1e-6)
    draft = plan(request).per_gpu.draft_bytes
    assert draft == pytest.approx(mtp_bytes(V3, "fp8") - experts * 7 / 8, abs=2)
    assert draft < 3 * 2**30


def test_sglang_reserves_its_data_parallel_attention_padding() -> None:
    """server_args.py (PR #10975): ``cuda_graph_max_bs x dp_size x 3`` MB more, and ``x 1.5`` more above a
    300-batch graph; the heuristic reads the server's --tp (every rank's GPUs)."""
    from planner.engines.sglang_rules import FractionInputs, reserved_mb

    sizes = (141 * 10**9, 8, 1, "0.5.23", 16384, 512)
    extra = reserved_mb(*sizes, FractionInputs(dp_ranks=8)) - reserved_mb(*sizes, FractionInputs())
    assert extra == 512 * 8 * (3 + 1.5)
    small = (141 * 10**9, 8, 1, "0.5.23", 16384, 256)
    assert reserved_mb(*small, FractionInputs(dp_ranks=8)) - reserved_mb(*small, FractionInputs()) == 256 * 8 * 3
    assert _plan("sglang", enable_dp_attention=True).per_gpu.reserved_bytes > _plan("sglang").per_gpu.reserved_bytes


@pytest.mark.parametrize(
    ("gpus", "tp", "settings", "words"),
    [(16, None, {}, "one server of up to 8 GPUs"), (8, None, {"max_num_seqs": 4}, None)],
)
def test_ranks_stay_on_one_server(gpus: int, tp: int | None, settings: dict[str, object], words: str | None) -> None:
    request = _request("vllm", gpus=gpus, tp=tp, enable_dp_attention=True, **settings)
    if words is None:
        assert plan(request).replicas == 8
        return
    with pytest.raises(PlannerError, match=words):
        plan(request)


def test_lora_on_data_parallel_attention_ranks_is_refused() -> None:
    from planner.deploy.options import DeploymentOptions, LoraOptions

    lora = DeploymentOptions(lora=LoraOptions(max_loras=1, max_lora_rank=16))
    with pytest.raises(PlannerError, match="LoRA: adapters on data-parallel attention ranks"):
        plan(_request("vllm", enable_dp_attention=True).model_copy(update={"deployment": lora}))


def test_plain_sglang_replicas_that_do_not_fit_are_offered_its_ranks() -> None:
    """TP 1 on eight GPUs under SGLang is eight whole copies of DeepSeek-V3 (none fits one GPU); its
    --enable-dp-attention at the same TP splits the experts over them and fits (an outside review, 2026-12-05)."""
    from planner.assessment.alternatives import nearest_fitting

    request = _request("sglang", tp=1)
    assert not plan(request).fits
    found = [a for a in nearest_fitting(request, 1) if a.change.startswith("--enable-dp-attention")]
    assert len(found) == 1 and found[0].assessment.fits and "8 data-parallel ranks at TP 1" in found[0].change


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
def test_the_chart_is_the_pool_the_engine_prints_under_ranks(engine: str) -> None:
    """One answer with data-parallel attention: SGLang's pool had been sized from the memory free after a TP 1
    start-up (0.93 GiB held before loading) where the server's --tp 8 holds 1.5 GiB, so its chart and its printed
    tokens were 0.57 GiB apart (an outside review in Chromium, 2026-12-05)."""
    request = _request(engine, enable_dp_attention=True)
    result = plan(request)
    report = get_engine(engine).report(request, result, request.overhead)  # type: ignore[arg-type]
    assert report.available_kv_cache_bytes_per_gpu is not None
    # SGLang's pool is whole tokens (one token's cell is 70,272 bytes); the others print the bytes the plan holds
    assert abs(result.per_gpu.kv_cache_bytes - report.available_kv_cache_bytes_per_gpu) < 70_272


def test_the_second_review_s_regressions() -> None:
    """A maintainer's review (2026-12-05): plain vLLM replicas of a MXFP4 MoE split the experts' padding with the
    experts (gpt-oss-120b on 4 x H100 at TP 1: 1.95 GiB a GPU, as TP 4, not 5.13); replicas on several servers are
    servers of their own (DeepSeek-V3 on 16 H200 at TP 8: whole copies, 79 GiB a GPU); LoRA on plain vLLM MoE
    replicas is planned (refused only with data-parallel attention); TensorRT-LLM before 1.0 refuses the setting."""
    from planner.deploy.options import DeploymentOptions, LoraOptions
    from planner.engines.loading import kernel_padding_bytes
    from planner.planning.plan import load_context

    oss = get_model("openai/gpt-oss-120b").spec
    ranks, tp4 = _request("vllm", gpus=4, tp=1, model=oss), _request("vllm", gpus=4, tp=4, model=oss)
    pads = [kernel_padding_bytes(load_context(r, 0, t, 1, 0, range(36))) for r, t in ((ranks, 1), (tp4, 4))]
    assert pads[0] == pads[1] and pads[0] < 2.1 * 2**30
    from planner.assessment.words import shares_experts, split_label

    sixteen = _request("vllm", gpus=16, tp=8)
    two_servers = plan(sixteen)
    assert not shares_experts(sixteen, 2) and split_label(sixteen, two_servers).endswith("· 2 replicas")
    assert (
        two_servers.replicas == 2
        and two_servers.per_gpu.weights_bytes == plan(_request("vllm", tp=8)).per_gpu.weights_bytes
    )
    mixtral = _request("vllm", gpus=4, tp=2, model=get_model("mistralai/Mixtral-8x7B-v0.1").spec)
    lora = DeploymentOptions(lora=LoraOptions(max_loras=1, max_lora_rank=16))
    assert plan(mixtral.model_copy(update={"deployment": lora})).per_gpu.lora_bytes > 0
    old = _request("trtllm", version="0.9.0", enable_dp_attention=True)
    assert "has no enable_attention_dp" in (get_engine("trtllm").refusal(old) or "")


SPARK = get_gpu("dgx-spark-gb10")
GPT_OSS = get_model("openai/gpt-oss-120b").spec


def _on_sparks(engine: str, **settings: object) -> PlanRequest:
    return _request(engine, gpus=4, tp=1, model=GPT_OSS, gpu=SPARK, **settings)


def test_replicas_on_machines_are_whole_copies() -> None:
    """Four DGX Sparks (one GPU a machine) at TP 1: four servers, each holding gpt-oss-120b's experts whole, not
    vLLM's data-parallel ranks splitting them over a network nothing here plans (an outside review, 2026-12-06)."""
    sparks = plan(_on_sparks("vllm"))
    alone = plan(_on_sparks("vllm").model_copy(update={"gpu_count": 1}))
    assert sparks.stages[0].weights_bytes == alone.stages[0].weights_bytes
    assert sparks.replicas == 4


def test_dp_attention_across_machines_is_refused() -> None:
    with pytest.raises(PlannerError, match="machines of one GPU each, over the network"):
        plan(_on_sparks("sglang", enable_dp_attention=True).model_copy(update={"tensor_parallel": None}))


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
def test_machines_default_to_a_replica_each(engine: str) -> None:
    """Four DGX Sparks with no TP given were planned at TP 4 over the network by default, where the advisor refuses
    tensor parallelism across machines (a maintainer's review, 2026-12-06): a replica a machine unless asked."""
    request = _on_sparks(engine).model_copy(update={"tensor_parallel": None})
    assert request.resolved_parallelism == (1, 1) and plan(request).replicas == 4

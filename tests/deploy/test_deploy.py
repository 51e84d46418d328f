"""Deployment options (planner.deploy): each checked against a case computed by hand from the engine's own rule
(the rule and its source are in the module docstrings), and against public logs where one exists."""

from __future__ import annotations

import math

import pytest

from model_catalog import get_gpu, get_model
from planner.assessment.assess import assess
from planner.assessment.search import best_layer_split, cpu_offload_needed, gpu_layers_that_fit, side_by_side
from planner.assessment.summary import deployment_data
from planner.bounds.errors import PlannerError
from planner.core.params import parameter_breakdown
from planner.core.units import GiB, MiB
from planner.deploy.kv_offload import kv_offload_tier
from planner.deploy.lora import lora_slot_bytes
from planner.deploy.offload import expert_bytes, llamacpp_gpu_layers
from planner.deploy.options import (
    DeploymentOptions,
    KvOffloadOptions,
    LoraOptions,
    SpeculativeOptions,
    StageGpu,
)
from planner.deploy.sharing import mig_gpu, parse_nvidia_smi, used_memory_bytes
from planner.engines.llamacpp.profile import LlamacppProfile
from planner.engines.registry import overhead_profile
from planner.engines.vllm.profile import VllmProfile
from planner.planning.plan import PlanRequest, plan

LLAMA_8B = get_model("meta-llama/Llama-3.1-8B").spec
H100 = get_gpu("h100-sxm-80gb")


def _vllm(deployment: DeploymentOptions | None = None, **kw: object) -> PlanRequest:
    settings: dict[str, object] = {
        "model": LLAMA_8B,
        "gpu": H100,
        "gpu_memory_bytes": H100.memory_bytes_for(True),
        "context_tokens": 8192,
        "max_model_len": 8192,
        "overhead": VllmProfile(engine_version="0.19.0"),
        "deployment": deployment,
    }
    settings.update(kw)
    return PlanRequest.model_validate(settings)


# -- LoRA ----------------------------------------------------------------------------------------------------


def test_lora_slots_of_llama_8b_by_hand() -> None:
    """vLLM create_lora_weights: per slot and layer, A = rank x input and B = output x rank per slice; qkv has 3
    slices (q 4096, k 1024, v 1024), gate_up 2 (14336 each); o and down are row-parallel."""
    r = 16
    qkv = 3 * r * 4096 + r * (4096 + 1024 + 1024)
    o = r * 4096 + 4096 * r
    gate_up = 2 * r * 4096 + r * 2 * 14336
    down = r * 14336 + 4096 * r
    per_slot = 32 * (qkv + o + gate_up + down) * 2  # bf16
    options = LoraOptions(max_loras=4, max_lora_rank=16)
    assert lora_slot_bytes(LLAMA_8B, options, 1, range(32), 4) == 4 * per_slot == 335_544_320
    # TP 2: column-parallel outputs and row-parallel inputs halve; the rest stays whole.
    qkv2 = 3 * r * 4096 + r * (2048 + 512 + 512)
    o2 = r * 2048 + 4096 * r
    gate_up2 = 2 * r * 4096 + r * 2 * 7168
    down2 = r * 7168 + 4096 * r
    assert lora_slot_bytes(LLAMA_8B, options, 2, range(32), 4) == 4 * 32 * (qkv2 + o2 + gate_up2 + down2) * 2


def test_lora_target_modules_select_packed_layers() -> None:
    """A packed module is wrapped whole when any part is targeted (vLLM is_in_target_modules)."""
    only_q = LoraOptions(max_loras=1, max_lora_rank=8, target_modules=("q_proj",))
    r = 8
    qkv = 3 * r * 4096 + r * (4096 + 1024 + 1024)
    assert lora_slot_bytes(LLAMA_8B, only_q, 1, range(32), 1) == 32 * qkv * 2


def test_lora_comes_out_of_vllms_kv_budget() -> None:
    """V1 loads the slots with the model (before the profile run): available KV drops by exactly their bytes."""
    lora = DeploymentOptions(lora=LoraOptions(max_loras=4, max_lora_rank=16))
    base, with_lora = assess(_vllm()), assess(_vllm(lora))
    assert base.report is not None and with_lora.report is not None
    dropped = base.report.available_kv_cache_bytes_per_gpu - with_lora.report.available_kv_cache_bytes_per_gpu
    assert dropped == 335_544_320
    assert with_lora.result.per_gpu.lora_bytes == 335_544_320


# -- partial offload -----------------------------------------------------------------------------------------

MISTRAL = get_model("mistralai/Mistral-7B-v0.1").spec


def test_llamacpp_ngl_rules_before_and_after_output_first() -> None:
    """load_tensors: before PR #18148 i_gpu_start = n_layer - ngl and the output layer needs ngl > n_layer; after
    it, i_gpu_start = n_layer + 1 - ngl and the output layer goes first."""
    assert llamacpp_gpu_layers(32, 20, output_first=False) == (range(12, 32), False)
    assert llamacpp_gpu_layers(32, 20, output_first=True) == (range(13, 32), True)
    assert llamacpp_gpu_layers(32, 33, output_first=False) == (range(0, 32), True)
    assert llamacpp_gpu_layers(32, 0, output_first=True) == (range(32, 32), False)


def _mistral_ngl(ngl: int, version: str = "b6000", gpu: str = "rtx-4090") -> PlanRequest:
    card = get_gpu(gpu)
    return PlanRequest(
        model=MISTRAL,
        gpu=card,
        gpu_memory_bytes=card.memory_bytes_for(True),
        weights="q4_k_m",
        context_tokens=768,
        max_model_len=768,
        overhead=LlamacppProfile(engine_version=version),
        deployment=DeploymentOptions(gpu_layers=ngl),
    )


def test_llamacpp_partial_offload_against_the_public_log() -> None:
    """Mistral-7B-Instruct-v0.1 Q4_K_M, -ngl 20, n_ctx 768 (EduHPC'25 paper log, find_string id 10707478535):
    layers 12-31 on CUDA0, 'offloaded 20/33', CUDA0 model buffer 2495.31 MiB, CUDA0 KV 60.00 MiB, CPU KV 36.00."""
    a = assess(_mistral_ngl(20))
    assert a.report is not None
    lines = "\n".join(a.report.lines)
    assert "offloaded 20/33 layers to GPU" in lines
    # KV by hand: 20 layers x 768 cells x (8 x 128) x 2 (K, V) x 2 bytes = 60 MiB; the 12 CPU layers 36 MiB.
    assert a.report.available_kv_cache_bytes_per_gpu == 20 * 768 * 1024 * 2 * 2 == 60 * MiB
    assert "CPU KV buffer size = 36.00 MiB" in lines
    # Weights: 20 layers x (4096 x 6144 q,k,v,o + 3 x 4096 x 14336 MLP + 2 x 4096 norms) x 4.84 bits.
    per_layer = 4096 * (4096 + 1024 + 1024 + 4096) + 3 * 4096 * 14336 + 2 * 4096
    expected = math.ceil(20 * per_layer * 4.84 / 8)
    assert a.result.per_gpu.weights_bytes == expected
    assert abs(expected / MiB - 2495.31) / 2495.31 < 0.02  # the log's buffer, within the Q4_K_M mix
    assert deployment_data(a)["offloaded_weights_bytes_per_gpu"] > 0


def test_decode_bound_is_above_the_logged_speed() -> None:
    """The same log decodes 18.5 tokens/s on an RTX 4060 Laptop GPU (256 GB/s); every weight byte read once at the
    GPU's and dual-channel DDR5's bandwidth bounds it from above (~34.6 tokens/s)."""
    from planner.deploy.offload import decode_seconds, read_bytes

    everything = read_bytes(MISTRAL, "q4_k_m", range(32), True)
    gpu = read_bytes(MISTRAL, "q4_k_m", range(12, 32), False)
    bound = 1 / decode_seconds(gpu, 256 * 10**9, everything - gpu, 89_600_000_000)
    assert 18.5 < bound < 40
    host = (12 * (4096 * 10240 + 3 * 4096 * 14336 + 2 * 4096) + 32000 * 4096) * 4.84 / 8  # 12 layers + output
    assert everything - gpu == pytest.approx(host, abs=2)


def test_llamacpp_output_first_build_puts_the_output_layer_on_the_gpu() -> None:
    """From the PR's build on, -ngl 20 is the output layer and 19 repeating layers."""
    old, new = assess(_mistral_ngl(20)).result, assess(_mistral_ngl(20, "b7500")).result
    assert old.deployment_stages is not None and new.deployment_stages is not None
    assert old.deployment_stages[0].kv_layers == (12, 32) and new.deployment_stages[0].kv_layers == (13, 32)
    output = (32000 * 4096 + 4096) * 4.84 / 8  # output.weight and output_norm
    per_layer = 4096 * (4096 + 1024 + 1024 + 4096) + 3 * 4096 * 14336 + 2 * 4096
    assert new.per_gpu.weights_bytes - old.per_gpu.weights_bytes == pytest.approx(output - per_layer * 4.84 / 8, abs=2)


def test_layers_that_fit_is_a_tipping_point() -> None:
    """The answer fits and one more layer does not (70B Q4_K_M on a 24 GB card at 8k)."""
    card = get_gpu("rtx-4090")
    request = PlanRequest(
        model=get_model("meta-llama/Llama-3.1-70B").spec,
        gpu=card,
        gpu_memory_bytes=card.memory_bytes_for(True),
        weights="q4_k_m",
        context_tokens=8192,
        max_model_len=8192,
        overhead=LlamacppProfile(),
    )
    ngl = gpu_layers_that_fit(request)
    assert ngl is not None and 30 < ngl < 81
    more = request.model_copy(update={"deployment": DeploymentOptions(gpu_layers=ngl + 1)})
    assert assess(request.model_copy(update={"deployment": DeploymentOptions(gpu_layers=ngl)})).fits
    assert not assess(more).fits


def test_n_cpu_moe_moves_the_first_layers_experts() -> None:
    """--n-cpu-moe 10 on Qwen3-30B-A3B: 10 layers x 128 experts x 3 x 2048 x 768 weights leave the GPU."""
    model = get_model("Qwen/Qwen3-30B-A3B").spec
    card = get_gpu("rtx-4090")
    base = PlanRequest(model=model, gpu=card, gpu_memory_bytes=card.memory_bytes, weights="q4_k_m",
                       overhead=LlamacppProfile(), deployment=DeploymentOptions(gpu_layers=99))  # fmt: skip
    moved = base.model_copy(update={"deployment": DeploymentOptions(gpu_layers=99, cpu_moe_layers=10)})
    by_hand = math.ceil(10 * 128 * 3 * 2048 * 768 * 4.84 / 8)
    assert expert_bytes(model, "q4_k_m", range(10)) == by_hand
    assert plan(base).per_gpu.weights_bytes - plan(moved).per_gpu.weights_bytes == by_hand


def test_vllm_cpu_offload_moves_gib_per_gpu() -> None:
    """--cpu-offload-gb 4: 4 x 2**30 bytes of decoder weights leave each GPU; vLLM's budget gains them."""
    base, off = assess(_vllm()), assess(_vllm(DeploymentOptions(cpu_offload_bytes=4 * GiB)))
    assert base.result.per_gpu.weights_bytes - off.result.per_gpu.weights_bytes == 4 * GiB
    assert base.report is not None and off.report is not None
    gained = off.report.available_kv_cache_bytes_per_gpu - base.report.available_kv_cache_bytes_per_gpu
    assert gained == 4 * GiB
    decode = deployment_data(off)["deployment"]["decode"]
    assert decode["host_link"] == "PCIe" and decode["tokens_per_s"] < decode["tokens_per_s_all_on_gpu"]


def test_offload_needed_is_the_smallest_whole_gib() -> None:
    card = get_gpu("rtx-4090")
    request = _vllm(gpu=card, gpu_memory_bytes=card.memory_bytes_for(True), model=get_model("Qwen/Qwen3-14B").spec)
    needed = cpu_offload_needed(request)
    assert needed is not None and needed > 0
    at = lambda g: assess(request.model_copy(update={"deployment": DeploymentOptions(cpu_offload_bytes=g * GiB)}))  # noqa: E731
    assert at(needed).fits and not at(needed - 1).fits


# -- KV offload tier -----------------------------------------------------------------------------------------


def test_native_kv_offload_tier_by_hand() -> None:
    """CPUOffloadingSpec: num_blocks = cpu_bytes // (page x layers x world); Llama-3.1-8B bf16 is 131,072 bytes a
    token, a block of 16 tokens 2 MiB: 10 GiB hold 5,120 blocks = 81,920 tokens = 10 conversations of 8k."""
    tier = kv_offload_tier(KvOffloadOptions(size_bytes=10 * GiB), 131072, 16, 1, 8192)
    assert tier.tokens == 10 * GiB // (131072 * 16) * 16 == 81920
    assert tier.conversations == 10 and tier.host_bytes == tier.shm_bytes == 10 * GiB


def test_prefix_working_set_sizes_the_tier() -> None:
    """2,000-token prefixes x 100 users x 60 % hit rate = 120,000 tokens = 7,500 blocks of 2 MiB."""
    options = KvOffloadOptions(prefix_tokens=2000, users=100, hit_rate=0.6)
    tier = kv_offload_tier(options, 131072, 16, 2, 8192)
    assert tier.working_set_bytes == 7500 * 131072 * 16 == tier.host_bytes
    lmcache = kv_offload_tier(options.model_copy(update={"backend": "lmcache"}), 131072, 16, 2, 8192)
    assert lmcache.shm_bytes == 0 and lmcache.per_rank_bytes == tier.working_set_bytes // 2


# -- speculative decoding ------------------------------------------------------------------------------------


def test_eagle_head_weights_and_kv() -> None:
    """One Llama-3.1-8B decoder layer + fc (2 x 4096 x 4096 + bias) in bf16; one more attention layer's KV."""
    spec = DeploymentOptions(speculative=SpeculativeOptions(method="eagle", num_speculative_tokens=3))
    result = plan(_vllm(spec))
    layer = 4096 * (4096 + 1024 + 1024 + 4096) + 3 * 4096 * 14336 + 2 * 4096
    assert result.per_gpu.draft_bytes == (layer + 2 * 4096 * 4096 + 4096) * 2
    assert result.per_gpu.kv_bytes_per_token == 131072 + 8 * 128 * 2 * 2


def test_eagle_layer_joins_vllms_kv_pool() -> None:
    """The head's attention layer gets pages too: blocks = available // (16 tokens x 4,096 bytes x 33 layers)."""
    a = assess(_vllm(DeploymentOptions(speculative=SpeculativeOptions(method="eagle"))))
    assert a.report is not None
    assert a.report.gpu_blocks == a.report.available_kv_cache_bytes_per_gpu // (16 * 4096 * 33)


def test_mtp_of_deepseek_v3() -> None:
    """DeepSeek-V3's MTP module: one more MLA layer (576 latent values x 2 bytes a token)."""
    model = get_model("deepseek-ai/DeepSeek-V3").spec
    request = PlanRequest(model=model, gpu_memory_bytes=141 * 10**9, gpu_count=8,
                          deployment=DeploymentOptions(speculative=SpeculativeOptions(method="mtp")))  # fmt: skip
    base = plan(request.model_copy(update={"deployment": None}))
    assert plan(request).per_gpu.kv_bytes_per_token - base.per_gpu.kv_bytes_per_token == 576 * 2
    assert plan(request).per_gpu.draft_bytes > 0
    with pytest.raises(PlannerError, match="carries no MTP"):
        plan(_vllm(DeploymentOptions(speculative=SpeculativeOptions(method="mtp"))))


def test_mtp_drafters_build_their_own_embedding_and_head_while_loading() -> None:
    """vLLM's MTP module builds its own embed_tokens and LM head(s), padded to 64 rows and split over TP, before the
    proposer shares the target's: Qwen3.8-27B one head (248,320 x 5,120 x 2 bytes each), DeepSeek-V3 one
    SharedHead per MTP layer (129,280 x 7,168), none beside a tied embedding."""
    from planner.deploy.speculative import mtp_load_bytes

    qwen, deepseek = get_model("Qwen/Qwen3.8-27B").spec, get_model("deepseek-ai/DeepSeek-V3").spec
    assert mtp_load_bytes(qwen, 1) == 2 * 248_320 * 5_120 * 2
    assert mtp_load_bytes(qwen, 2) == 2 * 124_160 * 5_120 * 2
    assert mtp_load_bytes(deepseek, 8) == 2 * 16_160 * 7_168 * 2
    assert mtp_load_bytes(qwen.model_copy(update={"tie_word_embeddings": True}), 1) == 248_320 * 5_120 * 2


def test_the_mtp_drafters_load_runs_out_of_memory_where_the_weights_alone_fit() -> None:
    """cyankiwi's Qwen3.8-27B AWQ-INT4 (int4-g32) with MTP on one RTX 3090 at util 0.97 (tests/fidelity: vLLM
    0.27.1 ran out of memory building the drafter's LM head): its kept weights fit, the load does not; without
    the drafter it starts."""
    gpu = get_gpu("rtx-3090")
    mtp = DeploymentOptions(speculative=SpeculativeOptions(method="mtp"))
    model = get_model("Qwen/Qwen3.8-27B").spec
    request = PlanRequest(model=model, gpu=gpu, gpu_memory_bytes=gpu.memory_bytes_for(True), weights="int4-g32",
                          kv_dtype="fp8", context_tokens=40960, max_model_len=40960,
                          overhead=VllmProfile(engine_version="0.27.1", gpu_memory_utilization=0.97, max_num_seqs=2),
                          deployment=mtp)  # fmt: skip
    report = assess(request).report
    assert report is not None and report.failure_kind == "weights-oom"
    assert report.failure is not None and "MTP drafter" in report.failure and "4.74 GiB" in report.failure
    assert report.weights_bytes < gpu.memory_bytes_for(True) * 0.97
    alone = assess(request.model_copy(update={"deployment": None})).report
    assert alone is not None and alone.failure_kind is None


def test_draft_model_weights_and_cache() -> None:
    """Llama-3.2-1B drafting for Llama-3.1-8B: its bf16 weights and its 16 layers x 8 x 64 x 2 x 2 bytes a token."""
    draft = get_model("meta-llama/Llama-3.2-1B").spec
    spec = SpeculativeOptions(method="draft", draft_model=draft, num_speculative_tokens=4)
    result = plan(_vllm(DeploymentOptions(speculative=spec)))
    assert result.per_gpu.kv_bytes_per_token == 131072 + 16 * 8 * 64 * 2 * 2
    assert result.per_gpu.draft_bytes == plan(_vllm(model=draft)).weights_bytes_total


# -- sharing ---------------------------------------------------------------------------------------------------


def test_used_memory_trips_vllms_start_up_check() -> None:
    """gpu_worker.init_device: free after the CUDA context must be >= util x total; below that the budget (and the
    KV pool) is unchanged."""
    total = H100.memory_bytes_for(True)
    spare = total - math.floor(0.9 * total)  # the (1 - util) share
    small, large = (
        assess(_vllm(DeploymentOptions(used_memory_bytes=GiB))),
        assess(_vllm(DeploymentOptions(used_memory_bytes=spare))),
    )
    base = assess(_vllm())
    assert small.report is not None and base.report is not None and large.report is not None
    assert small.report.available_kv_cache_bytes_per_gpu == base.report.available_kv_cache_bytes_per_gpu
    assert small.fits and large.report.failure_kind == "free-memory"


def test_two_vllm_engines_side_by_side() -> None:
    """Two instances at util 0.45 each start one after the other; at 0.6 the second is refused."""
    first = _vllm(overhead=VllmProfile(engine_version="0.19.0", gpu_memory_utilization=0.45))
    small = _vllm(model=get_model("meta-llama/Llama-3.2-1B").spec,
                  overhead=VllmProfile(engine_version="0.19.0", gpu_memory_utilization=0.45))  # fmt: skip
    both = side_by_side([first, small])
    assert all(a.fits for a in both)
    assert both[1].result.per_gpu.other_bytes >= math.floor(0.45 * H100.memory_bytes_for(True))
    big = small.model_copy(update={"overhead": VllmProfile(engine_version="0.19.0", gpu_memory_utilization=0.6)})
    assert side_by_side([first, big])[1].report.failure_kind == "free-memory"  # type: ignore[union-attr]


def test_mig_slice_memory() -> None:
    """H100 80GB 3g.40gb: nvidia-smi mig -lgip lists 39.50 GiB; the engine's total is the slice's."""
    slice_ = mig_gpu(H100, "h100-sxm-80gb", "3g.40gb")
    assert slice_.engine_visible_bytes == round(39.5 * GiB)
    a = assess(_vllm(gpu=slice_, gpu_memory_bytes=slice_.memory_bytes_for(True)))
    assert a.report is not None and a.report.total_memory_bytes == round(39.5 * GiB)
    with pytest.raises(PlannerError, match="no profile"):
        mig_gpu(H100, "h100-sxm-80gb", "1g.5gb")


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm", "llamacpp"])
def test_one_server_never_spans_mig_slices(engine: str) -> None:
    """A CUDA process enumerates one MIG slice (NVIDIA's MIG user guide; pytorch/pytorch#130181): two slices at TP
    2 (or llama.cpp's layer split over them) were planned as one server that fits (an outside review, 2026-12-06).
    Two slices are two replicas by default, and TP 2 over them is refused by name."""
    slice_ = mig_gpu(H100, "h100-sxm-80gb", "3g.40gb")
    options = DeploymentOptions(mig_profile="3g.40gb")
    base = _vllm(options, gpu=slice_, gpu_memory_bytes=slice_.memory_bytes_for(True), gpu_count=2)
    request = base.model_copy(update={"overhead": overhead_profile(engine)})
    assert request.resolved_parallelism == (1, 1) and plan(request).replicas == 2
    with pytest.raises(PlannerError, match=r"MIG: one server over 2 slices \(TP 2 x PP 1\) is not planned"):
        plan(request.model_copy(update={"tensor_parallel": 2}))


def test_moe_ranks_never_share_experts_across_mig_slices() -> None:
    """vLLM's data-parallel ranks of a MoE model (and SGLang's under data-parallel attention) split the experts over
    every rank, a MoE layer's TP over them all: across MIG slices that is the collective no peer-to-peer path joins
    (a maintainer's review of the slice rule, 2026-12-06). Each slice holds a whole copy; attention DP is refused."""
    slice_ = mig_gpu(H100, "h100-sxm-80gb", "3g.40gb")
    moe = get_model("Qwen/Qwen3-30B-A3B").spec
    request = _vllm(
        DeploymentOptions(mig_profile="3g.40gb"), model=moe, gpu=slice_, gpu_memory_bytes=slice_.memory_bytes_for(True),
        gpu_count=2, weights="fp8", overhead=overhead_profile("vllm"),
    )  # fmt: skip
    alone = plan(request.model_copy(update={"gpu_count": 1}))
    assert plan(request).stages[0].weights_bytes == alone.stages[0].weights_bytes  # a whole copy a slice
    with pytest.raises(PlannerError, match="MIG slices, which no peer-to-peer path joins"):
        plan(request.model_copy(update={"overhead": overhead_profile("sglang", enable_dp_attention=True)}))


SMI_TABLE = """
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.127.05             Driver Version: 550.127.05     CUDA Version: 12.4     |
|=========================================+========================+======================|
|   0  NVIDIA H100 80GB HBM3          On  |   00000000:4F:00.0 Off |                    0 |
| N/A   29C    P0             70W /  700W |    4123MiB /  81559MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA H100 80GB HBM3          On  |   00000000:52:00.0 Off |                    0 |
| N/A   30C    P0             71W /  700W |   20480MiB /  81559MiB |      0%      Default |
"""


def test_nvidia_smi_table_and_csv() -> None:
    gpus = parse_nvidia_smi(SMI_TABLE)
    assert [g.used_bytes // MiB for g in gpus] == [4123, 20480] and gpus[0].total_bytes == 81559 * MiB
    assert used_memory_bytes(gpus, 2) == 20480 * MiB and used_memory_bytes(gpus, 1) == 4123 * MiB
    csv = parse_nvidia_smi("memory.used [MiB], memory.total [MiB]\n512 MiB, 24564 MiB\n")
    assert csv[0].used_bytes == 512 * MiB


@pytest.mark.parametrize(
    "text",
    ["", "no figures here", "| 99999999999MiB / 81559MiB |", "| 5MiB / 4MiB |", "x" * 200_001, "\n" * 5001],
)
def test_nvidia_smi_refuses_what_is_not_a_table(text: str) -> None:
    with pytest.raises(PlannerError):
        parse_nvidia_smi(text)


# -- mixed GPUs ------------------------------------------------------------------------------------------------


def _mixed(split: tuple[int, ...] | None = None) -> PlanRequest:
    a, b = get_gpu("rtx-4090"), get_gpu("rtx-3090")
    stages = (StageGpu(name=a.name, memory_bytes=a.memory_bytes_for(True)),
              StageGpu(name=b.name, memory_bytes=b.memory_bytes_for(True)))  # fmt: skip
    return PlanRequest(
        model=get_model("Qwen/Qwen3-14B").spec, gpu=a, gpu_memory_bytes=a.memory_bytes_for(True), gpu_count=2,
        tensor_parallel=1, pipeline_parallel=2, context_tokens=8192, max_model_len=8192,
        overhead=overhead_profile("vllm"), deployment=DeploymentOptions(stage_gpus=stages, layer_split=split),
    )  # fmt: skip


def test_mixed_gpus_plan_each_stage_on_its_own_card() -> None:
    result = plan(_mixed((20, 20)))
    assert [s.gpu_memory_bytes for s in result.stages] == [
        get_gpu("rtx-4090").memory_bytes_for(True),
        get_gpu("rtx-3090").memory_bytes_for(True),
    ]
    assert [s.layers for s in result.stages] == [(0, 20), (20, 40)]


def test_each_stage_prints_its_own_available_kv_memory_and_the_pool_is_the_smaller() -> None:
    """vLLM's pipeline workers each print "Available KV cache memory" ((Worker_PP0), (Worker_PP1)) and the engine
    takes the fewest blocks of them; the report printed only stage 0's 5.85 GiB beside a 5.67 GiB pool."""
    a = assess(_mixed((20, 20)))
    assert a.report is not None
    lines = [line for line in a.report.lines if "Available KV cache memory" in line]
    assert [line.split(")")[0] for line in lines] == ["(Worker_PP0", "(Worker_PP1"]
    figures = [float(line.split(": ")[1].removesuffix(" GiB")) for line in lines]
    pool_gib = a.allocated.per_gpu.kv_cache_bytes / GiB  # the limiting stage's, what "KV cache pool" shows
    assert figures[0] > figures[1] and min(figures) == pytest.approx(pool_gib, abs=0.02)  # within a block's rounding


def test_best_split_holds_at_least_as_many_as_the_even_split() -> None:
    best = best_layer_split(_mixed())
    even = assess(_mixed((20, 20)))
    assert best.assessment.conversations >= even.conversations
    assert sum(best.split) == 40
    # the limiting stage has no neighbour split that holds more (a local optimum over every split point)
    k = best.split[0]
    for other in (k - 1, k + 1):
        assert assess(_mixed((other, 40 - other))).conversations <= best.assessment.conversations


def test_mixed_gpus_refuse_a_wrong_split() -> None:
    with pytest.raises(PlannerError, match="layer split"):
        plan(_mixed((10, 20)))


def test_output_first_rule_on_a_hybrid_model_against_a_b9849_log() -> None:
    """llama.cpp b9849 (after PR #18148), Qwen3.5-9B, -ngl 20 at n_ctx 8192 (public capture, find_string id
    67369886488): 'offloading output layer to GPU', 19 repeating layers; 8 of 32 layers attend (every 4th), so the
    GPU's layers 13-31 hold 5 of them: 'Vulkan1 KV buffer size = 160.00 MiB', 'CPU KV buffer size = 96.00 MiB'."""
    from planner.core.blocks import GatedDeltaNetSpec
    from planner.core.model import ModelSpec
    from planner.engines.llamacpp.profile import llamacpp_kv_bytes

    qwen35 = ModelSpec(
        id="qwen3.5-9b-like", num_hidden_layers=32, hidden_size=4096, num_attention_heads=16, num_key_value_heads=4,
        head_dim=256, intermediate_size=12288, vocab_size=248320, max_position_embeddings=262144,
        layer_pattern=["linear", "linear", "linear", "full"],
        linear_attention=GatedDeltaNetSpec(linear_num_key_heads=16, linear_num_value_heads=32,
                                           linear_key_head_dim=128, linear_value_head_dim=128),
    )  # fmt: skip
    gpu_layers, output = llamacpp_gpu_layers(32, 20, output_first=True)
    assert gpu_layers == range(13, 32) and output
    # 8,192 cells x 4 KV heads x 256 x 2 (K, V) x 2 bytes = 32 MiB per attention layer
    assert llamacpp_kv_bytes(qwen35, 8192, layers=gpu_layers) == 5 * 32 * MiB == 160 * MiB
    assert llamacpp_kv_bytes(qwen35, 8192, layers=range(0, 13)) == 3 * 32 * MiB == 96 * MiB


def test_mtp_of_qwen3_next() -> None:
    """Qwen3-Next-80B-A3B's checkpoint holds one MTP layer (mtp.*: 1,650,471,424 parameters, the Hub total less the
    main model exactly; vLLM method qwen3_next_mtp). Its catalog entry had modelled it as an attached module only,
    so asking for MTP was refused as "carries no MTP layers" (an outside review, 2026-12-05). Now it plans the
    layer: its full-attention layer's KV a token (2 KV heads x 256 x 2 x 2 bytes) and its weights."""
    model = get_model("Qwen/Qwen3-Next-80B-A3B-Instruct").spec
    assert model.num_nextn_predict_layers == 1
    assert parameter_breakdown(model).attached_not_loaded == 1_650_471_424  # unchanged: loaded only for MTP
    request = PlanRequest(model=model, gpu_memory_bytes=141 * 10**9, weights="fp8",
                          deployment=DeploymentOptions(speculative=SpeculativeOptions(method="mtp")))  # fmt: skip
    base = plan(request.model_copy(update={"deployment": None}))
    assert plan(request).per_gpu.kv_bytes_per_token - base.per_gpu.kv_bytes_per_token == 2 * 256 * 2 * 2
    assert plan(request).per_gpu.draft_bytes > 0

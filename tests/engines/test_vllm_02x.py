"""vLLM 0.20 - 0.33 as read from the released wheels (versions.toml): defaults by release and device, CUDA-graph
capture sizes, hybrid (Mamba / Gated DeltaNet) blocks and the Mamba refusal, unified memory, loaded weights by
platform, and the settings people pass (max_num_seqs, enforce_eager, capture size, fixed KV, text only)."""

from __future__ import annotations

import math

import pytest

from model_catalog import get_gpu, get_model
from planner.core.overhead import Estimate
from planner.core.units import GiB
from planner.deploy.options import DeploymentOptions, SpeculativeOptions
from planner.engines.launch import launch_commands
from planner.engines.loading import bf16_mtp_extra_bytes, marlin_fp8_scale_bytes
from planner.engines.platform import vllm_platform
from planner.engines.registry import engine_report
from planner.engines.sglang import SglangProfile
from planner.engines.vllm.defaults import default_batch
from planner.engines.vllm.graphs import capture_sizes, graph_set
from planner.engines.vllm.profile import VllmProfile
from planner.engines.vllm.runner import uses_model_runner_v2
from planner.engines.vllm.versions import known_releases, vllm_rules
from planner.planning.plan import PlanRequest, load_context, plan

QWEN36 = get_model("Qwen/Qwen3.6-27B").spec
QWEN38 = get_model("Qwen/Qwen3.8-27B").spec


def _request(model: str = "Qwen/Qwen3.6-27B", gpu: str = "rtx-3090", **kw: object) -> PlanRequest:
    card = get_gpu(gpu)
    context = kw.pop("context", 32768)
    base: dict[str, object] = {
        "model": get_model(model).spec,
        "gpu": card,
        "gpu_memory_bytes": card.engine_visible_bytes or card.memory_bytes,
        "context_tokens": context,
        "max_model_len": context,
        "overhead": VllmProfile(engine_version="0.28.0"),
    }
    base.update(kw)
    return PlanRequest(**base)  # type: ignore[arg-type]


def _report(**kw: object):  # type: ignore[no-untyped-def]
    request = _request(**kw)
    return engine_report(request, plan(request))


def test_every_release_to_0_33_is_known_with_its_rules() -> None:
    releases = known_releases()
    assert {"0.22.0", "0.25.1", "0.27.1", "0.29.0", "0.31.0", "0.33.0"} <= set(releases)
    assert vllm_rules("0.20.0").printed_tokens == "blocks" and vllm_rules("0.20.1").printed_tokens == "concurrency"
    assert not vllm_rules("0.19.1").mamba_block_refusal and vllm_rules("0.20.0").mamba_block_refusal
    # hybrids: unsupported until 0.25.1, opt-in in 0.26.0-0.27.1 (engine/arg_utils.py: "keep it opt-in for now"), on
    # by default from 0.28.0
    assert [vllm_rules(v).hybrid_prefix_caching for v in ("0.25.1", "0.26.0", "0.27.1", "0.28.0")] == [
        False,
        False,
        False,
        True,
    ]
    assert not vllm_rules("0.27.1").mamba_align_always and vllm_rules("0.28.0").mamba_align_always
    assert vllm_rules("0.26.0").non_kv_formula == "split" and vllm_rules("0.27.0").non_kv_formula == "consumed"
    assert [vllm_rules(v).model_runner for v in ("0.21.0", "0.22.0", "0.25.0", "0.29.0")] == [
        "v1",
        "v2-listed",
        "v2-dense",
        "v2-all",
    ]
    assert vllm_rules("0.27.1").capture_cap_sm100 == 512 and vllm_rules("0.28.0").capture_cap_sm100 == 1024


def test_model_runner_v2_by_release_and_model() -> None:
    llama = get_model("meta-llama/Llama-3.1-8B").spec
    assert not uses_model_runner_v2(vllm_rules("0.22.0"), llama, "bf16")  # listed from 0.23.0
    assert uses_model_runner_v2(vllm_rules("0.23.0"), llama, "bf16")
    assert not uses_model_runner_v2(vllm_rules("0.23.0"), llama, "int4-awq")  # unquantized only in 0.22 - 0.23
    assert uses_model_runner_v2(vllm_rules("0.24.0"), llama, "int4-awq")  # 0.24.0 config/vllm.py:550-562
    assert uses_model_runner_v2(vllm_rules("0.25.0"), llama, "int4-awq")
    assert not uses_model_runner_v2(vllm_rules("0.28.0"), QWEN36, "bf16")  # hybrids stay on V1 until 0.29
    assert uses_model_runner_v2(vllm_rules("0.29.0"), QWEN36, "bf16")


@pytest.mark.parametrize("model", ["deepseek-ai/DeepSeek-V2-Lite", "Qwen/Qwen1.5-MoE-A2.7B"])
def test_listed_moe_architectures_take_model_runner_v2_from_0_24(model: str) -> None:
    """DeepseekV2ForCausalLM and Qwen2MoeForCausalLM join DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES in 0.24.0
    (config/vllm.py:68-77) and stay listed through 0.28.0 (:69-80), where a listed MoE model takes V2 although MoE
    models otherwise stay on V1 (0.25.1 :557-575, 0.28.0 :691-711); Qwen3-30B-A3B (Qwen3MoeForCausalLM, not listed)
    does not."""
    moe = get_model(model).spec
    qwen3_moe = get_model("Qwen/Qwen3-30B-A3B").spec
    assert not uses_model_runner_v2(vllm_rules("0.23.0"), moe, "bf16")
    for release in ("0.24.0", "0.25.1", "0.26.0", "0.27.1", "0.28.0"):
        assert uses_model_runner_v2(vllm_rules(release), moe, "bf16"), release
        assert uses_model_runner_v2(vllm_rules(release), moe, "fp8"), release
        assert not uses_model_runner_v2(vllm_rules(release), qwen3_moe, "bf16"), release


@pytest.mark.parametrize(
    ("memory_gib", "name", "tiers", "expected"),
    [
        (23.56, "GeForce RTX 3090", "v1", (2048, 256)),
        (79.19, "H100 SXM", "v1", (8192, 1024)),
        (79.25, "A100 SXM 80GB", "v1", (2048, 256)),
        (179.0, "B200", "v1", (8192, 1024)),
        (179.0, "B200", "v028", (16384, 1024)),  # 0.28.0: >= 160 GiB
        # GB10: NVML's memory query fails there until 0.32 (get_batch_defaults takes 0 GiB), is_gb10 from 0.33.0
        (121.69, "DGX Spark (GB10 Grace Blackwell, 128 GB unified)", "v1", (2048, 256)),
        (121.69, "DGX Spark (GB10 Grace Blackwell, 128 GB unified)", "v028", (2048, 256)),
        (121.69, "DGX Spark (GB10 Grace Blackwell, 128 GB unified)", "v033", (2048, 256)),
    ],
)
def test_default_batch_by_release_and_device(memory_gib: float, name: str, tiers: str, expected: tuple) -> None:
    assert default_batch(round(memory_gib * GiB), name, "server", tiers) == expected


def test_capture_sizes_follow_max_num_seqs_and_the_speculative_tokens() -> None:
    """The club-3090 logs: 2 sequences x (1 + 3) x 2 -> [1, 2, 4, 8, 16] ('PIECEWISE=5 (largest=16)'); 4 sequences
    -> 7 sizes to 32; GB10 8 x 3 x 2 -> 9 to 48; FlashInfer off compute capability 10 with MTP: PIECEWISE only."""
    rules = vllm_rules("0.24.0")
    assert capture_sizes(rules, 2, 3, 8192, None, False) == (1, 2, 4, 8, 16)
    assert len(capture_sizes(rules, 4, 3, 8192, None, False)) == 7
    assert capture_sizes(rules, 8, 2, 65536, None, False)[-1] == 48
    graphs = graph_set(
        rules, max_num_seqs=2, spec_tokens=3, batched=8192, max_capture=None, sm100=False, flashinfer=True,
        enforce_eager=False,
    )  # fmt: skip
    assert (graphs.mode, graphs.piecewise, graphs.full) == ("PIECEWISE", 5, 0)
    # FULL graphs with speculative decoding: sizes rounded up to multiples of 1 + k (club-3090 #434: 3 + 2)
    graphs = graph_set(
        rules, max_num_seqs=2, spec_tokens=3, batched=1584, max_capture=None, sm100=False, flashinfer=False,
        enforce_eager=False,
    )  # fmt: skip
    assert (graphs.sizes, graphs.piecewise, graphs.full) == ((4, 8, 16), 3, 2)
    # an H100 default (1024 sequences): 51 sizes to 512, 51 FULL decode graphs; 1024 on B200 from 0.28
    h100 = graph_set(
        rules, max_num_seqs=1024, spec_tokens=0, batched=8192, max_capture=None, sm100=False, flashinfer=False,
        enforce_eager=False,
    )  # fmt: skip
    assert (h100.piecewise, h100.full, h100.sizes[-1]) == (51, 51, 512)
    assert capture_sizes(vllm_rules("0.28.0"), 1024, 0, 16384, None, True)[-1] == 1024
    assert capture_sizes(vllm_rules("0.28.0"), 1024, 0, 16384, 64, True)[-1] == 64  # --max-cudagraph-capture-size


def test_029_adds_the_request_grid_times_the_query_length() -> None:
    """0.29.0 (config/vllm.py:2002-2090): with MTP k, every request count times 1 + k is a capture size."""
    sizes = capture_sizes(vllm_rules("0.29.0"), 6, 3, 8192, None, False)
    assert {4, 8, 16, 24} <= set(sizes) and 6 * 4 in sizes
    assert capture_sizes(vllm_rules("0.28.0"), 6, 3, 8192, None, False) == (1, 2, 4, 8, 16, 24, 32, 40, 48)


def test_max_num_seqs_and_enforce_eager_move_the_graph_estimate() -> None:
    few = _report(overhead=VllmProfile(engine_version="0.28.0", max_num_seqs=2, gpu_memory_utilization=0.92))
    many = _report(overhead=VllmProfile(engine_version="0.28.0", max_num_seqs=128, gpu_memory_utilization=0.92))
    eager = _report(overhead=VllmProfile(engine_version="0.28.0", max_num_seqs=2, enforce_eager=True))
    assert 0 < few.cuda_graph_bytes < many.cuda_graph_bytes
    assert eager.cuda_graph_bytes == 0 and eager.available_kv_cache_bytes_per_gpu > few.available_kv_cache_bytes_per_gpu
    assert any("CUDA graphs: FULL_AND_PIECEWISE" in n for n in few.notes)


def test_fixed_kv_cache_memory_and_text_only() -> None:
    fixed = _report(overhead=VllmProfile(engine_version="0.28.0", kv_cache_memory_bytes=2 * GiB, max_num_seqs=1))
    assert fixed.available_kv_cache_bytes_per_gpu == 2 * GiB
    full = _report(overhead=VllmProfile(engine_version="0.28.0", max_num_seqs=1))
    text = _report(overhead=VllmProfile(engine_version="0.28.0", max_num_seqs=1, language_model_only=True))
    zero = _report(overhead=VllmProfile(engine_version="0.28.0", max_num_seqs=1, limit_mm_per_prompt=0))
    tower = 460_730_096 * 2  # the Qwen3.5 vision tower + merger in 16 bits, one GPU
    assert full.weights_bytes - text.weights_bytes == tower == full.weights_bytes - zero.weights_bytes
    assert text.activation_bytes < full.activation_bytes


def test_launch_command_carries_the_settings() -> None:
    profile = VllmProfile(
        engine_version="0.28.0", max_num_seqs=2, max_num_batched_tokens=8192, max_cudagraph_capture_size=16,
        language_model_only=True, enable_prefix_caching=False,
    )  # fmt: skip
    command = launch_commands(_request(overhead=profile), plan(_request(overhead=profile)))["vllm"]
    for flag in ("--max-num-seqs 2", "--max-num-batched-tokens 8192", "--max-cudagraph-capture-size 16"):
        assert flag in command
    assert "--language-model-only" in command and "--no-enable-prefix-caching" in command
    eager = VllmProfile(engine_version="0.28.0", enforce_eager=True, kv_cache_memory_bytes=3 * GiB)
    command = launch_commands(_request(overhead=eager), plan(_request(overhead=eager)))["vllm"]
    assert "--enforce-eager" in command and f"--kv-cache-memory-bytes {3 * GiB}" in command
    assert "--gpu-memory-utilization" not in command


def test_settings_are_bounded() -> None:
    for bad in ({"max_num_seqs": 0}, {"max_cudagraph_capture_size": 10**6}, {"limit_mm_per_prompt": -1}):
        with pytest.raises(ValueError):
            VllmProfile.model_validate(bad)


@pytest.mark.parametrize(
    ("gpu", "capability", "integrated", "peer"),
    [
        ("rtx-3090", (8, 6), False, False),
        ("a100-sxm-80gb", (8, 0), False, True),
        ("rtx-4090", (8, 9), False, False),
        ("h100-sxm-80gb", (9, 0), False, True),
        ("b200-sxm", (10, 0), False, True),
        ("rtx-5090", (12, 0), False, False),
        ("rtx-pro-6000-blackwell", (12, 0), False, True),
        ("dgx-spark-gb10", (12, 1), True, True),
    ],
)
def test_platform_facts(gpu: str, capability: tuple[int, int], integrated: bool, peer: bool) -> None:
    platform = vllm_platform(get_gpu(gpu))
    assert (platform.capability, platform.integrated, platform.peer_access) == (capability, integrated, peer)


def test_weights_as_loaded_by_platform() -> None:
    """gpt-oss-20b on an A100 prints 13.72 GiB (Marlin MXFP4 padding); block-FP8 on Ampere carries Marlin's
    16-bit scales, not on Ada; NVIDIA's NVFP4 export keeps the MTP head in BF16 (GB10 log: 20.57 GiB with MTP)."""
    oss = _report(model="openai/gpt-oss-20b", gpu="a100-sxm-80gb", weights="mxfp4", context=8192)
    assert oss.weights_bytes / GiB == pytest.approx(13.72, abs=0.1)
    fp8 = _request(model="Qwen/Qwen3.8-27B", weights="fp8")
    extra = marlin_fp8_scale_bytes(load_context(fp8, 0, 1, 1, 0, range(64)))
    assert 0.3 * GiB < extra < 0.45 * GiB  # ~1.5 % of ~25 GB of FP8 weights
    on_ada = fp8.model_copy(update={"gpu": get_gpu("rtx-4090")})
    assert marlin_fp8_scale_bytes(load_context(on_ada, 0, 1, 1, 0, range(64))) == 0
    mtp = DeploymentOptions(speculative=SpeculativeOptions(method="mtp", num_speculative_tokens=2))
    nvfp4 = _request(gpu="dgx-spark-gb10", weights="nvfp4-fp8attn", deployment=mtp)
    assert bf16_mtp_extra_bytes(load_context(nvfp4, 0, 1, 1, 0, range(64))) / GiB == pytest.approx(0.6, abs=0.05)
    gb10 = _report(
        gpu="dgx-spark-gb10", weights="nvfp4-fp8attn", kv_dtype="fp8", deployment=mtp, context=262144,
        overhead=VllmProfile(engine_version="0.24.0", gpu_memory_utilization=0.7, max_num_seqs=8,
                             max_num_batched_tokens=65536, enable_prefix_caching=True),
    )  # fmt: skip
    assert gb10.weights_bytes / GiB == pytest.approx(20.57, abs=0.15)
    assert gb10.block_size == 1600


@pytest.mark.parametrize(
    ("gpu", "weights", "model", "printed_gib"),
    [
        ("a100-sxm-80gb", "mxfp4", "openai/gpt-oss-20b", 13.72),  # Marlin MXFP4 padding (0.19-era A100 log)
        ("rtx-3090", "fp8", "Qwen/Qwen3.8-27B", None),  # Marlin's 16-bit FP8 scales on Ampere
        ("h100-sxm-80gb", "bf16", "meta-llama/Llama-3.1-8B", 14.99),  # the RoPE cache only
    ],
)
def test_the_plan_shows_the_weights_as_loaded(gpu: str, weights: str, model: str, printed_gib: float | None) -> None:
    """One answer: the plan's per-GPU weights (the CLI's weights line, the Memory chart) are the bytes the engine
    report prints, padding and repacking included, for vLLM and for SGLang (which shares the MoE and Marlin
    kernels); a generic overhead model keeps the checkpoint's bytes."""
    request = _request(model=model, gpu=gpu, weights=weights, context=8192)
    result = plan(request)
    report = engine_report(request, result)
    assert result.per_gpu.weights_bytes == report.weights_bytes
    if printed_gib is not None:
        assert report.weights_bytes / GiB == pytest.approx(printed_gib, abs=0.1)
    checkpoint = plan(request.model_copy(update={"overhead": Estimate()})).per_gpu.weights_bytes
    assert result.per_gpu.weights_bytes > checkpoint
    sglang = request.model_copy(update={"overhead": SglangProfile()})
    assert plan(sglang).per_gpu.weights_bytes == engine_report(sglang, plan(sglang)).weights_bytes


def test_unified_memory_reads_memavailable() -> None:
    """A DGX Spark's default 0.92 asks 111.96 of 121.69 GiB while the OS holds ~10 GiB: the start-up check
    refuses (recipes PR #632); 0.85 starts; a host holding less passes at 0.92."""
    busy = _report(gpu="dgx-spark-gb10", overhead=VllmProfile(engine_version="0.28.0", max_num_seqs=8))
    assert busy.failure_kind == "free-memory" and "on startup is less than desired" in (busy.failure or "")
    ok = _report(gpu="dgx-spark-gb10", overhead=VllmProfile(engine_version="0.28.0", max_num_seqs=8,
                                                             gpu_memory_utilization=0.85))  # fmt: skip
    assert ok.fits
    idle = VllmProfile(engine_version="0.28.0", max_num_seqs=8, unified_memory_host_bytes=4 * GiB)
    assert _report(gpu="dgx-spark-gb10", overhead=idle).failure_kind != "free-memory"


def test_mamba_refusal_at_the_default_max_num_seqs() -> None:
    """Qwen3.8-27B on an H100 at 0.28: 1024 sequences by default, fewer blocks than that -> vLLM refuses (vllm issue
    #49064); 64 sequences start; --enforce-eager captures no FULL graph, so no refusal; 0.19 only shrank the sizes."""
    common = {"model": "Qwen/Qwen3.8-27B", "gpu": "h100-sxm-80gb", "weights": "fp8", "context": 262144}
    default = _report(**common, overhead=VllmProfile(engine_version="0.28.0"))
    assert default.failure_kind == "mamba-blocks" and default.gpu_blocks < 1024
    assert f"exceeds available Mamba cache blocks ({default.gpu_blocks})" in (default.failure or "")
    assert _report(**common, overhead=VllmProfile(engine_version="0.28.0", max_num_seqs=64)).fits
    assert _report(**common, overhead=VllmProfile(engine_version="0.28.0", enforce_eager=True)).fits
    assert _report(**common, overhead=VllmProfile(engine_version="0.19.0")).failure_kind != "mamba-blocks"


def test_hybrid_tokens_by_release() -> None:
    """0.20.0 prints num_blocks // groups x block; from 0.20.1 int(concurrency x max_model_len), with 1 + k state
    pages per request without prefix caching, 2 + k with it ('align': opt-in for hybrids in 0.26.0-0.27.1, the
    default from 0.28.0)."""
    old = _report(overhead=VllmProfile(engine_version="0.20.0", max_num_seqs=2))
    assert old.kv_cache_tokens == old.gpu_blocks // old.kv_cache_groups * old.block_size
    new = _report(overhead=VllmProfile(engine_version="0.25.1", max_num_seqs=2))
    pages = math.ceil(32768 / new.block_size) + 3 * 1
    assert new.max_concurrency == new.gpu_blocks / pages and new.kv_cache_tokens == int(new.max_concurrency * 32768)
    for version, prefix in (("0.26.0", True), ("0.28.0", None)):
        align = _report(overhead=VllmProfile(engine_version=version, max_num_seqs=2, enable_prefix_caching=prefix))
        assert align.max_concurrency == align.gpu_blocks / (math.ceil(32768 / align.block_size) + 3 * 2)
    opt_in = _report(overhead=VllmProfile(engine_version="0.27.1", max_num_seqs=2))
    assert opt_in.max_concurrency == opt_in.gpu_blocks / (math.ceil(32768 / opt_in.block_size) + 3 * 1)


def test_a_build_with_the_default_on_prints_whole_blocks_only_in_align_mode() -> None:
    """vLLM's recipes PR #831 measured Qwen3.8-27B with MTP 3 at 262,144 tokens on an RTX PRO 6000 under a dev build
    between 0.27.1 and 0.28.0 (tests/fidelity/cases/vllm-0.2x-consumer.json): 839,166 tokens (FP8) and 504,417 (BF16).
    The blocks are the tokens over the request's length times its pages: whole (1,098 and 660) with 343 pages a
    request, 'align' (prefix caching on, as vllm PR #50991 made it by default), 1,088.40 and 654.23 with 340, 'none'."""
    speculative = DeploymentOptions(speculative=SpeculativeOptions(method="mtp", num_speculative_tokens=3))
    for prefix, pages in ((True, 343), (False, 340)):
        profile = VllmProfile(engine_version="0.27.1", max_num_seqs=256, enable_prefix_caching=prefix)
        common = {"model": "Qwen/Qwen3.8-27B", "gpu": "rtx-pro-6000-blackwell-max-q", "context": 262144}
        report = _report(**common, weights="fp8", overhead=profile, deployment=speculative)
        assert report.gpu_blocks / report.max_concurrency == pytest.approx(pages)
        blocks = [tokens / 262144 * pages for tokens in (839166, 504417)]
        whole = [abs(b - round(b)) < 0.01 for b in blocks]
        assert whole == [prefix, prefix]


def test_hybrid_prefix_caching_is_opt_in_in_0_26_and_0_27() -> None:
    """A public 0.27.1 start-up of Qwen3.6-35B-A3B (GPTQ INT4, fp8 KV, MTP 1, 2 sequences, no prefix-caching flag)
    on an RTX 3090 refused with "1.53 GiB KV cache is needed" for one 131,072-token request
    (tests/fidelity/cases/vllm-blind-2026-12l.json). Without prefix caching a request holds 1 + k state pages in each
    linear-attention group, with it ('align') 2 + k: 1.53 GiB planned as 0.27.1 starts it (engine/arg_utils.py
    :2602-2606, "keep it opt-in for now"), 1.60 had prefix caching been on, as the planner had it from 0.26.0. The
    check counts the groups' padding slots (10 full-attention layers and the MTP layer are a group of 11, the 30
    linear ones three groups with 3 padding slots: rule kv_check, tests/engines/test_vllm_kv_check_groups.py); the
    layers' own pages gave 1.52 and 1.58."""
    common: dict[str, object] = {"model": "Qwen/Qwen3.6-35B-A3B", "weights": "int4-gptq", "kv_dtype": "fp8"}
    speculative = DeploymentOptions(speculative=SpeculativeOptions(method="mtp", num_speculative_tokens=1))
    needed = []
    for prefix in (None, True):
        profile = VllmProfile(
            engine_version="0.27.1", gpu_memory_utilization=0.95, max_num_seqs=2, enable_prefix_caching=prefix
        )
        report = _report(**common, context=131072, overhead=profile, deployment=speculative)
        assert report.failure_kind == "kv-cache-too-small"
        needed.append(float((report.failure or "").split(" GiB KV cache is needed")[0].rsplit("(", 1)[-1]))
    assert needed == [1.53, 1.60]


def test_a_fixed_kv_size_still_meets_the_start_up_check_of_free_memory() -> None:
    """vLLM's worker checks ``free >= util x total`` whatever ``--kv-cache-memory`` says (``init_device`` calls
    ``request_memory``: 0.27.0 gpu_worker.py:396, v1/worker/utils.py:409-427). 4 GiB held by another process on an
    RTX 3090 (23.56 GiB as vLLM sees it) leave 19.05 GiB once the worker's own CUDA context is up, under 0.92 x
    23.56 = 21.68. Before, a fixed KV size skipped the check and the plan started (an outside review, 2026-12-06)."""
    fixed = VllmProfile(engine_version="0.27.0", kv_cache_memory_bytes=2 * GiB, max_num_seqs=1)
    held = DeploymentOptions(used_memory_bytes=4 * GiB)
    report = _report(model="Qwen/Qwen3-8B", context=8192, overhead=fixed, deployment=held)
    assert report.failure_kind == "free-memory"
    assert report.failure is not None and "(19.05/23.56 GiB) on startup" in report.failure, report.failure
    alone = _report(model="Qwen/Qwen3-8B", context=8192, overhead=fixed)
    assert alone.failure is None and alone.available_kv_cache_bytes_per_gpu == 2 * GiB
    # a fraction set beside it, under what is free, passes the check; the launch command carries both
    lower = fixed.model_copy(update={"gpu_memory_utilization": 0.8})
    less = DeploymentOptions(used_memory_bytes=2 * GiB)
    request = _request(model="Qwen/Qwen3-8B", context=8192, overhead=lower, deployment=less)
    assert engine_report(request, plan(request)).failure is None
    command = launch_commands(request, plan(request))["vllm"]
    assert f"--kv-cache-memory-bytes {2 * GiB}" in command and "--gpu-memory-utilization 0.8" in command


def test_mamba2_hybrids_take_the_align_mode_from_0_28() -> None:
    """0.28.0 sets Mamba cache mode 'align' whenever prefix caching is on (model_executor/models/config.py:602-609);
    0.27.1 kept 'all' for models that support Mamba prefix caching (:616), a state page a block. Nemotron Nano 9B
    v2 at 32k with 64 sequences on an RTX 3090: one 32k request in 0.27.1 with --enable-prefix-caching (opt-in there
    for hybrids), 5.28 in 0.28.0, from the same 4.14 GiB pool (planned refused in 0.27.1 until the mechanistic
    non-torch model planned no desktop share, 2026-12-07, fifty-third session)."""
    kw = {"model": "nvidia/NVIDIA-Nemotron-Nano-9B-v2", "context": 32768}
    old = _report(**kw, overhead=VllmProfile(engine_version="0.27.1", max_num_seqs=64, enable_prefix_caching=True))
    new = _report(**kw, overhead=VllmProfile(engine_version="0.28.0", max_num_seqs=64))
    assert old.failure is None and new.failure is None
    assert old.available_kv_cache_bytes_per_gpu == new.available_kv_cache_bytes_per_gpu
    assert (old.max_concurrency, new.max_concurrency) == (pytest.approx(1.0, abs=0.01), pytest.approx(5.28, abs=0.01))


# draft_model leaves the unsupported list in 0.31.0, medusa in 0.33.0 (config/vllm.py 0.30.0 :2844-2846, 0.31.0 :3079)
DRAFT_ON_V2 = (("0.30.0", "draft"), ("0.31.0", "draft"), ("0.32.0", "medusa"), ("0.33.0", "medusa"))


@pytest.mark.parametrize("version", ["0.23.0", "0.25.1", "0.27.0", "0.29.0"])
def test_a_draft_model_or_medusa_keeps_the_release_on_model_runner_v1(version: str) -> None:
    """Model Runner V2 runs only EAGLE, EAGLE-3 and MTP of the planner's methods ("Model Runner V2 does not yet
    support speculative method ...; using the V1 model runner instead", config/vllm.py 0.22.0 :2002, 0.27.0
    :2197-2203, 0.29.0 :2566-2573): a draft model's plan warms V1's sampler and, where V1 estimates its graphs,
    counts them in the budget. Before, it was planned on V2 (Qwen3-8B with Qwen3-0.6B on an RTX 5090, 0.27.0:
    10.66 GiB of KV cache where V1 leaves 9.27)."""
    rules, llama = vllm_rules(version), get_model("meta-llama/Llama-3.1-8B").spec
    assert uses_model_runner_v2(rules, llama, "bf16", speculative="eagle3")
    assert uses_model_runner_v2(rules, llama, "bf16", speculative="mtp")
    assert not uses_model_runner_v2(rules, llama, "bf16", speculative="draft")
    assert not uses_model_runner_v2(rules, llama, "bf16", speculative="medusa")
    later = [uses_model_runner_v2(vllm_rules(v), llama, "bf16", speculative=m) for v, m in DRAFT_ON_V2]
    assert later == [False, True, False, True]
    draft = DeploymentOptions(
        speculative=SpeculativeOptions(method="draft", draft_model=get_model("Qwen/Qwen3-0.6B").spec)
    )
    eagle = DeploymentOptions(speculative=SpeculativeOptions(method="eagle3", num_speculative_tokens=1))
    if not uses_model_runner_v2(rules, get_model("Qwen/Qwen3-8B").spec, "bf16"):
        return  # a release that lists Qwen3 for V2 later
    profile = VllmProfile(engine_version=version)
    on_v1 = _report(model="Qwen/Qwen3-8B", gpu="rtx-5090", context=8192, overhead=profile, deployment=draft)
    on_v2 = _report(model="Qwen/Qwen3-8B", gpu="rtx-5090", context=8192, overhead=profile, deployment=eagle)
    assert "v2 sampler" not in " ".join(on_v1.notes) and "v2 sampler" in " ".join(on_v2.notes)
